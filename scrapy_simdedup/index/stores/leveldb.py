"""The LevelDB store (plyvel): the embedded default, one folder per index.

The folder is ours only if it holds our marker file; anything else (a folder with other
files, a LevelDB made by another program) is refused without writing a byte. A LevelDB that
fails its paranoid checks is refused too: nothing here ever re-creates or repairs a folder
that holds data. Tuned for prefix scans: a 256 MB block cache, a 32 MB write buffer and no
compression (fingerprints are random bytes that Snappy cannot shrink; skipping it made cold
queries 1.6x faster). With LevelDB's defaults queries were about 5x slower. Every table
file carries a Bloom filter (``BLOOM_BITS`` per key): most of what a new page looks up is
absent (its exact hash, sentences, blocks, URL), and the filter answers that without
reading the table, but for about 1% (``benchmarks/leveldb_misses.py``; range scans gain
nothing). Folders written without filters (by earlier versions) open as they are; the
tables LevelDB rewrites as it compacts get filters, the others keep working without.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from itertools import takewhile
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import (
    ForeignFolderError,
    StoreDamagedError,
    StoreError,
    StoreLockedError,
)
from scrapy_simdedup.index.stores.leveldb_binding import plyvel

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

MARKER = "SIMDEDUP-STORE.json"
BLOOM_BITS = 10
"""Bits per key of each table's Bloom filter: about 1% of absent keys still read a table."""
TABLES = {"compression": None, "bloom_filter_bits": BLOOM_BITS}
"""How the store's table files are written (also when ``repair`` rebuilds them)."""
_MARKER_BODY = {"format": "scrapy-simdedup leveldb store", "version": 1}


class LevelDBStore:
    """A plyvel database in ``path``; ``sync=True`` makes every write survive power loss."""

    def __init__(
        self, path: str | os.PathLike[str], *, sync: bool = False, cache_mb: int = 256
    ) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self.sync = sync
        fresh = _claim(self.path)
        self._cached_reader: plyvel.Iterator | None = None
        try:
            self._db: plyvel.DB | None = plyvel.DB(
                str(self.path),
                create_if_missing=fresh,
                paranoid_checks=True,
                lru_cache_size=cache_mb * 2**20,
                write_buffer_size=32 * 2**20,
                max_open_files=500,
                **TABLES,
            )
        except plyvel.IOError as exc:
            if "lock" in str(exc).lower():
                raise StoreLockedError(
                    f"{self.location} is open in another process; is a second crawl using the "
                    "same SIMDEDUP_DIR or JOBDIR? Give each concurrent crawl its own folder, or "
                    "share one index through the Redis store."
                ) from None
            raise StoreError(f"{self.location} cannot be opened: {exc}") from None
        except (plyvel.CorruptionError, plyvel.Error) as exc:
            raise StoreDamagedError(
                f"{self.location} is a damaged store ({exc}). Nothing was changed. Run "
                "`scrapy simdedup repair` (it keeps a copy of the folder as it was), or "
                "restore the folder from a backup."
            ) from None

    def _open(self) -> plyvel.DB:
        if self._db is None or self._db.closed:
            raise StoreError(f"{self.location} is closed")
        return self._db

    def get(self, key: bytes) -> bytes | None:
        try:
            value: bytes | None = self._open().get(key, verify_checksums=True)
        except plyvel.Error as exc:
            raise self._read_failed(exc) from exc
        return value

    def get_many(self, keys: Sequence[bytes]) -> list[bytes | None]:
        try:
            get = self._open().get
            return [get(key, verify_checksums=True) for key in keys]
        except plyvel.Error as exc:
            raise self._read_failed(exc) from exc

    def scan(self, start: bytes, stop: bytes) -> Iterator[tuple[bytes, bytes]]:
        try:
            yield from self._open().iterator(start=start, stop=stop, verify_checksums=True)
        except plyvel.Error as exc:
            raise self._read_failed(exc) from exc

    def keys(self, ranges: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
        found: list[bytes] = []
        try:
            reader = self._reader()
            for start, stop in ranges:
                reader.seek(start)
                found += takewhile(stop.__gt__, reader)
        except plyvel.Error as exc:
            raise self._read_failed(exc) from exc
        return found

    def _read_failed(self, exc: plyvel.Error) -> StoreError:
        if isinstance(exc, plyvel.CorruptionError):
            return StoreDamagedError(
                f"{self.location} is damaged ({exc}). Stop crawls using it and run "
                "`scrapy simdedup repair` (it keeps a copy of the folder as it was)."
            )
        return StoreError(f"reading {self.location} failed: {exc}")

    def _reader(self) -> plyvel.Iterator:
        """One key iterator, re-used until the next write (it reads a snapshot): creating
        a LevelDB iterator costs more than the seeks of a whole query."""
        if self._cached_reader is None:
            self._cached_reader = self._open().iterator(include_value=False, verify_checksums=True)
        return self._cached_reader

    def write(self, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> None:
        self._drop_reader()
        try:
            with self._open().write_batch(transaction=True, sync=self.sync) as batch:
                for key in deletes:
                    batch.delete(key)
                for key, value in puts.items():
                    batch.put(key, value)
        except plyvel.Error as exc:
            raise StoreError(f"writing {self.location} failed (disk full?): {exc}") from exc

    def _drop_reader(self) -> None:
        if self._cached_reader is not None:
            self._cached_reader.close()
            self._cached_reader = None

    def locked(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()  # one process owns this store

    def close(self) -> None:
        self._drop_reader()
        if self._db is not None:
            self._db.close()
            self._db = None


def _claim(path: Path) -> bool:
    """Check the folder is ours (or empty, then mark it); True when the store is new."""
    if path.exists() and not path.is_dir():
        raise ForeignFolderError(f"{path} is a file, not a folder; choose a folder for the index")
    marker = path / MARKER
    entries = {entry.name for entry in path.iterdir()} if path.exists() else set()
    if marker.name in entries:
        if _read_marker(marker) != _MARKER_BODY:
            raise ForeignFolderError(f"{marker} is not a marker this version understands")
        return entries == {marker.name}  # a crash between marking and creating
    if entries:
        what = "a LevelDB database of another program" if "CURRENT" in entries else "other files"
        raise ForeignFolderError(
            f"{path} holds {what}; scrapy-simdedup never writes into a folder it did not "
            "create. Choose an empty or new folder for the index."
        )
    path.mkdir(parents=True, exist_ok=True)
    partial = marker.with_suffix(".tmp")
    partial.write_text(json.dumps(_MARKER_BODY), "utf-8")
    partial.replace(marker)
    return True


def _read_marker(marker: Path) -> object:
    try:
        return json.loads(marker.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def is_store(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` holds a scrapy-simdedup LevelDB store (its marker file)."""
    marker = Path(path) / MARKER
    return marker.is_file() and _read_marker(marker) == _MARKER_BODY


def in_use(path: str | os.PathLike[str]) -> bool:
    """True when another process holds LevelDB's lock on the folder (an open store).

    Only ask about folders this process has not opened: releasing the probe's POSIX lock
    would release the process's own.
    """
    lock = Path(path) / "LOCK"
    try:
        fd = os.open(lock, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def destroy(path: str | os.PathLike[str]) -> bool:
    """Delete the store in ``path`` if (and only if) it is ours; True when something was deleted.

    Only LevelDB's own files and our marker go; a folder left empty is removed.
    """
    folder = Path(path)
    if not is_store(folder):
        return False
    marker = folder / MARKER
    try:
        plyvel.destroy_db(str(folder))
    except plyvel.Error as exc:
        raise StoreError(f"{folder} could not be reset: {exc}") from exc
    marker.unlink(missing_ok=True)
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return True
