"""Exact copies of some hosts' block counts in memory, for a store one process owns.

A new page's template look-up reads the count of each of its blocks (about fifty store
reads, most of them for blocks no page had yet: issue 37). On LevelDB and in memory, only
this process writes the counts, so a host's counts read whole once (one prefix scan) stay
exact for as long as every later write of them passes through ``written``: absent from
the copy then means absent from the store, and a page's blocks are dict look-ups. A
shared store (Redis) is written by other workers too and gets no copy.

Write-through, never write-back: the store is written first, in the caller's batch (the
crash-safe order is unchanged), and the copy takes the puts only once that write is
done, so the copy never holds a count the store lacks.

Bounded: at most ``MAX_CACHED_BLOCKS`` blocks are held (about 90 bytes each, so about
22 MB). A host is copied only when it fits, making room by dropping hosts idle for
``IDLE_READS`` reads; a host that grows past the bound drops the least recently read
hosts down to three quarters of it. A host with no copy is read from the store, as it
always was. So a crawl of many large hosts at once reads the store as before, and a host
is scanned in again only once it idled or a quarter of the bound was counted anew.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace

if TYPE_CHECKING:
    from scrapy_simdedup.index.stores.base import Store

MAX_CACHED_BLOCKS = 250_000
IDLE_READS = 10_000
"""A host not read for this many reads of any host may be dropped to copy another."""
_HOST_KEY = len(keyspace.BLOCKS) + 8
_BLOCK_KEY = _HOST_KEY + 8


class _Host:
    __slots__ = ("counts", "read_at", "total")

    def __init__(self, counts: dict[int, int], total: int, read_at: int) -> None:
        self.counts = counts  # block -> pages carrying it
        self.total = total  # the host's counter: blocks counted for it
        self.read_at = read_at


class BlockCache:
    """Copies of hosts' block counts, by host prefix (``b <host hash:8>``), and of the
    store's counter; callers hold the index's lock."""

    def __init__(self, store: Store, max_blocks: int | None = None) -> None:
        self._store = store
        self.max_blocks = MAX_CACHED_BLOCKS if max_blocks is None else max_blocks
        self._hosts: OrderedDict[bytes, _Host] = OrderedDict()  # least recently read first
        self._held = 0
        self._reads = 0
        self._in_store: int | None = None

    @property
    def held(self) -> int:
        """Blocks held in memory now."""
        return self._held

    def host(self, prefix: bytes) -> _Host | None:
        """The copy of a host's counts, read from the store on first use; None when it
        does not fit (read the store instead)."""
        self._reads += 1
        found = self._hosts.get(prefix)
        if found is not None:
            found.read_at = self._reads
            self._hosts.move_to_end(prefix)
            return found
        total = _number(self._store.get(prefix))
        if not self._room(total):
            return None
        counts = {}
        for key, value in self._store.scan(prefix + bytes(8), keyspace.end(prefix)):
            if len(key) == _BLOCK_KEY and value:
                counts[int.from_bytes(key[_HOST_KEY:], "big")] = value[0]
        copied = self._hosts[prefix] = _Host(counts, total, self._reads)
        self._held += len(counts)
        return copied

    def in_store(self) -> int:
        """Blocks counted in the whole store."""
        if self._in_store is None:
            self._in_store = _number(self._store.get(keyspace.BLOCKS))
        return self._in_store

    def written(
        self, prefix: bytes, counts: dict[int, int], totals: tuple[int, int] | None
    ) -> None:
        """Take the counts of a host's blocks the store has just written, and the host's
        and the store's numbers of blocks (``totals``) when they changed."""
        if totals is not None:
            self._in_store = totals[1]
        copied = self._hosts.get(prefix)
        if copied is None:
            return
        if totals is not None:
            copied.total = totals[0]
        held = len(copied.counts)
        copied.counts.update(counts)
        grown = len(copied.counts) - held
        self._held += grown
        if grown and self._held > self.max_blocks:
            self._drop_until(self.max_blocks * 3 // 4)

    def _room(self, needed: int) -> bool:
        """Whether ``needed`` more blocks fit, once hosts idle long enough are dropped."""
        idle_before = self._reads - IDLE_READS  # read when called: tests lower it
        while self._held + needed > self.max_blocks and self._hosts:
            prefix, oldest = next(iter(self._hosts.items()))
            if oldest.read_at > idle_before:
                break
            self._drop(prefix)
        return self._held + needed <= self.max_blocks

    def _drop_until(self, size: int) -> None:
        while self._held > size and self._hosts:
            self._drop(next(iter(self._hosts)))

    def _drop(self, prefix: bytes) -> None:
        self._held -= len(self._hosts.pop(prefix).counts)


def _number(raw: bytes | None) -> int:
    return int.from_bytes(raw, "big") if raw else 0
