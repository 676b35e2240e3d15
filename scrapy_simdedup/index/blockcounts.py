"""How many stored pages of one host carry each block: a host's template, learned.

Kept in the store beside the content index, so a resumed or distributed crawl knows the
templates its earlier runs and other workers saw:

    b <host hash:8> <block hash:8>  ->  pages carrying it, one byte (capped at 255)

A page is counted once, when it is stored as new: a template is what a host's distinct pages
share, so copies are not counted (a mirror's copies are judged with their original's host's
template as well). Counts are
bounded (one byte each, at most ``MAX_BLOCKS`` keys per stored page) and never decrease:
a page released by a later pipeline leaves its counts, which only ever make a block look
more like a template, never a page more like a copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mmh3

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.index.permuted import PermutedIndex

NAMESPACE = b"b"
MAX_COUNT = 255
TEMPLATE_PAGES = 3
"""A block on this many stored pages of a host is part of its template, not content."""


class BlockCounts:
    """Per-host block counts in the content index's store."""

    def __init__(self, core: PermutedIndex, seed: int) -> None:
        self._core = core
        self._seed = seed

    def _prefix(self, host: str) -> bytes:
        digest = mmh3.hash64(host.encode("utf-8", "surrogatepass"), self._seed, signed=False)[0]
        return NAMESPACE + digest.to_bytes(8, "big")

    def counts(self, host: str, blocks: Iterable[int]) -> dict[int, int]:
        """Pages of ``host`` carrying each block (absent: none)."""
        prefix, store = self._prefix(host), self._core.store
        found: dict[int, int] = {}
        for block in set(blocks):
            raw = store.get(prefix + block.to_bytes(8, "big"))
            if raw:
                found[block] = raw[0]
        return found

    def template(self, host: str, blocks: Iterable[int]) -> frozenset[int]:
        """The blocks that are part of ``host``'s template."""
        return template_of(self.counts(host, blocks))

    def count_page(
        self, host: str, blocks: Iterable[int], counts: dict[int, int] | None = None
    ) -> None:
        """One more stored page of ``host`` carries each of ``blocks``; ``counts``: theirs
        as ``counts`` just read them (saves reading them again; with a store shared by
        several crawls, a page counted meanwhile by another is then lost: counts are a
        lower bound)."""
        prefix, store = self._prefix(host), self._core.store
        with self._core.lock, store.locked():
            if counts is None:
                counts = self.counts(host, blocks)
            puts = {
                prefix + block.to_bytes(8, "big"): bytes([counts.get(block, 0) + 1])
                for block in set(blocks)
                if counts.get(block, 0) < MAX_COUNT
            }
            if puts:
                store.write(puts)


def template_of(counts: dict[int, int]) -> frozenset[int]:
    """The blocks whose counts make them part of a template."""
    return frozenset(block for block, count in counts.items() if count >= TEMPLATE_PAGES)
