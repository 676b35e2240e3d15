"""Pages a site moved between two crawls: the second crawl's feed holds them at their new URL.

A crawl on a store an earlier crawl filled drops a page that copies one of that crawl's
pages and requests the earlier page's URL again, so that its feed holds the page as a
re-visit (``UrlCore.verdict``). When the site moved its URLs (``/article/N`` to
``/posts/N``), the earlier URL brings nothing of its own: a 404, a download error, or a
redirect to the new URL, which Scrapy's dupefilter refuses (this crawl fetched it already).
The page at the new URL is then what the earlier URL brings now: it is kept, and stored
under its new URL, so that the next crawl meets it as a re-visit. Judged a copy already, it
is requested once more (``dont_filter``, ``meta["simdedup_moved_from"]`` naming the earlier
URL); met through the redirect (an old link still followed), it is kept when it comes. So
a second crawl's feed holds each page the site serves now, once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.parts import canonical_or_none

if TYPE_CHECKING:
    from scrapy import Request

MOVED_FROM = "simdedup_moved_from"
"""``Request.meta`` key of a page's new URL requested again because its earlier URL brought
nothing of its own: the earlier URL."""
MAX_MOVED = 100_000
"""Moved pages awaited at once; beyond, the oldest are no longer awaited (such a page stays
dropped, as before this rule), and no more are requested again."""


class MovedPages:
    """The pages whose earlier URL brought nothing of its own, awaited at their new URL by
    the content pipeline: new URL -> earlier URL, both canonical."""

    def __init__(self) -> None:
        self._awaited: dict[str, str] = {}
        self._asked: set[str] = set()

    def awaits(self, url: str, earlier_url: str) -> None:
        """A page at ``url`` that copies an earlier crawl's page at ``earlier_url`` is that
        page at its new URL (``earlier_url`` redirects to it, or brought nothing)."""
        new, earlier = canonical_or_none(url), canonical_or_none(earlier_url)
        if new is None or earlier is None or new == earlier:
            return
        self._awaited.pop(new, None)
        if len(self._awaited) >= MAX_MOVED:
            del self._awaited[next(iter(self._awaited))]
        self._awaited[new] = earlier

    def request_again(self, routed: Request, url: str, earlier_url: str) -> Request | None:
        """``routed`` for ``url`` once more, awaited as the page of ``earlier_url`` (its
        page came and was dropped as a copy before the earlier URL brought nothing); None
        when asked already."""
        new = canonical_or_none(url)
        if new is None or new in self._asked or len(self._asked) >= MAX_MOVED:
            return None
        self._asked.add(new)
        self.awaits(url, earlier_url)
        meta = {**routed.meta, MOVED_FROM: earlier_url}
        return routed.replace(url=url, dont_filter=True, meta=meta)

    def arrived(self, key: str, original: str) -> bool:
        """Whether ``key``, judged a copy of ``original``, is a moved page awaited at its
        new URL (then no longer awaited)."""
        new = canonical_or_none(key)
        if new is None or self._awaited.get(new) != canonical_or_none(original):
            return False
        del self._awaited[new]
        return True
