"""UrlSimHashMiddleware: skip, before download, requests that would only fetch duplicates.

The decisions and each bet's life are the URL core's (``scrapy_simdedup.url.core``); this
adapter turns Scrapy's events into the core's calls, one per event, and its answers back
into Scrapy: a skip raised as ``IgnoreRequest``, a re-issue sent to the engine, a line in
the verdict log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy import Request, signals
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.utils.asyncio import create_looping_call
from scrapy.utils.python import global_object_name

from scrapy_simdedup import stats as keys
from scrapy_simdedup.config import SimDedupConfig, crawl_budget, depth_limit
from scrapy_simdedup.errors import StoreError, UrlNotCheckedError
from scrapy_simdedup.index.heartbeats import Heartbeats
from scrapy_simdedup.scrapy_layer.enabled import half_enabled_warning
from scrapy_simdedup.scrapy_layer.failedlinks import MIRROR_OF, FailedLinks
from scrapy_simdedup.scrapy_layer.moved import GONE
from scrapy_simdedup.scrapy_layer.parking import ParkingLot
from scrapy_simdedup.scrapy_layer.reissue import (
    REISSUED,
    SEEN,
    Adoption,
    RequestParking,
    send_again,
)
from scrapy_simdedup.scrapy_layer.signals import content_released, content_verdict
from scrapy_simdedup.scrapy_layer.startup import config_for
from scrapy_simdedup.scrapy_layer.state import DedupState
from scrapy_simdedup.scrapy_layer.verdictlog import CrawlVerdictLog
from scrapy_simdedup.scrapy_layer.workers import SharedCrawlWorkers
from scrapy_simdedup.url.actions import (
    FETCH,
    FollowFailed,
    FollowUnpredicted,
    Reissue,
    Revisit,
    Seen,
    Skip,
)
from scrapy_simdedup.url.core import UrlCore
from scrapy_simdedup.url.deadlines import Budget
from scrapy_simdedup.url.judge import UrlJudge, fetched_before
from scrapy_simdedup.url.parts import canonical_or_none, canonical_url

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

    from scrapy_simdedup.url.actions import Action, Fetch

logger = logging.getLogger(__name__)
R = TypeVar("R")

MAX_RULES_LOGGED = 1_000
"""URL rules in force written to the verdict log at the crawl's end (``url_rule``), at most."""
OPT_OUT = "simdedup_dont_skip"
"""``Request.meta`` key: a request carrying it (true) is never skipped."""
SAMPLE = "simdedup_sample"
REVISIT_OF = "simdedup_revisit_of"
"""``Request.meta`` key of a page an earlier crawl kept, requested again because this crawl
met only its copies: the copy's URL."""
ENTERING = 64
"""Requests let into the scheduler remembered until Scrapy's scheduler takes or drops them:
the engine sends ``request_dropped`` right after ``request_scheduled``, so a handful suffice
(a component scheduling from within ``request_scheduled`` nests a few)."""
_DOWNLOAD_META = frozenset(
    ("download_latency", "download_slot", "download_timeout", "redirect_urls",
     "redirect_reasons", "redirect_times", "redirect_ttl", "retry_times", "proxy",
     "playwright_page", SAMPLE, REISSUED, SEEN, REVISIT_OF, MIRROR_OF)
)  # fmt: skip


class PredictedDuplicate(IgnoreRequest):
    """The middleware skipped the request (``process_exception`` sees its own skips)."""


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
        self.judge: UrlJudge | None = None
        self.core: UrlCore[Request] | None = None
        self.revisits = False  # whether an earlier crawl's kept page may need a re-visit
        self._offsite_filters: list[OffsiteMiddleware] | None = None  # found when first asked
        # The last requests let into the scheduler (by id; held, so no id is reused), and
        # their canonical URLs: a request the dupefilter drops next was queued here in vain.
        # Not a map of every queued request: its entries made each full garbage collection
        # of a crawl longer.
        self._entering: dict[int, tuple[Request, str]] = {}
        self.workers: SharedCrawlWorkers | None = None  # on a store several workers share
        self._pulse: Any = None  # the looping call: deadlines, heartbeats, dead workers
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
                risk=self.config.url_risk,
            )
        except StoreError as exc:
            logger.error("simdedup: cannot open the URL index: %s", exc)
            self.state.release()
            raise
        # Only an earlier crawl's pages can need a re-visit, and a page not kept here is an
        # earlier crawl's only where no other crawl shares the store now (LevelDB is
        # locked, memory is private): otherwise no fetched request is remembered for it.
        self.revisits = len(self.judge) > 0 and self.judge.urls.shared is None

    @property
    def _stats(self) -> Any:
        return self.crawler.stats

    # -- Scrapy's events, each one call of the core ---------------------------------------

    def spider_opened(self) -> None:
        if self.judge is None:
            self.open_judge()
        assert self.judge is not None and self.crawler.spider is not None
        store, shared = self.judge.urls.store, self.judge.urls.shared
        heartbeats = None
        if shared is not None:  # requests a dead worker parked are taken
            timeout = self.config.worker_timeout
            heartbeats = self.state.heartbeats or Heartbeats(shared, timeout)
            self._guarded(heartbeats.beat)
        owner = heartbeats.worker if heartbeats else ""
        lot = ParkingLot(store, self.crawler.spider, owner=owner)
        core = self.core = UrlCore(
            self.judge,
            RequestParking(lot, heartbeats.alive if heartbeats else None),
            self._stats,
            drop=self.config.drop,
            budget=self.budget,
            depth_limit=self.depth_limit,
            route=_routed,
            store_failed=self._store_failed,
            failed=lambda: self.state.failed,
            revisits=self.revisits,
            counts=self._crawl_counts,
        )
        core.resumed = _resumed_job(self.crawler) and shared is None
        if shared is not None and self.config.url_risk > 0:
            logger.warning(
                "simdedup: SIMDEDUP_URL_RISK = %s is not applied on a store workers share "
                "(their samples are not shared yet): a new page ends a URL rule, as at 0",
                self.config.url_risk,
            )
        if self.state.crawl is not None:  # workers sharing a crawl
            self.judge.peers = self.state.crawl
        if heartbeats is not None:
            self.workers = SharedCrawlWorkers(
                heartbeats,
                Adoption(lot, self._send_adopted, self._store_failed),
                core,
                guarded=self._guarded,
                engine_closing=self._engine_closing,
                failed=lambda: self.state.failed,
            )
        if self.config.url_mode == "adaptive" and self.config.drop:
            core.follows_failed = True
            self.failed_links = FailedLinks(
                self.crawler, self.judge, core.betting_on, self.verdicts,
                routed=_routed, guarded=self._guarded,
            )  # fmt: skip
        left = self._guarded(core.opened) or 0
        self._count_workers()
        if self.workers is not None:  # deadlines are looked at as requests go by
            self._pulse = create_looping_call(self._beat)
            self._pulse.start(max(0.25, self.config.worker_timeout / 4), now=False)
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
        core = self.core
        if core is None or core.met_again(request.url):
            return
        seen = self._seen(request, scheduling=True)
        answer = self._guarded(core.scheduled, seen) or FETCH
        if isinstance(answer, Skip):
            self._skipped(request, answer)
        if not isinstance(answer, Skip) and answer.queued:  # to be taken or dropped next
            entering = self._entering
            if len(entering) >= ENTERING:  # the oldest was taken or dropped long since
                del entering[next(iter(entering))]
            entering[id(request)] = (request, _canonical(request.url))
        self._fetching(request, answer)

    def process_request(self, request: Request) -> None:
        """The backstop: checks again with what was learned while the request waited."""
        if self.workers is not None:
            self.workers.busy()
        core = self.core
        if core is None:  # no URL index (the spider has not opened, or it has closed)
            self._stats.inc_value(keys.url_unchecked("store_unavailable"))
            return
        self._carry_out(core.tick())
        self._count_workers()
        seen = self._seen(request, scheduling=False)
        answer = core.downloading(seen)
        if isinstance(answer, Skip):
            self._skipped(request, answer)
        self._fetching(request, answer)
        if not seen.exempt and not core.claim_fetch(request.url):
            raise PredictedDuplicate("simdedup: fetched by a re-issue of the same URL")

    def process_response(self, request: Request, response: Response) -> Response:
        if not 200 <= response.status < 300 and request.meta.get(REVISIT_OF):
            self._revisit_failed(request, gone=response.status in GONE)
        if self.core is not None:
            self._carry_out(
                self._guarded(self.core.fetched, request.url, request, response.status) or [],
                request,
            )
            redirected = request.meta.get("redirect_urls")
            if redirected and self.core is not None:  # their own responses never came here
                self._guarded(self.core.redirected, list(redirected))
                if self._moves_seen and 200 <= response.status < 300:
                    self.state.moved.awaits(request.url, *redirected)  # moved.py
        return response

    def process_exception(self, request: Request, exception: BaseException) -> None:
        """A download error, a timeout, or a request ignored by another component."""
        if isinstance(exception, PredictedDuplicate):
            self._not_an_error(exception)
            return
        if request.meta.get(REVISIT_OF):
            self._revisit_failed(request, gone=False)
        if self.core is not None:
            self._carry_out(self._guarded(self.core.failed, request.url) or [], request)

    def _not_an_error(self, skip: PredictedDuplicate) -> None:
        """Scrapy's ``DownloaderStats`` (which sees every exception first, at priority 850)
        counted this skip as a download error: take it back, so that
        ``downloader/exception_count`` counts failures only. Skips are counted under
        ``simdedup/url/skipped/<rule>``."""
        stats = self._stats.get_stats()
        for key in (
            "downloader/exception_count",
            f"downloader/exception_type_count/{global_object_name(type(skip))}",
        ):
            left = stats.get(key, 0) - 1
            if left > 0:
                stats[key] = left
            else:
                stats.pop(key, None)

    def request_dropped(self, request: Request) -> None:
        """Scrapy's scheduler refused a request (its dupefilter): it is not queued."""
        if request.meta.get(REISSUED) and request.dont_filter:  # never expected
            self._stats.inc_value(keys.URL_REISSUED_DROPPED)
        if request.meta.get("redirect_urls") and self._moves_seen:  # moved.py
            self._redirect_refused(request)
        if self.core is None:
            return
        entering = self._entering.pop(id(request), None)
        if entering is None or entering[0] is not request:
            if request.meta.get(MIRROR_OF) is not None:  # requested on a mirror, at hand
                self.core.mirror_copy_dropped(request.url)  # no more: it will not come
            return
        self._carry_out(self._guarded(self.core.dropped, entering[1]) or [], request)

    def content_released(self, key: str) -> None:
        """A later pipeline dropped ``key``'s item: it no longer covers its copies."""
        if self.core is not None:
            self._carry_out(self._guarded(self.core.released, key) or [])

    def content_verdict(self, key: str, original: str | None) -> None:
        """Learns from the content pipeline: ``key`` duplicated ``original`` (or was new)."""
        if self.core is not None:
            self._carry_out(self._guarded(self.core.verdict, key, original) or [])

    def spider_idle(self) -> None:
        """Before the crawl ends: re-issue every bet that cannot be final."""
        if self.core is None or self.state.failed:
            return
        self._count_workers()  # a worker that closed no longer has anything on its way
        reissued = self._carry_out(self._guarded(self.core.idle) or [])
        adopted = self.workers is not None and self.workers.adopt_at_idle()
        if adopted or reissued or self.core.awaiting:
            raise DontCloseSpider

    def spider_closed(self, reason: str = "finished") -> None:
        if self._pulse is not None and self._pulse.running:
            self._pulse.stop()
        self._pulse = None
        if self.judge is None:
            return
        core = self.core
        if core is not None:
            self._guarded(core.closed, reason)
        if self.workers is not None and not self.state.failed:  # after its final bets left
            self.workers.leave()
        mirrors: list[str] = []
        if core is not None:
            core.count_rules()
            mirrors = self._guarded(core.mirror_lines) or []
            standing = self._guarded(core.standing_rules) or []
            for rule, samples, new in standing[:MAX_RULES_LOGGED]:
                self.verdicts.rule(rule, samples, new)
        logger.info(keys.url_summary(self._stats, mirrors))
        self.judge = None
        self.core = None
        self.state.release()
        self.verdicts.release()

    # -- the core's answers, carried out --------------------------------------------------

    def _skipped(self, request: Request, skip: Skip) -> None:
        """Raise the skip (``PredictedDuplicate``), its line written to the verdict log."""
        if skip.already_parked:
            raise PredictedDuplicate("simdedup: predicted duplicate (already parked)")
        assert skip.rule is not None
        self.verdicts.skipped(request.url, skip.rule, skip.counterpart, pending=skip.pending)
        self._entering.pop(id(request), None)
        if skip.first and self.failed_links is not None:
            self.failed_links.first_bet(skip.rule)
        raise PredictedDuplicate(f"simdedup: predicted duplicate ({skip.reason})")

    def _fetching(self, request: Request, answer: Fetch | Skip) -> None:
        if not isinstance(answer, Skip) and answer.sample:
            request.meta[SAMPLE] = answer.sample

    def _carry_out(self, actions: list[Action[Request]], request: Request | None = None) -> int:
        """Send re-issued and re-visited requests to the engine, and follow a failed link
        (``request``'s) on mirrors. How many requests were re-issued."""
        reissued = 0
        for action in actions:
            if isinstance(action, Reissue):
                core = self.core
                if core is not None and self._engine_closing() and core.unsent(action):
                    continue  # parked for the next crawl, not lost
                self._send(action)
                reissued += 1
            elif isinstance(action, Revisit):
                self._request_revisit(action.copy, action.original)
            elif isinstance(action, FollowFailed) and request is not None:
                self._follow_failed(request)
            elif isinstance(action, FollowUnpredicted):
                self._follow_unpredicted(action.ticket, action.urls)
        return reissued

    def _send(self, reissue: Reissue[Request]) -> None:
        request = send_again(reissue)
        bet = reissue.bet
        self.verdicts.reissued(request.url, reissue.why, reissue.rule, bet.counterpart)
        logger.debug(
            "simdedup: re-issued %s (%s; it relied on %s)", request.url, reissue.why,
            bet.counterpart,
        )  # fmt: skip
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(request)

    def _send_adopted(self, request: Request) -> bool:
        reissue = None if self.core is None else self.core.adopted(request.url, request)
        if reissue is not None:
            self._send(reissue)
        return reissue is not None

    def _request_revisit(self, copy: Request, original: str) -> None:
        """``copy`` copied ``original``, a page an earlier crawl kept and this one has not
        fetched (its links may lead only through pages skipped here): request it again,
        routed as the copy was, so that this crawl's feed holds the page as a re-visit."""
        again = copy.replace(url=original, meta={**copy.meta, REVISIT_OF: copy.url})
        logger.debug("simdedup: requested %s again, %s copied it", original, copy.url)
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(again)

    @property
    def _moves_seen(self) -> bool:
        """Whether pages an earlier crawl kept may have moved (``moved.py``): a crawl on a
        store it filled before, dropping copies (annotated, a copy is in the feed already)."""
        return self.core is not None and self.core.revisits and self.core.drop

    def _crawl_counts(self) -> tuple[int, int]:
        """Pages fetched and items scraped so far, as Scrapy's stats count them."""
        stats = self._stats
        return (
            _int(stats.get_value("response_received_count", 0)),
            _int(stats.get_value("item_scraped_count", 0)),
        )

    def _revisit_failed(self, request: Request, *, gone: bool) -> None:
        """A page an earlier crawl kept, requested again (``_request_revisit``), brought
        nothing at its URL: gone (404, 410) or down (an error, another status). Its copy's
        URL is requested once more, and its item kept (``moved.py``)."""
        if self._moves_seen:
            self._request_moved(request, request.meta[REVISIT_OF], request.url, gone=gone)
            self._stats.inc_value(keys.URL_REVISITS_FAILED)

    def _request_moved(self, request: Request, url: str, earlier: str, *, gone: bool) -> None:
        """``url`` once more, its page awaited as ``earlier``'s (``moved.py``)."""
        if self._engine_closing():
            return
        again = self.state.moved.request_again(_routed(request), url, earlier, gone=gone)
        if again is None:
            return
        logger.debug("simdedup: %s moved to %s: requested again", earlier, url)
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(again)

    def _redirect_refused(self, request: Request) -> None:
        """The dupefilter refused the target of a redirect (this crawl fetched it): when an
        earlier crawl's page now redirects to it, the page there is that page at its new
        URL. Awaited if not judged yet; requested once more if dropped as its copy already
        (``moved.py``)."""
        assert self.core is not None
        hops = list(request.meta["redirect_urls"])
        copied = self.core.judge.copied(request.url)
        if copied is None or copied not in {canonical_or_none(hop) for hop in hops}:
            self.state.moved.awaits(request.url, *hops)
            return
        if request.meta.get(REVISIT_OF):
            self._stats.inc_value(keys.URL_REVISITS_FAILED)
        self._request_moved(request, request.url, copied, gone=True)

    def _follow_failed(self, request: Request) -> None:
        """``FailedLinks.failed``; an error there is logged, never raised into Scrapy (the
        response or the error is the spider's still)."""
        if self.failed_links is None:
            return
        try:
            self.failed_links.failed(request)
        except Exception:
            logger.exception("simdedup: could not follow %s on a mirror", request.url)

    def _follow_unpredicted(self, request: Request, urls: tuple[str, ...]) -> None:
        """``FailedLinks.unpredicted``; an error there is logged, never raised into
        Scrapy (the item is the spider's still)."""
        if self.failed_links is None:
            return
        try:
            self.failed_links.unpredicted(request, urls)
        except Exception:
            logger.exception("simdedup: could not follow %s on a mirror", request.url)

    # -- Scrapy's side of a request ---------------------------------------------------------

    def _seen(self, request: Request, *, scheduling: bool) -> Seen[Request]:
        exempt = _exemption(request)
        return Seen(
            request.url,
            request,
            depth=int(request.meta.get("depth", 0)),
            source=_referrer(request),
            exempt=exempt,
            sampled=not scheduling and bool(request.meta.get(SAMPLE)),
            offsite_check=(partial(self._offsite, request) if scheduling and not exempt else None),
        )

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

    # -- a shared store's workers -----------------------------------------------------------

    @property
    def heartbeats(self) -> Heartbeats | None:
        """This worker's heartbeats, on a store several workers share."""
        return self.workers.heartbeats if self.workers is not None else None

    def _beat(self) -> None:
        """Every ``SIMDEDUP_WORKER_TIMEOUT / 4`` seconds on a shared store: the bets'
        deadlines, and this worker's part among the others (``SharedCrawlWorkers.beat``)."""
        core = self.core
        if core is None or self.state.failed:
            return
        try:  # an error must not end the looping call: this worker would look dead
            self._carry_out(self._guarded(core.tick) or [])
            if self.workers is not None:
                self.workers.beat()
        except Exception:
            logger.exception("simdedup: the heartbeat failed; it goes on")

    def _count_workers(self) -> None:
        if self.core is not None and self.workers is not None:
            self.workers.count()

    def _engine_closing(self) -> bool:
        """Whether the engine is closing the spider: a request sent now would go to a
        scheduler about to be closed (Scrapy signals nothing before ``spider_closed``)."""
        slot = getattr(self.crawler.engine, "_slot", None)
        return getattr(slot, "closing", None) is not None

    def _guarded(self, action: Callable[..., R], *args: object) -> R | None:
        """``action(*args)``, a store failure closing the spider (and returning None)."""
        try:
            return action(*args)
        except StoreError as exc:
            self._store_failed(exc)
            return None

    def _store_failed(self, exc: StoreError) -> None:
        self._stats.inc_value(keys.url_unchecked("store_error"))
        self.state.store_failed(exc)


def _int(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) else 0


def _exemption(request: Request) -> str:
    """Why ``request`` is never skipped ("" when it may be)."""
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


def _routed(request: Request) -> Request:
    """``request`` as the spider routed it: callback, errback, arguments, priority and its
    own meta, without what the download added and without headers (a Cookie or an
    Authorization a middleware set for its host)."""
    meta = {k: v for k, v in request.meta.items() if k not in _DOWNLOAD_META}
    return Request(
        request.url, callback=request.callback, errback=request.errback,
        cb_kwargs=dict(request.cb_kwargs), priority=request.priority, meta=meta,
    )  # fmt: skip


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


def _referrer(request: Request) -> str | None:
    """The page that linked ``request`` (its ``Referer``, set by Scrapy's
    RefererMiddleware)."""
    raw = request.headers.get(b"Referer")
    if not raw:
        return None
    try:
        return raw.decode("latin-1")
    except ValueError:
        return None
