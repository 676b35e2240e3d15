"""UrlSimHashMiddleware: skip, before download, requests that would only fetch duplicates.

The decisions and each bet's life are the URL core's (``scrapy_simdedup.url.core``); this
adapter turns Scrapy's events into the core's calls, one per event, and hands its answers
to ``CoreAnswers`` (``answers.py``): a skip raised as ``IgnoreRequest``, a re-issue sent to
the engine, a line in the verdict log. Its parts are made when the spider opens
(``urlwiring.py``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider, NotConfigured

from scrapy_simdedup import stats as keys
from scrapy_simdedup.config import SimDedupConfig, crawl_budget, depth_limit
from scrapy_simdedup.scrapy_layer.answers import PredictedDuplicate, uncount_skip
from scrapy_simdedup.scrapy_layer.enabled import half_enabled_warning
from scrapy_simdedup.scrapy_layer.entering import EnteringRequests
from scrapy_simdedup.scrapy_layer.failedlinks import MIRROR_OF
from scrapy_simdedup.scrapy_layer.moved import GONE
from scrapy_simdedup.scrapy_layer.offsite import OffsiteFilters
from scrapy_simdedup.scrapy_layer.reissue import REISSUED
from scrapy_simdedup.scrapy_layer.requestmeta import REVISIT_OF, seen
from scrapy_simdedup.scrapy_layer.signals import content_released, content_verdict
from scrapy_simdedup.scrapy_layer.startup import config_for
from scrapy_simdedup.scrapy_layer.state import DedupState
from scrapy_simdedup.scrapy_layer.storeguard import crawl_store_guard
from scrapy_simdedup.scrapy_layer.urlwiring import open_url_judge, revisits_possible, wire_url_core
from scrapy_simdedup.scrapy_layer.verdictlog import CrawlVerdictLog
from scrapy_simdedup.url.actions import FETCH, Skip
from scrapy_simdedup.url.deadlines import Budget
from scrapy_simdedup.url.judge import fetched_before

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from scrapy_simdedup.index.heartbeats import Heartbeats
    from scrapy_simdedup.scrapy_layer.answers import CoreAnswers
    from scrapy_simdedup.scrapy_layer.followups import FollowUps
    from scrapy_simdedup.scrapy_layer.workers import SharedCrawlWorkers
    from scrapy_simdedup.url.core import UrlCore
    from scrapy_simdedup.url.judge import UrlJudge

__all__ = ["PredictedDuplicate", "UrlSimHashMiddleware"]  # PredictedDuplicate: answers.py

logger = logging.getLogger(__name__)

MAX_RULES_LOGGED = 1_000
"""URL rules in force written to the verdict log at the crawl's end (``url_rule``), at most."""


class UrlSimHashMiddleware:
    """Skips requests predicted to fetch only duplicates (``SIMDEDUP_URL_MODE``).

    ``adaptive`` (default) applies rules learned from the content pipeline's verdicts; each
    skip is a bet, parked with its rule and counterpart (and written to the index, so an
    interrupted crawl re-issues it) and re-issued (past the dupefilter, if it had seen it)
    when the evidence turns (see ``scrapy_simdedup.url.core``). A link that fails on an
    original whose mirror's pages it skips is requested on the mirror (``FailedLinks``,
    ``meta["simdedup_mirror_of"]``). ``strict`` skips URLs near a fetched URL of the same
    host, for good (a WARNING says so). With ``SIMDEDUP_DROP = False`` nothing is skipped:
    would-be skips are only counted.

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
        self.budget = budget or Budget()
        self.depth_limit = 0  # Scrapy's DEPTH_LIMIT: then a counterpart's depth matters
        self.state = state
        self.verdicts = verdicts or CrawlVerdictLog(crawler, None)
        self.guard = crawl_store_guard(crawler, state)
        self.judge: UrlJudge | None = None
        self.core: UrlCore[Request] | None = None
        self.answers: CoreAnswers | None = None  # with the core: its answers carried out
        self.follow_ups: FollowUps | None = None  # with the core: re-visits, moved pages
        self.revisits = False  # whether an earlier crawl's kept page may need a re-visit
        self.offsite = OffsiteFilters(crawler)
        self.entering = EnteringRequests()
        self.workers: SharedCrawlWorkers | None = None  # on a store several workers share

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
        self.judge = open_url_judge(self.state, self.config)
        self.revisits = revisits_possible(self.judge)

    @property
    def _stats(self) -> Any:
        return self.crawler.stats

    @property
    def heartbeats(self) -> Heartbeats | None:
        """This worker's heartbeats, on a store several workers share."""
        return self.workers.heartbeats if self.workers is not None else None

    # -- Scrapy's events, each one call of the core ---------------------------------------

    def spider_opened(self) -> None:
        if self.judge is None:
            self.open_judge()
        assert self.judge is not None and self.crawler.spider is not None
        wired = wire_url_core(
            self.crawler, self.config, self.state, self.judge, guard=self.guard,
            verdicts=self.verdicts, entering=self.entering, budget=self.budget,
            depth_limit=self.depth_limit, revisits=self.revisits,
        )  # fmt: skip
        core = self.core = wired.core
        self.answers, self.follow_ups, self.workers = wired.answers, wired.follow_ups, wired.workers
        if self.judge.urls.shared is not None and self.config.url_risk > 0:
            logger.warning(
                "simdedup: SIMDEDUP_URL_RISK = %s is not applied on a store workers share "
                "(their samples are not shared yet): a new page ends a URL rule, as at 0",
                self.config.url_risk,
            )
        left = self.guard(core.opened) or 0
        self._count_workers()
        if self.workers is not None:  # deadlines are looked at as requests go by
            self.workers.start(max(0.25, self.config.worker_timeout / 4))
        logger.info(
            "simdedup: URL mode %s, %d URLs fetched before, %d stored rules on probation, "
            "%d parked requests of an interrupted crawl",
            self.config.url_mode, fetched_before(self.judge),
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

    def request_scheduled(self, request: Request) -> None:
        """Skips a request before it enters the scheduler (raising ``IgnoreRequest``)."""
        core, answers = self.core, self.answers
        if core is None or answers is None or core.met_again(request.url):
            return
        met = seen(request, scheduling=True, offsite=self.offsite.drops)
        answer = self.guard(core.scheduled, met) or FETCH
        if isinstance(answer, Skip):
            answers.skipped(request, answer)
        if not isinstance(answer, Skip) and answer.queued:  # to be taken or dropped next
            self.entering.let_in(request)
        answers.fetching(request, answer)

    def process_request(self, request: Request) -> None:
        """The backstop: checks again with what was learned while the request waited."""
        if self.workers is not None:
            self.workers.busy()
        core, answers = self.core, self.answers
        if core is None or answers is None:  # no URL index (not opened yet, or closed)
            self._stats.inc_value(keys.url_unchecked("store_unavailable"))
            return
        answers.carry_out(core.tick())
        self._count_workers()
        met = seen(request, scheduling=False, offsite=self.offsite.drops)
        answer = core.downloading(met)
        if isinstance(answer, Skip):
            answers.skipped(request, answer)
        answers.fetching(request, answer)
        if not met.exempt and not core.claim_fetch(request.url):
            raise PredictedDuplicate("simdedup: fetched by a re-issue of the same URL")

    def process_response(self, request: Request, response: Response) -> Response:
        if not 200 <= response.status < 300 and request.meta.get(REVISIT_OF):
            self._revisit_failed(request, gone=response.status in GONE)
        if self.core is not None and self.answers is not None:
            self.answers.carry_out(
                self.guard(self.core.fetched, request.url, request, response.status) or [],
                request,
            )
            redirected = request.meta.get("redirect_urls")
            if redirected and self.core is not None:  # their own responses never came here
                self.guard(self.core.redirected, list(redirected))
                if self.follow_ups is not None and 200 <= response.status < 300:
                    self.follow_ups.redirected(request, redirected)  # moved.py
        return response

    def process_exception(self, request: Request, exception: BaseException) -> None:
        """A download error, a timeout, or a request ignored by another component."""
        if isinstance(exception, PredictedDuplicate):
            uncount_skip(self._stats, exception)
            return
        if request.meta.get(REVISIT_OF):
            self._revisit_failed(request, gone=False)
        if self.core is not None and self.answers is not None:
            self.answers.carry_out(self.guard(self.core.failed, request.url) or [], request)

    def request_dropped(self, request: Request) -> None:
        """Scrapy's scheduler refused a request (its dupefilter): it is not queued."""
        if request.meta.get(REISSUED) and request.dont_filter:  # never expected
            self._stats.inc_value(keys.URL_REISSUED_DROPPED)
        follow_ups = self.follow_ups
        if request.meta.get("redirect_urls") and follow_ups is not None and follow_ups.moves_seen:
            follow_ups.redirect_refused(request)  # moved.py
        if self.core is None or self.answers is None:
            return
        url = self.entering.dropped(request)
        if url is None:
            if request.meta.get(MIRROR_OF) is not None:  # requested on a mirror, at hand
                self.core.mirror_copy_dropped(request.url)  # no more: it will not come
            return
        self.answers.carry_out(self.guard(self.core.dropped, url) or [], request)

    def content_released(self, key: str) -> None:
        """A later pipeline dropped ``key``'s item: it no longer covers its copies."""
        if self.core is not None and self.answers is not None:
            self.answers.carry_out(self.guard(self.core.released, key) or [])

    def content_verdict(self, key: str, original: str | None) -> None:
        """Learns from the content pipeline: ``key`` duplicated ``original`` (or was new)."""
        if self.core is not None and self.answers is not None:
            self.answers.carry_out(self.guard(self.core.verdict, key, original) or [])

    def spider_idle(self) -> None:
        """Before the crawl ends: re-issue every bet that cannot be final."""
        core, answers = self.core, self.answers
        if core is None or answers is None or self.state.failed:
            return
        self._count_workers()  # a worker that closed no longer has anything on its way
        reissued = answers.carry_out(self.guard(core.idle) or [])
        adopted = self.workers is not None and self.workers.adopt_at_idle()
        if adopted or reissued or core.awaiting:
            raise DontCloseSpider

    def spider_closed(self, reason: str = "finished") -> None:
        if self.workers is not None:
            self.workers.stop()
        if self.judge is None:
            return
        core = self.core
        if core is not None:
            self.guard(core.closed, reason)
        if self.workers is not None and not self.state.failed:  # after its final bets left
            self.workers.leave()
        mirrors: list[str] = []
        if core is not None:
            core.count_rules()
            mirrors = self.guard(core.mirror_lines) or []
            standing = self.guard(core.standing_rules) or []
            for rule, samples, new in standing[:MAX_RULES_LOGGED]:
                self.verdicts.rule(rule, samples, new)
        logger.info(keys.url_summary(self._stats, mirrors))
        self.judge = None
        self.core = self.answers = self.follow_ups = None
        self.state.release()
        self.verdicts.release()

    def _revisit_failed(self, request: Request, *, gone: bool) -> None:
        """A re-visit brought nothing at its URL (``FollowUps.revisit_failed``)."""
        if self.follow_ups is not None:
            self.follow_ups.revisit_failed(request, gone=gone)

    def _count_workers(self) -> None:
        if self.core is not None and self.workers is not None:
            self.workers.count()
