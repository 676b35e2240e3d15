"""How much of each site a crawl knows: distinct paths queued or fetched, per host.

Of two hosts serving the same pages, one whose known paths are far fewer than the other's
and nearly all among the other's is a partial copy of it (a mirror kept for some sections),
never its original. Size alone does not tell: a large portal that copies one section of a
docs site has more paths than the docs site, but most of them are its own. Paths are
counted without their query, so session ids and sort orders do not make a site look larger.
"""

from __future__ import annotations

from collections.abc import Callable

MAX_PATHS = 5_000_000
"""Paths remembered per crawl; beyond this, sizes stop growing (fewer choices made by
size, never a wrong one by much)."""

PARTIAL_SHARE = 0.5
"""A partial copy has at most this share of the other host's known paths..."""

OWN_SHARE = 0.1
"""...and at most this share of its own paths unknown on the other host."""

MAX_SHARED = 20_000
"""URLs of one host read back from the other workers of a crawl; a host with more tells
nothing by its size (what was read is a part of it, in key order)."""

MIN_PATHS = 20
"""Sizes are compared only once the larger host has this many paths known."""


class SiteSizes:
    """Distinct paths seen per host (``add`` each URL queued or fetched)."""

    def __init__(self, limit: int = MAX_PATHS) -> None:
        self.limit = limit
        # On a crawl several workers share: the URLs of a host all of them queued. One
        # worker knows the links it parsed; the site's home page may have been another's.
        self.shared: Callable[[str, int], list[str]] | None = None
        self._count = 0
        self._per_host: dict[str, set[int]] = {}  # paths by their hash: no new strings kept

    def add(self, url: str) -> None:
        """``url`` (canonical, ``scheme://host/path?query``) was queued or fetched."""
        if self._count >= self.limit:
            return
        address = url.partition("?")[0].partition("#")[0]
        host, _, path = address.partition("://")[2].partition("/")
        known = self._per_host.get(host)
        if known is None:
            known = self._per_host[host] = set()
        hashed = hash(path)
        if hashed not in known:
            known.add(hashed)
            self._count += 1

    def paths(self, host: str) -> int:
        return len(self._per_host.get(host, ()))

    def partial_copy(self, host: str, other: str) -> bool | None:
        """Whether ``host`` is a partial copy of ``other`` (True), ``other`` of ``host``
        (False), or the paths do not tell (None). Raises ``StoreError`` when the paths
        the workers share cannot be read."""
        if self.shared is not None:
            read = self.shared(host, MAX_SHARED), self.shared(other, MAX_SHARED)
            if any(len(urls) >= MAX_SHARED for urls in read):
                return None
            for urls in read:
                for url in urls:
                    self.add(url)
        mine, theirs = self._per_host.get(host, set()), self._per_host.get(other, set())
        if max(len(mine), len(theirs)) < MIN_PATHS:
            return None
        if _within(mine, theirs):
            return True
        if _within(theirs, mine):
            return False
        return None


def _within(small: set[int], large: set[int]) -> bool:
    """``small`` is at most half of ``large``, and nearly all of it is in ``large``."""
    if not small or len(small) > PARTIAL_SHARE * len(large):
        return False
    return len(small - large) <= OWN_SHARE * len(small)
