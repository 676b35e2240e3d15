"""Repairing a stored index: salvage a damaged LevelDB folder, then re-validate every entry.

LevelDB's own repair may have to leave out what it cannot read, and damage in a table file
shows only when it is read, so a folder is first copied aside whole
(``<folder>.before-repair-<UTC time>``); nothing is ever deleted.
Re-validation then gives every document all its table entries, removes entries that belong
to no document, and recounts. It runs on Redis stores too (without the salvage).
``reset_index`` deletes an index and nothing else.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from scrapy_simdedup.errors import StoreDamagedError, StoreError, StoreLockedError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.location import DEFAULT_REDIS_PREFIX, StoreLocation
from scrapy_simdedup.index.marks import FetchedMarks
from scrapy_simdedup.index.opening import (
    in_use,
    open_stored_index,
    stored_params,
)
from scrapy_simdedup.index.permuted import Repaired
from scrapy_simdedup.index.progress import Progress, Report
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.leveldb import TABLES, destroy, is_store
from scrapy_simdedup.index.stores.leveldb_binding import plyvel


@dataclass(frozen=True)
class RepairReport:
    """What ``repair_index`` did: ``backup`` is the copy of the folder as it was (None for
    Redis); ``salvaged`` when LevelDB had to rebuild its files from what was readable."""

    location: str
    backup: str | None
    salvaged: bool
    content: Repaired
    urls: Repaired | None

    def lines(self) -> list[str]:
        found = [f"index at {self.location}"]
        if self.backup:
            found.append(f"the folder as it was is kept at {self.backup}")
        if self.salvaged:
            found.append("damaged files found: LevelDB rebuilt the store from what was readable")
        for name, repaired in (("content", self.content), ("URLs", self.urls)):
            if repaired is not None:
                found.append(
                    f"{name}: {repaired.documents:,} documents; {repaired.entries_added:,} "
                    f"table entries restored, {repaired.entries_removed:,} stray entries "
                    f"removed, {repaired.records_removed:,} unreadable records removed"
                )
        return found


def repair_index(
    location: StoreLocation | str | os.PathLike[str],
    *,
    prefix: str = DEFAULT_REDIS_PREFIX,
    progress: Report | None = None,
) -> RepairReport:
    """Re-validate every entry of the index at ``location``, salvaging damaged files first.
    ``progress`` is handed a line for each step, and now and then within a long one.

    Raises ``StoreError`` when there is no index there, or when it is in use.
    """
    where = StoreLocation.parse(location, prefix=prefix)
    if where.kind == "memory":
        raise StoreError("a memory index lives only in the process that opened it")
    if where.kind == "redis":
        return _revalidate(where, backup=None, salvaged=False, progress=progress)
    folder = Path(where.address)
    if not is_store(folder):
        raise StoreError(f"there is no scrapy-simdedup index at {folder}; nothing was changed")
    if in_use(folder):
        raise StoreLockedError(f"{folder} is in use (a crawl?); repair it once nothing uses it")
    backup = str(_back_up(folder, progress))
    try:
        stored_params(folder)
        return _revalidate(where, backup=backup, salvaged=False, progress=progress)
    except StoreDamagedError:
        _salvage(folder, backup, progress)
    return _revalidate(where, backup=backup, salvaged=True, progress=progress)


def reset_index(
    location: StoreLocation | str | os.PathLike[str],
    *,
    prefix: str = DEFAULT_REDIS_PREFIX,
    progress: Report | None = None,
) -> bool:
    """Delete the index at ``location`` and nothing else; True when there was one.

    In a folder only LevelDB's files and our marker go (a folder left empty is removed);
    in Redis only the index's own keys under ``prefix``, unlinked at once (Redis frees
    them in the background: ``DEL`` of a big index would block it for a minute).
    """
    where = StoreLocation.parse(location, prefix=prefix)
    if where.kind == "memory":
        return False  # gone with the process that opened it
    if where.kind == "leveldb":
        return destroy(where.address)
    store = open_store("redis", url=where.address, prefix=where.prefix)
    try:
        return store.destroy(progress)  # type: ignore[attr-defined, no-any-return]
    finally:
        store.close()


def _revalidate(
    where: StoreLocation, *, backup: str | None, salvaged: bool, progress: Report | None
) -> RepairReport:
    with open_stored_index(where) as index:
        content = index.repair(_labelled(progress, "repair: content"))
        urls = index.stored_companion(keyspace.URL_INDEX)
        fixed = urls.repair(progress=_labelled(progress, "repair: URLs")) if urls else None
        if urls is not None:
            FetchedMarks(urls).recount()
        return RepairReport(index.location, backup, salvaged, content, fixed)


def _labelled(progress: Report | None, label: str) -> Report | None:
    if progress is None:
        return None
    return lambda line: progress(f"{label} {line}")


def _back_up(folder: Path, progress: Report | None) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    backup = folder.with_name(f"{folder.name}.before-repair-{stamp}")
    files = [path for path in folder.iterdir() if path.name != "LOCK"]
    if progress is not None:
        size = sum(path.stat().st_size for path in files if path.is_file())
        progress(f"repair: copying {folder} aside ({size / 1e6:,.1f} MB) to {backup}")
    copied = Progress(progress, "repair: files copied", len(files), look_every=1)

    def copy(source: str, target: str) -> object:
        copied.step()
        return shutil.copy2(source, target)

    shutil.copytree(folder, backup, ignore=shutil.ignore_patterns("LOCK"), copy_function=copy)
    copied.done()
    return backup


def _salvage(folder: Path, backup: str, progress: Report | None) -> None:
    """Let LevelDB rebuild its files from what is readable."""
    if progress is not None:
        progress(f"repair: damaged files: LevelDB rebuilds {folder} (one pass over its files)")
    try:
        plyvel.repair_db(str(folder), paranoid_checks=True, **TABLES)  # as the store writes
    except plyvel.Error as exc:
        raise StoreDamagedError(
            f"{folder} could not be salvaged ({exc}); the folder as it was is kept at {backup}"
        ) from None
