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

from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.project import data_path

from scrapy_simdedup.config import SimDedupConfig
from scrapy_simdedup.errors import StoreError, StoreLockedError
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.crawls import CrawlRecord, join_crawl
from scrapy_simdedup.index.handle import SimHashIndex
from scrapy_simdedup.index.heartbeats import Heartbeats
from scrapy_simdedup.index.location import StoreLocation
from scrapy_simdedup.index.maintenance import reset_index
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.index.stores.atomic import AtomicStore
from scrapy_simdedup.scrapy_layer.gcfreeze import FrozenAtStart
from scrapy_simdedup.scrapy_layer.moved import MovedPages
from scrapy_simdedup.scrapy_layer.startup import config_for
from scrapy_simdedup.stats import STORE_ERROR_REASON

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)
_TRUE = ("1", "true", "yes", "on")


class DedupState:
    """Opens, shares and closes the crawl's index; knows where it lives."""

    _by_crawler: ClassVar[WeakKeyDictionary[Crawler, DedupState]] = WeakKeyDictionary()
    # LevelDB folders held by a crawler of this process. LevelDB's own lock only stops other
    # processes; a second crawler here would silently share the handle.
    _folders_in_use: ClassVar[dict[str, DedupState]] = {}

    def __init__(self, crawler: Crawler, config: SimDedupConfig) -> None:
        self.crawler = crawler
        self.config = config
        self.index: SimHashIndex | None = None
        self.failed = False
        self._users = 0
        self._folder: str | None = None  # the LevelDB folder claimed in _folders_in_use
        # On a store several workers share: this worker's heartbeat, and the crawl it joined.
        self.heartbeats: Heartbeats | None = None
        self.crawl: CrawlRecord | None = None
        self.frozen: FrozenAtStart | None = None  # SIMDEDUP_GC_FREEZE
        # Pages a site moved between two crawls, requested again at their new URL by the
        # URL middleware and kept by the content pipeline (``moved.py``).
        self.moved = MovedPages()

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> DedupState:
        state = cls._by_crawler.get(crawler)
        if state is None:
            config = config_for(crawler)
            state = cls._by_crawler[crawler] = cls(crawler, config)
            if config.gc_freeze:  # held here: Scrapy's signals hold receivers weakly
                state.frozen = FrozenAtStart.install(crawler)
        return state

    def location(self) -> StoreLocation:
        """Where the index lives (see ``index_location``)."""
        return index_location(self.config, self._spider_name(), self.crawler.settings.get("JOBDIR"))

    def _spider_name(self) -> str:
        return getattr(self.crawler.spider, "name", None) or "default"

    def open(self) -> SimHashIndex:
        """The shared index, opened (and reset, when asked) by the first caller.

        A failure is logged once, as one ERROR naming the store, and raised: the crawl
        stops before it fetches anything.
        """
        if self.index is None:
            try:
                self.index = self._open()
            except StoreError as exc:
                logger.error("simdedup: cannot open the index: %s", exc)
                raise
        self._users += 1
        return self.index

    def _open(self) -> SimHashIndex:
        location = self.location()
        if location.kind == "leveldb":
            self._claim_folder(location.address)
        try:
            if self._reset_asked():
                self._reset(location)
            index = open_index(
                location,
                max_distance=self.config.content_max_distance,
                expected_size=self.config.expected_pages,
                tokenizer=Tokenizer(cjk=self.config.cjk, weighting=self.config.weighting),  # type: ignore[arg-type]
                sync=self.config.sync,
                memory_limit=self.config.memory_limit,
                table_memory=self.config.table_memory_mb * 2**20,
            )
        except BaseException:
            self._unclaim_folder()
            raise
        logger.info(
            "simdedup: content index at %s (%s, %s), %d pages already stored",
            location, location.kind, index.design.describe(), len(index),
        )  # fmt: skip
        if (shared := index.shared) is not None:
            try:
                self._join(shared)
            except BaseException:
                index.close()
                self._unclaim_folder()
                raise
        return index

    def _join(self, store: AtomicStore) -> None:
        """Join the crawl of the workers running on the shared store, or start one."""
        self.heartbeats = Heartbeats(store, self.config.worker_timeout)
        joined = join_crawl(store, self.heartbeats, self.config.crawl_id)
        self.crawl = joined.record
        if joined.started:
            logger.info(
                "simdedup: crawl %s started by this worker (%s); later workers on the same "
                "index join it while one of its workers runs",
                joined.record.crawl_id,
                "SIMDEDUP_CRAWL_ID" if self.config.crawl_id else "no other worker was running",
            )
        else:
            logger.info(
                "simdedup: joined crawl %s, with %d other workers running",
                joined.record.crawl_id, joined.workers,
            )  # fmt: skip
        parked = leftover_parked(store, joined.started)
        if parked:
            logger.info(
                "simdedup: %d requests an earlier run parked (skipped on a bet it did not "
                "settle, e.g. stopped by Ctrl-C) are in the index; they are re-issued now",
                parked,
            )

    def _claim_folder(self, folder: str) -> None:
        holder = self._folders_in_use.setdefault(folder, self)
        if holder is self:
            self._folder = folder
        else:
            raise StoreLockedError(
                f"{folder} is in use by another crawler in this process. Give each crawler "
                "its own SIMDEDUP_DIR, or share one index through the Redis store."
            )

    def _unclaim_folder(self) -> None:
        if self._folder is not None:
            del self._folders_in_use[self._folder]
            self._folder = None

    def store_failed(self, exc: StoreError) -> None:
        """The store failed mid-crawl: one ERROR, and the spider closes with reason
        ``simdedup_store_error``; both components then let everything pass unchecked."""
        if self.failed:
            return
        self.failed = True
        logger.error(
            "simdedup: the index failed (%s); closing the spider. Items and requests from "
            "now on pass unchecked.",
            exc,
        )
        try:
            engine = self.crawler.engine
        except RuntimeError:  # not crawling (a script or a test driving a component)
            return
        deferred_from_coro(engine.close_spider_async(reason=STORE_ERROR_REASON))

    def release(self) -> None:
        self._users -= 1
        if self._users == 0 and self.heartbeats is not None:
            try:  # what it left parked is for the others to take; a new crawl once none runs
                self.heartbeats.leave()
            except StoreError as exc:
                logger.warning("simdedup: could not leave the crawl: %s", exc)
            self.heartbeats = None
        if self._users == 0 and self.index is not None:
            self.index.close()
            self.index = None
            self._unclaim_folder()

    def _reset(self, location: StoreLocation) -> None:
        """Remove the plugin's own data at ``location``, and nothing else."""
        if reset_index(location):
            logger.info("simdedup: reset the index at %s", location)

    def _reset_asked(self) -> bool:
        argument = getattr(self.crawler.spider, "simdedup_reset", None)
        return self.config.reset or str(argument).strip().lower() in _TRUE


def leftover_parked(store: AtomicStore, started: bool) -> int:
    """Requests parked in the index by workers of an earlier run (counted when this worker
    started the crawl: a running crawl's workers park requests all the time)."""
    if not started:
        return 0
    return sum(1 for _ in store.scan(keyspace.PARKED, keyspace.end(keyspace.PARKED)))


def index_location(
    config: SimDedupConfig, spider_name: str, jobdir: str | None = None
) -> StoreLocation:
    """Where a spider's index lives: in memory, the Redis URL (keys under
    ``redis_prefix``), SIMDEDUP_DIR/<spider>, JOBDIR/simdedup, or .scrapy/simdedup/<spider>
    in the project."""
    if config.store == "memory":
        return StoreLocation("memory")
    if config.store == "redis":
        return StoreLocation.redis(config.redis_address, redis_prefix(config, spider_name))
    if config.dir:
        return StoreLocation.folder(Path(config.dir).expanduser() / spider_name)
    if jobdir:
        return StoreLocation.folder(Path(jobdir) / "simdedup")
    return StoreLocation.folder(data_path(f"simdedup/{spider_name}"))


def redis_prefix(config: SimDedupConfig, spider_name: str) -> str:
    """The Redis key prefix of a spider's index: SIMDEDUP_REDIS_PREFIX or simdedup:<spider>."""
    return config.redis_prefix or f"simdedup:{spider_name}"
