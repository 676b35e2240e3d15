"""The URL middleware's parts, made and joined when the crawl opens.

``open_url_judge`` opens the crawl's URL judge on the shared index; ``wire_url_core`` makes
the URL core over it and its Scrapy-side collaborators: the parking of skipped requests,
the answers carried out (``CoreAnswers``), the follow-up requests (``FollowUps``), failed
links followed on mirrors (``FailedLinks``), and, on a store several workers share, this
worker's part among them (``SharedCrawlWorkers``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index.heartbeats import Heartbeats
from scrapy_simdedup.scrapy_layer.answers import CoreAnswers
from scrapy_simdedup.scrapy_layer.crawling import crawl_counts, engine_closing, resumed_job
from scrapy_simdedup.scrapy_layer.failedlinks import FailedLinks
from scrapy_simdedup.scrapy_layer.followups import FollowUps
from scrapy_simdedup.scrapy_layer.parking import ParkingLot
from scrapy_simdedup.scrapy_layer.reissue import Adoption, RequestParking
from scrapy_simdedup.scrapy_layer.requestmeta import routed
from scrapy_simdedup.scrapy_layer.workers import SharedCrawlWorkers
from scrapy_simdedup.url.core import UrlCore
from scrapy_simdedup.url.judgewiring import judge_for_crawl

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_simdedup.config import SimDedupConfig
    from scrapy_simdedup.scrapy_layer.entering import EnteringRequests
    from scrapy_simdedup.scrapy_layer.state import DedupState
    from scrapy_simdedup.scrapy_layer.verdictlog import CrawlVerdictLog
    from scrapy_simdedup.url.deadlines import Budget
    from scrapy_simdedup.url.guard import StoreGuard
    from scrapy_simdedup.url.judge import UrlJudge

# The middleware's logger: its lines keep the name users filter them by.
logger = logging.getLogger("scrapy_simdedup.scrapy_layer.middleware")


def open_url_judge(state: DedupState, config: SimDedupConfig) -> UrlJudge:
    """The crawl's URL judge on the index ``state`` opens (released again, and the error
    logged and raised, when the index refuses it: another stored distance)."""
    index = state.open()
    try:
        return judge_for_crawl(
            index,
            mode=config.url_mode,
            max_distance=config.url_max_distance,
            expected_size=config.expected_pages,
            min_evidence=config.url_min_evidence,
            sample_every=config.url_sample_every,
            risk=config.url_risk,
        )
    except StoreError as exc:
        logger.error("simdedup: cannot open the URL index: %s", exc)
        state.release()
        raise


def revisits_possible(judge: UrlJudge) -> bool:
    """Whether an earlier crawl's kept page may need a re-visit."""
    # Only an earlier crawl's pages can need a re-visit, and a page not kept here is an
    # earlier crawl's only where no other crawl shares the store now (LevelDB is
    # locked, memory is private): otherwise no fetched request is remembered for it.
    return len(judge) > 0 and judge.urls.shared is None


@dataclass(frozen=True)
class WiredCore:
    """An opened URL core and what carries out its answers in Scrapy."""

    core: UrlCore[Request]
    answers: CoreAnswers
    follow_ups: FollowUps
    workers: SharedCrawlWorkers | None  # on a store several workers share


def wire_url_core(
    crawler: Crawler,
    config: SimDedupConfig,
    state: DedupState,
    judge: UrlJudge,
    *,
    guard: StoreGuard,
    verdicts: CrawlVerdictLog,
    entering: EnteringRequests,
    budget: Budget,
    depth_limit: int,
    revisits: bool,
) -> WiredCore:
    """The URL core of the opening spider over ``judge``, and its collaborators. On a
    shared store this worker beats once first: requests a dead worker parked are taken."""
    assert crawler.spider is not None
    store, shared = judge.urls.store, judge.urls.shared
    heartbeats = None
    if shared is not None:  # requests a dead worker parked are taken
        timeout = config.worker_timeout
        heartbeats = state.heartbeats or Heartbeats(shared, timeout)
        guard(heartbeats.beat)
    owner = heartbeats.worker if heartbeats else ""
    lot = ParkingLot(store, crawler.spider, owner=owner)
    follows_failed = config.url_mode == "adaptive" and config.drop
    core = UrlCore(
        judge,
        RequestParking(lot, heartbeats.alive if heartbeats else None),
        crawler.stats,
        drop=config.drop,
        budget=budget,
        depth_limit=depth_limit,
        route=routed,
        store_failed=guard.report,
        failed=lambda: state.failed,
        revisits=revisits,
        resumed=resumed_job(crawler) and shared is None,
        follows_failed=follows_failed,
        counts=partial(crawl_counts, crawler),
    )
    if state.crawl is not None:  # workers sharing a crawl
        judge.peers = state.crawl
    failed_links = None
    if follows_failed:
        failed_links = FailedLinks(
            crawler, judge, core.betting_on, verdicts, routed=routed, guarded=guard
        )
    follow_ups = FollowUps(crawler, core, state, failed_links)
    answers = CoreAnswers(crawler, core, verdicts, follow_ups, entering, failed_links=failed_links)
    workers = None
    if heartbeats is not None:
        workers = SharedCrawlWorkers(
            heartbeats,
            Adoption(lot, answers.send_adopted, guard.report),
            core,
            guarded=guard,
            engine_closing=partial(engine_closing, crawler),
            failed=lambda: state.failed,
            carry_out=answers.carry_out,
        )
    return WiredCore(core, answers, follow_ups, workers)
