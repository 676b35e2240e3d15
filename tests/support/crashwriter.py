"""A writer killed with its store: every add it acknowledged must survive the crash.

``start_writer(url, acknowledged)`` adds pages to the index at ``url`` in a process, one
line in ``acknowledged`` per add the store confirmed; after the store is killed and brought
back, ``assert_acknowledged_adds_kept`` checks each of them is there, and the index whole.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from scrapy_simdedup import open_index
from tests.support import processes

ROOT = Path(__file__).resolve().parent.parent.parent
PREFIX = "crash"

_WRITER = textwrap.dedent(
    """
    import random, sys
    from scrapy_simdedup import open_index
    rng = random.Random(3)
    with open_index(sys.argv[1], prefix="crash") as index, open(sys.argv[2], "a") as out:
        for n in range(1_000_000):
            index.add(rng.getrandbits(64), f"page/{n}")
            out.write(f"{n}\\n")
            out.flush()
    """
)


def start_writer(url: str, acknowledged: Path) -> subprocess.Popen[bytes]:
    """The writer's process (it runs until its store fails)."""
    return processes.popen(
        [sys.executable, "-c", _WRITER, url, str(acknowledged)],
        stderr=subprocess.DEVNULL, cwd=ROOT,
    )  # fmt: skip


def acknowledged_adds(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line for line in path.read_text().splitlines() if line]


def assert_acknowledged_adds_kept(url: str, done: list[str], *, sharded: bool = False) -> None:
    """Each acknowledged add is there, and the index whole. On a sharded store the add in
    flight may have reached some shards and not others: at most its own entries are
    missing or orphaned, and ``repair`` makes the index whole."""
    with open_index(url, prefix=PREFIX) as index:
        for n in done:
            assert index.document(f"page/{n}") is not None, n
        verification = index.verify()
        if sharded:
            tables = len(index.design.tables)
            assert verification.missing_entries + verification.orphan_entries <= tables
            index.repair()
            verification = index.verify()
        assert verification.consistent, verification
        assert len(done) <= len(index) <= len(done) + 1  # at most the one in flight
