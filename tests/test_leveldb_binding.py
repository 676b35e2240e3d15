"""Both LevelDB bindings write the same store: a folder written under one opens under the other.

Both are installable side by side only on CPython 3.12 (plyvel's last wheels, plyvel-next's
first); ``.ci/run`` runs this module there with ``SIMDEDUP_REQUIRE_BINDINGS=1``, so it cannot
skip. Elsewhere it runs when both happen to be installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from tests.support import processes
from tests.support.crawls import ROOT

BINDINGS = ("plyvel", "plyvel_next")

# Runs with one binding forced (``sys.modules["plyvel"]`` is the binding's module).
_USE = """
import importlib, json, random, sys
binding, folder, action = sys.argv[1:4]
sys.modules["plyvel"] = importlib.import_module(binding)
from scrapy_simdedup.index.stores.leveldb_binding import BINDING
from scrapy_simdedup import open_index
assert BINDING == binding, BINDING
fingerprints = {f"page/{n}": random.Random(n).getrandbits(64) for n in range(500)}
with open_index(folder) as index:
    if action == "write":
        for key, fingerprint in fingerprints.items():
            index.add(fingerprint, key)
    found = sorted(m.key for fp in fingerprints.values() for m in index.query(fp ^ 0b11))
    print(json.dumps([index.seed, len(index), index.verify().consistent, found]))
"""


def _have(binding: str) -> bool:
    return importlib.util.find_spec(binding) is not None


def _use(binding: str, folder: Path, action: str) -> list[object]:
    done = processes.run(
        [sys.executable, "-c", _USE, binding, str(folder), action],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result: list[object] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize(("writer", "reader"), [BINDINGS, BINDINGS[::-1]])
def test_a_store_written_by_one_binding_opens_with_the_other(
    writer: str, reader: str, tmp_path: Path
) -> None:
    if not all(map(_have, BINDINGS)):
        message = f"needs both {' and '.join(BINDINGS)} installed (CPython 3.12)"
        if os.environ.get("SIMDEDUP_REQUIRE_BINDINGS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    written = _use(writer, tmp_path / "index", "write")
    assert written[1:3] == [500, True]
    assert _use(reader, tmp_path / "index", "read") == written


_NONE = """
import sys
sys.modules["plyvel"] = sys.modules["plyvel_next"] = None  # neither installed
import scrapy_simdedup  # the package's names load on first use
for name in ("open_index", "ContentSeenPipeline"):
    try:
        getattr(scrapy_simdedup, name)
    except ImportError as exc:
        print(name, exc)
"""


def test_without_a_binding_the_index_and_the_pipeline_say_what_to_install() -> None:
    done = processes.run(
        [sys.executable, "-c", _NONE], capture_output=True, text=True, cwd=ROOT, timeout=60,
        check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["open_index", "ContentSeenPipeline"], lines
    assert all("pip install plyvel" in line and "plyvel-next" in line for line in lines), lines
