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
from scrapy_simdedup.index.opening import (
    in_use,
    open_stored_index,
    stored_params,
)
from scrapy_simdedup.index.permuted import Repaired
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.leveldb import destroy, is_store
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
    location: StoreLocation | str | os.PathLike[str], *, prefix: str = DEFAULT_REDIS_PREFIX
) -> RepairReport:
    """Re-validate every entry of the index at ``location``, salvaging damaged files first.

    Raises ``StoreError`` when there is no index there, or when it is in use.
    """
    where = StoreLocation.parse(location, prefix=prefix)
    if where.kind == "memory":
        raise StoreError("a memory index lives only in the process that opened it")
    if where.kind == "redis":
        return _revalidate(where, backup=None, salvaged=False)
    folder = Path(where.address)
    if not is_store(folder):
        raise StoreError(f"there is no scrapy-simdedup index at {folder}; nothing was changed")
    if in_use(folder):
        raise StoreLockedError(f"{folder} is in use (a crawl?); repair it once nothing uses it")
    backup = str(_back_up(folder))
    try:
        stored_params(folder)
        return _revalidate(where, backup=backup, salvaged=False)
    except StoreDamagedError:
        _salvage(folder, backup)
    return _revalidate(where, backup=backup, salvaged=True)


def reset_index(
    location: StoreLocation | str | os.PathLike[str], *, prefix: str = DEFAULT_REDIS_PREFIX
) -> bool:
    """Delete the index at ``location`` and nothing else; True when there was one.

    In a folder only LevelDB's files and our marker go (a folder left empty is removed);
    in Redis only the index's own keys under ``prefix``.
    """
    where = StoreLocation.parse(location, prefix=prefix)
    if where.kind == "memory":
        return False  # gone with the process that opened it
    if where.kind == "leveldb":
        return destroy(where.address)
    store = open_store("redis", url=where.address, prefix=where.prefix)
    try:
        return store.destroy()  # type: ignore[attr-defined, no-any-return]
    finally:
        store.close()


def _revalidate(where: StoreLocation, *, backup: str | None, salvaged: bool) -> RepairReport:
    with open_stored_index(where) as index:
        content = index.repair()
        urls = index.stored_companion(keyspace.URL_INDEX)
        return RepairReport(
            index.location, backup, salvaged, content, urls.repair() if urls else None
        )


def _back_up(folder: Path) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    backup = folder.with_name(f"{folder.name}.before-repair-{stamp}")
    shutil.copytree(folder, backup, ignore=shutil.ignore_patterns("LOCK"))
    return backup


def _salvage(folder: Path, backup: str) -> None:
    """Let LevelDB rebuild its files from what is readable."""
    try:
        plyvel.repair_db(str(folder), paranoid_checks=True)
    except plyvel.Error as exc:
        raise StoreDamagedError(
            f"{folder} could not be salvaged ({exc}); the folder as it was is kept at {backup}"
        ) from None
