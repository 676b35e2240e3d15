"""How many stored pages of one host carry each block: a host's template, learned.

Kept in the store beside the content index, so a resumed or distributed crawl knows the
templates its earlier runs and other workers saw:

    b <host hash:8> <block hash:8>  ->  pages carrying it, one byte (capped at MAX_COUNT)
    b <host hash:8>                 ->  blocks counted for the host, 4 bytes
    b                               ->  blocks counted in the store, 4 bytes

A page is counted once, when it is stored as new: a template is what a host's distinct pages
share. Of a copy only the blocks it adds to its original are counted (a mirror's banner, a
portal's editor line: its chrome), never the content it copies. Blocks are counted by their
text with volatile tokens masked (``fingerprint/volatile.py``), so a banner whose timestamp
or visit counter changes on every request is one block. Counts never decrease: a page
released by a later pipeline leaves them.

Bounded: a host counts at most ``MAX_HOST_BLOCKS`` distinct blocks and the store at most
``MAX_STORE_BLOCKS``; beyond, blocks already counted go on being counted and new ones are
not. A template shows on a site's first pages, so it is learned before the bound; a site
first met after the store's bound is judged without a learned template (see docs/known-limits.md).

On a store this process owns (LevelDB, memory) the counts are read through an exact copy
in memory (``blockcache.py``); on Redis, which other workers write too, from the store.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import mmh3

from scrapy_simdedup.index import keyspace

if TYPE_CHECKING:
    import threading
    from collections.abc import Iterable, Iterator

    from scrapy_simdedup.index.blockcache import BlockCache
    from scrapy_simdedup.index.permuted import PermutedIndex

MAX_COUNT = 8
"""A block counted on this many pages of its host is settled: its count is no longer
raised, as no verdict reads more than ``TEMPLATE_PAGES`` of it (so a site's template is not
written again with each of its pages: issue 37). Stores of earlier versions hold counts up
to 255, which stay as they are."""
MAX_HOST_BLOCKS = 20_000
MAX_STORE_BLOCKS = 2_000_000
TEMPLATE_PAGES = 2
"""A block on this many stored pages of a host is part of its template, not content: met
again on a third page, it is the site's (a banner, a delivery block), so a mirror's banner
is its template from its third page on."""


class BlockCounts:
    """Per-host block counts in the content index's store; on a store this process owns,
    read through an exact in-memory copy (``BlockCache``) shared by every handle on it."""

    def __init__(self, core: PermutedIndex, seed: int, cache: BlockCache | None = None) -> None:
        self._core = core
        self._seed = seed
        self._cache = cache

    @property
    def lock(self) -> threading.RLock:
        """The index's thread lock: ``counting`` and the batch that writes its puts, held
        together, are one step for the threads of this process (as ``count_page`` is)."""
        return self._core.lock

    @property
    def held_in_memory(self) -> int:
        """Blocks whose counts the in-memory copy holds now (0 on a shared store)."""
        return self._cache.held if self._cache is not None else 0

    def _prefix(self, host: str) -> bytes:
        digest = mmh3.hash64(host.encode("utf-8", "surrogatepass"), self._seed, signed=False)[0]
        return keyspace.BLOCKS + digest.to_bytes(8, "big")

    def counts(self, host: str, blocks: Iterable[int]) -> dict[int, int]:
        """Pages of ``host`` carrying each block (absent: none)."""
        prefix = self._prefix(host)
        unique = set(blocks)
        if self._cache is not None:
            with self.lock:
                copied = self._cache.host(prefix)
                if copied is not None:
                    held = copied.counts
                    return {block: held[block] for block in unique if block in held}
        ordered = list(unique)
        values = self._core.store.get_many([prefix + block.to_bytes(8, "big") for block in ordered])
        return {block: raw[0] for block, raw in zip(ordered, values, strict=True) if raw}

    def template(self, host: str, blocks: Iterable[int]) -> frozenset[int]:
        """The blocks that are part of ``host``'s template."""
        return template_of(self.counts(host, blocks))

    def count_page(
        self, host: str, blocks: Iterable[int], counts: dict[int, int] | None = None
    ) -> None:
        """One more stored page of ``host`` carries each of ``blocks``; ``counts``: theirs
        as ``counts`` just read them (saves reading them again; with a store shared by
        several crawls, a page counted meanwhile by another is then lost: counts are a
        lower bound). Workers sharing a store (Redis) count without a lock, for the same
        reason: two that count one block at once may count it once, and the per-host and
        per-store limits may be passed by the blocks of the pages counted at that moment."""
        with self.counting(host, blocks, counts) as puts:  # no lock across workers: see above
            if puts:
                self._core.store.write(puts)

    @contextlib.contextmanager
    def counting(
        self, host: str, blocks: Iterable[int], counts: dict[int, int] | None = None
    ) -> Iterator[dict[bytes, bytes]]:
        """The puts ``count_page`` writes, for a caller that writes them in one batch with
        its own inside the ``with`` block (what was read meanwhile is lost the same way).
        Held under the index's lock; the in-memory copy takes the counts when the block
        ends without an error, the batch written."""
        with self.lock:
            prefix = self._prefix(host)
            raised, totals = self._counted(prefix, host, blocks, counts)
            puts = {prefix + b.to_bytes(8, "big"): bytes([n]) for b, n in raised.items()}
            if totals is not None:
                puts[prefix] = totals[0].to_bytes(4, "big")
                puts[keyspace.BLOCKS] = totals[1].to_bytes(4, "big")
            yield puts
            if self._cache is not None and puts:
                self._cache.written(prefix, raised, totals)

    def _counted(
        self, prefix: bytes, host: str, blocks: Iterable[int], counts: dict[int, int] | None
    ) -> tuple[dict[int, int], tuple[int, int] | None]:
        """Each block's count one page later, and the host's and the store's numbers of
        blocks when new ones are counted. A block at ``MAX_COUNT`` stays there."""
        unique = set(blocks)
        if counts is None:
            counts = self.counts(host, unique)
        raised = {b: counts[b] + 1 for b in unique if 0 < counts.get(b, 0) < MAX_COUNT}
        new = [b for b in unique if b not in counts]
        if not new:
            return raised, None
        in_host, in_store = self._totals(prefix)
        new = new[: max(0, min(MAX_HOST_BLOCKS - in_host, MAX_STORE_BLOCKS - in_store))]
        if not new:
            return raised, None
        raised.update(dict.fromkeys(new, 1))
        return raised, (in_host + len(new), in_store + len(new))

    def _totals(self, prefix: bytes) -> tuple[int, int]:
        """Blocks counted for the host and in the store."""
        if self._cache is not None and (copied := self._cache.host(prefix)) is not None:
            return copied.total, self._cache.in_store()
        in_host, in_store = self._core.store.get_many([prefix, keyspace.BLOCKS])
        return _number(in_host), _number(in_store)


def _number(raw: bytes | None) -> int:
    return int.from_bytes(raw, "big") if raw else 0


def template_of(counts: dict[int, int]) -> frozenset[int]:
    """The blocks whose counts make them part of a template."""
    return frozenset(block for block, count in counts.items() if count >= TEMPLATE_PAGES)
