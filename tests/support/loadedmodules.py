"""An extension for the crawl tests: whether the crawl's process loaded numpy, how many
texts it fingerprinted itself (none went to the helper: it was busy, not started yet, or
off), and how many objects were frozen out of garbage collection while it ran, in the
stats."""

from __future__ import annotations

import functools
import gc
import sys
from typing import Any

from scrapy import signals

from scrapy_simdedup.judges.content import ContentJudge

NUMPY_LOADED = "test/numpy_loaded"
FINGERPRINTED_HERE = "test/fingerprinted_in_the_crawls_process"
GC_FROZEN = "test/gc_frozen_objects"


class LoadedModules:
    """Counts ``ContentJudge.fingerprinted`` calls, and sets ``NUMPY_LOADED`` when the spider
    closes (before Scrapy dumps the stats)."""

    def __init__(self, crawler: Any) -> None:
        self.stats = crawler.stats
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        original = ContentJudge.fingerprinted

        @functools.wraps(original)
        def counted(judge: ContentJudge, *args: Any, **kwargs: Any) -> Any:
            self.stats.inc_value(FINGERPRINTED_HERE)
            return original(judge, *args, **kwargs)

        ContentJudge.fingerprinted = counted  # type: ignore[method-assign]

    @classmethod
    def from_crawler(cls, crawler: Any) -> LoadedModules:
        return cls(crawler)

    def spider_closed(self) -> None:
        self.stats.set_value(NUMPY_LOADED, "numpy" in sys.modules)
        self.stats.set_value(GC_FROZEN, gc.get_freeze_count())
