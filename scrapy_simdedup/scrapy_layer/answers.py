"""The URL core's answers carried out in Scrapy: a skip raised, requests sent to the engine.

A ``Skip`` becomes ``PredictedDuplicate`` (an ``IgnoreRequest``) with its line in the
verdict log; a ``Reissue`` becomes a request sent again (``send_again``); a ``Revisit``, a
``FollowFailed`` and a ``FollowUnpredicted`` become follow-up requests (``FollowUps``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest
from scrapy.utils.python import global_object_name

from scrapy_simdedup.scrapy_layer.crawling import engine_closing
from scrapy_simdedup.scrapy_layer.reissue import send_again
from scrapy_simdedup.scrapy_layer.requestmeta import SAMPLE
from scrapy_simdedup.url.actions import FollowFailed, FollowUnpredicted, Reissue, Revisit, Skip

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_simdedup.scrapy_layer.entering import EnteringRequests
    from scrapy_simdedup.scrapy_layer.failedlinks import FailedLinks
    from scrapy_simdedup.scrapy_layer.followups import FollowUps
    from scrapy_simdedup.scrapy_layer.verdictlog import CrawlVerdictLog
    from scrapy_simdedup.url.actions import Action, Fetch
    from scrapy_simdedup.url.core import UrlCore

# The middleware's logger: its lines keep the name users filter them by.
logger = logging.getLogger("scrapy_simdedup.scrapy_layer.middleware")


class PredictedDuplicate(IgnoreRequest):
    """The middleware skipped the request (``process_exception`` sees its own skips)."""


class CoreAnswers:
    """Carries out what one opened URL core answers to Scrapy's events."""

    def __init__(
        self,
        crawler: Crawler,
        core: UrlCore[Request],
        verdicts: CrawlVerdictLog,
        follow_ups: FollowUps,
        entering: EnteringRequests,
        *,
        failed_links: FailedLinks | None = None,
    ) -> None:
        self.crawler = crawler
        self.core = core
        self.verdicts = verdicts
        self.follow_ups = follow_ups
        self.entering = entering
        self.failed_links = failed_links

    def skipped(self, request: Request, skip: Skip) -> None:
        """Raise the skip (``PredictedDuplicate``), its line written to the verdict log."""
        if skip.already_parked:
            raise PredictedDuplicate("simdedup: predicted duplicate (already parked)")
        assert skip.rule is not None
        self.verdicts.skipped(request.url, skip.rule, skip.counterpart, pending=skip.pending)
        self.entering.forget(request)
        if skip.first and self.failed_links is not None:
            self.failed_links.first_bet(skip.rule)
        raise PredictedDuplicate(f"simdedup: predicted duplicate ({skip.reason})")

    def fetching(self, request: Request, answer: Fetch | Skip) -> None:
        if not isinstance(answer, Skip) and answer.sample:
            request.meta[SAMPLE] = answer.sample

    def carry_out(self, actions: list[Action[Request]], request: Request | None = None) -> int:
        """Send re-issued and re-visited requests to the engine, and follow a failed link
        (``request``'s) on mirrors. How many requests were re-issued."""
        reissued = 0
        for action in actions:
            if isinstance(action, Reissue):
                if engine_closing(self.crawler) and self.core.unsent(action):
                    continue  # parked for the next crawl, not lost
                self.send(action)
                reissued += 1
            elif isinstance(action, Revisit):
                self.follow_ups.revisit(action.copy, action.original)
            elif isinstance(action, FollowFailed) and request is not None:
                self.follow_ups.follow_failed(request)
            elif isinstance(action, FollowUnpredicted):
                self.follow_ups.follow_unpredicted(action.ticket, action.urls)
        return reissued

    def send(self, reissue: Reissue[Request]) -> None:
        request = send_again(reissue)
        bet = reissue.bet
        self.verdicts.reissued(request.url, reissue.why, reissue.rule, bet.counterpart)
        logger.debug(
            "simdedup: re-issued %s (%s; it relied on %s)", request.url, reissue.why,
            bet.counterpart,
        )  # fmt: skip
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(request)

    def send_adopted(self, request: Request) -> bool:
        reissue = self.core.adopted(request.url, request)
        if reissue is not None:
            self.send(reissue)
        return reissue is not None


def uncount_skip(stats: Any, skip: PredictedDuplicate) -> None:
    """Scrapy's ``DownloaderStats`` (which sees every exception first, at priority 850)
    counted this skip as a download error: take it back, so that
    ``downloader/exception_count`` counts failures only. Skips are counted under
    ``simdedup/url/skipped/<rule>``."""
    counted = stats.get_stats()
    for key in (
        "downloader/exception_count",
        f"downloader/exception_type_count/{global_object_name(type(skip))}",
    ):
        left = counted.get(key, 0) - 1
        if left > 0:
            counted[key] = left
        else:
            counted.pop(key, None)
