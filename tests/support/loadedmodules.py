"""An extension for the crawl tests: whether the crawl's process loaded numpy, in the stats."""

from __future__ import annotations

import sys
from typing import Any

from scrapy import signals

NUMPY_LOADED = "test/numpy_loaded"


class LoadedModules:
    """Sets ``NUMPY_LOADED`` when the spider closes (before Scrapy dumps the stats)."""

    def __init__(self, crawler: Any) -> None:
        self.stats = crawler.stats
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Any) -> LoadedModules:
        return cls(crawler)

    def spider_closed(self) -> None:
        self.stats.set_value(NUMPY_LOADED, "numpy" in sys.modules)
