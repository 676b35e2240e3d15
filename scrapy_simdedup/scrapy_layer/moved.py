"""Pages a site moved between two crawls: the second crawl's feed holds them at their new URL.

A crawl on a store an earlier crawl filled drops a page that copies one of that crawl's
pages and requests the earlier page's URL again, so that its feed holds the page as a
re-visit (``UrlCore.verdict``). When the site moved its URLs (``/article/N`` to
``/posts/N``), that request brings nothing: a 404, a download error, or a redirect to the
new URL, which Scrapy's dupefilter refuses (this crawl fetched it already). The page's new
URL is then requested once more (``dont_filter``, ``meta["simdedup_moved_from"]`` naming
the earlier URL), and its item is kept: stored under its new URL, so that the next crawl
meets it as a re-visit. So a second crawl's feed holds each page the site serves now, once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.parts import canonical_or_none

if TYPE_CHECKING:
    from scrapy import Request

MOVED_FROM = "simdedup_moved_from"
"""``Request.meta`` key of a page's new URL requested again because its earlier URL brought
nothing: the earlier URL."""
MAX_MOVED = 100_000
"""Moved pages awaited at once; beyond, a page whose earlier URL brought nothing is not
requested again (it stays dropped, as before this rule)."""


class MovedPages:
    """The pages whose earlier URL brought nothing, requested again at their new URL and
    awaited by the content pipeline: new URL -> earlier URL, both canonical."""

    def __init__(self) -> None:
        self._awaited: dict[str, str] = {}
        self._asked: set[str] = set()

    def request_again(self, revisit: Request, copy: str, routed: Request) -> Request | None:
        """The request for ``copy`` (the page's new URL) once more, after ``revisit`` (the
        request for its earlier URL, or the redirect it led to) brought nothing; None when
        asked already. ``routed``: ``revisit`` as the spider routed it."""
        new, earlier_url = (
            canonical_or_none(copy),
            (revisit.meta.get("redirect_urls") or [revisit.url])[0],
        )
        earlier = canonical_or_none(earlier_url)
        if new is None or earlier is None or new in self._asked or len(self._asked) >= MAX_MOVED:
            return None
        self._asked.add(new)
        self._awaited[new] = earlier
        meta = {**routed.meta, MOVED_FROM: earlier_url}
        return routed.replace(url=copy, dont_filter=True, meta=meta)

    def arrived(self, key: str, original: str) -> bool:
        """Whether ``key``, judged a copy of ``original``, is a moved page awaited at its
        new URL (then no longer awaited)."""
        new = canonical_or_none(key)
        if new is None or self._awaited.get(new) != canonical_or_none(original):
            return False
        del self._awaited[new]
        return True
