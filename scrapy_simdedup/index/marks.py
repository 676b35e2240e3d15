"""URLs recorded as fetched without a fingerprint: adaptive mode's record of a fetch.

Adaptive mode never looks a URL up by similarity (its rules name counterparts exactly), so
a fetched URL needs no URL SimHash and no entries in the URL index's permuted tables: one
key (``keyspace.MARK`` + URL, under the URL index's namespace) and a count. That costs a
crawl about a tenth of the fingerprint and table writes it replaces, per fetched page.

A URL a strict-mode crawl recorded stays a document of the URL index; a store holds both
kinds, and "fetched before" is either. A strict crawl on a store that adaptive crawls
filled finds no near URLs among the marks: it skips fewer, never more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.stores.atomic import GuardedWrite, shared_store

if TYPE_CHECKING:
    from scrapy_simdedup.index.permuted import PermutedIndex


class FetchedMarks:
    """``add``, ``in``, ``discard`` and ``len`` of fetched URLs, beside a permuted index."""

    def __init__(self, index: PermutedIndex) -> None:
        self.store = index.store
        self.lock = index.lock
        self._prefix = index.namespace + keyspace.MARK
        self._count = index.namespace + keyspace.MARK_COUNT
        self._atomic = shared_store(self.store)

    def add(self, url: str) -> None:
        """Record ``url`` (once: the count moves only for a new one)."""
        key = self._key(url)
        if self._atomic is not None:  # absent-then-put and the count, in one step
            self._atomic.write_if(
                GuardedWrite({key: b""}, expect={key: None}, counter=self._count, delta=1)
            )
            return
        with self.lock:
            mark, count = self.store.get_many([key, self._count])
            if mark is None:
                self.store.write({key: b"", self._count: (_number(count) + 1).to_bytes(8, "big")})

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and self.store.get(self._key(url)) is not None

    def discard(self, url: str) -> bool:
        """Forget ``url``; False when it was not recorded."""
        key = self._key(url)
        if self._atomic is not None:
            write = GuardedWrite(
                {}, deletes=[key], expect={key: b""}, counter=self._count, delta=-1
            )
            return self._atomic.write_if(write)
        with self.lock:
            if self.store.get(key) is None:
                return False
            count = max(0, len(self) - 1).to_bytes(8, "big")
            self.store.write({self._count: count}, [key])
            return True

    def recount(self) -> int:
        """Set the count to the marks stored (a repair: the count key may have been lost)."""
        with self.lock:
            found = sum(1 for _ in self.store.scan(self._prefix, keyspace.end(self._prefix)))
            self.store.write({self._count: found.to_bytes(8, "big")})
            return found

    def __len__(self) -> int:
        return _number(self.store.get(self._count))

    def _key(self, url: str) -> bytes:
        return self._prefix + url.encode("utf-8", "surrogatepass")


def _number(raw: bytes | None) -> int:
    return int.from_bytes(raw, "big") if raw else 0
