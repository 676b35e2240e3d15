"""Damaged LevelDB folders: refused without a change, then salvaged and re-validated."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from scrapy_simdedup.errors import StoreDamagedError, StoreError, StoreLockedError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.maintenance import repair_index
from scrapy_simdedup.index.marks import FetchedMarks
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.index.stores.leveldb import MARKER
from tests.support import processes
from tests.support.waits import read_line

PAGES = 3000


def _fingerprint(i: int) -> int:
    return random.Random(i).getrandbits(64)


def _two_sessions(folder: Path) -> None:
    """Pages in a table file (the first session's log, compacted on reopening) and a log."""
    with open_index(folder) as index:
        for i in range(PAGES - 100):
            index.add(_fingerprint(i), f"doc-{i}", payload=b"x" * 40)
    with open_index(folder) as index:
        for i in range(PAGES - 100, PAGES):
            index.add(_fingerprint(i), f"doc-{i}", payload=b"x" * 40)
    assert list(folder.glob("*.ldb")) and list(folder.glob("*.log"))


def _flip(pattern: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        newest = max(folder.glob(pattern), key=lambda p: p.stat().st_mtime_ns)
        data = bytearray(newest.read_bytes())
        data[len(data) // 2] ^= 0xFF
        newest.write_bytes(bytes(data))

    return damage


def _remove(pattern: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        for path in folder.glob(pattern):
            path.unlink()

    return damage


DAMAGE = {
    "flipped byte in the newest log": _flip("*.log"),
    "flipped byte in a table file": _flip("*.ldb"),
    "missing CURRENT": _remove("CURRENT"),
    "missing MANIFEST": _remove("MANIFEST-*"),
}


def _use(folder: Path) -> None:
    """What a crawl does: open, then look up every page."""
    with open_index(folder) as index:
        for i in range(PAGES):
            index.query(_fingerprint(i))


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_damage_is_refused_then_repaired(damage: Callable[[Path], None], tmp_path: Path) -> None:
    folder = tmp_path / "index"
    _two_sessions(folder)
    damage(folder)
    tables = _files(folder, "*.ldb")

    with pytest.raises(StoreDamagedError, match=str(folder)) as refused:
        _use(folder)
    assert "scrapy simdedup repair" in str(refused.value)
    # Nothing was deleted or re-created. (Opening may have compacted the log into a new
    # table, as LevelDB always does; a damaged table is only found when it is read.)
    refused_as = _files(folder, "*")
    assert tables.items() <= refused_as.items()

    report = repair_index(folder)
    assert report.salvaged and report.backup is not None
    backup = Path(report.backup)
    assert (backup / MARKER).is_file()
    assert _files(backup, "*") == refused_as  # the folder as it was, kept whole
    with open_index(folder) as index:
        assert index.verify().consistent
        assert len(index) == report.content.documents
        # Whatever LevelDB salvaged is found again: every surviving page by its own fingerprint.
        survivors = [i for i in range(PAGES) if index.document(f"doc-{i}") is not None]
        assert len(survivors) == report.content.documents >= PAGES * 0.9
        for i in survivors:
            assert f"doc-{i}" in [m.key for m in index.query(_fingerprint(i))]


def _files(folder: Path, pattern: str) -> dict[str, bytes]:
    """The folder's files but LevelDB's text log and lock, which every open touches."""
    churn = {"LOG", "LOG.old", "LOCK"}
    return {p.name: p.read_bytes() for p in folder.glob(pattern) if p.name not in churn}


def test_repair_of_a_sound_index_changes_nothing_but_reports(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    _two_sessions(folder)
    report = repair_index(folder)
    assert not report.salvaged
    assert report.backup is not None and (Path(report.backup) / MARKER).is_file()
    assert report.content.documents == PAGES
    assert (report.content.entries_added, report.content.entries_removed) == (0, 0)


def test_repair_restores_lost_table_entries_and_removes_strays(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    with open_index(folder) as index:
        for i in range(50):
            index.add(_fingerprint(i), f"doc-{i}")
        store = index._open().store
        tables = [key for key, _ in store.scan(b"t", b"u")]
        store.write({b"t\x00" + bytes(8) + b"ghost": b"", b"t\x07junk": b""}, tables[:30])
        assert not index.verify().consistent
    report = repair_index(folder)
    assert report.content.entries_added == 30
    assert report.content.entries_removed == 2
    with open_index(folder) as index:
        assert index.verify().consistent
        assert all(index.query(_fingerprint(i))[0].key == f"doc-{i}" for i in range(50))


def test_repair_never_creates_an_index(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no scrapy-simdedup index"):
        repair_index(tmp_path / "nothing")
    assert not (tmp_path / "nothing").exists()


def test_repair_refuses_a_folder_in_use(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    _two_sessions(folder)
    holder = processes.popen(
        [sys.executable, "-c", _HOLD, str(folder)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert (
            holder.stdout is not None
            and read_line(holder.stdout, 60, "the holder to open").strip() == "open"
        )
        with pytest.raises(StoreLockedError, match="in use"):
            repair_index(folder)
        assert not list(tmp_path.glob("index.before-repair-*"))
    finally:
        holder.kill()
        holder.communicate(timeout=30)


_HOLD = """
import sys, time
from scrapy_simdedup.index.opening import open_index
index = open_index(sys.argv[1])
print("open", flush=True)
time.sleep(60)
"""


def test_repair_recounts_the_urls_fetched_in_adaptive_mode(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    with open_index(folder) as index:
        marks = FetchedMarks(index.companion(keyspace.URL_INDEX, max_distance=3))
        for n in range(7):
            marks.add(f"http://a.example/{n}")
        marks.store.write({}, [keyspace.URL_INDEX + keyspace.MARK_COUNT])  # the count lost
        assert len(marks) == 0
    repair_index(folder)
    with open_index(folder) as index:
        assert len(FetchedMarks(index.companion(keyspace.URL_INDEX, max_distance=3))) == 7
