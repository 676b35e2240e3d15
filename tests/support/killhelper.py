"""A pipeline that kills ContentSeenPipeline's helper process mid-crawl (for the crawl tests)."""

from __future__ import annotations

import os
import signal
from typing import Any

from scrapy_simdedup.scrapy_layer.pipeline import ContentSeenPipeline


class KillHelper:
    """After ``KILL_HELPER_AFTER`` items (a setting), send the fingerprint helper
    ``KILL_HELPER_SIGNAL`` (default SIGKILL; SIGSTOP leaves it alive and silent, stuck)."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.after = crawler.settings.getint("KILL_HELPER_AFTER", 10)
        self.signal = signal.Signals[crawler.settings.get("KILL_HELPER_SIGNAL", "SIGKILL")]
        self.seen = 0

    @classmethod
    def from_crawler(cls, crawler: Any) -> KillHelper:
        return cls(crawler)

    def process_item(self, item: Any) -> Any:
        self.seen += 1
        if self.seen == self.after:
            pipelines = self.crawler.engine.scraper.itemproc.middlewares
            content = next(p for p in pipelines if isinstance(p, ContentSeenPipeline))
            pid = content._helper.pid if content._helper else None
            assert pid is not None, "no helper process to kill"
            os.kill(pid, self.signal)
        return item
