from __future__ import annotations

import sys
from pathlib import Path

# benchmarks/corpora.py is shared by tests and benchmarks: the real texts both use.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
