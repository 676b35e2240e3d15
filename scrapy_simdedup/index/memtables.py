"""The permuted tables of a store one process owns, held in memory as sorted arrays.

At ten million pages LevelDB's cache no longer holds the tables, and every bucket a look-up
scans is a random read (issue 37: 882 look-ups/s). Here each table is a sorted numpy array
of its permuted fingerprints (uint64), plus recent additions kept apart by bucket and merged
into the array now and then. A look-up finds, per table, the values in its bucket within
the distance bound; the index then reads from the store only the keys
``t <table> <value> *`` of those values, to learn which documents hold them (most look-ups
of a new page find none and read nothing). The store keeps the records and stays the
truth: the arrays hold no document keys, so a table entry costs 8 bytes (32 per page with
4 tables), and a value they hold in excess (a removal not merged yet, a write that failed)
only costs a read that finds nothing. A value they lacked would lose a match, so an
addition goes in before the store's write and a removal after it.

Read from the store at open (one pass over each table: about 0.7 us per entry, 3 s per
million pages measured on a loaded 2-core machine), never written anywhere: a crash loses
nothing. Bounded: past ``limit`` bytes the arrays are dropped and look-ups scan the store's
buckets, as they do on Redis. A merge briefly holds a second copy of one table's array.
"""

from __future__ import annotations

import bisect
import logging
import threading
from array import array
from collections import Counter
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.tables import BITS

if TYPE_CHECKING:
    import numpy as np

    from scrapy_simdedup.index.stores.base import Store
    from scrapy_simdedup.index.tables import TableDesign

logger = logging.getLogger(__name__)

DEFAULT_TABLE_MEMORY = 1024 * 2**20
"""1 GB (``SIMDEDUP_TABLE_MEMORY_MB``): the tables of about 33M pages with 4 tables."""
ENTRY_BYTES = 8
"""Bytes per table entry in the arrays; a page has one entry per table."""
MAX_PENDING = 1 << 16
"""Additions and removals per table kept apart before they are merged into the array (a
copy of it: about 0.1 s per table at 10M pages, so 6 us per add); about 100 bytes each
meanwhile, so at most about 26 MB with 4 tables."""
_TOP = 1 << BITS
_SMALL = 48  # buckets this small are checked in Python: numpy's calls cost more


def _numpy() -> Any:
    """numpy, imported once a table holds entries: a crawl whose index stays small (most
    of them) never loads it in its process, nor has its objects walked by every full
    garbage collection (``tests/crawl/test_crawl.py``); until then a table is an empty
    ``array`` of the same values."""
    import numpy

    return numpy


def _empty() -> array[int]:
    return array("Q")


class _Table:
    """One table: the sorted array, additions by bucket, removals not merged yet."""

    def __init__(self, shift: int, values: np.ndarray | array[int]) -> None:
        self.shift = shift
        self._hold(values)

    def _hold(self, values: np.ndarray | array[int]) -> None:
        self.array = values
        # bisect on a memoryview beats numpy's call for one value
        self.view = values if isinstance(values, array) else values.data
        # A bucket's additions: one value alone (most buckets), else a tuple. A list would be
        # an object the garbage collector walks (one per table per page until the merge);
        # ints are not tracked, and a tuple of ints stops being tracked once it was seen.
        self.added: dict[int, int | tuple[int, ...]] = {}
        self.removed: list[int] = []
        self.pending = 0

    def __len__(self) -> int:
        return len(self.array) + self.pending

    def near(self, query: int, limit: int) -> set[int]:
        """The values in ``query``'s bucket within ``limit`` bits of it."""
        low = query >> self.shift << self.shift
        start = bisect.bisect_left(self.view, low)
        stop = bisect.bisect_left(self.view, low + (1 << self.shift), start)
        large = stop - start > _SMALL and not isinstance(self.array, array)
        if large and (popcount := _popcount()) is not None:  # looked up only for large ones
            bucket = self.array[start:stop]
            np = _numpy()
            near = set(bucket[popcount(bucket ^ np.uint64(query)) <= limit].tolist())
        else:
            near = {v for v in self.view[start:stop].tolist() if (v ^ query).bit_count() <= limit}
        for value in _values(self.added.get(query >> self.shift)):
            if (value ^ query).bit_count() <= limit:
                near.add(value)
        return near

    def add(self, value: int) -> None:
        key = value >> self.shift
        held = self.added.get(key)
        self.added[key] = value if held is None else (*_values(held), value)
        self.pending += 1
        self._settle()

    def remove(self, value: int) -> None:
        key = value >> self.shift
        bucket = _values(self.added.get(key))
        if value in bucket:
            kept = list(bucket)
            kept.remove(value)
            if not kept:
                del self.added[key]
            else:
                self.added[key] = kept[0] if len(kept) == 1 else tuple(kept)
            self.pending -= 1
        else:
            self.removed.append(value)
            self._settle()

    def _settle(self) -> None:
        if self.pending + len(self.removed) < MAX_PENDING:
            return
        np = _numpy()
        merged = _without(np.asarray(self.array, dtype=np.uint64), self.removed)
        if self.pending:
            added = sorted(v for held in self.added.values() for v in _values(held))
            added = np.array(added, np.uint64)
            merged = np.insert(merged, np.searchsorted(merged, added), added)
        self._hold(merged)


class MemoryTables:
    """Every table of an index in memory; ``hits`` answers a look-up's buckets."""

    def __init__(self, design: TableDesign, limit: int) -> None:
        self.design = design
        self.limit = limit
        self.lock = threading.Lock()
        self.malformed = 0  # entries too short to hold a value, skipped when read
        self._shifts = [BITS - table.prefix_bits for table in design.tables]
        self._tables: list[_Table] | None = None

    @property
    def active(self) -> bool:
        """False once the tables outgrew ``limit`` (look-ups scan the store instead)."""
        return self._tables is not None

    def entries(self) -> int:
        """Table entries held, over all tables (removals not merged yet still count)."""
        return sum(map(len, self._tables or ()))

    def nbytes(self) -> int:
        """The arrays' size, pending additions counted as entries."""
        return self.entries() * ENTRY_BYTES

    def read(self, store: Store, namespace: bytes) -> None:
        """(Re)fill the arrays from the store's table entries: one scan per table."""
        with self.lock:
            self._tables = None
            self.malformed = 0
            tables: list[_Table] = []
            for i, shift in enumerate(self._shifts):
                # the limit is for all the tables together
                held = sum(len(table) for table in tables) * ENTRY_BYTES
                values = self._read_table(store, namespace + keyspace.TABLE + bytes([i]), held)
                if values is None:
                    return
                tables.append(_Table(shift, values))
            self._tables = tables

    def _read_table(self, store: Store, head: bytes, held: int) -> np.ndarray | array[int] | None:
        """The values of one table in key order (so sorted), None past ``limit``. Read a
        256th at a time through ``store.keys``: a scan's generator costs more than the
        read (10M pages took 44 s so)."""
        at = len(head)
        chunks = []
        for first in range(256):
            start = head + bytes([first])
            stop = head + bytes([first + 1]) if first < 255 else keyspace.end(head)
            keys = store.keys([(start, stop)])
            whole = [key for key in keys if len(key) >= at + 8]
            self.malformed += len(keys) - len(whole)
            raw = b"".join([key[at : at + 8] for key in whole])
            if raw:
                np = _numpy()
                chunks.append(np.frombuffer(raw, ">u8").astype(np.uint64))
            held += len(raw)
            if held > self.limit:
                self._give_up()
                return None
        return _numpy().concatenate(chunks) if chunks else _empty()

    def add(self, permuted: list[int]) -> None:
        """One page's values, one per table: before the store's write."""
        with self.lock:
            if self._tables is None:
                return
            for table, value in zip(self._tables, permuted, strict=True):
                table.add(value)
            if self.nbytes() > self.limit:
                self._give_up()

    def remove(self, permuted: list[int]) -> None:
        """One page's values, one per table: after the store's write."""
        with self.lock:
            if self._tables is None:
                return
            for table, value in zip(self._tables, permuted, strict=True):
                table.remove(value)

    def hits(self, permuted: list[int], limit: int) -> list[tuple[int, int]] | None:
        """(table, value) for each value in the query's bucket of each table within
        ``limit`` bits of the query's permuted fingerprint there, once each; None when
        the arrays were dropped (scan the store)."""
        with self.lock:
            if self._tables is None:
                return None
            return [
                (i, value)
                for i, (table, query) in enumerate(zip(self._tables, permuted, strict=True))
                for value in table.near(query, limit)
            ]

    def _give_up(self) -> None:
        logger.info(
            "The permuted tables outgrew their memory (%s bytes, SIMDEDUP_TABLE_MEMORY_MB); "
            "look-ups scan them in the store from now on",
            f"{self.limit:,}",
        )
        self._tables = None


def _values(held: int | tuple[int, ...] | None) -> tuple[int, ...]:
    """A bucket's additions as ``_Table.added`` holds them, as a tuple."""
    if held is None:
        return ()
    return (held,) if isinstance(held, int) else held


def _without(values: np.ndarray, removed: list[int]) -> np.ndarray:
    """``values`` with one occurrence of each of ``removed`` taken out."""
    gone: list[int] = []
    for value, count in Counter(removed).items():
        start = bisect.bisect_left(values.data, value)
        stop = start + count
        if stop <= len(values) and int(values[stop - 1]) == value:
            gone.extend(range(start, stop))
    return _numpy().delete(values, gone) if gone else values


def _popcount() -> Any:
    return getattr(_numpy(), "bitwise_count", None)  # numpy >= 2.0


_registry: WeakKeyDictionary[object, dict[bytes, MemoryTables]] = WeakKeyDictionary()
_registry_lock = threading.Lock()


def memory_tables(
    store: Store, namespace: bytes, design: TableDesign, limit: int
) -> MemoryTables | None:
    """The memory tables of the index under ``namespace`` in ``store``, read at the first
    call for that store and shared by every ``PermutedIndex`` on it (each writes through
    them, whatever its own ``limit``); None when there are none and ``limit`` is 0."""
    with _registry_lock:
        held = _registry.setdefault(store, {})
        tables = held.get(namespace)
        if tables is None and limit <= 0:
            return None
        if tables is None or tables.design != design:
            tables = held[namespace] = MemoryTables(design, limit)
            tables.read(store, namespace)
    return tables
