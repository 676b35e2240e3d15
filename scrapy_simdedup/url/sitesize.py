"""How much of each site a crawl knows: distinct paths queued or fetched, per host.

Of two hosts serving the same pages, one whose known paths are far fewer than the other's
and nearly all among the other's is a partial copy of it (a mirror kept for some sections),
never its original. Size alone does not tell: a large portal that copies one section of a
docs site has more paths than the docs site, but most of them are its own. Paths are
counted without their query, so session ids and sort orders do not make a site look larger.

Of two full copies, the one whose common pages the crawl requested fewer of is the better
copy to skip: its pages still to come are the ones a skip saves (two workers crawl both
hosts at once, and the host first found copying may be the one crawled further).
"""

from __future__ import annotations

from collections.abc import Callable

MAX_PATHS = 5_000_000
"""Paths remembered per crawl (known and requested); beyond this, sizes stop growing
(fewer choices made by size, never a wrong one by much)."""

PARTIAL_SHARE = 0.5
"""A partial copy has at most this share of the other host's known paths..."""

OWN_SHARE = 0.1
"""...and at most this share of its own paths unknown on the other host."""

MAX_SHARED = 20_000
"""URLs of one host read back from the other workers of a crawl; a host with more tells
nothing by its size (what was read is a part of it, in key order)."""

MIN_PATHS = 20
"""Sizes are compared only once the larger host has this many paths known."""

REQUESTED_SHARE = 0.8
"""A host is the one crawled less when it has at most this share of the other's requested
paths among the pair's common ones..."""

MIN_REQUESTED_LEAD = 5
"""...and at least this many fewer (a handful either way is the order of a few requests)."""


class SiteSizes:
    """Distinct paths seen per host (``add`` each URL queued or fetched)."""

    def __init__(self, limit: int = MAX_PATHS) -> None:
        self.limit = limit
        # On a crawl several workers share: the URLs of a host all of them queued. One
        # worker knows the links it parsed; the site's home page may have been another's.
        self.shared: Callable[[str, int], list[str]] | None = None
        # ...and the URLs of a host all of them sent to the downloader.
        self.shared_requested: Callable[[str, int], list[str]] | None = None
        self._count = 0
        self._per_host: dict[str, set[int]] = {}  # paths by their hash: no new strings kept
        self._requested: dict[str, set[int]] = {}

    def add(self, url: str) -> None:
        """``url`` (canonical, ``scheme://host/path?query``) was queued or fetched."""
        self._remember(self._per_host, url)

    def requested(self, url: str) -> None:
        """``url`` (canonical) went to the downloader: known, and counted as crawled."""
        self._remember(self._per_host, url)
        self._remember(self._requested, url)

    def _remember(self, per_host: dict[str, set[int]], url: str) -> None:
        if self._count >= self.limit:
            return
        address = url.partition("?")[0].partition("#")[0]
        host, _, path = address.partition("://")[2].partition("/")
        known = per_host.get(host)
        if known is None:
            known = per_host[host] = set()
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
        if not _read_shared(self.shared, (host, other), self.add):
            return None
        mine, theirs = self._per_host.get(host, set()), self._per_host.get(other, set())
        if max(len(mine), len(theirs)) < MIN_PATHS:
            return None
        if _within(mine, theirs):
            return True
        if _within(theirs, mine):
            return False
        return None

    def crawled_less(self, host: str, other: str) -> bool | None:
        """Whether, of the paths both hosts have, ``host`` has clearly fewer requested
        (fetched or on their way: True), ``other`` has (False), or neither (None). Raises
        ``StoreError`` when the requests the workers share cannot be read."""
        if not _read_shared(self.shared_requested, (host, other), self.requested):
            return None
        known_here, known_there = self._per_host.get(host, set()), self._per_host.get(other, set())
        mine = len(self._requested.get(host, set()) & known_there)
        theirs = len(self._requested.get(other, set()) & known_here)
        if theirs - mine >= MIN_REQUESTED_LEAD and mine <= REQUESTED_SHARE * theirs:
            return True
        if mine - theirs >= MIN_REQUESTED_LEAD and theirs <= REQUESTED_SHARE * mine:
            return False
        return None


def _read_shared(
    reader: Callable[[str, int], list[str]] | None,
    hosts: tuple[str, str],
    record: Callable[[str], None],
) -> bool:
    """``record`` the URLs of ``hosts`` the other workers of the crawl read back (nothing
    to read on a crawl of one worker); False when a host has more than is read back: what
    was read is a part of it, in key order, and tells nothing."""
    if reader is None:
        return True
    read = [reader(host, MAX_SHARED) for host in hosts]
    if any(len(urls) >= MAX_SHARED for urls in read):
        return False
    for urls in read:
        for url in urls:
            record(url)
    return True


def _within(small: set[int], large: set[int]) -> bool:
    """``small`` is at most half of ``large``, and nearly all of it is in ``large``."""
    if not small or len(small) > PARTIAL_SHARE * len(large):
        return False
    return len(small - large) <= OWN_SHARE * len(small)
