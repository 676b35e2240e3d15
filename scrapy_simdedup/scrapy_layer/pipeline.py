"""ContentSeenPipeline: drop (or annotate) items whose text was already seen elsewhere."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.exceptions import DropItem, NotConfigured

from scrapy_simdedup import stats as keys
from scrapy_simdedup.config import SimDedupConfig
from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.fingerprint.helper.client import FingerprintHelper, HelperStoppedError
from scrapy_simdedup.fingerprint.helper.policy import helper_wanted
from scrapy_simdedup.fingerprint.stricter import stricter_text
from scrapy_simdedup.itemtext import MISSING_CONTENT_FIELDS, ItemText, item_text
from scrapy_simdedup.judges.content import TEXT_KEY, ContentJudge
from scrapy_simdedup.judges.incrawl import in_crawl
from scrapy_simdedup.judges.verdict import Verdict
from scrapy_simdedup.scrapy_layer.enabled import half_enabled_warning
from scrapy_simdedup.scrapy_layer.signals import content_released, content_verdict
from scrapy_simdedup.scrapy_layer.startup import config_for
from scrapy_simdedup.scrapy_layer.state import DedupState
from scrapy_simdedup.scrapy_layer.verdictlog import CrawlVerdictLog

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted
    from scrapy_simdedup.index.handle import SimHashIndex

logger = logging.getLogger(__name__)

CLUSTER_FIELD = "simdedup_cluster"
DISTANCE_FIELD = "simdedup_distance"
MAX_PENDING = 64
"""Texts the helper process may hold; beyond, the crawl's process fingerprints the next one."""


class NearDuplicateItem(DropItem):
    """The item's text is a confirmed copy of a stored page (or its key's second item)."""

    def __init__(self, key: str, original: str, distance: int) -> None:
        if original == key:
            message = f"a second item with key {key} in this crawl"
        else:
            message = f"near-duplicate of {original} ({distance} bits apart): {key}"
        super().__init__(message, log_level="DEBUG")
        self.original = original
        self.distance = distance


class ContentSeenPipeline:
    """Drops items whose text is a near-duplicate of a page stored earlier (this crawl or before).

    An adapter: it reads the item's text (``SIMDEDUP_CONTENT_FIELDS``, HTML reduced to text;
    an item with only a short title there is skipped, with one WARNING) and its key
    (``SIMDEDUP_KEY_FIELD``), asks the content judge (``judges/content.py``: exact text,
    SimHash and shared sentences, confirmed by similarity and one-way containment with the
    site's template left out), counts, and drops a copy with ``NearDuplicateItem`` (logged
    at DEBUG). A second item with one key in a crawl is a copy of the first; in a later
    crawl the same key is a re-visit, never a duplicate. With ``SIMDEDUP_DROP = False``
    every item is kept and gets ``simdedup_cluster`` (the first page's key) and
    ``simdedup_distance``.

    New texts are fingerprinted in a helper process when a core is free
    (``SIMDEDUP_FINGERPRINT_PROCESS``); this process looks up and decides.

    Counts everything under ``simdedup/content/...``; logs one INFO summary at close; with
    ``SIMDEDUP_VERDICT_LOG`` writes a JSON line per drop, annotation and page kept although
    near a stored one (``verdictlog.py``). A store that fails closes the spider (reason
    ``simdedup_store_error``) after one ERROR.
    """

    def __init__(
        self,
        crawler: Crawler,
        config: SimDedupConfig,
        state: DedupState,
        verdicts: CrawlVerdictLog | None = None,
    ) -> None:
        self.crawler = crawler
        self.config = config
        self.state = state
        self.verdicts = verdicts or CrawlVerdictLog(crawler, None)
        self.index: SimHashIndex | None = None
        self._annotation_warned = False
        self._missing_content_warned = False
        self._helper: FingerprintHelper | None = None
        self.judge: ContentJudge | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = config_for(crawler)
        if not config.enabled:
            raise NotConfigured("SIMDEDUP_ENABLED is False")
        idle = half_enabled_warning(crawler.settings, adaptive=config.url_mode == "adaptive")
        if idle:
            logger.warning("simdedup: %s", idle)
        verdicts = CrawlVerdictLog.for_crawler(crawler)
        pipeline = cls(crawler, config, DedupState.for_crawler(crawler), verdicts)
        # Opened now, not at open_spider: a store that cannot be used (a folder another
        # crawl holds, a damaged store) or a verdict log that cannot be written stops the
        # crawl before anything is scheduled.
        pipeline._opened(pipeline.state.open())
        verdicts.acquire()
        crawler.signals.connect(pipeline.item_dropped, signal=signals.item_dropped)
        return pipeline

    def _opened(self, index: SimHashIndex) -> None:
        self.index = index
        self.judge = ContentJudge(index, confirm_similarity=self.config.confirm_similarity)

    @property
    def _stats(self) -> Any:
        return self.crawler.stats

    def open_spider(self) -> None:
        if self.index is None:
            self._opened(self.state.open())
        assert self.index is not None
        self._stats.set_value(keys.INDEX_SIZE, len(self.index))
        self._start_helper()

    def _start_helper(self) -> None:
        """Fingerprint in a helper process when the policy wants one; else in this one."""
        if not helper_wanted(self.config.fingerprint_process):
            return
        assert self.index is not None
        self._helper = FingerprintHelper(
            self.index.tokenizer,
            self.index.seed,
            max_pending=MAX_PENDING,
            on_stop=self._helper_stopped,
        )
        self._helper.start()

    def close_spider(self) -> Any:
        """Returns an awaitable when the helper process has to be waited for."""
        if self.index is not None:
            with contextlib.suppress(StoreError):  # already reported when it failed
                self._stats.set_value(keys.INDEX_SIZE, len(self.index))
            if self.index.skipped_entries:
                self._stats.set_value(keys.INDEX_SKIPPED_ENTRIES, self.index.skipped_entries)
            self.state.release()
            self.index = self.judge = None
            self.verdicts.release()
        logger.info(keys.summary(self._stats))
        helper, self._helper = self._helper, None
        return None if helper is None else self._stop_helper(helper)

    async def _stop_helper(self, helper: FingerprintHelper) -> None:
        await helper.stop()
        if helper.cpu_seconds is not None:
            self._stats.set_value(keys.HELPER_CPU_SECONDS, round(helper.cpu_seconds, 3))

    def _helper_stopped(self, reason: str) -> None:
        logger.warning(
            "simdedup: the fingerprint helper process stopped: %s; fingerprinting in the "
            "crawl's process from now on", reason,
        )  # fmt: skip

    def process_item(self, item: Any) -> Any:
        """The item, or ``NearDuplicateItem``; an awaitable of either when the helper
        process fingerprints the text (Scrapy awaits it, other items go on meanwhile)."""
        adapter = ItemAdapter(item)
        self._stats.inc_value(keys.CONTENT_CHECKED)
        config = self.config
        fields, html = config.content_fields, config.content_html
        found = item_text(
            adapter, fields, config.max_text_chars, html, main=config.html_content == "main"
        )
        if found.skipped:
            self._stats.inc_value(keys.content_skipped(found.skipped))
            if found.skipped == MISSING_CONTENT_FIELDS:
                self._warn_missing_content(adapter)
            return item
        if found.truncated:
            self._stats.inc_value(keys.CONTENT_TRUNCATED)
        judge = self.judge
        if judge is None or self._failed:
            self._stats.inc_value(keys.content_skipped("store_unavailable"))
            return item
        try:
            exact = judge.exact_hash(found.text)
            key = judge.key_for(self._item_key(adapter), exact)
            early = judge.shortcut(exact, key)
        except StoreError as exc:
            self._store_failed(exc)
            return item
        if early is not None:
            return self._verdict(adapter, early)
        if self._helper is not None and self._helper.ready:
            return self._decide_later(adapter, found, exact, key)
        done = judge.fingerprinted(found.text, exact, found.outside)
        return self._decide(adapter, key, done, found)

    async def _decide_later(
        self, adapter: ItemAdapter, found: ItemText, exact: int, key: str
    ) -> Any:
        assert self._helper is not None and self.judge is not None
        try:
            done = await self._helper.submit(found.text, exact, found.outside)
            self._stats.inc_value(keys.CONTENT_HELPER_FINGERPRINTS)
        except HelperStoppedError:  # already logged, once
            done = self.judge.fingerprinted(found.text, exact, found.outside)
        return self._decide(adapter, key, done, found)

    def _decide(self, adapter: ItemAdapter, key: str, done: Fingerprinted, found: ItemText) -> Any:
        judge = self.judge
        if judge is None or self._failed:  # closed or failed while it was fingerprinted
            self._stats.inc_value(keys.content_skipped("store_unavailable"))
            return adapter.item

        def stricter() -> Fingerprinted | None:
            """The page's markup read again, stricter: only asked for when its extract
            adds content to another site's stored page."""
            self._stats.inc_value(keys.CONTENT_STRICTER)
            text = stricter_text(found.page, found.text)
            return judge.fingerprinted(text) if text else None

        try:
            reads_again = found.page and self.config.stricter_reading
            verdict = judge.decide(done, key, stricter=stricter if reads_again else None)
        except StoreError as exc:
            self._store_failed(exc)
            return adapter.item
        confirmation = verdict.confirmation
        if verdict.copy and confirmation is not None and confirmation.stricter:
            self._stats.inc_value(keys.CONTENT_STRICTER_COPIES)
        return self._verdict(adapter, verdict)

    def _verdict(self, adapter: ItemAdapter, verdict: Verdict) -> Any:
        if self.state.crawl is not None:  # other workers of this crawl: judges/incrawl.py
            try:
                verdict = in_crawl(verdict, self.state.crawl)
            except StoreError as exc:
                self._store_failed(exc)
                return adapter.item
        arrival = ""
        if verdict.copy and verdict.original:
            arrival = self.state.moved.arrived(verdict.key, verdict.original)
        if arrival:
            verdict = self._moved(adapter, verdict, store=arrival == "moved")
        self._count(verdict)
        key, original = verdict.key, verdict.original
        if not key.startswith(TEXT_KEY):
            self.crawler.signals.send_catch_log(content_verdict, key=key, original=original)
        if original is None or not verdict.copy:
            if verdict.unconfirmed:
                self.verdicts.verdict(verdict, "unconfirmed")
            self._annotate(adapter, key, 0)
            return adapter.item
        if self.config.drop:
            self._stats.inc_value(keys.CONTENT_DROPPED)
            self.verdicts.verdict(verdict, "dropped")
            raise NearDuplicateItem(key, original, verdict.distance)
        self._stats.inc_value(keys.CONTENT_ANNOTATED)
        self.verdicts.verdict(verdict, "annotated")
        self._annotate(adapter, original, verdict.distance)
        return adapter.item

    def _moved(self, adapter: ItemAdapter, verdict: Verdict, *, store: bool) -> Verdict:
        """A page the site moved since an earlier crawl (its earlier URL brought nothing,
        see ``moved.py``): kept, and with ``store`` stored under its new URL, so that the
        next crawl meets it as a re-visit (as a copy is: no sentences claimed, no blocks
        counted). Not ``store``: its earlier URL was down, and may be back next time."""
        self._stats.inc_value(keys.CONTENT_MOVED)
        logger.debug("simdedup: %s moved to %s: kept there", verdict.original, verdict.key)
        kept = Verdict(verdict.key, verdict.key, found_by=verdict.found_by, revisit=True)
        judge = self.judge
        if not store:
            return kept
        config = self.config
        found = item_text(
            adapter, config.content_fields, config.max_text_chars, config.content_html,
            main=config.html_content == "main",
        )  # fmt: skip
        if judge is not None and found.text:
            try:
                judge.keep_moved(judge.fingerprinted(found.text, None, found.outside), verdict.key)
            except StoreError as exc:
                self._store_failed(exc)
        return kept

    def _count(self, verdict: Verdict) -> None:
        if verdict.exact_fallback:
            self._stats.inc_value(keys.CONTENT_EXACT_FALLBACK)
        elif verdict.found_by == "exact" and verdict.copy:
            self._stats.inc_value(keys.CONTENT_EXACT_COPIES)
        if verdict.repeated_key:
            self._stats.inc_value(keys.CONTENT_REPEATED_KEYS)
        if verdict.unconfirmed:
            self._stats.inc_value(keys.CONTENT_UNCONFIRMED)
            if verdict.adds_content:
                self._stats.inc_value(keys.CONTENT_ADDS_CONTENT)
        if verdict.revisit:
            self._stats.inc_value(keys.CONTENT_REVISITS)
        elif verdict.original is None:
            self._stats.inc_value(keys.CONTENT_UNIQUE)

    def item_dropped(self, item: Any, exception: BaseException) -> None:
        """A later pipeline dropped an item this one stored: the judge forgets it, so it
        never blocks a copy of a page that was not really scraped."""
        if isinstance(exception, NearDuplicateItem) or self.judge is None or self._failed:
            return
        key = ItemAdapter(item).get(self.config.key_field)
        if not isinstance(key, str):
            return
        try:
            if self.judge.release(key):
                self._stats.inc_value(keys.CONTENT_RELEASED)
                self.crawler.signals.send_catch_log(content_released, key=key)
        except StoreError as exc:
            self._store_failed(exc)

    def _item_key(self, adapter: ItemAdapter) -> str | None:
        value = adapter.get(self.config.key_field)
        return value if isinstance(value, str) and value else None

    def _annotate(self, adapter: ItemAdapter, cluster: str, distance: int) -> None:
        if self.config.drop:
            return
        try:
            adapter[CLUSTER_FIELD] = cluster
            adapter[DISTANCE_FIELD] = distance
        except (KeyError, TypeError):
            self._stats.inc_value(keys.content_skipped("annotation_unsupported"))
            if not self._annotation_warned:
                self._annotation_warned = True
                logger.warning(
                    "simdedup: cannot annotate %s items; declare the fields %s and %s on them "
                    "(further items are only counted)",
                    type(adapter.item).__name__, CLUSTER_FIELD, DISTANCE_FIELD,
                )  # fmt: skip

    def _warn_missing_content(self, adapter: ItemAdapter) -> None:
        if self._missing_content_warned:
            return
        self._missing_content_warned = True
        logger.warning(
            "simdedup: a %s item has no text in SIMDEDUP_CONTENT_FIELDS %s but a short title; "
            "it is kept unjudged, as is every such item (counted in %s). Its fields are %s: "
            "set SIMDEDUP_CONTENT_FIELDS to those holding the page's text",
            type(adapter.item).__name__, list(self.config.content_fields),
            keys.content_skipped(MISSING_CONTENT_FIELDS), sorted(adapter.keys()),
        )  # fmt: skip

    def _store_failed(self, exc: StoreError) -> None:
        self._stats.inc_value(keys.CONTENT_STORE_ERRORS)
        self.state.store_failed(exc)

    @property
    def _failed(self) -> bool:
        return self.state.failed
