"""``Admission``: each request judged before it is queued, and again on its way out.

Scrapy's scheduler meets a request before its dupefilter does, so a skip made there costs
the request nothing more; the same request is judged again on its way to the downloader
(the backstop), with what was learned while it waited. Either way the answer is a value
(``url/actions.py``): fetch it, maybe as a rule's sample, or skip it on a bet
(``url/betting.py``). A request no rule skips yet, of a kind a rule is still learning,
waits or teaches (``url/probing.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.errors import StoreError, UrlNotCheckedError
from scrapy_simdedup.url.actions import FETCH, Fetch, Skip
from scrapy_simdedup.url.parts import canonical_or_none, canonical_url, parts_or_none, url_parts

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.actions import Action, Seen
    from scrapy_simdedup.url.betting import BetMaker
    from scrapy_simdedup.url.context import CoreContext
    from scrapy_simdedup.url.deadlines import Progress
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.probing import Probing
    from scrapy_simdedup.url.reissuing import Reissuer
    from scrapy_simdedup.url.samplesout import SamplesOut

T = TypeVar("T")


class Admission(Generic[T]):
    """Judges requests for one crawl. ``drop=False`` (annotate mode) skips nothing: would-be
    skips are counted. ``later``: re-issues that arose while a request was scheduled
    (a parameter found to be a switcher), which the core carries out at its next tick."""

    def __init__(
        self,
        context: CoreContext[T],
        *,
        probing: Probing[T],
        betting: BetMaker[T],
        samples: SamplesOut,
        reissuer: Reissuer[T],
        drop: bool,
        progress: Callable[[], Progress],
        later: list[Action[T]],
    ) -> None:
        self.judge = context.judge
        self.bets = context.bets
        self.parking = context.parking
        self.tally = context.tally
        self.guard = context.guard
        self.probing = probing
        self.betting = betting
        self.samples = samples
        self.reissuer = reissuer
        self.drop = drop
        self._progress = progress
        self.later = later

    def met_again(self, url: str) -> bool:
        """Whether ``scheduled`` would answer a link to ``url`` with a plain ``FETCH`` and
        change nothing: this process fetched or queued its URL, no bet holds it, it has no
        query (a query may be a switcher's, which needs the linking page), and no other
        worker shares the crawl (their skips count links met again). Most links a page
        yields are such (seven in eight on a site of articles), and the dupefilter drops
        them next: answering them from the URL alone spares building what ``scheduled``
        is given (the request's referrer, its exemptions)."""
        if self.judge.peers.shared:
            return False
        try:
            url = canonical_url(url)
            return "?" not in url and self.bets.get(url) is None and self.judge.covers(url)
        except (UrlNotCheckedError, StoreError):  # ``scheduled`` counts them
            return False

    def scheduled(self, seen: Seen[T], *, closing: bool) -> Fetch | Skip:
        """A request enters the scheduler: judged before it takes a place in the queue."""
        if self.guard.failed() or seen.exempt or seen.offsite:
            return FETCH  # an offsite request is never queued: no counterpart either
        try:  # most links a page yields were met before: their URL is enough
            url = canonical_url(seen.url)
        except UrlNotCheckedError:
            return FETCH  # counted on its way to the downloader
        offsite = None
        if "?" in url and seen.source:
            offsite = seen.is_offsite()
            if offsite:
                return FETCH
            self._switchers_linked(url, seen.source)
        held = self.bets.get(url)
        if held is not None:
            if held.rule:  # one more link to a request held on a bet standing
                self.tally.inc_value(keys.URL_ALREADY_PARKED)
                rule = self.judge.learner.rule(held.rule)
                return Skip(rule, held.counterpart, already_parked=True)
            self._take_leftover(url)  # an interrupted crawl's: judged afresh
        if self.judge.covers(url):  # (offsite or not: met before, it is fetched either way)
            counterpart = self.judge.skipped_in_crawl(url)
            if counterpart is None:
                self.judge.met(url)  # at hand (perhaps another worker's): a path of its site
                return FETCH  # the same URL again: the dupefilter's business, not ours
            # Skipped on a bet, before any dupefilter saw it: left to the dupefilter, a
            # mirror's ?sid= pages parked on one worker and linked from pages fetched on
            # the other came by the dozen, each linking more (issue 35).
            if self._held_elsewhere(url, counterpart, closing=closing):
                self.tally.inc_value(keys.URL_ALREADY_PARKED)
                return Skip(None, None, already_parked=True)
            # No worker holds the bet now (it settled, or its worker ended): judged as a
            # first link is, with the rules in force here.
        if offsite is None:
            offsite = seen.is_offsite()
        if offsite:
            return FETCH
        parts = self._parts(seen, count=False)
        if parts is None:
            return FETCH
        return self._decide(seen, parts, scheduling=True, closing=closing)

    def _held_elsewhere(self, url: str, counterpart: str, *, closing: bool) -> bool:
        """Whether a link to ``url``, skipped on a bet on ``counterpart``, is that bet's: its
        worker, still running, holds it parked and re-issues it if the bet loses, and
        nothing here says the counterpart will not bring the page. Not while closing:
        nothing more is skipped then. A stopped worker's request waits for another to take
        it over, which a crawl ending on a budget may never do: its link is judged."""
        return (
            not closing
            and self.judge.may_bring(counterpart)
            and bool(self.guard(self.parking.held_elsewhere, url))
        )

    def downloading(self, seen: Seen[T], *, closing: bool) -> Fetch | Skip:
        """The backstop, on the way to the downloader: judged again with what was learned
        while the request waited (counted as checked, once). Call ``tick`` first."""
        if self.guard.failed():
            self.tally.inc_value(keys.url_unchecked("store_unavailable"))
            return FETCH
        if seen.sampled:
            self.tally.inc_value(keys.URL_CHECKED)  # judged when scheduled: a sample
            return FETCH
        if seen.exempt:
            self.tally.inc_value(keys.url_unchecked(seen.exempt))
            return FETCH
        parts = self._parts(seen, count=True)
        if parts is None:
            return FETCH
        answer = self._decide(seen, parts, scheduling=False, closing=closing)
        if isinstance(answer, Fetch):
            self.tally.inc_value(keys.URL_CHECKED)
        return answer

    def _decide(
        self, seen: Seen[T], parts: UrlParts, *, scheduling: bool, closing: bool
    ) -> Fetch | Skip:
        skipping = self.drop and not closing  # not annotate mode, nor at the end
        try:
            decision = self.judge.decide(parts, source=parts_or_none(seen.source))
            if skipping:
                decision = self.probing.bet_or_probe(parts, decision, scheduling=scheduling)
        except StoreError as exc:
            self.guard.report(exc)
            return FETCH
        if decision.skip and skipping and self.betting.may_skip(seen, decision):
            skip = self.betting.skip(seen, parts, decision, self._progress, scheduling=scheduling)
            if skip is not None:
                return skip
        if decision.gathering and not scheduling:  # no bet made: it goes, and teaches
            self.probing.probe(decision, parts)
        elif decision.skip and scheduling and not decision.gathering:
            # annotate mode, or a bet that could not be made
            self.tally.inc_value(keys.url_would_skip(decision.reason))
        sample = ""
        if decision.sample:
            sample = decision.reason
            self.tally.inc_value(keys.URL_SAMPLED)
            self.samples.sent(seen.url, decision)
        if scheduling:
            self.judge.enqueue(parts.url)
            self.betting.queued(parts.url, seen.depth)
        if scheduling or sample:
            return Fetch(sample, queued=scheduling)
        return FETCH

    def _parts(self, seen: Seen[T], *, count: bool) -> UrlParts | None:
        try:
            return url_parts(seen.url)
        except UrlNotCheckedError as exc:
            if count:
                self.tally.inc_value(keys.url_unchecked(exc.reason))
            return None

    def _take_leftover(self, url: str) -> None:
        """A link came to a request an interrupted crawl parked: the request is judged
        afresh, its record goes."""
        self.bets.take(url)
        self.guard(self.parking.forget, [url])

    def _switchers_linked(self, url: str, source: str) -> None:
        """Tell the learner of a link with parameters; the pattern bets on a parameter it
        finds to be a switcher now are re-issued (at the next tick: ``later``)."""
        parts, linking = parts_or_none(url), parts_or_none(source)
        if parts is None or linking is None:
            return
        for section, name in self.judge.learner.linked(parts, linking):
            self.later += self.reissuer.switcher(section, name)

    def claim_fetch(self, url: str) -> bool:
        """On a crawl several workers share, whether this request may go to the downloader:
        not when a re-issue of the same URL in this crawl fetches it
        (``simdedup/url/fetched_by_reissue``). Else, the request goes: its host counts as
        that much more crawled."""
        if self.guard.failed():
            return True
        canonical = canonical_or_none(url)
        if canonical is None:
            return True
        if self.guard(self.judge.peers.claim_fetch, canonical) is not False:
            self.judge.requested(canonical)
            return True
        self.tally.inc_value(keys.URL_FETCHED_BY_REISSUE)
        return False
