"""The crawl's one opened index, shared by the content pipeline and the URL middleware.

LevelDB allows a single handle per folder, so both components ask ``DedupState.for_crawler``
and get the same object; the index opens with the first ``open()`` and closes with the last
``release()``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar
from weakref import WeakKeyDictionary

from scrapy.utils.project import data_path

from scrapy_simdedup.config import SimDedupConfig
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from scrapy_simdedup.index.opening import SimHashIndex, open_index
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.leveldb import destroy

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)
_TRUE = ("1", "true", "yes", "on")


class DedupState:
    """Opens, shares and closes the crawl's index; knows where it lives."""

    _by_crawler: ClassVar[WeakKeyDictionary[Crawler, DedupState]] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler, config: SimDedupConfig) -> None:
        self.crawler = crawler
        self.config = config
        self.index: SimHashIndex | None = None
        self._users = 0

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> DedupState:
        state = cls._by_crawler.get(crawler)
        if state is None:
            config = SimDedupConfig.from_settings(crawler.settings)
            state = cls._by_crawler[crawler] = cls(crawler, config)
        return state

    def location(self) -> str:
        """Where the index lives: ``memory``, the Redis URL, SIMDEDUP_DIR/<spider>,
        JOBDIR/simdedup, or .scrapy/simdedup/<spider>."""
        if self.config.store == "memory":
            return "memory"
        if self.config.store == "redis":
            return self.config.redis_url
        spider_name = self._spider_name()
        if self.config.dir:
            return str(Path(self.config.dir).expanduser() / spider_name)
        jobdir = self.crawler.settings.get("JOBDIR")
        if jobdir:
            return str(Path(jobdir) / "simdedup")
        return data_path(f"simdedup/{spider_name}")

    def redis_prefix(self) -> str:
        return self.config.redis_prefix or f"simdedup:{self._spider_name()}"

    def _spider_name(self) -> str:
        return getattr(self.crawler.spider, "name", None) or "default"

    def open(self) -> SimHashIndex:
        """The shared index, opened (and reset, when asked) by the first caller."""
        if self.index is None:
            location = self.location()
            if self._reset_asked():
                self._reset(location)
            self.index = open_index(
                location,
                max_distance=self.config.content_max_distance,
                expected_size=self.config.expected_pages,
                tokenizer=Tokenizer(cjk=self.config.cjk, weighting=self.config.weighting),  # type: ignore[arg-type]
                sync=self.config.sync,
                memory_limit=self.config.memory_limit,
                prefix=self.redis_prefix(),
            )
            logger.info(
                "simdedup: content index at %s (%s, %s), %d pages already stored",
                location, self.config.store, self.index.design.describe(), len(self.index),
            )  # fmt: skip
        self._users += 1
        return self.index

    def release(self) -> None:
        self._users -= 1
        if self._users == 0 and self.index is not None:
            self.index.close()
            self.index = None

    def _reset(self, location: str) -> None:
        """Remove the plugin's own data at ``location``, and nothing else."""
        if self.config.store == "redis":
            store = open_store("redis", url=location, prefix=self.redis_prefix())
            try:
                store.destroy()  # type: ignore[attr-defined]
            finally:
                store.close()
            logger.info("simdedup: reset the index at %s", store.location)
        elif location != "memory" and destroy(location):
            logger.info("simdedup: reset the index at %s", location)

    def _reset_asked(self) -> bool:
        argument = getattr(self.crawler.spider, "simdedup_reset", None)
        return self.config.reset or str(argument).strip().lower() in _TRUE
