"""``OffsiteFilters``: whether Scrapy's offsite filter drops a request as it is scheduled."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler


class OffsiteFilters:
    """The crawl's ``OffsiteMiddleware`` instances (or a subclass's), found when first asked."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._offsite_filters: list[OffsiteMiddleware] | None = None  # found when first asked

    def drops(self, request: Request) -> bool:
        """Whether Scrapy's ``OffsiteMiddleware`` (or a subclass) drops ``request`` when it
        is scheduled: it does so in its own ``request_scheduled`` handler, and no
        ``request_dropped`` follows, so the URL would pass for queued here for good and
        bets would wait on a counterpart never fetched."""
        if self._offsite_filters is None:
            engine = self.crawler.engine
            downloader = getattr(engine, "downloader", None)
            manager = getattr(downloader, "middleware", None)
            found = getattr(manager, "middlewares", ())
            self._offsite_filters = [m for m in found if isinstance(m, OffsiteMiddleware)]
        spider = self.crawler.spider
        if not self._offsite_filters or spider is None:
            return False
        if request.dont_filter or request.meta.get("allow_offsite"):
            return False
        return any(not m.should_follow(request, spider) for m in self._offsite_filters)
