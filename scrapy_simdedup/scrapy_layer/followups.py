"""``FollowUps``: requests that follow a page which brought nothing of its own.

A page an earlier crawl kept, met here only through its copies, is requested again (a
re-visit, ``meta["simdedup_revisit_of"]``); when that brings nothing at its URL, the page
moved, and its new URL is requested once more (``moved.py``). A link that failed on an
original is followed on the mirrors betting on it (``FailedLinks``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy_simdedup import stats as keys
from scrapy_simdedup.scrapy_layer.crawling import engine_closing
from scrapy_simdedup.scrapy_layer.requestmeta import REVISIT_OF, routed
from scrapy_simdedup.url.parts import canonical_or_none

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_simdedup.scrapy_layer.failedlinks import FailedLinks
    from scrapy_simdedup.scrapy_layer.state import DedupState
    from scrapy_simdedup.url.core import UrlCore

# The middleware's logger: its lines keep the name users filter them by.
logger = logging.getLogger("scrapy_simdedup.scrapy_layer.middleware")


class FollowUps:
    """The follow-up requests of one opened URL core, sent to the crawler's engine.
    ``failed_links`` is None when failed links are not followed (strict mode, or
    ``SIMDEDUP_DROP = False``)."""

    def __init__(
        self,
        crawler: Crawler,
        core: UrlCore[Request],
        state: DedupState,
        failed_links: FailedLinks | None,
    ) -> None:
        self.crawler = crawler
        self.core = core
        self.state = state
        self.failed_links = failed_links

    def revisit(self, copy: Request, original: str) -> None:
        """``copy`` copied ``original``, a page an earlier crawl kept and this one has not
        fetched (its links may lead only through pages skipped here): request it again,
        routed as the copy was, so that this crawl's feed holds the page as a re-visit."""
        again = copy.replace(url=original, meta={**copy.meta, REVISIT_OF: copy.url})
        logger.debug("simdedup: requested %s again, %s copied it", original, copy.url)
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(again)

    @property
    def moves_seen(self) -> bool:
        """Whether pages an earlier crawl kept may have moved (``moved.py``): a crawl on a
        store it filled before, dropping copies (annotated, a copy is in the feed already)."""
        return self.core.revisits and self.core.drop

    def revisit_failed(self, request: Request, *, gone: bool) -> None:
        """A page an earlier crawl kept, requested again (``revisit``), brought nothing at
        its URL: gone (404, 410) or down (an error, another status). Its copy's URL is
        requested once more, and its item kept (``moved.py``)."""
        if self.moves_seen:
            self._request_moved(request, request.meta[REVISIT_OF], request.url, gone=gone)
            stats: Any = self.crawler.stats
            stats.inc_value(keys.URL_REVISITS_FAILED)

    def _request_moved(self, request: Request, url: str, earlier: str, *, gone: bool) -> None:
        """``url`` once more, its page awaited as ``earlier``'s (``moved.py``)."""
        if engine_closing(self.crawler):
            return
        again = self.state.moved.request_again(routed(request), url, earlier, gone=gone)
        if again is None:
            return
        logger.debug("simdedup: %s moved to %s: requested again", earlier, url)
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(again)

    def redirect_refused(self, request: Request) -> None:
        """The dupefilter refused the target of a redirect (this crawl fetched it): when an
        earlier crawl's page now redirects to it, the page there is that page at its new
        URL. Awaited if not judged yet; requested once more if dropped as its copy already
        (``moved.py``)."""
        hops = list(request.meta["redirect_urls"])
        copied = self.core.judge.copied(request.url)
        if copied is None or copied not in {canonical_or_none(hop) for hop in hops}:
            self.state.moved.awaits(request.url, *hops)
            return
        if request.meta.get(REVISIT_OF):
            stats: Any = self.crawler.stats
            stats.inc_value(keys.URL_REVISITS_FAILED)
        self._request_moved(request, request.url, copied, gone=True)

    def redirected(self, request: Request, hops: list[str]) -> None:
        """``request`` came (2xx) through the redirects ``hops``: a page an earlier crawl
        kept at one of them may be that page at its new URL (``moved.py``)."""
        if self.moves_seen:
            self.state.moved.awaits(request.url, *hops)

    def follow_failed(self, request: Request) -> None:
        """``FailedLinks.failed``; an error there is logged, never raised into Scrapy (the
        response or the error is the spider's still)."""
        if self.failed_links is None:
            return
        try:
            self.failed_links.failed(request)
        except Exception:
            logger.exception("simdedup: could not follow %s on a mirror", request.url)

    def follow_unpredicted(self, request: Request, urls: tuple[str, ...]) -> None:
        """``FailedLinks.unpredicted``; an error there is logged, never raised into
        Scrapy (the item is the spider's still)."""
        if self.failed_links is None:
            return
        try:
            self.failed_links.unpredicted(request, urls)
        except Exception:
            logger.exception("simdedup: could not follow %s on a mirror", request.url)
