"""UrlSimHashMiddleware: skip, before download, requests that would only fetch duplicates."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.utils.asyncio import create_looping_call

from scrapy_simdedup import stats as keys
from scrapy_simdedup.config import SimDedupConfig, crawl_budget, depth_limit
from scrapy_simdedup.enabled import half_enabled_warning
from scrapy_simdedup.errors import StoreError, UrlNotCheckedError
from scrapy_simdedup.failedlinks import MIRROR_OF, FailedLinks
from scrapy_simdedup.index.heartbeats import Heartbeats
from scrapy_simdedup.index.stores.atomic import AtomicStore
from scrapy_simdedup.judges.urls import UrlJudge, fetched_before
from scrapy_simdedup.parking import ParkingLot
from scrapy_simdedup.reissue import REISSUED, SEEN, RequestBets
from scrapy_simdedup.signals import content_released, content_verdict
from scrapy_simdedup.startup import config_for
from scrapy_simdedup.state import DedupState
from scrapy_simdedup.url.deadlines import Budget, Deadlines, Progress
from scrapy_simdedup.url.parts import UrlParts, canonical_url, url_parts
from scrapy_simdedup.verdictlog import CrawlVerdictLog

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from scrapy_simdedup.url.bets import Bet
    from scrapy_simdedup.url.learner import Decision

logger = logging.getLogger(__name__)

OPT_OUT = "simdedup_dont_skip"
"""``Request.meta`` key: a request carrying it (true) is never skipped."""
SAMPLE = "simdedup_sample"
REVISIT_OF = "simdedup_revisit_of"
"""``Request.meta`` key of a page an earlier crawl kept, requested again because this crawl
met only its copies: the copy's URL."""
MAX_AWAITING_VERDICT = 10_000
"""Fetched requests remembered until their content verdict (a re-visit takes their callback)."""
ENTERING = 64
"""Requests let into the scheduler remembered until Scrapy's scheduler takes or drops them:
the engine sends ``request_dropped`` right after ``request_scheduled``, so a handful suffice
(a component scheduling from within ``request_scheduled`` nests a few)."""
COUNT_RULES_EVERY = 1.0
MAX_DEPTHS = 2_000_000
"""URLs whose depth is remembered under DEPTH_LIMIT; beyond, a counterpart's depth is
unknown and the copy is fetched."""
TICK_SECONDS = 0.25
"""How often, at most, bets' deadlines are looked at on the way to the downloader (a
response, a page fetched, looks each time: a budget in pages is spent that fast)."""
"""Seconds between updates of the rule counts in the stats while a crawl runs."""
_DOWNLOAD_META = frozenset(
    ("download_latency", "download_slot", "download_timeout", "redirect_urls",
     "redirect_reasons", "redirect_times", "redirect_ttl", "retry_times", "proxy",
     "playwright_page", SAMPLE, REISSUED, SEEN, REVISIT_OF, MIRROR_OF)
)  # fmt: skip


class PredictedDuplicate(IgnoreRequest):
    """The middleware skipped the request (``process_exception`` sees its own skips)."""


class UrlSimHashMiddleware:
    """Skips requests predicted to fetch only duplicates (``SIMDEDUP_URL_MODE``).

    It adapts ``UrlJudge`` (``scrapy_simdedup.judges.urls``) to Scrapy. ``adaptive``
    (default) applies rules learned from the content pipeline's verdicts; each skip is a
    bet, parked with its rule and counterpart (and written to the index, so an interrupted
    crawl re-issues it) and re-issued (past the dupefilter, if it had seen it) when the
    counterpart fails or is dropped, when its rule is weakened, or when the spider goes
    idle with the bet open. A link that fails on an original whose mirror's pages it
    skips is requested on the mirror (``FailedLinks``, ``meta["simdedup_mirror_of"]``).
    ``strict`` skips URLs near a fetched URL of the same host, for good (a WARNING says so).
    With ``SIMDEDUP_DROP = False`` nothing is skipped: would-be skips are only counted.

    Never skipped: ``dont_filter`` requests, failed links' copies on a mirror, redirect
    hops, requests with ``meta["simdedup_dont_skip"]``, and URLs that cannot be judged
    (counted per reason). With ``SIMDEDUP_VERDICT_LOG``, each skip, re-issue and copy
    requested is a JSON line there.
    """

    def __init__(
        self,
        crawler: Crawler,
        config: SimDedupConfig,
        state: DedupState,
        verdicts: CrawlVerdictLog | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.crawler = crawler
        self.config = config
        self.deadlines = Deadlines(budget or Budget())
        self._started = time.monotonic()  # the crawl's clock, from spider_opened
        self._next_tick = 0.0
        self._closing = False  # the budget is nearly spent: skip nothing more
        self._offsite_filters: list[OffsiteMiddleware] | None = None  # found when first asked
        self.depth_limit = 0  # Scrapy's DEPTH_LIMIT: then a counterpart's depth matters
        self._depths: dict[str, int] = {}  # with a depth limit: canonical URL -> its depth
        self.state = state
        self.verdicts = verdicts or CrawlVerdictLog(crawler, None)
        self.judge: UrlJudge | None = None
        self.bets: RequestBets | None = None
        self.revisits = False  # whether an earlier crawl's kept page may need a re-visit
        # The last requests let into the scheduler (by id; held, so no id is reused), and
        # their canonical URLs: a request the dupefilter drops next was queued here in vain.
        # Not a map of every queued request: its entries made each full garbage collection
        # of a crawl longer (issue 15).
        self._entering: dict[int, tuple[Request, str]] = {}
        self._strict_samples: set[str] = set()
        self._awaiting_verdict: dict[str, Request] = {}  # canonical URL -> how it was routed
        self._rules_counted_at = -COUNT_RULES_EVERY
        self.heartbeats: Heartbeats | None = None  # on a store several workers share
        self._pulse: Any = None  # the looping call that beats and looks for dead workers
        self._idle_since: float | None = None  # when this idle began (heartbeats' clock)
        # Re-issued at idle, their counterpart never came: URL -> the rule they were skipped on.
        self._contested: dict[str, str] = {}
        self._resumed = False  # a JOBDIR's later run, on a store of its own
        self.failed_links: FailedLinks | None = None  # adaptive mode, skipping: failed links

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = config_for(crawler)
        if not config.enabled:
            raise NotConfigured("SIMDEDUP_ENABLED is False")
        if config.url_mode == "off":
            raise NotConfigured("SIMDEDUP_URL_MODE is 'off'")
        idle = half_enabled_warning(crawler.settings, adaptive=config.url_mode == "adaptive")
        if idle:
            logger.warning("simdedup: %s", idle)
        verdicts = CrawlVerdictLog.for_crawler(crawler)
        middleware = cls(
            crawler,
            config,
            DedupState.for_crawler(crawler),
            verdicts,
            crawl_budget(crawler.settings),
        )
        middleware.depth_limit = depth_limit(crawler.settings)
        middleware.open_judge()  # a refusal (another stored distance) stops the crawl here
        verdicts.acquire()
        for handler, signal in (
            (middleware.spider_opened, signals.spider_opened),
            (middleware.spider_idle, signals.spider_idle),
            (middleware.spider_closed, signals.spider_closed),
            (middleware.request_scheduled, signals.request_scheduled),
            (middleware.request_dropped, signals.request_dropped),
            (middleware.content_verdict, content_verdict),
            (middleware.content_released, content_released),
        ):
            crawler.signals.connect(handler, signal=signal)
        return middleware

    def open_judge(self) -> None:
        index = self.state.open()
        try:
            self.judge = UrlJudge.for_crawl(
                index,
                mode=self.config.url_mode,
                max_distance=self.config.url_max_distance,
                expected_size=self.config.expected_pages,
                min_evidence=self.config.url_min_evidence,
                sample_every=self.config.url_sample_every,
            )
        except StoreError as exc:
            logger.error("simdedup: cannot open the URL index: %s", exc)
            self.state.release()
            raise
        # Only an earlier crawl's pages can need a re-visit, and a page not kept here is an
        # earlier crawl's only where no other crawl shares the store now (LevelDB is
        # locked, memory is private): otherwise no fetched request is remembered for it.
        self.revisits = len(self.judge) > 0 and self.state.location().kind != "redis"

    @property
    def _stats(self) -> Any:
        return self.crawler.stats

    def spider_opened(self) -> None:
        self._started = time.monotonic()
        if self.judge is None:
            self.open_judge()
        assert self.judge is not None and self.crawler.spider is not None
        store = self.judge.urls.store
        if isinstance(store, AtomicStore):  # shared: requests a dead worker parked are taken
            self.heartbeats = self.state.heartbeats or Heartbeats(store, self.config.worker_timeout)
            self._guarded(self.heartbeats.beat)
            self._pulse = create_looping_call(self._beat)
            self._pulse.start(max(0.25, self.config.worker_timeout / 4), now=False)
        owner = self.heartbeats.worker if self.heartbeats else ""
        lot = ParkingLot(store, self.crawler.spider, owner=owner)
        self.bets = RequestBets(
            self.crawler, lot, self.judge.enqueue, self._store_failed, reissued=self._reissued
        )
        self.judge.held = self.bets.held
        crawl = self.judge.crawl = self.state.crawl  # a crawl several workers share (issue 35)
        self.bets.crawl = crawl
        self._resumed = _resumed_job(self.crawler) and self.state.location().kind != "redis"
        if self.config.url_mode == "adaptive" and self.config.drop:
            self.failed_links = FailedLinks(
                self.crawler, self.judge, self.bets.betting_on, self.verdicts,
                routed=self._routed, guarded=self._guarded,
            )  # fmt: skip
        left = self.bets.resume()
        self._count_rules()
        logger.info(
            "simdedup: URL mode %s, %d URLs fetched before, %d stored rules on probation, "
            "%d parked requests of an interrupted crawl",
            self.config.url_mode, fetched_before(self.judge, crawl),
            len(self.judge.learner.rules()), left,
        )  # fmt: skip
        if self.config.url_mode == "strict":
            logger.warning(
                "simdedup: SIMDEDUP_URL_MODE is 'strict': requests within %d bits of a URL "
                "fetched on the same host are skipped for good, without evidence; distinct "
                "pages such as /item/17 and /item/18 can be lost. See the "
                "simdedup/url/strict/sampled_new stat for how many samples were distinct.",
                self.config.url_max_distance,
            )

    def spider_idle(self) -> None:
        """Before the crawl ends: re-issue every bet that cannot be final."""
        if self.judge is None or self.bets is None or self._failed:
            return
        self._refresh_rules()
        self._guarded(self.judge.save_rules)  # nothing comes to write them meanwhile
        for trap in self.judge.learner.stop_finite_traps():  # their bets are unsettled now
            logger.debug("simdedup: %s stopped: too few pages to be endless", trap.describe())
        unsettled = self.bets.before_idle(self.judge.learner.stands, self.judge.brought)
        if self._adopt() or unsettled:
            raise DontCloseSpider

    def _beat(self) -> None:
        """Every ``SIMDEDUP_WORKER_TIMEOUT / 4`` seconds on a shared store: tell the other
        workers this one is alive, and watch those that parked requests here."""
        if self.heartbeats is None or self.bets is None or self._failed:
            return
        try:  # an error must not end the looping call: this worker would look dead
            self._guarded(self.heartbeats.beat)
            self.bets.watch(self.heartbeats.alive)
            self._guarded(self.heartbeats.sweep)  # a killed worker leaves its crawl (issue 35)
        except Exception:
            logger.exception("simdedup: the heartbeat failed; it goes on")

    def _adopt(self) -> bool:
        """At idle on a shared store: re-issue what dead workers parked (their links were on
        pages already fetched: nothing else would bring them). True to stay open: requests
        were re-issued, or a worker that parked some has not been seen to beat since this
        one went idle (it may have died just before: known within
        ``SIMDEDUP_WORKER_TIMEOUT``)."""
        heartbeats = self.heartbeats
        if heartbeats is None or self.bets is None or self._failed:
            return False
        if self._idle_since is None:
            self._idle_since = heartbeats.clock()
        since = self._idle_since
        adopted = self.bets.adopt(heartbeats.alive, lambda worker: heartbeats.unsure(worker, since))
        for worker in adopted.dead:
            logger.info("simdedup: worker %s stopped; re-issued what it had parked", worker)
            self._guarded(heartbeats.bury, worker)
        return adopted.reissued > 0 or adopted.waiting

    def spider_closed(self, reason: str = "finished") -> None:
        if self._pulse is not None and self._pulse.running:
            self._pulse.stop()
        self._pulse = None
        if self.judge is None:
            return
        if reason == "finished" and self.bets is not None and not self._failed:
            self._stats.set_value(keys.URL_FINAL, self.bets.finished())
        if self.heartbeats is not None and not self._failed:  # after its final bets left
            self._guarded(self.heartbeats.leave)
        if not self._failed:
            self._guarded(self.judge.save_rules)
        self._count_rules()
        mirrors = [
            f"{rule.describe()}: {rule.duplicates} of {rule.duplicates + rule.uniques} "
            "checked pages duplicated"
            for rule in self.judge.learned_rules()
            if rule.kind == "mirror" and self.judge.stands(rule)
        ]
        logger.info(keys.url_summary(self._stats, mirrors))
        self.judge = None
        self.state.release()
        self.verdicts.release()

    def request_scheduled(self, request: Request) -> None:
        """Skips a request before it enters the scheduler (raising ``IgnoreRequest``)."""
        self._check(request, scheduling=True)

    def process_request(self, request: Request) -> None:
        """The backstop: checks again with what was learned while the request waited."""
        self._idle_since = None  # busy: a later idle is a new one
        self._tick()
        if not request.meta.get(SAMPLE):
            self._check(request, scheduling=False)
        elif self.judge is not None and not self._failed:
            self._stats.inc_value(keys.URL_CHECKED)  # judged when scheduled: a sample
        self._claim(request)

    def _claim(self, request: Request) -> None:
        """On a crawl several workers share, claim the URL for this fetch: a request whose
        URL a re-issue of this crawl fetches is not sent (issue 35)."""
        crawl = self.state.crawl
        if crawl is None or self.judge is None or self._failed or self._exemption(request):
            return
        if self._guarded(crawl.claim_fetch, _canonical(request.url)) is False:
            self._stats.inc_value(keys.URL_FETCHED_BY_REISSUE)
            raise PredictedDuplicate("simdedup: fetched by a re-issue of the same URL")

    def process_response(self, request: Request, response: Response) -> Response:
        self._tick(fetched=True)
        parts = self._judged_parts(request)
        if parts is not None and self.judge is not None:
            if 200 <= response.status < 300:
                self._guarded(self.judge.fetched, parts)
                self._stats.inc_value(keys.URL_FETCHED)
                self._await_verdict(parts.url, request)
            else:
                self._failed_here(request, parts)
        return response

    def _predicted(self, decision: Decision) -> bool:
        """Whether the page a mirror or parameter skip relies on is what its path promised
        (not a soft 404: a copy of another path of its host)."""
        rule, judge = decision.rule, self.judge
        if rule is None or rule.kind == "trap" or judge is None:
            return True
        return decision.counterpart not in judge.unpredicted_now

    def _as_deep(self, request: Request, decision: Decision) -> bool:
        """Under ``DEPTH_LIMIT``, whether the counterpart a skip relies on was queued no
        deeper than ``request``: else the links its page holds may lie beyond the limit on
        the original, and only this copy would bring them (counted as
        ``deeper_counterpart``; fetched). A trap's skip relies on no counterpart."""
        if not self.depth_limit or decision.counterpart is None:
            return True
        depth = int(request.meta.get("depth", 0))
        if self._depths.get(decision.counterpart, depth + 1) <= depth:
            return True
        self._stats.inc_value(keys.URL_DEEPER_COUNTERPART)
        return False

    def _offsite(self, request: Request) -> bool:
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

    def _progress(self) -> Progress:
        stats = self._stats
        return Progress(
            time.monotonic() - self._started,
            int(stats.get_value("response_received_count", 0)),
            int(stats.get_value("item_scraped_count", 0)),
        )

    def _tick(self, *, fetched: bool = False) -> None:
        """Re-issue the bets past their deadline, and all that are not final once the
        crawl's budget is nearly spent (``deadlines.py``): on each page fetched, and at most
        every ``TICK_SECONDS`` on the way to the downloader."""
        now = time.monotonic()
        if self.judge is None or self.bets is None or self._failed:
            return
        if not fetched and now < self._next_tick:
            return
        self._next_tick = now + TICK_SECONDS
        progress = self._progress()
        closing = self.deadlines.closing(progress, len(self.bets.held))
        if closing and not self._closing:
            self._stats.set_value(keys.URL_CLOSING, 1)
            logger.info(
                "simdedup: the crawl's budget is nearly spent (%s); skipped requests not yet "
                "settled are re-issued, and nothing more is skipped", self.deadlines.budget,
            )  # fmt: skip
        self._closing = closing
        self.bets.tick(
            progress.seconds, progress.pages, self.judge.learner.stands, self.judge.brought,
            closing=closing,
        )  # fmt: skip

    def process_exception(self, request: Request, exception: BaseException) -> None:
        """A download error, a timeout, or a request ignored by another component."""
        if isinstance(exception, PredictedDuplicate):
            return
        parts = self._judged_parts(request)
        if parts is not None and parts.url not in (self.bets or ()):
            self._failed_here(request, parts)

    def request_dropped(self, request: Request) -> None:
        """Scrapy's scheduler refused a request (its dupefilter): it is not queued."""
        if request.meta.get(REISSUED):  # never expected: re-issues pass dupefilters
            self._stats.inc_value(keys.URL_REISSUED_DROPPED)
        entering = self._entering.pop(id(request), None)
        if entering is None or entering[0] is not request:
            copy = request.meta.get(MIRROR_OF)
            if copy is not None and self.judge is not None:  # requested on a mirror, at hand
                self.judge.dequeue(_canonical(request.url))  # no more: it will not come
            return
        url = entering[1]
        failed_before = self._failed_before(url)
        self._counterpart_lost(url, "counterpart_dropped")
        if failed_before:
            self._follow_failed(request)

    def _failed_before(self, url: str) -> bool:
        """Whether the dupefilter dropped a link that brought no page in an earlier run of
        this JOBDIR. Queued here first (this crawl had not queued, fetched or parked it),
        so the dupefilter saw it in that run; no crawl fetched it (or it still waits in the
        JOBDIR's queue: its copy on a mirror is then fetched once more than needed)."""
        judge = self.judge
        if judge is None or self.failed_links is None or not self._resumed or self._failed:
            return False
        if url in judge.fetched_now or url in judge.lost_now:
            return False
        return self._guarded(judge.was_fetched, url) is False

    def content_released(self, key: str) -> None:
        """A later pipeline dropped ``key``'s item: it no longer covers its copies."""
        if self.judge is None or self._failed:
            return
        try:
            url = url_parts(key).url
        except UrlNotCheckedError:
            return
        self._guarded(self.judge.released, url)
        self._counterpart_lost(url, "counterpart_released")

    def content_verdict(self, key: str, original: str | None) -> None:
        """Learns from the content pipeline: ``key`` duplicated ``original`` (or was new).

        A copy of a page this crawl did not keep (one stored by an earlier crawl) brings
        nothing into this crawl's feed: the bets relying on it are re-issued.
        """
        if self.judge is None or self._failed:
            return
        if key in self._strict_samples and original != key:
            self._strict_samples.discard(key)
            copies = keys.URL_STRICT_SAMPLED_COPIES if original else keys.URL_STRICT_SAMPLED_NEW
            self._stats.inc_value(copies)
        try:
            weakened = self.judge.observe(key, original)
            url = url_parts(key).url
        except UrlNotCheckedError:
            return
        except StoreError as exc:
            self._store_failed(exc)
            return
        contested = self._contested.pop(url, None)
        if contested is not None and original is None:
            weakened = [
                *weakened,
                *(self._guarded(self.judge.learner.contradicted, contested) or []),
            ]
        routed = self._awaiting_verdict.pop(url, None)
        if original is not None and original != key and not self.judge.kept(original):
            self._counterpart_lost(url, "counterpart_not_kept")
            if routed is not None and self.config.drop and self.judge.revisitable(original):
                self._request_revisit(routed, original)
        elif original is not None and original != key and self.bets is not None:
            for fetched in (url, self._canonical(original)):  # a soft 404 and its first
                if fetched is not None and fetched in self.judge.unpredicted_now:
                    self.bets.unpredicted(fetched)
        for rule in weakened:
            reissued = self.bets.weakened(rule.identity) if self.bets else 0
            if reissued:  # a debug line per new page would cost the crawl more than its work
                logger.debug(
                    "simdedup: %s is new: %s weakened, %d parked requests re-issued",
                    key, rule.describe(), reissued,
                )  # fmt: skip
        if weakened or original not in (None, key):
            self._count_rules(every=COUNT_RULES_EVERY)

    def _check(self, request: Request, *, scheduling: bool) -> None:
        if self.judge is None or self._failed:
            if not scheduling:
                self._stats.inc_value(keys.url_unchecked("store_unavailable"))
            return
        # Counted once, on the way to the downloader (or when skipped): a request read back
        # from a JOBDIR queue was never scheduled in this run, a duplicate never goes on.
        exempt = self._exemption(request)
        if exempt:
            if not scheduling:
                self._stats.inc_value(keys.url_unchecked(exempt))
            return
        if scheduling and self._offsite(request):
            return  # OffsiteMiddleware drops it in its own handler: never queued, no counterpart
        if scheduling:  # most links a page yields were met before: their URL is enough
            try:
                url = canonical_url(request.url)
            except UrlNotCheckedError:
                return  # counted on its way to the downloader
            bets = self.bets
            if bets is not None and url in bets and not bets.linked_again(url):
                self._stats.inc_value(keys.URL_ALREADY_PARKED)
                raise PredictedDuplicate("simdedup: predicted duplicate (already parked)")
            if self.judge.covers(url):
                return  # the same URL again: the dupefilter's business, not ours
        parts = self._parts(request, count=not scheduling)
        if parts is None:
            return
        self._refresh_rules()
        try:
            decision = self.judge.decide(parts, source=_referrer(request))
        except StoreError as exc:
            self._store_failed(exc)
            return
        if (
            decision.skip
            and self.config.drop
            and not self._closing
            and self._as_deep(request, decision)
            and self._predicted(decision)
        ):
            self._skip(request, parts, decision, scheduling=scheduling)
        self._fetch(request, parts, decision, scheduling=scheduling)
        if not scheduling:  # on its way to the downloader, judged: checked, once
            self._stats.inc_value(keys.URL_CHECKED)

    def _fetch(
        self, request: Request, parts: UrlParts, decision: Decision, *, scheduling: bool
    ) -> None:
        assert self.judge is not None
        if decision.skip and scheduling:  # annotate mode, or a bet that could not be parked
            self._stats.inc_value(keys.url_would_skip(decision.reason))
        if decision.sample:
            request.meta[SAMPLE] = decision.reason
            self._stats.inc_value(keys.URL_SAMPLED)
            if decision.reason == "strict":
                self._strict_samples.add(request.url)
        if scheduling:
            self.judge.enqueue(parts.url)
            if self.depth_limit and len(self._depths) < MAX_DEPTHS:
                depth = int(request.meta.get("depth", 0))
                self._depths[parts.url] = min(depth, self._depths.get(parts.url, depth))
            entering = self._entering
            if len(entering) >= ENTERING:  # the oldest was taken or dropped long since
                del entering[next(iter(entering))]
            entering[id(request)] = (request, parts.url)

    def _skip(
        self, request: Request, parts: UrlParts, decision: Decision, *, scheduling: bool
    ) -> None:
        """Raises ``IgnoreRequest`` once the bet is parked; returns when it cannot be."""
        assert self.judge is not None and self.bets is not None and decision.rule
        rule = decision.rule
        if not scheduling:
            request.meta[SEEN] = True  # past the dupefilter: its re-issue must pass it again
        first = rule.kind == "mirror" and not self.bets.betting_on(rule.identity)
        if rule.kind != "strict":
            due = self.deadlines.due(self._progress(), pending=decision.pending)
            if not self.bets.park(request, parts.url, rule.identity, decision.counterpart, due):
                return
            self._stats.inc_value(keys.URL_PARKED)
        self._stats.inc_value(keys.url_skipped(decision.reason))
        self._stats.inc_value(keys.URL_CHECKED)  # judged and skipped: checked, once
        if decision.pending:
            self._stats.inc_value(keys.URL_PENDING)
        self.verdicts.skipped(request.url, rule, decision.counterpart, pending=decision.pending)
        logger.debug("simdedup: skipped %s (%s)", request.url, rule.describe())
        self._entering.pop(id(request), None)
        self.judge.dequeue(parts.url)  # bets relying on it now rely on this one
        if first and self.failed_links is not None:
            self.failed_links.first_bet(rule)
        raise PredictedDuplicate(f"simdedup: predicted duplicate ({decision.reason})")

    def _await_verdict(self, url: str, request: Request) -> None:
        """Remember how ``request`` was routed (callback, errback, arguments, priority, its
        own meta; not its headers, which may carry credentials) until its verdict."""
        if not self.revisits:
            return
        if len(self._awaiting_verdict) >= MAX_AWAITING_VERDICT:  # the oldest goes
            del self._awaiting_verdict[next(iter(self._awaiting_verdict))]
        self._awaiting_verdict[url] = self._routed(request)

    @staticmethod
    def _routed(request: Request) -> Request:
        """``request`` as the spider routed it: callback, errback, arguments, priority and
        its own meta, without what the download added and without headers (a Cookie or an
        Authorization a middleware set for its host)."""
        meta = {k: v for k, v in request.meta.items() if k not in _DOWNLOAD_META}
        return Request(
            request.url, callback=request.callback, errback=request.errback,
            cb_kwargs=dict(request.cb_kwargs), priority=request.priority, meta=meta,
        )  # fmt: skip

    def _request_revisit(self, copy: Request, original: str) -> None:
        """``copy`` copied ``original``, a page an earlier crawl kept and this one has not
        fetched (its links may lead only through pages skipped here): request it again,
        routed as the copy was, so that this crawl's feed holds the page as a re-visit."""
        again = copy.replace(url=original, meta={**copy.meta, REVISIT_OF: copy.url})
        self._stats.inc_value(keys.URL_REVISITS_REQUESTED)
        logger.debug("simdedup: requested %s again, %s copied it", original, copy.url)
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(again)

    def _reissued(self, bet: Bet[Request], why: str) -> None:
        rule = self.judge.learner.rule(bet.rule) if self.judge and bet.rule else None
        self.verdicts.reissued(bet.ticket.url, why, rule, bet.counterpart)
        if why == "unsettled" and bet.rule:  # its verdict tells whether the rule held
            if len(self._contested) >= MAX_AWAITING_VERDICT:  # the oldest goes
                del self._contested[next(iter(self._contested))]
            self._contested[bet.url] = bet.rule

    def _failed_here(self, request: Request, parts: UrlParts) -> None:
        """``request`` brought no page: the bets relying on it are re-issued, and its link
        is followed on the mirrors skipped as copies of its host (``FailedLinks``)."""
        self._counterpart_lost(parts.url, "counterpart_failed")
        self._follow_failed(request)

    def _follow_failed(self, request: Request) -> None:
        """``FailedLinks.failed``; an error there is logged, never raised into Scrapy (the
        response or the error is the spider's still)."""
        if self.failed_links is None:
            return
        try:
            self.failed_links.failed(request)
        except Exception:
            logger.exception("simdedup: could not follow %s on a mirror", request.url)

    def _counterpart_lost(self, url: str, why: str) -> None:
        """``url`` will not bring its page: bets relying on it are re-issued."""
        if self.judge is not None:
            self.judge.lost(url)
        if self.bets is not None:
            self.bets.lost(url, why)

    @staticmethod
    def _canonical(url: str) -> str | None:
        try:
            return canonical_url(url)
        except UrlNotCheckedError:
            return None

    def _parts(self, request: Request, *, count: bool) -> UrlParts | None:
        """``url_parts`` of the request (None: unjudgeable)."""
        try:
            return url_parts(request.url)
        except UrlNotCheckedError as exc:
            if count:
                self._stats.inc_value(keys.url_unchecked(exc.reason))
            return None

    def _judged_parts(self, request: Request) -> UrlParts | None:
        if self.judge is None or self._failed:
            return None
        return self._parts(request, count=False)

    @staticmethod
    def _exemption(request: Request) -> str:
        meta = request.meta
        if meta.get(REISSUED):
            return "reissued"
        if meta.get(MIRROR_OF):
            return "mirror_of"
        if request.dont_filter:
            return "dont_filter"
        if meta.get(OPT_OUT):
            return "opted_out"
        if meta.get("redirect_urls"):
            return "redirect"
        return ""

    def _guarded(self, action: Any, *args: Any) -> Any:
        """``action(*args)``, a store failure closing the spider (and returning None)."""
        try:
            return action(*args)
        except StoreError as exc:
            self._store_failed(exc)
            return None

    def _refresh_rules(self) -> None:
        """Rules shared by the other workers on the store (every few seconds at most);
        the bets on rules that their evidence weakened are re-issued."""
        assert self.judge is not None
        weakened = self._guarded(self.judge.refresh) or []
        for rule in weakened:
            reissued = self.bets.weakened(rule.identity) if self.bets else 0
            logger.debug(
                "simdedup: another worker saw %s fail, %d parked requests re-issued",
                rule.describe(), reissued,
            )  # fmt: skip
        if weakened:
            self._count_rules()

    def _count_rules(self, every: float = 0.0) -> None:
        """The rules in force, in the stats (at most every ``every`` seconds)."""
        if self.judge is None:
            return
        now = time.monotonic()
        if now - self._rules_counted_at < every:
            return
        self._rules_counted_at = now
        learned = self.judge.learned_rules()
        for kind, key in (
            ("mirror", keys.URL_MIRROR_HOSTS),
            ("pattern", keys.URL_PATTERNS),
            ("trap", keys.URL_TRAPS),
        ):
            self._stats.set_value(key, sum(1 for rule in learned if rule.kind == kind))

    def _store_failed(self, exc: StoreError) -> None:
        self._stats.inc_value(keys.url_unchecked("store_error"))
        self.state.store_failed(exc)

    @property
    def _failed(self) -> bool:
        return self.state.failed


def _resumed_job(crawler: Crawler) -> bool:
    """Whether this run continues an earlier run of its JOBDIR: Scrapy's dupefilter read
    the requests that run saw (asked before this run schedules any)."""
    jobdir = crawler.settings.get("JOBDIR")
    if not jobdir:
        return False
    try:
        return (Path(jobdir) / "requests.seen").stat().st_size > 0
    except OSError:
        return False


def _canonical(url: str) -> str:
    try:
        return canonical_url(url)
    except UrlNotCheckedError:
        return url


def _referrer(request: Request) -> UrlParts | None:
    """The page that linked ``request`` (its ``Referer``, set by Scrapy's
    RefererMiddleware), when it is one the URL judge can read."""
    raw = request.headers.get(b"Referer")
    if not raw:
        return None
    try:
        return url_parts(raw.decode("latin-1"))
    except (UrlNotCheckedError, ValueError):
        return None
