"""UrlSimHashMiddleware: skip, before download, requests that would only fetch duplicates."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured

from scrapy_simdedup import stats as keys
from scrapy_simdedup.config import SimDedupConfig
from scrapy_simdedup.errors import StoreError, UrlNotCheckedError
from scrapy_simdedup.index.maintenance import URL_INDEX_NAMESPACE
from scrapy_simdedup.signals import content_released, content_verdict
from scrapy_simdedup.state import DedupState
from scrapy_simdedup.url.features import url_simhash
from scrapy_simdedup.url.learner import Decision, Rule, UrlLearner
from scrapy_simdedup.url.parts import UrlParts, url_parts

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response
    from typing_extensions import Self

    from scrapy_simdedup.index.handle import SimHashIndex
    from scrapy_simdedup.index.permuted import PermutedIndex

logger = logging.getLogger(__name__)

OPT_OUT = "simdedup_dont_skip"
"""``Request.meta`` key: a request carrying it (true) is never skipped."""
CHECKED = "simdedup_checked"
SAMPLE = "simdedup_sample"

MAX_QUEUED = 5_000_000
"""Queued (and skipped) URLs remembered; beyond this, fewer skips, never more."""


class UrlSimHashMiddleware:
    """Skips requests predicted to fetch only duplicates (``SIMDEDUP_URL_MODE``).

    ``adaptive`` (default) applies rules learned from the content pipeline's verdicts (see
    ``scrapy_simdedup.url.learner``): mirror hosts, parameters that change nothing, trap
    templates. ``strict`` (seed 003) skips a URL within ``SIMDEDUP_URL_MAX_DISTANCE`` bits
    of a URL already fetched on the same host; it needs no evidence and so can skip
    distinct pages whose URLs look alike: use it only for sites you know. ``off`` disables.

    Requests are dropped when scheduled (a ``request_scheduled`` handler raising
    ``IgnoreRequest``) and checked again in ``process_request``, when more is known. Never
    skipped: ``dont_filter`` requests, redirect hops, requests with ``meta["simdedup_dont_skip"]``,
    and URLs that cannot be judged (counted per reason). Only 2xx responses count as fetched.
    """

    def __init__(self, crawler: Crawler, config: SimDedupConfig, state: DedupState) -> None:
        self.crawler = crawler
        self.config = config
        self.state = state
        self.urls: PermutedIndex | None = None
        self.learner: UrlLearner | None = None
        self.queued: set[str] = set()  # allowed, not yet fetched
        self._queued_spellings: set[str] = set()  # the same, as the requests spelt them
        self.skipped: set[str] = set()  # counted once each, however often linked
        self._covered = _Either(self.queued, self.skipped)
        self._parts_of: WeakKeyDictionary[Request, UrlParts] = WeakKeyDictionary()
        self._seed = 0
        self._index: SimHashIndex | None = None  # opened by from_crawler, until spider_opened

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = SimDedupConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("SIMDEDUP_ENABLED is False")
        if config.url_mode == "off":
            raise NotConfigured("SIMDEDUP_URL_MODE is 'off'")
        middleware = cls(crawler, config, DedupState.for_crawler(crawler))
        middleware._index = middleware.state.open()  # fails before anything is scheduled
        crawler.signals.connect(middleware.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(middleware.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(middleware.request_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(middleware.content_verdict, signal=content_verdict)
        crawler.signals.connect(middleware.content_released, signal=content_released)
        return middleware

    @property
    def _stats(self) -> Any:
        return self.crawler.stats

    def spider_opened(self) -> None:
        index = self._index or self.state.open()
        self._index = None
        self._seed = index.seed
        self.urls = index.companion(
            URL_INDEX_NAMESPACE, self.config.url_max_distance, self.config.expected_pages
        )
        self.learner = UrlLearner(
            self.urls.store,
            self._was_fetched,
            min_evidence=self.config.url_min_evidence,
            sample_every=self.config.url_sample_every,
        )
        self._count_rules()
        known = self.learner.learned_rules()
        logger.info(
            "simdedup: URL mode %s, %d URLs fetched before, %d learned rules%s",
            self.config.url_mode, len(self.urls), len(known),
            "".join(f"; {rule.describe()}" for rule in known[:5]),
        )  # fmt: skip

    def spider_closed(self) -> None:
        if self.urls is None:
            return
        self._count_rules()
        mirrors = [
            f"{rule.describe()}: {rule.duplicates} of {rule.duplicates + rule.uniques} "
            "checked pages duplicated"
            for rule in (self.learner.learned_rules() if self.learner else [])
            if rule.kind == "mirror"
        ]
        logger.info(keys.url_summary(self._stats, mirrors))
        self.urls = None
        self.learner = None
        self.state.release()

    def request_scheduled(self, request: Request) -> None:
        """Drops a request before it enters the scheduler (raising ``IgnoreRequest``)."""
        self._check(request, first=True)

    def process_request(self, request: Request) -> None:
        """The backstop: checks again with what was learned while the request waited."""
        if request.meta.get(SAMPLE):
            return
        self._check(request, first=not request.meta.get(CHECKED))

    def process_response(self, request: Request, response: Response) -> Response:
        if self.urls is not None and 200 <= response.status < 300 and not self._failed:
            try:
                parts = self._parts(request)
            except UrlNotCheckedError:
                return response
            self.queued.discard(parts.url)
            self._queued_spellings.discard(request.url)
            try:
                if self.urls.document(parts.url) is None:
                    self.urls.add(url_simhash(parts, self._seed), parts.url)
            except StoreError as exc:
                self._store_failed(exc)
            self._stats.inc_value(keys.URL_FETCHED)
        return response

    def content_released(self, key: str) -> None:
        """A later pipeline dropped ``key``'s item: it no longer covers its copies."""
        if self.urls is None or self._failed:
            return
        try:
            self.urls.discard(url_parts(key).url)
        except UrlNotCheckedError:
            return
        except StoreError as exc:
            self._store_failed(exc)

    def content_verdict(self, key: str, original: str | None) -> None:
        """Learns from the content pipeline: ``key`` duplicated ``original`` (or was new)."""
        if self.learner is None or original == key or self._failed:
            return
        try:
            page = url_parts(key)
            source = url_parts(original) if original is not None else None
            self.learner.observe(page, source)
        except UrlNotCheckedError:
            return
        except StoreError as exc:
            self._store_failed(exc)
            return
        self._count_rules()

    def _check(self, request: Request, *, first: bool) -> None:
        if first and request.url in self._queued_spellings:
            return  # the commonest case, a link seen again: no parsing needed
        if first:
            request.meta[CHECKED] = True
        exempt = self._exemption(request)
        if exempt:
            if first:
                self._stats.inc_value(keys.url_unchecked(exempt))
            return
        try:
            parts = self._parts(request)
        except UrlNotCheckedError as exc:
            if first:
                self._stats.inc_value(keys.url_unchecked(exc.reason))
            return
        if first and parts.url in self.queued:
            return  # the same URL again: the dupefilter's business, not ours
        repeat = parts.url in self.skipped
        try:
            if first and self._was_fetched(parts.url):
                return
            decision = self._decide(parts, scheduling=first, tally=first and not repeat)
        except StoreError as exc:
            self._store_failed(exc)
            return
        if first and not repeat:
            self._stats.inc_value(keys.URL_CHECKED)
        if decision.sample:
            self.skipped.discard(parts.url)
            request.meta[SAMPLE] = decision.reason
            self._stats.inc_value(keys.URL_SAMPLED)
        if not decision.skip:
            if first and len(self.queued) < MAX_QUEUED:
                self.queued.add(parts.url)
                self._queued_spellings.add(request.url)
            return
        self.queued.discard(parts.url)
        if repeat:
            raise IgnoreRequest(f"simdedup: predicted duplicate ({decision.reason})")
        if len(self.skipped) < MAX_QUEUED:
            self.skipped.add(parts.url)
        self._stats.inc_value(keys.url_skipped(decision.reason))
        logger.debug(
            "simdedup: skipped %s (%s)",
            request.url, decision.rule.describe() if decision.rule else decision.reason,
        )  # fmt: skip
        raise IgnoreRequest(f"simdedup: predicted duplicate ({decision.reason})")

    def _parts(self, request: Request) -> UrlParts:
        """``url_parts`` of the request, worked out once per request."""
        parts = self._parts_of.get(request)
        if parts is None:
            parts = self._parts_of[request] = url_parts(request.url)
        return parts

    def _exemption(self, request: Request) -> str:
        if self.urls is None or self._failed:
            return "store_unavailable"
        if request.dont_filter:
            return "dont_filter"
        if request.meta.get(OPT_OUT):
            return "opted_out"
        if request.meta.get("redirect_urls"):
            return "redirect"
        return ""

    def _decide(self, parts: UrlParts, *, scheduling: bool, tally: bool) -> Decision:
        assert self.urls is not None and self.learner is not None
        if self.config.url_mode == "strict":
            fingerprint = url_simhash(parts, self._seed)
            for match in self.urls.near(fingerprint):
                if match.key != parts.url and _host_of(match.key) == parts.host:
                    return Decision(skip=True, rule=Rule("strict", parts.host, other=match.key))
            return Decision(skip=False)
        # At scheduling a skip may rely on a queued (or covered-by-skip) counterpart; later
        # checks rely only on fetched ones, so two requests never skip each other.
        return self.learner.decide(parts, self._covered if scheduling else (), tally=tally)

    def _was_fetched(self, url: str) -> bool:
        return self.urls is not None and self.urls.document(url) is not None

    def _count_rules(self) -> None:
        if self.learner is None:
            return
        learned = self.learner.learned_rules()
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


class _Either:
    """``url in`` either of two sets, without building their union."""

    def __init__(self, first: set[str], second: set[str]) -> None:
        self.first = first
        self.second = second

    def __contains__(self, url: object) -> bool:
        return url in self.first or url in self.second


def _host_of(url: str) -> str:
    return url.split("://", 1)[-1].split("/", 1)[0]
