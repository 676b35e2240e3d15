"""What the running crawl says of itself, read where Scrapy keeps it: whether its engine is
closing the spider, whether its JOBDIR resumes an earlier run, what its stats count."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


def engine_closing(crawler: Crawler) -> bool:
    """Whether the engine is closing the spider: a request sent now would go to a
    scheduler about to be closed (Scrapy signals nothing before ``spider_closed``)."""
    slot = getattr(crawler.engine, "_slot", None)
    return getattr(slot, "closing", None) is not None


def resumed_job(crawler: Crawler) -> bool:
    """Whether this run continues an earlier run of its JOBDIR: Scrapy's dupefilter read
    the requests that run saw (asked before this run schedules any)."""
    jobdir = crawler.settings.get("JOBDIR")
    if not jobdir:
        return False
    try:
        return (Path(jobdir) / "requests.seen").stat().st_size > 0
    except OSError:
        return False


def crawl_counts(crawler: Crawler) -> tuple[int, int]:
    """Pages fetched and items scraped so far, as Scrapy's stats count them."""
    stats: Any = crawler.stats
    return (
        _int(stats.get_value("response_received_count", 0)),
        _int(stats.get_value("item_scraped_count", 0)),
    )


def _int(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) else 0
