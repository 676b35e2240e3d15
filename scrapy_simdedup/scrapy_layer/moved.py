"""Pages a site moved between two crawls: the second crawl's feed holds them at their new URL.

A crawl on a store an earlier crawl filled drops a page that copies one of that crawl's
pages and requests the earlier page's URL again, so that its feed holds the page as a
re-visit (``UrlCore.verdict``). When the site moved its URLs (``/article/N`` to
``/posts/N``), the earlier URL brings nothing of its own: a 404 or a 410, or a redirect to
the new URL, which Scrapy's dupefilter refuses (this crawl fetched it already). A download
error, a timeout or another status (a 503, a 403) says the earlier URL is down, not moved:
the copy is kept in this crawl's feed (plain Scrapy's has it) but not stored under its URL,
so that the next crawl, the original back, keeps one of them.
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
GONE = (404, 410)
"""The statuses of an earlier URL that say its page moved (or went)."""
MAX_EARLIER = 8
"""Earlier URLs awaited per new URL (several old links may redirect to one page)."""
MAX_MOVED = 100_000
"""Moved pages awaited at once; beyond, the oldest are no longer awaited (such a page stays
dropped, as before this rule), and no more are requested again."""


class MovedPages:
    """The pages whose earlier URL brought nothing of its own, awaited at their new URL by
    the content pipeline: new URL -> earlier URL, both canonical."""

    def __init__(self) -> None:
        self._awaited: dict[str, set[str]] = {}
        self._asked: set[str] = set()
        self._down: set[str] = set()  # new URLs whose earlier URL was down, not gone

    def awaits(self, url: str, *earlier_urls: str) -> None:
        """A page at ``url`` that copies an earlier crawl's page at one of ``earlier_urls``
        is that page at its new URL (they redirect to it, or one brought nothing)."""
        new = canonical_or_none(url)
        if new is None:
            return
        earlier = {c for u in earlier_urls if (c := canonical_or_none(u)) not in (None, new)}
        if not earlier:
            return
        if new not in self._awaited and len(self._awaited) >= MAX_MOVED:
            del self._awaited[next(iter(self._awaited))]
        held = self._awaited.setdefault(new, set())
        for one in earlier:
            if len(held) < MAX_EARLIER:
                held.add(one)

    def request_again(
        self, routed: Request, url: str, earlier_url: str, *, gone: bool = True
    ) -> Request | None:
        """``routed`` for ``url`` once more, awaited as the page of ``earlier_url`` (its
        page came and was dropped as a copy before the earlier URL brought nothing; not
        ``gone``: it was down); None when asked already."""
        new = canonical_or_none(url)
        if new is None or new in self._asked or len(self._asked) >= MAX_MOVED:
            return None
        self._asked.add(new)
        if not gone:
            self._down.add(new)
        self.awaits(url, earlier_url)
        meta = {**routed.meta, MOVED_FROM: earlier_url}
        return routed.replace(url=url, dont_filter=True, meta=meta)

    def arrived(self, key: str, original: str) -> str:
        """ "moved" when ``key``, judged a copy of ``original``, is that page at its new URL
        (keep it, and store it there), "down" when its earlier URL was down (keep it
        only), "" otherwise. Each is awaited once."""
        new = canonical_or_none(key)
        if new is None or canonical_or_none(original) not in self._awaited.get(new, ()):
            return ""
        del self._awaited[new]
        return "down" if new in self._down else "moved"
