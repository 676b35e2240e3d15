"""Sphinx configuration of the scrapy-simdedup docs.

Build: ``python3 -m sphinx -W --keep-going -b html docs docs/_build/html`` (a warning fails
the build, as in CI). Pages are MyST Markdown; the settings reference is generated from
``scrapy_simdedup/config.py`` (``_ext/simdedup_settings.py``); the Python API from docstrings.
No page loads anything from the network.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

project = "scrapy-simdedup"
author = "scrapy-simdedup contributors"
copyright = "the scrapy-simdedup contributors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "simdedup_settings",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

html_theme = "furo"
html_title = "scrapy-simdedup"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}
nitpicky = False
