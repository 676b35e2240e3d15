"""Scrapy components built the way Scrapy builds them, opened and always closed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_simdedup.scrapy_layer.pipeline import ContentSeenPipeline


class NewsSpider(Spider):
    name = "news"


def memory_crawler(settings: dict[str, Any] | None = None, **spider_args: Any) -> Crawler:
    """A crawler with its spider, the index in memory unless ``settings`` say otherwise."""
    crawler = get_crawler(NewsSpider, {"SIMDEDUP_STORE": "memory", **(settings or {})})
    crawler.spider = NewsSpider.from_crawler(crawler, **spider_args)
    return crawler


@contextmanager
def opened_pipeline(
    settings: dict[str, Any] | None = None, **spider_args: Any
) -> Iterator[ContentSeenPipeline]:
    crawler = memory_crawler(settings, **spider_args)
    pipeline = build_from_crawler(ContentSeenPipeline, crawler)
    pipeline.open_spider()
    try:
        yield pipeline
    finally:
        pipeline.close_spider()


def simdedup_stats(pipeline: ContentSeenPipeline) -> dict[str, Any]:
    stats = pipeline.crawler.stats
    assert stats is not None
    return {k: v for k, v in stats.get_stats().items() if k.startswith("simdedup/")}
