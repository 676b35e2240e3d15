"""How much of each site a crawl knows: distinct paths queued or fetched, per host.

Of two hosts serving the same pages, the one with far fewer paths is a partial copy of
the other (a mirror kept for some sections), never its original. Paths are counted without
their query, so session ids and sort orders do not make a site look larger.
"""

from __future__ import annotations

MAX_PATHS = 5_000_000
"""Paths remembered per crawl; beyond this, sizes stop growing (fewer choices made by
size, never a wrong one by much)."""

PARTIAL_SHARE = 0.5
"""A host whose known paths are at most this share of another's is taken for its partial
copy."""

MIN_PATHS = 20
"""Sizes are compared only once the larger host has this many paths known."""


class SiteSizes:
    """Distinct paths seen per host (``add`` each URL queued or fetched)."""

    def __init__(self, limit: int = MAX_PATHS) -> None:
        self.limit = limit
        self._paths: set[str] = set()
        self._per_host: dict[str, int] = {}

    def add(self, url: str) -> None:
        """``url`` (canonical, ``scheme://host/path?query``) was queued or fetched."""
        path = url.partition("?")[0].partition("#")[0]
        if path in self._paths or len(self._paths) >= self.limit:
            return
        self._paths.add(path)
        host = path.split("://", 1)[-1].split("/", 1)[0]
        self._per_host[host] = self._per_host.get(host, 0) + 1

    def paths(self, host: str) -> int:
        return self._per_host.get(host, 0)

    def partial_copy(self, host: str, other: str) -> bool | None:
        """Whether ``host`` is a partial copy of ``other`` (True), ``other`` of ``host``
        (False), or the sizes do not tell (None)."""
        mine, theirs = self.paths(host), self.paths(other)
        if max(mine, theirs) < MIN_PATHS:
            return None
        if mine <= PARTIAL_SHARE * theirs:
            return True
        if theirs <= PARTIAL_SHARE * mine:
            return False
        return None
