"""``UrlCore``: the one owner of a skipped request's life, from the skip to its settling.

A skip is a bet that the page comes in through another request (its counterpart) or is one
more copy of a trap. The core makes the bet, parks it (in memory and in the index, so an
interrupted crawl re-issues it), and settles it: re-issued when its counterpart fails, is
dropped, turns out not to be the page its path promised (a soft 404) or lands deeper than a
depth limit allows; when its rule is weakened; when its deadline passes or the crawl's
budget is nearly spent; at idle when it cannot be final. Final only when the crawl
finishes with it standing.

It answers each event of a crawl with what to do (``url/actions.py``), named one method per
event: ``scheduled``, ``downloading``, ``fetched``, ``failed``, ``dropped``, ``released``,
``verdict``, ``tick``, ``idle``, ``closed``. It never imports Scrapy: the middleware turns
Scrapy's events into these calls and the answers back into Scrapy.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.errors import StoreError, UrlNotCheckedError
from scrapy_simdedup.url.actions import (
    FETCH,
    FOLLOW_FAILED,
    Fetch,
    FollowUnpredicted,
    Reissue,
    Revisit,
    Skip,
)
from scrapy_simdedup.url.bets import Bet, ParkedBets
from scrapy_simdedup.url.deadlines import Budget, Deadlines, Progress
from scrapy_simdedup.url.features import section_template
from scrapy_simdedup.url.parts import UrlParts, canonical_or_none, canonical_url, url_parts
from scrapy_simdedup.url.probes import Probes
from scrapy_simdedup.url.rules import kind_of, template_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.actions import Action, Seen
    from scrapy_simdedup.url.judge import UrlJudge
    from scrapy_simdedup.url.peers import Peers
    from scrapy_simdedup.url.rules import Decision, Rule

T = TypeVar("T")
R = TypeVar("R")

logger = logging.getLogger(__name__)

MAX_AWAITING_VERDICT = 10_000
"""Fetched requests remembered until their content verdict (a re-visit takes their route,
a soft 404's links are followed on mirrors as it was routed)."""
MAX_DEPTHS = 2_000_000
"""URLs whose depth is remembered under a depth limit; beyond, a counterpart's depth is
unknown and the copy is fetched."""
COUNT_RULES_EVERY = 1.0
"""Seconds between updates of the rule counts in the stats while a crawl runs."""
TICK_SECONDS = 0.25
"""How often, at most, deadlines are looked at on the way to the downloader (each fetched
page looks: a budget in pages is spent that fast)."""
AWAIT_OTHERS_SECONDS = 60.0
"""At idle on a crawl several workers share, a bet whose counterpart another worker has on
its way waits this long at most for it (the other worker may have been killed with it)."""
SAMPLE_WAIT_SECONDS = 10.0
"""A rule's bets made while it gathered evidence are confirmed a stage at a time, each
stage ending at the rule's sample; the next stage waits this long at most for the sample's
verdict (fetched on another worker, it may never reach this one)."""


class Tally(Protocol):
    """Where counters go (Scrapy's stats collector is one)."""

    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None: ...
    def set_value(self, key: str, value: object) -> None: ...
    def get_value(self, key: str, default: object = None) -> object: ...


class Parking(Protocol[T]):
    """Where parked requests are kept beyond this process, so an interrupted crawl re-issues
    them (the Scrapy layer's ``ParkingLot`` of ``Request`` records)."""

    def park(self, bet: Bet[T]) -> bool: ...
    def forget(self, urls: list[str]) -> None: ...
    def leftovers(self) -> list[Bet[T]]:
        """What an interrupted crawl parked; not what a running worker of this crawl holds."""

    def held_elsewhere(self, url: str) -> bool:
        """Whether another worker of the crawl, still running, holds ``url``'s request
        parked now."""


class UrlCore(Generic[T]):
    """Decides each request and owns the bets it makes (see the module's docstring).

    ``judge`` answers may-it-be-skipped; ``parking`` keeps bets in the index; ``tally``
    takes the counters; ``route(ticket)`` is the ticket as the spider routed it, kept for a
    re-visit; ``store_failed`` is told of a store error (the core then decides nothing
    more) and ``failed()`` says whether the crawl's store failed. ``drop=False`` (annotate
    mode) skips nothing: would-be skips are counted. ``revisits``: an earlier crawl's kept
    pages may need a re-visit (a private store that holds some). ``counts()``: the pages
    fetched and the items scraped so far (the Scrapy layer reads Scrapy's stats), which
    deadlines and a budget in pages or items are measured in."""

    def __init__(
        self,
        judge: UrlJudge,
        parking: Parking[T],
        tally: Tally,
        *,
        drop: bool,
        budget: Budget | None = None,
        depth_limit: int = 0,
        route: Callable[[T], T] = lambda ticket: ticket,
        store_failed: Callable[[StoreError], None] = lambda exc: None,
        failed: Callable[[], bool] = lambda: False,
        revisits: bool = False,
        counts: Callable[[], tuple[int, int]] = lambda: (0, 0),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.judge = judge
        self.parking = parking
        self.tally = tally
        self.drop = drop
        self.deadlines = Deadlines(budget or Budget())
        self.depth_limit = depth_limit
        self.revisits = revisits
        self.bets: ParkedBets[T] = ParkedBets()
        self.judge.held = self.bets
        # Requests on their way that teach a rule still gathering evidence, and the rules
        # with bets made meanwhile (``_gathered``, ``_confirm_gathered``).
        self.probes = Probes(clock)
        self._gathering: set[str] = set()
        self._samples: dict[str, tuple[str, float]] = {}  # rule -> its sample, sent when
        self.closing = False  # the budget is nearly spent: nothing more is skipped
        self._route = route
        self._store_failed = store_failed
        self._failed = failed
        self._clock = clock
        self._counts = counts
        self._started = clock()
        self._next_tick = 0.0
        self._depths: dict[str, int] = {}  # under a depth limit: canonical URL -> its depth
        self._strict_samples: dict[str, None] = {}  # in order: the oldest go first
        # samples of adaptive rules on their way: URL -> (the rule, the counterpart)
        self._rule_samples: dict[str, tuple[str, str | None]] = {}
        # samples judged new before their counterpart: counterpart -> (the rule, sample)
        self._samples_waiting: dict[str, tuple[str, str]] = {}
        self._awaiting_verdict: dict[str, T] = {}  # canonical URL -> how it was routed
        # Re-issued at idle, their counterpart never came: URL -> the rule they relied on.
        self._contested: dict[str, str] = {}
        self._rules_counted_at = -COUNT_RULES_EVERY
        # Re-issues that arose while a request was scheduled: carried out at the next tick.
        self._later: list[Action[T]] = []
        # Its workers, this one included, as their heartbeats last said (1 on a store of
        # its own): they share one queue, so each sends its share of a rule's probes.
        self.workers = 1
        self.rank = 0  # this worker's place among them (their names' order): see ``_share``
        # Held at idle for evidence on its way (``_held_at_idle``): URL -> held since.
        self._awaited: dict[str, float] = {}
        self.resumed = False  # a job's later run (JOBDIR), on a store of its own
        self.follows_failed = False  # failed links are followed on mirrors (adaptive, dropping)

    # -- the crawl's events ---------------------------------------------------------------

    @property
    def peers(self) -> Peers:
        """The other workers of the crawl (``url/peers.py``): on a shared store, bets and
        re-issues are recorded there, so a bet settles on any worker's fetch and a
        re-issued URL is fetched once per crawl."""
        return self.judge.peers

    def opened(self) -> int:
        """The crawl starts: what an interrupted crawl parked is held again, due at once
        (re-issued at the first ``tick``, or judged afresh when a link to it comes first).
        How many were."""
        self._started = self._clock()
        left = self._guarded(self.parking.leftovers) or []
        for bet in left:
            bet.due_seconds = 0.0
            self.bets.park(bet)
        self.count_rules()
        return len(left)

    def met_again(self, url: str) -> bool:
        """Whether ``scheduled`` would answer a link to ``url`` with a plain ``FETCH`` and
        change nothing: this process fetched or queued its URL, no bet holds it, it has no
        query (a query may be a switcher's, which needs the linking page), and no other
        worker shares the crawl (their skips count links met again). Most links a page
        yields are such (seven in eight on a site of articles), and the dupefilter drops
        them next: answering them from the URL alone spares building what ``scheduled``
        is given (the request's referrer, its exemptions)."""
        if self.peers.shared:
            return False
        try:
            url = canonical_url(url)
            return "?" not in url and self.bets.get(url) is None and self.judge.covers(url)
        except (UrlNotCheckedError, StoreError):  # ``scheduled`` counts them
            return False

    def scheduled(self, seen: Seen[T]) -> Fetch | Skip:
        """A request enters the scheduler: judged before it takes a place in the queue."""
        if self._failed() or seen.exempt or seen.offsite:
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
            if self._held_elsewhere(url, counterpart):
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
        return self._decide(seen, parts, scheduling=True)

    def _held_elsewhere(self, url: str, counterpart: str) -> bool:
        """Whether a link to ``url``, skipped on a bet on ``counterpart``, is that bet's: its
        worker, still running, holds it parked and re-issues it if the bet loses, and
        nothing here says the counterpart will not bring the page. Not while closing:
        nothing more is skipped then. A stopped worker's request waits for another to take
        it over, which a crawl ending on a budget may never do: its link is judged."""
        return (
            not self.closing
            and self.judge.may_bring(counterpart)
            and bool(self._guarded(self.parking.held_elsewhere, url))
        )

    def downloading(self, seen: Seen[T]) -> Fetch | Skip:
        """The backstop, on the way to the downloader: judged again with what was learned
        while the request waited (counted as checked, once). Call ``tick`` first."""
        if self._failed():
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
        answer = self._decide(seen, parts, scheduling=False)
        if isinstance(answer, Fetch):
            self.tally.inc_value(keys.URL_CHECKED)
        return answer

    def fetched(self, url: str, ticket: T, status: int) -> list[Action[T]]:
        """A response came back: a 2xx brings a page (bets on it wait for its verdict); any
        other status brings none, and the bets relying on it are re-issued."""
        actions = self.tick(force=True)  # a budget in pages is spent a page at a time
        parts = self._judged(url)
        if parts is None:
            return actions
        if not 200 <= status < 300:
            return actions + self._fetch_failed(parts.url)
        self._guarded(self.judge.fetched, parts)
        self.tally.inc_value(keys.URL_FETCHED)
        if self.revisits or self.follows_failed:
            if len(self._awaiting_verdict) >= MAX_AWAITING_VERDICT:  # the oldest goes
                del self._awaiting_verdict[next(iter(self._awaiting_verdict))]
            # A re-visit is routed as the request was before the spider saw its page; a
            # soft 404's links are routed when one is found (most pages are none).
            self._awaiting_verdict[parts.url] = self._route(ticket) if self.revisits else ticket
        return actions

    def redirected(self, urls: list[str]) -> None:
        """A response came back for a request redirected from ``urls``: their requests
        brought no page of their own, and no longer count as on their way for the other
        workers of the crawl (``CrawlRecord.on_its_way``)."""
        if not self.peers.shared or self._failed():
            return
        for url in urls:
            canonical = canonical_or_none(url)
            if canonical is not None:
                self._guarded(self.peers.failed, canonical)

    def failed(self, url: str) -> list[Action[T]]:
        """A download error, a timeout, or another component ignored the request."""
        parts = self._judged(url)
        if parts is None or parts.url in self.bets:
            return []
        return self._fetch_failed(parts.url)

    def _fetch_failed(self, url: str) -> list[Action[T]]:
        """``url`` went to the downloader and brought no page: no longer on its way for
        any worker of the crawl, and the bets relying on it are re-issued."""
        self.probes.done(url)
        self._guarded(self.peers.failed, url)
        return self._lost(url, "counterpart_failed", follow=True)

    def dropped(self, url: str) -> list[Action[T]]:
        """Scrapy's scheduler refused a request queued here (its dupefilter): it will not
        come. A link that brought no page in an earlier run of the same job is followed on
        the mirrors."""
        if self._failed():
            return []
        return self._lost(url, "counterpart_dropped", follow=self._failed_before(url))

    def _failed_before(self, url: str) -> bool:
        """Whether the dupefilter dropped a link that brought no page in an earlier run of
        this job. Queued here first (this crawl had not queued, fetched or parked it), so
        the dupefilter saw it in that run; no crawl fetched it (or it still waits in the
        job's queue: its copy on a mirror is then fetched once more than needed)."""
        judge = self.judge
        if not self.resumed or not self.follows_failed:
            return False
        if url in judge.fetched_now or url in judge.lost_now:
            return False
        return self._guarded(judge.was_fetched, url) is False

    def mirror_copy_dropped(self, url: str) -> None:
        """A failed link's copy requested on a mirror was refused: it will not come."""
        try:
            self.judge.dequeue(canonical_url(url))
        except UrlNotCheckedError:
            return

    def released(self, key: str) -> list[Action[T]]:
        """A later pipeline dropped ``key``'s item: it no longer covers its copies."""
        if self._failed():
            return []
        try:
            url = url_parts(key).url
        except UrlNotCheckedError:
            return []
        self._guarded(self.judge.released, url)
        return self._lost(url, "counterpart_released")

    def verdict(self, key: str, original: str | None) -> list[Action[T]]:
        """The content pipeline judged ``key``: a copy of ``original``, or new (None).

        Rules learn from it; a copy of a page this crawl did not keep (an earlier crawl's)
        brings nothing into the feed, so the bets relying on it are re-issued; a copy of
        another path of its own host or of its mirror, or the second of its host to copy
        one page (a soft 404), settles no bet that expected its path's page."""
        if self._failed():
            return []
        sampled = self._rule_samples.pop(key, None)
        if key in self._strict_samples and original != key:
            del self._strict_samples[key]
            copies = keys.URL_STRICT_SAMPLED_COPIES if original else keys.URL_STRICT_SAMPLED_NEW
            self.tally.inc_value(copies)
        try:
            url = url_parts(key).url
        except UrlNotCheckedError:
            return []
        # The rules whose sample this verdict settles: the page was fetched as one, or a
        # sample judged new before it waited for this page, its counterpart.
        waiting = self._samples_waiting.pop(url, None)
        samples = tuple(found[0] for found in (sampled, waiting) if found is not None)
        try:
            weakened = self.judge.observe(key, original, samples)
        except UrlNotCheckedError:
            return []
        except StoreError as exc:
            self._store_failed(exc)
            return []
        probed = self.probes.done(url)
        if probed is not None and original is None:
            self.judge.learner.refute(probed)
        contested = self._contested.pop(url, None)
        if contested is not None and original is None:
            against = self._guarded(self.judge.learner.contradicted, contested) or []
            weakened = [*weakened, *against]
        self._count_sample(url, original, sampled, waiting, weakened)
        ticket = self._awaiting_verdict.pop(url, None)
        actions: list[Action[T]] = []
        if original is not None and original != key and not self.judge.kept(original):
            actions += self._lost(url, "counterpart_not_kept")
            revisit = self.revisits and self.drop
            if ticket is not None and revisit and self.judge.revisitable(original):
                self.tally.inc_value(keys.URL_REVISITS_REQUESTED)
                actions.append(Revisit(ticket, original))
        elif original is not None and original != key:
            unpredicted = []
            # What this verdict found (a soft 404, its first, the page copied), and the
            # page and its original when known so before (another worker found them).
            found = (*self.judge.found_unpredicted, url, canonical_or_none(original))
            for fetched in dict.fromkeys(found):
                if fetched is not None and fetched in self.judge.unpredicted_now:
                    unpredicted.append(fetched)
                    bets = self.bets.relying_on_its_page(fetched)
                    actions += self._reissue(bets, "counterpart_not_predicted")
            if unpredicted and ticket is not None and self.follows_failed:
                actions.append(FollowUnpredicted(ticket, tuple(unpredicted)))
        for rule in weakened:
            actions += self._contradicted(rule, key, url)
        if weakened or original not in (None, key):
            self.count_rules(every=COUNT_RULES_EVERY)
        return actions

    def _count_sample(
        self,
        url: str,
        original: str | None,
        sampled: tuple[str, str | None] | None,
        waiting: tuple[str, str] | None,
        weakened: list[Rule],
    ) -> None:
        """A rule's sample that came back a copy counts for the rule (one that came back
        new against it is counted as it weakens it: ``UrlLearner.observe``). A sample
        judged new before its counterpart was judged waits for the counterpart's verdict
        (``waiting``: the rule and the sample): found its copy, the sample was a copy all
        the same; otherwise the two differ, and the sample counts as one that did (a
        parameter rule's sample, whose counterpart came back new, weakened nothing)."""
        learner = self.judge.learner
        if waiting is not None and original and canonical_or_none(original) == waiting[1]:
            self._guarded(learner.sampled, waiting[0])
        elif waiting is not None:
            self._guarded(learner.sample_differed, waiting[0], weakened)
        if sampled is None:
            return
        identity, counterpart = sampled
        if original is not None:
            if canonical_or_none(original) == counterpart:  # not a soft 404's, a re-visit's
                self._guarded(learner.sampled, identity)
        elif counterpart is not None and all(rule.identity != identity for rule in weakened):
            if len(self._samples_waiting) >= MAX_AWAITING_VERDICT:
                del self._samples_waiting[next(iter(self._samples_waiting))]
            self._samples_waiting[counterpart] = (identity, url)

    def _contradicted(self, rule: Rule, key: str, url: str) -> list[Action[T]]:
        """``url``'s page came back new where ``rule`` predicted a copy. A rule whose counts
        still bound the share of its differing pages within ``SIMDEDUP_URL_RISK`` stands:
        only the bets of the page's section (``section_template``) are re-issued, the
        section where a page differs; otherwise the rule is weakened and all of its go."""
        # At no risk every skip of a rule a new page contradicted goes, as it always did
        # (a mirror pair may stand on the copies the other way).
        section = _section_of(url) if self.judge.learner.risk > 0 else None
        if section is not None and self.judge.stands(rule):
            self.tally.inc_value(keys.URL_RULES_HELD)
            bets = self.bets.under_if(rule.identity, lambda bet: _section_of(bet.url) == section)
            actions = self._reissue(bets, "rule_contradicted")
            if logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "simdedup: %s is new: %s stands (%s), %d parked requests of /%s re-issued",
                    key, rule.describe(), self.judge.learner.estimate(rule), len(bets), section,
                )  # fmt: skip
            return actions
        bets = self.bets.under(rule.identity)
        actions = self._reissue(bets, "rule_weakened")
        if bets:  # a debug line per new page would cost the crawl more than its work
            logger.debug(
                "simdedup: %s is new: %s weakened, %d parked requests re-issued",
                key, rule.describe(), len(bets),
            )  # fmt: skip
        return actions

    def tick(self, *, force: bool = False) -> list[Action[T]]:
        """A moment of the crawl: the bets past their deadline, and all that are not final
        once the budget is nearly spent, are re-issued; rules other workers changed are
        taken in. At most every ``TICK_SECONDS`` unless ``force`` (a page fetched)."""
        actions, self._later = self._later, []
        now = self._clock()
        if self._failed() or (not force and now < self._next_tick):
            return actions
        self._next_tick = now + TICK_SECONDS
        try:
            actions += self._refresh_rules()
            progress = self._progress()
            actions += self._confirm_gathered(progress)
            closing = self.deadlines.closing(progress, len(self.bets))
            if closing and not self.closing:
                self.tally.set_value(keys.URL_CLOSING, 1)
                logger.info(
                    "simdedup: the crawl's budget is nearly spent (%s); skipped requests not "
                    "yet settled are re-issued, and nothing more is skipped",
                    self.deadlines.budget,
                )
            self.closing = closing
            stands, brought = self.judge.learner.stands, self.judge.brought
            late = self.bets.overdue(progress.seconds, progress.pages, stands, brought)
            actions += self._reissue([b for b in late if not b.rule], "interrupted", ahead=True)
            late = self._waiting_longer([b for b in late if b.rule], progress)
            actions += self._reissue(late, "overdue", ahead=True)
            if closing:  # a page with no verdict (yet) settles nothing: no idle may come
                spent = self.bets.unsettled(stands, self.judge.settles)
                actions += self._reissue(spent, "budget", ahead=True)
        except StoreError as exc:
            self._store_failed(exc)
        return actions

    def idle(self) -> list[Action[T]]:
        """Before the crawl ends: every bet that cannot be final is re-issued (the crawl
        stays open while any is)."""
        if self._failed():
            return []
        actions, self._later = self._later, []
        actions += self._refresh_rules()
        self._guarded(self.judge.save_rules)  # nothing comes to write them meanwhile
        for trap in self.judge.learner.stop_finite_traps():  # their bets are unsettled now
            logger.debug("simdedup: %s stopped: too few pages to be endless", trap.describe())
        progress = self._progress()
        actions += self._guarded(lambda: self._confirm_gathered(progress, staged=False)) or []
        actions += self._guarded(self._brought_nothing) or []
        unsettled = self.bets.unsettled(self.judge.learner.stands, self.judge.settles)
        unsettled = self._held_at_idle(unsettled)
        actions += self._reissue([bet for bet in unsettled if not bet.rule], "interrupted")
        actions += self._reissue([bet for bet in unsettled if bet.rule], "unsettled")
        return actions

    def _brought_nothing(self) -> list[Action[T]]:
        """Pages fetched with a 2xx whose content verdict never came by idle: the response
        yielded no item, or one with no text (a bot wall, an empty app shell, or a page
        the spider takes no item from). The page its path promised did not reach the
        feed, so its links are followed on the mirrors whose pages this crawl skipped as
        copies of its host, as a soft 404's are (the bets relying on it are re-issued:
        ``UrlJudge.settles``). Each once; counted as ``simdedup/url/brought_nothing``."""
        if not self.follows_failed or self.judge.mode != "adaptive":
            return []
        actions: list[Action[T]] = []
        for url, ticket in list(self._awaiting_verdict.items()):
            if self.judge.judged(url):  # on another worker
                continue
            del self._awaiting_verdict[url]
            self.tally.inc_value(keys.URL_BROUGHT_NOTHING)
            actions.append(FollowUnpredicted(ticket, (url,)))
        return actions

    @property
    def awaiting(self) -> bool:
        """Whether the last ``idle`` held bets for evidence on its way (``_held_at_idle``):
        the crawl stays open until it comes, or the wait runs out."""
        return bool(self._awaited)

    def _held_at_idle(self, unsettled: list[Bet[T]]) -> list[Bet[T]]:
        """Of the bets idle found unsettled, hold again those that evidence on its way
        may settle (``_may_wait``); return the rest, to re-issue. A bet held before whose
        counterpart has come since stays held until its verdict (a soft 404, or a copy
        of a page the crawl did not keep, re-issues it at the next idle): it would
        otherwise be final on a page not judged yet, and the worker close."""
        now, held_since = self._clock(), self._awaited
        self._awaited = {}
        peers = self.peers
        if peers.shared and not self.closing:
            for url, since in held_since.items():
                bet = self.bets.get(url)
                if (
                    bet is not None
                    and bet.counterpart is not None
                    and now - since < AWAIT_OTHERS_SECONDS
                    and self._guarded(peers.awaits_verdict, bet.counterpart)
                ):
                    self._awaited[url] = since
        rest: list[Bet[T]] = []
        for bet in unsettled:
            since = held_since.get(bet.url, now)
            if self._may_wait(bet, now - since) and self.bets.park(bet):
                if bet.url not in held_since:
                    self.tally.inc_value(keys.URL_AWAITED)
                self._awaited[bet.url] = since
            else:
                rest.append(bet)
        return rest

    def _may_wait(self, bet: Bet[T], waited: float) -> bool:
        """Whether ``bet``, held ``waited`` seconds at idle so far, may wait longer on a
        crawl several workers share. Scrapy-redis shares one queue, so when one worker goes
        idle the last requests are in the others' downloaders: the probes of a rule still
        being learned (``SAMPLE_WAIT_SECONDS``), or a bet's counterpart
        (``AWAIT_OTHERS_SECONDS``), or fetched there with its verdict still to come (a page
        settles a bet only once judged: ``UrlJudge.settles``). Never final meanwhile: the
        next idle asks again. A worker alone has nothing on its way when idle: what did not
        come will not."""
        if not bet.rule or not self.peers.shared or self.workers < 2 or self.closing:
            return False
        if bet.gathering:
            return waited < SAMPLE_WAIT_SECONDS and not self.judge.learner.refuted(bet.rule)
        counterpart, peers = bet.counterpart, self.peers
        return (
            counterpart is not None
            and waited < AWAIT_OTHERS_SECONDS
            and self.judge.may_bring(counterpart)
            and bool(
                self._guarded(peers.on_its_way, counterpart)
                or self._guarded(peers.awaits_verdict, counterpart)
            )
        )

    def unsent(self, reissue: Reissue[T]) -> bool:
        """A re-issue the crawl cannot take now (its engine is closing the spider, and
        would drop it with the scheduler's queue): offered again at the next moment, and
        parked for the next crawl on the index if the crawl ends first. False (send it)
        on a crawl several workers share: its URL is claimed for the crawl by now, so no
        other worker would fetch it, and their shared queue keeps what is sent."""
        if self.peers.shared:
            return False
        self._later.append(reissue)
        return True

    def closed(self, reason: str) -> None:
        """The crawl ends. Finished: the bets left that are final (counted) leave the
        index; any other (idle re-issued them, unless the spider closed itself) stays there
        for the next crawl on it to re-issue, as every bet does when the crawl ends
        otherwise."""
        if self._failed():
            return
        for action in self._later:  # not sent: kept for the next crawl on the index
            if isinstance(action, Reissue):
                self._guarded(self.parking.park, action.bet)
        self._later = []
        if reason == "finished":
            # Idle re-issued every bet that could not be final; a spider that closes itself
            # as "finished" never went idle, so those stay for the next crawl on the index.
            stands, settles = self.judge.learner.stands, self.judge.settles
            kept = self._guarded(self.bets.unsettled, stands, settles)
            if kept is None:  # the store failed: nothing is known final
                return
            if kept:
                logger.info(
                    "simdedup: %d skipped requests not settled when the crawl finished "
                    "without going idle stay in the index; the next crawl on it fetches them",
                    len(kept),
                )
            final = self.bets.settle_all()
            self._guarded(self.parking.forget, [bet.url for bet in final])
            self.tally.set_value(keys.URL_FINAL, len(final))
        self._guarded(self.judge.save_rules)

    # -- what the crawl's other parts ask ------------------------------------------------

    def takes_over(self) -> bool:
        """Whether dead workers' parked requests may be re-issued here now: not once the
        budget is nearly spent (sent then, one may never be fetched, and its record would
        be gone; it stays for the next crawl), nor after the store failed."""
        return not self.closing and not self._failed()

    def adopted(self, url: str, ticket: T) -> Reissue[T] | None:
        """A dead worker's parked request, claimed by this one: re-issued here, ahead of
        what is queued (it is late, and a crawl with a budget must fetch it before the
        end), unless another worker of the crawl fetches it (its record is removed by
        whoever claimed it, once the request is sent)."""
        bet = Bet(canonical_or_none(url) or url, "", None, ticket)
        if not self._claimed(bet):
            return None
        self.tally.inc_value(keys.url_reissued("abandoned"))
        self._guarded(self.judge.enqueue, bet.url)  # what relies on it may be skipped again
        return Reissue(bet, "abandoned", ahead=True)

    def betting_on(self, rule: str) -> bool:
        """Whether requests the rule ``rule`` skipped are held now."""
        return self.bets.holds_under(rule)

    def refresh(self) -> list[Action[T]]:
        """Rules shared by other workers on the store (every few seconds at most)."""
        return [] if self._failed() else self._refresh_rules()

    def requeued(self, url: str) -> None:
        """``url`` is requested again (a re-issue, a copy on a mirror): at hand."""
        self.judge.enqueue(url)

    def count_rules(self, every: float = 0.0) -> None:
        """The rules in force, in the stats (at most every ``every`` seconds)."""
        now = self._clock()
        if now - self._rules_counted_at < every:
            return
        self._rules_counted_at = now
        learned = self.judge.learned_rules()
        for kind, key in (
            ("mirror", keys.URL_MIRROR_HOSTS),
            ("pattern", keys.URL_PATTERNS),
            ("trap", keys.URL_TRAPS),
        ):
            self.tally.set_value(key, sum(1 for rule in learned if rule.kind == kind))

    def standing_rules(self) -> list[tuple[Rule, int, int]]:
        """The rules in force at the end, each with (its samples judged, of them new)."""
        learner = self.judge.learner
        return [
            (rule, *learner.samples(rule))
            for rule in self.judge.learned_rules()
            if self.judge.stands(rule)
        ]

    def mirror_lines(self) -> list[str]:
        """The mirror rules standing at the end, with what their counts say, for the
        closing summary."""
        return [
            f"{rule.describe()}{rule.copy_note()}: {self.judge.learner.estimate(rule)}"
            for rule in self.judge.learned_rules()
            if rule.kind == "mirror" and self.judge.stands(rule)
        ]

    # -- deciding --------------------------------------------------------------------------

    def _decide(self, seen: Seen[T], parts: UrlParts, *, scheduling: bool) -> Fetch | Skip:
        try:
            decision = self.judge.decide(parts, source=_source(seen.source))
            decision = self._gathered(parts, decision, scheduling=scheduling)
        except StoreError as exc:
            self._store_failed(exc)
            return FETCH
        if decision.skip and self._may_skip(seen, decision):
            skip = self._skip(seen, parts, decision, scheduling=scheduling)
            if skip is not None:
                return skip
        if decision.gathering and not scheduling:  # no bet made: it goes, and teaches
            self._probe(decision, parts)
        elif decision.skip and scheduling and not decision.gathering:
            # annotate mode, or a bet that could not be made
            self.tally.inc_value(keys.url_would_skip(decision.reason))
        sample = ""
        if decision.sample:
            sample = decision.reason
            self.tally.inc_value(keys.URL_SAMPLED)
            if decision.reason == "strict":
                if len(self._strict_samples) >= MAX_AWAITING_VERDICT:
                    del self._strict_samples[next(iter(self._strict_samples))]
                self._strict_samples[seen.url] = None
            elif decision.rule is not None:
                if len(self._rule_samples) >= MAX_AWAITING_VERDICT:
                    del self._rule_samples[next(iter(self._rule_samples))]
                self._rule_samples[seen.url] = (decision.rule.identity, decision.counterpart)
        if scheduling:
            self.judge.enqueue(parts.url)
            if self.depth_limit and len(self._depths) < MAX_DEPTHS:
                depth = seen.depth
                self._depths[parts.url] = min(depth, self._depths.get(parts.url, depth))
        if scheduling or sample:
            return Fetch(sample, queued=scheduling)
        return FETCH

    def _gathered(self, parts: UrlParts, decision: Decision, *, scheduling: bool) -> Decision:
        """A request no learned rule skips, of a kind a parameter rule is still learning
        (``UrlLearner.gathering``): skipped on a bet once as many requests of that kind
        are on their way as the rule needs to be learned, else fetched, and counted on
        its way (``probes``) when it goes to the downloader. Two workers, each fetching
        every ``?sid=`` page in flight until the rule stood, avoided fewer fetches than one
        (issue 35). Not in annotate mode, nor once the budget is nearly spent."""
        if decision.skip or decision.sample or not self.drop or self.closing:
            return decision
        # Scheduled, a request of such a kind only waits: the counterpart (perhaps a store
        # read) is asked for only once enough are on their way.
        gathering = self.judge.gathering(parts, self._enough_on_the_way if scheduling else None)
        if gathering is None or gathering.rule is None:
            return decision
        if scheduling or self._enough_on_the_way(gathering.rule):  # scheduled: asked above
            return gathering
        self._probe(gathering, parts)
        return decision

    def _enough_on_the_way(self, rule: Rule) -> bool:
        """Whether this worker's share of the requests ``rule`` needs to be learned is on
        its way (``_share``)."""
        return self.probes.on_the_way(rule.identity) >= self._share(rule)

    def _share(self, rule: Rule) -> int:
        """Of the requests ``rule`` needs on their way to be learned, this worker's: each
        of a crawl's ``workers`` sends its share, since their verdicts teach the rule on
        all of them (two workers sent six where three teach it). The first ``needs %
        workers`` by ``rank`` take one more (rounded up for every worker, two workers sent
        four of three, one copy fetched for nothing per rule); at least one each, as a
        worker that met no request of the kind sends none (the others then send what
        their share came back short of: ``_probe_gathered``)."""
        needs, workers = self.judge.learner.needs(rule), max(1, self.workers)
        return max(1, needs // workers + (self.rank % workers < needs % workers))

    def _probe(self, gathering: Decision, parts: UrlParts) -> None:
        assert gathering.rule is not None
        self.probes.sent(gathering.rule.identity, parts.url)
        self.tally.inc_value(keys.URL_PROBES)

    def _confirm_gathered(self, progress: Progress, *, staged: bool = True) -> list[Action[T]]:
        """The bets made while their rule gathered evidence, once it was learned or met a
        new page: each stands if the rule, learned, skips its URL now (it then waits as
        any bet does); otherwise it is re-issued (``unconfirmed``): the rule's sample, a
        value the learned rule does not cover (``?ref=home`` copied three times says
        nothing of ``?ref=footer``), or a rule that met a new page.

        ``staged``: the bets of a learned rule are confirmed up to its next sample, and
        the rest wait for that sample's verdict (``SAMPLE_WAIT_SECONDS`` at most), as
        requests that come after a rule was learned meet its samples' verdicts between
        them. All at once, a hundred bets rested on three copies and one in six was
        fetched as a sample: two scrapy-redis workers gather twice as many requests while a
        rule is learned, and fetched twice as many samples (issue 35). At idle, all at
        once: none may be left gathering when the crawl ends."""
        if not self._gathering:
            return []
        learner = self.judge.learner
        resolved: dict[str, bool] = {}  # rule -> learned (its bets may stand) or not
        short: list[Rule] = []  # still learning, with too few requests on their way
        for identity in list(self._gathering):  # asked first: a store error takes out nothing
            rule = learner.rule(identity)
            if not self.bets.holds_under(identity):  # its bets were re-issued otherwise
                self._gathering.discard(identity)
                self._samples.pop(identity, None)
            elif learner.refuted(identity) or (rule is not None and rule.uniques):
                resolved[identity] = False  # a request of its kind came back new
            elif rule is not None and learner.chosen_against(rule):
                resolved[identity] = False  # a mirror pair whose other host is the copy
            elif rule is not None and learner.stands(identity):
                if not (staged and self._sample_awaited(identity, progress)):
                    resolved[identity] = True
            elif rule is not None and rule.specific:
                resolved[identity] = False
            elif rule is not None and not self._enough_on_the_way(rule):
                short.append(rule)
        actions: list[Action[T]] = []
        for rule in short:
            actions += self._probe_gathered(rule)
        for identity, learned in resolved.items():
            self._gathering.discard(identity)
            self._samples.pop(identity, None)
            unconfirmed = []
            gathered = self.bets.gathered_under(identity)
            for n, bet in enumerate(gathered):
                confirmed = self._skipped_now(bet) if learned else None
                if confirmed:
                    bet.gathering = False
                    bet.due_seconds, bet.due_pages = self.deadlines.due(progress, pending=False)
                    if self.bets.park(bet):
                        continue
                unconfirmed.append(bet)
                if confirmed is False and staged and n + 1 < len(gathered):
                    # The rule's sample: the rest wait for its verdict, still gathering.
                    self._samples[identity] = (bet.url, progress.seconds)
                    self._gathering.add(identity)
                    due = self.deadlines.due(progress, pending=False)  # as they would now
                    for waits in gathered[n + 1 :]:
                        waits.due_seconds, waits.due_pages = due
                        if not self.bets.park(waits):
                            unconfirmed.append(waits)
                    break
            # Ahead: most were taken off the queue on their way to the downloader.
            actions += self._reissue(unconfirmed, "unconfirmed", ahead=True)
        return actions

    def _probe_gathered(self, rule: Rule) -> list[Action[T]]:
        """Re-issue, as requests that teach ``rule``, as many of its waiting bets as its
        share of probes lacks (``probe``): those on their way came back and the rule still
        needs copies, or failed. A worker sends its share, counting on the others' (two
        workers, three copies needed: two and one), and a worker with no request of that kind
        sends none: the rule stood at two copies and every request waiting on it was
        fetched at idle (issue 35)."""
        lacking = self._share(rule) - self.probes.on_the_way(rule.identity)
        gathered = self.bets.gathered_under(rule.identity)
        probes = gathered[: max(0, lacking)]
        unparked = [bet for bet in gathered[len(probes) :] if not self.bets.park(bet)]
        actions = self._reissue(probes + unparked, "probe", ahead=True)
        urls = {bet.url for bet in probes}
        for action in actions:  # sent: not one another worker fetched or re-issued
            if isinstance(action, Reissue) and action.bet.url in urls:
                self.probes.sent(rule.identity, action.bet.url)
                self.tally.inc_value(keys.URL_PROBES)
        return actions

    def _sample_awaited(self, identity: str, progress: Progress) -> bool:
        """Whether the rule ``identity``'s sample from its gathered bets is still on its
        way: no verdict on it, here or on another worker, and sent less than
        ``SAMPLE_WAIT_SECONDS`` ago."""
        sample = self._samples.get(identity)
        if sample is None:
            return False
        url, sent = sample
        if progress.seconds - sent < SAMPLE_WAIT_SECONDS and not self.judge.judged(url):
            return True
        del self._samples[identity]
        return False

    def _skipped_now(self, bet: Bet[T]) -> bool | None:
        """Whether the rules in force skip ``bet``'s URL now, on its rule and counterpart,
        counted as any request the rule meets: one that falls to be the rule's sample is
        fetched (as it would have been had it come after the rule was learned): False for
        the sample, None when the rules do not skip it so."""
        try:
            decision = self.judge.decide(bet.url, tally=False)
        except UrlNotCheckedError:
            return None
        except StoreError as exc:  # re-issued: the bets taken out must not be lost
            self._store_failed(exc)
            return None
        rule = decision.rule
        if not (
            decision.skip
            and rule is not None
            and rule.identity == bet.rule
            and decision.counterpart == bet.counterpart
        ):
            return None
        return not self.judge.learner.takes_sample(rule)

    def _may_skip(self, seen: Seen[T], decision: Decision) -> bool:
        """Whether a rule's skip may be made into a bet here: skipping at all (not
        annotate mode, the budget not nearly spent), a counterpart no deeper than the copy
        under a depth limit, a counterpart not known to be another path's page."""
        return (
            self.drop
            and not self.closing
            and self._as_deep(seen.depth, decision)
            and self._predicted(decision)
        )

    def _predicted(self, decision: Decision) -> bool:
        """Whether the page a mirror or parameter skip relies on is what its path promised
        (not a soft 404: a copy of another path of its host or of a mirror of it). A
        trap's copies rely on a page others copy."""
        rule = decision.rule
        if rule is None or rule.kind == "trap" or decision.counterpart is None:
            return True
        return self.judge.predicted(decision.counterpart)

    def _as_deep(self, depth: int, decision: Decision) -> bool:
        """Under a depth limit, whether the counterpart a skip relies on was queued no
        deeper than the copy: else the links its page holds may lie beyond the limit on the
        original, and only this copy would bring them (counted as ``deeper_counterpart``;
        fetched). A trap's skip relies on no path of its own."""
        if not self.depth_limit or decision.counterpart is None:
            return True
        if self._depths.get(decision.counterpart, depth + 1) <= depth:
            return True
        self.tally.inc_value(keys.URL_DEEPER_COUNTERPART)
        return False

    def _skip(
        self, seen: Seen[T], parts: UrlParts, decision: Decision, *, scheduling: bool
    ) -> Skip | None:
        """Park the bet; None when it cannot be (the request is then fetched)."""
        rule = decision.rule
        assert rule is not None
        first = rule.kind == "mirror" and not self.bets.holds_under(rule.identity)
        if rule.kind != "strict":
            due = self.deadlines.due(
                self._progress(), pending=decision.pending, gathering=decision.gathering
            )
            bet = Bet(
                parts.url, rule.identity, decision.counterpart, seen.ticket, *due,
                past_filter=not scheduling, pending=decision.pending,
                gathering=decision.gathering,
            )  # fmt: skip
            if parts.url in self.bets or not self._guarded(self.parking.park, bet):
                return None
            if not self.bets.park(bet):
                self._guarded(self.parking.forget, [parts.url])
                return None
            if decision.counterpart is not None:
                self._guarded(self.peers.bet, parts.url, decision.counterpart)
            self.tally.inc_value(keys.URL_PARKED)
            if decision.gathering:
                self._gathering.add(rule.identity)
                self.tally.inc_value(keys.URL_GATHERING)
                if rule.kind == "mirror":  # a path of its host all the same (``SiteSizes``)
                    self.judge.learner.sizes.add(parts.url)
        self.tally.inc_value(keys.url_skipped(decision.reason))
        self.tally.inc_value(keys.URL_CHECKED)  # judged and skipped: checked, once
        if decision.pending:
            self.tally.inc_value(keys.URL_PENDING)
        logger.debug("simdedup: skipped %s (%s)", seen.url, rule.describe())
        self.judge.dequeue(parts.url)  # bets relying on it now rely on this one
        return Skip(rule, decision.counterpart, pending=decision.pending, first=first)

    # -- settling ------------------------------------------------------------------------

    def _lost(self, url: str, why: str, *, follow: bool = False) -> list[Action[T]]:
        """``url`` will not bring its page: the bets relying on it are re-issued (and its
        link followed on mirrors, when ``follow``)."""
        self.judge.lost(url)
        actions = self._reissue(self.bets.relying_on(url), why)
        if follow:
            actions.append(FOLLOW_FAILED)
        return actions

    def _waiting_longer(self, late: list[Bet[T]], progress: Progress) -> list[Bet[T]]:
        """Of the bets past their deadline, the pending ones whose counterpart is at hand
        now (queued, or itself a bet), or whose counterpart's path is at hand under
        another query (a mirror's ``?sid=`` page waits for the original's ``?sid=`` page,
        and the original's bare page is queued, fetched or parked), wait once more, as
        long as a bet made on a counterpart at hand: the original's crawl has reached the
        page. Re-issued, a mirror crawled ahead of its original fetched such copies by the
        dozen (the original's bare pages, queued from its home page, came a moment after).
        Counted as ``simdedup/url/extended``; returns the bets to re-issue now."""
        if self.closing or not late:
            return late
        reissue = []
        for bet in late:
            counterpart = bet.counterpart
            if (
                counterpart is not None
                and self.judge.learner.stands(bet.rule)
                and self.judge.settles(counterpart)
            ):  # the rules chained say its page came: asked again at the next deadline
                bet.due_seconds, bet.due_pages = self.deadlines.due(progress, pending=False)
                if self.bets.park(bet):
                    continue
            if (
                bet.pending
                and not bet.extended
                and counterpart is not None
                and (
                    self.judge.covers(counterpart)
                    or ("?" in counterpart and self.judge.covers(counterpart.partition("?")[0]))
                )
            ):
                bet.due_seconds, bet.due_pages = self.deadlines.once_more(progress)
                bet.extended = True
                if self.bets.park(bet):
                    self.tally.inc_value(keys.URL_EXTENDED)
                    continue
            reissue.append(bet)
        return reissue

    def _reissue(self, bets: list[Bet[T]], why: str, *, ahead: bool = False) -> list[Action[T]]:
        """The bets taken out, their records forgotten, each counted and made an action."""
        if not bets:
            return []
        self._guarded(self.parking.forget, [bet.url for bet in bets])
        actions: list[Action[T]] = []
        for bet in bets:
            if not self._claimed(bet):
                continue
            rule = self.judge.learner.rule(bet.rule) if bet.rule else None
            self.tally.inc_value(keys.url_reissued(why))
            if why == "unsettled" and bet.rule:  # its verdict tells whether the rule held
                if len(self._contested) >= MAX_AWAITING_VERDICT:  # the oldest goes
                    del self._contested[next(iter(self._contested))]
                self._contested[bet.url] = bet.rule
            self._guarded(self.judge.enqueue, bet.url)  # what relies on it may be skipped again
            actions.append(Reissue(bet, why, ahead=ahead, rule=rule))
        return actions

    def _claimed(self, bet: Bet[T]) -> bool:
        """On a crawl several workers share, whether this worker re-issues ``bet``: the
        first to claim its URL does, past any dupefilter (scrapy-redis's has seen every
        worker's requests), and a URL fetched or re-issued by another worker is not sent
        again (``simdedup/url/reissued_elsewhere``)."""
        if not self.peers.shared:
            return True
        try:
            claimed = self.peers.claim_reissue(bet.url)
        except StoreError as exc:  # unknown: sent, a copy fetched twice at worst
            self._store_failed(exc)
            claimed = True
        if not claimed:
            self.tally.inc_value(keys.URL_REISSUED_ELSEWHERE)
            self._guarded(self.judge.enqueue, bet.url)  # at hand: another worker brings it
            return False
        bet.past_filter = True
        return True

    def claim_fetch(self, url: str) -> bool:
        """On a crawl several workers share, whether this request may go to the downloader:
        not when a re-issue of the same URL in this crawl fetches it
        (``simdedup/url/fetched_by_reissue``). Else, the request goes: its host counts as
        that much more crawled."""
        if self._failed():
            return True
        canonical = canonical_or_none(url)
        if canonical is None:
            return True
        if self._guarded(self.peers.claim_fetch, canonical) is not False:
            self.judge.requested(canonical)
            return True
        self.tally.inc_value(keys.URL_FETCHED_BY_REISSUE)
        return False

    def _switchers_linked(self, url: str, source: str) -> None:
        """Tell the learner of a link with parameters; the pattern bets on a parameter it
        finds to be a switcher now are re-issued (at the next tick: ``_later``)."""
        parts, linking = _source(url), _source(source)
        if parts is None or linking is None:
            return
        for section, name in self.judge.learner.linked(parts, linking):
            self._later += self._reissue_switcher(section, name)

    def _reissue_switcher(self, section: str, name: str) -> list[Action[T]]:
        """The pattern bets on ``name`` in ``section``, now known to be a switcher."""

        def on_switcher(bet: Bet[T]) -> bool:
            if kind_of(bet.rule) != "pattern":
                return False
            held = _source(bet.url)
            return (
                held is not None
                and any(param == name for param, _ in held.params)
                and template_path(section_template(held)) == section
            )

        return self._reissue(self.bets.take_where(on_switcher), "switcher")

    def _take_leftover(self, url: str) -> None:
        """A link came to a request an interrupted crawl parked: the request is judged
        afresh, its record goes."""
        self.bets.take(url)
        self._guarded(self.parking.forget, [url])

    def _refresh_rules(self) -> list[Action[T]]:
        weakened = self._guarded(self.judge.refresh) or []
        actions: list[Action[T]] = []
        heard = self.judge.learner.heard()  # found on other workers of the crawl
        for section, name in heard.switchers:
            actions += self._reissue_switcher(section, name)
        for url in heard.unpredicted:
            self.judge.heard_unpredicted(url)
            actions += self._reissue(
                self.bets.relying_on_its_page(url), "counterpart_not_predicted"
            )
        for rule in weakened:
            bets = self.bets.under(rule.identity)
            actions += self._reissue(bets, "rule_weakened")
            logger.debug(
                "simdedup: another worker saw %s fail, %d parked requests re-issued",
                rule.describe(), len(bets),
            )  # fmt: skip
        if weakened:
            self.count_rules()
        return actions

    # -- small helpers ---------------------------------------------------------------------

    def _progress(self) -> Progress:
        pages, items = self._counts()
        return Progress(self._clock() - self._started, pages, items)

    def _parts(self, seen: Seen[T], *, count: bool) -> UrlParts | None:
        try:
            return url_parts(seen.url)
        except UrlNotCheckedError as exc:
            if count:
                self.tally.inc_value(keys.url_unchecked(exc.reason))
            return None

    def _judged(self, url: str) -> UrlParts | None:
        if self._failed():
            return None
        try:
            return url_parts(url)
        except UrlNotCheckedError:
            return None

    def _guarded(self, action: Callable[..., R], *args: object) -> R | None:
        """``action(*args)``; a store error is reported (the crawl closes) and gives None."""
        try:
            return action(*args)
        except StoreError as exc:
            self._store_failed(exc)
            return None


def _section_of(url: str) -> str | None:
    """The section (``section_template``) of a URL, as rules name sections."""
    parts = _source(url)
    return None if parts is None else template_path(section_template(parts))


def _source(url: str | None) -> UrlParts | None:
    if not url:
        return None
    try:
        return url_parts(url)
    except (UrlNotCheckedError, ValueError):
        return None
