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

Its parts, each with one job (``url/context.py`` names what they share): ``Admission``
judges a request, ``BetMaker`` makes a skip into a bet, ``Probing`` holds the bets of a
rule still learned, ``Reissuer`` takes bets out, ``IdleHolds`` keeps bets a shared crawl
waits for at idle, ``SamplesOut`` counts a rule's samples, and ``StoreGuard`` is the one
boundary for store errors.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.errors import StoreError, UrlNotCheckedError
from scrapy_simdedup.url.actions import Fetch, Reissue, Skip
from scrapy_simdedup.url.admission import Admission
from scrapy_simdedup.url.bets import ParkedBets
from scrapy_simdedup.url.betting import BetMaker
from scrapy_simdedup.url.context import CoreContext, Parking, Tally
from scrapy_simdedup.url.crew import Crew
from scrapy_simdedup.url.deadlines import Budget, Deadlines, Progress
from scrapy_simdedup.url.guard import StoreGuard
from scrapy_simdedup.url.idling import AWAIT_OTHERS_SECONDS, IdleHolds
from scrapy_simdedup.url.overdue import past_deadline
from scrapy_simdedup.url.parts import (
    UrlParts,
    canonical_or_none,
    canonical_url,
    url_parts,
)
from scrapy_simdedup.url.pendingverdicts import PendingVerdicts
from scrapy_simdedup.url.probing import SAMPLE_WAIT_SECONDS, Probing
from scrapy_simdedup.url.reissuing import Reissuer
from scrapy_simdedup.url.rulecounts import RuleCounts
from scrapy_simdedup.url.samplesout import SamplesOut

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.actions import Action, Seen
    from scrapy_simdedup.url.judge import UrlJudge
    from scrapy_simdedup.url.peers import Peers
    from scrapy_simdedup.url.rules import Rule

__all__ = ["AWAIT_OTHERS_SECONDS", "SAMPLE_WAIT_SECONDS", "Parking", "Tally", "UrlCore"]

T = TypeVar("T")

logger = logging.getLogger(__name__)

COUNT_RULES_EVERY = 1.0
"""Seconds between updates of the rule counts in the stats while a crawl runs."""
TICK_SECONDS = 0.25
"""How often, at most, deadlines are looked at on the way to the downloader (each fetched
page looks: a budget in pages is spent that fast)."""


class UrlCore(Generic[T]):
    """Decides each request and owns the bets it makes (see the module's docstring).

    ``judge`` answers may-it-be-skipped; ``parking`` keeps bets in the index; ``tally``
    takes the counters; ``route(ticket)`` is the ticket as the spider routed it, kept for a
    re-visit; ``store_failed`` is told of a store error (the core then decides nothing
    more) and ``failed()`` says whether the crawl's store failed. ``drop=False`` (annotate
    mode) skips nothing: would-be skips are counted. ``revisits``: an earlier crawl's kept
    pages may need a re-visit (a private store that holds some). ``resumed``: a job's later
    run (JOBDIR) on a store of its own; ``follows_failed``: a failed link is followed on
    the mirrors (adaptive mode, dropping). ``counts()``: the pages
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
        resumed: bool = False,
        follows_failed: bool = False,
        counts: Callable[[], tuple[int, int]] = lambda: (0, 0),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.judge = judge
        self.parking = parking
        self.tally = tally
        self.drop = drop
        self.deadlines = Deadlines(budget or Budget())
        self.revisits = revisits
        self.guard = StoreGuard(store_failed, failed)
        self.bets: ParkedBets[T] = ParkedBets()
        self.judge.held = self.bets
        self.crew = Crew()  # the Scrapy layer counts the workers from their heartbeats
        context = CoreContext(
            judge, self.bets, parking, tally, self.guard, self.deadlines, self.crew, clock
        )
        self.reissuer = Reissuer(context)
        self.probing = Probing(context, self.reissuer)
        self.betting = BetMaker(context, self.probing, depth_limit=depth_limit)
        self.holds = IdleHolds(context, sample_wait=SAMPLE_WAIT_SECONDS)
        self._context = context
        self.samples = SamplesOut(tally, self.guard)
        # Re-issues that arose while a request was scheduled: carried out at the next tick.
        self._later: list[Action[T]] = []
        self.admission = Admission(
            context, probing=self.probing, betting=self.betting, samples=self.samples,
            reissuer=self.reissuer, drop=drop, progress=self._progress, later=self._later,
        )  # fmt: skip
        self.closing = False  # the budget is nearly spent: nothing more is skipped
        self._route = route
        self._clock = clock
        self._counts = counts
        self._started = clock()
        self._next_tick = 0.0
        self._awaiting_verdict: PendingVerdicts[T] = PendingVerdicts()
        self.rule_counts = RuleCounts(judge, tally, clock)
        self.resumed = resumed  # a job's later run (JOBDIR), on a store of its own
        self.follows_failed = follows_failed  # on mirrors (adaptive, dropping)

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
        left = self.guard(self.parking.leftovers) or []
        for bet in left:
            bet.due_seconds = 0.0
            self.bets.park(bet)
        self.count_rules()
        return len(left)

    def met_again(self, url: str) -> bool:
        """Whether ``scheduled`` would answer a link to ``url`` with a plain ``FETCH`` and
        change nothing (``Admission.met_again``): most links a page yields."""
        return self.admission.met_again(url)

    def scheduled(self, seen: Seen[T]) -> Fetch | Skip:
        """A request enters the scheduler: judged before it takes a place in the queue."""
        return self.admission.scheduled(seen, closing=self.closing)

    def downloading(self, seen: Seen[T]) -> Fetch | Skip:
        """The backstop, on the way to the downloader: judged again with what was learned
        while the request waited (counted as checked, once). Call ``tick`` first."""
        return self.admission.downloading(seen, closing=self.closing)

    def fetched(self, url: str, ticket: T, status: int) -> list[Action[T]]:
        """A response came back: a 2xx brings a page (bets on it wait for its verdict); any
        other status brings none, and the bets relying on it are re-issued."""
        actions = self.tick(force=True)  # a budget in pages is spent a page at a time
        parts = self._judged(url)
        if parts is None:
            return actions
        if not 200 <= status < 300:
            return actions + self._fetch_failed(parts.url)
        self.guard(self.judge.fetched, parts)
        self.tally.inc_value(keys.URL_FETCHED)
        if self.revisits or self.follows_failed:
            # A re-visit is routed as the request was before the spider saw its page; a
            # soft 404's links are routed when one is found (most pages are none).
            routed = self._route(ticket) if self.revisits else ticket
            self._awaiting_verdict.fetched(parts.url, routed)
        return actions

    def redirected(self, urls: list[str]) -> None:
        """A response came back for a request redirected from ``urls``: their requests
        brought no page of their own, and no longer count as on their way for the other
        workers of the crawl (``CrawlRecord.on_its_way``)."""
        if not self.peers.shared or self.guard.failed():
            return
        for url in urls:
            canonical = canonical_or_none(url)
            if canonical is not None:
                self.guard(self.peers.failed, canonical)

    def failed(self, url: str) -> list[Action[T]]:
        """A download error, a timeout, or another component ignored the request."""
        parts = self._judged(url)
        if parts is None or parts.url in self.bets:
            return []
        return self._fetch_failed(parts.url)

    def _fetch_failed(self, url: str) -> list[Action[T]]:
        """``url`` went to the downloader and brought no page: no longer on its way for
        any worker of the crawl, and the bets relying on it are re-issued."""
        self.probing.probes.done(url)
        self.guard(self.peers.failed, url)
        return self.reissuer.lost(url, "counterpart_failed", follow=True)

    def dropped(self, url: str) -> list[Action[T]]:
        """Scrapy's scheduler refused a request queued here (its dupefilter): it will not
        come. A link that brought no page in an earlier run of the same job is followed on
        the mirrors."""
        if self.guard.failed():
            return []
        resumed = self.resumed and self.follows_failed
        return self.reissuer.dropped(url, resumed=resumed)

    def mirror_copy_dropped(self, url: str) -> None:
        """A failed link's copy requested on a mirror was refused: it will not come."""
        try:
            self.judge.dequeue(canonical_url(url))
        except UrlNotCheckedError:
            return

    def released(self, key: str) -> list[Action[T]]:
        """A later pipeline dropped ``key``'s item: it no longer covers its copies."""
        if self.guard.failed():
            return []
        try:
            url = url_parts(key).url
        except UrlNotCheckedError:
            return []
        self.guard(self.judge.released, url)
        return self.reissuer.lost(url, "counterpart_released")

    def verdict(self, key: str, original: str | None) -> list[Action[T]]:
        """The content pipeline judged ``key``: a copy of ``original``, or new (None).

        Rules learn from it; a copy of a page this crawl did not keep (an earlier crawl's)
        brings nothing into the feed, so the bets relying on it are re-issued; a copy of
        another path of its own host or of its mirror, or the second of its host to copy
        one page (a soft 404), settles no bet that expected its path's page."""
        if self.guard.failed():
            return []
        sampled = self.samples.judged(key, original)
        try:
            url = url_parts(key).url
        except UrlNotCheckedError:
            return []
        # The rules whose sample this verdict settles: the page was fetched as one, or a
        # sample judged new before it waited for this page, its counterpart.
        waiting = self.samples.waiting_for(url)
        samples = tuple(found[0] for found in (sampled, waiting) if found is not None)
        try:
            weakened = self.judge.observe(key, original, samples)
        except UrlNotCheckedError:
            return []
        except StoreError as exc:
            self.guard.report(exc)
            return []
        probed = self.probing.probes.done(url)
        if probed is not None and original is None:
            self.judge.learner.refute(probed)
        contested = self.reissuer.contested(url)
        if contested is not None and original is None:
            against = self.guard(self.judge.learner.contradicted, contested, url) or []
            weakened = [*weakened, *against]
        self.samples.count(
            self.judge.learner, url, original, sampled=sampled, waiting=waiting, weakened=weakened
        )
        ticket = self._awaiting_verdict.judged(url)
        actions: list[Action[T]] = []
        if original is not None and original != key:
            revisits = self.revisits and self.drop
            actions += self.reissuer.copied(
                url, key, original, ticket, revisits=revisits, follows=self.follows_failed
            )
        for rule in weakened:
            actions += self.reissuer.contradicted(rule, key, url)
        if weakened or original not in (None, key):
            self.count_rules(every=COUNT_RULES_EVERY)
        return actions

    def tick(self, *, force: bool = False) -> list[Action[T]]:
        """A moment of the crawl: the bets past their deadline, and all that are not final
        once the budget is nearly spent, are re-issued; rules other workers changed are
        taken in. At most every ``TICK_SECONDS`` unless ``force`` (a page fetched)."""
        actions = self._take_later()
        now = self._clock()
        if self.guard.failed() or (not force and now < self._next_tick):
            return actions
        self._next_tick = now + TICK_SECONDS
        try:
            actions += self._refresh_rules()
            progress = self._progress()
            actions += self.probing.confirm(progress)
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
            actions += self.reissuer.reissue(
                [b for b in late if not b.rule], "interrupted", ahead=True
            )
            late = [b for b in late if b.rule]
            if not self.closing and late:
                late = past_deadline(late, progress, self._context)
            actions += self.reissuer.reissue(late, "overdue", ahead=True)
            if closing:  # a page with no verdict (yet) settles nothing: no idle may come
                spent = self.bets.unsettled(stands, self.judge.settles)
                actions += self.reissuer.reissue(spent, "budget", ahead=True)
        except StoreError as exc:
            self.guard.report(exc)
        return actions

    def idle(self) -> list[Action[T]]:
        """Before the crawl ends: every bet that cannot be final is re-issued (the crawl
        stays open while any is)."""
        if self.guard.failed():
            return []
        actions = self._take_later()
        actions += self._refresh_rules()
        self.guard(self.judge.save_rules)  # nothing comes to write them meanwhile
        for trap in self.judge.learner.stop_finite_traps():  # their bets are unsettled now
            logger.debug("simdedup: %s stopped: too few pages to be endless", trap.describe())
        progress = self._progress()
        actions += self.guard(lambda: self.probing.confirm(progress, staged=False)) or []
        actions += self.guard(self._brought_nothing) or []
        unsettled = self.bets.unsettled(self.judge.learner.stands, self.judge.settles)
        unsettled = self.holds.held(unsettled, closing=self.closing)
        actions += self.reissuer.reissue([bet for bet in unsettled if not bet.rule], "interrupted")
        actions += self.reissuer.reissue([bet for bet in unsettled if bet.rule], "unsettled")
        return actions

    def _brought_nothing(self) -> list[Action[T]]:
        """Pages fetched whose verdict never came by idle (``PendingVerdicts``), in
        adaptive mode when failed links are followed on mirrors."""
        if not self.follows_failed or self.judge.mode != "adaptive":
            return []
        return self._awaiting_verdict.brought_nothing(self.judge, self.tally)

    @property
    def awaiting(self) -> bool:
        """Whether the last ``idle`` held bets for evidence on its way (``IdleHolds``):
        the crawl stays open until it comes, or the wait runs out."""
        return bool(self.holds)

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
        if self.guard.failed():
            return
        for action in self._take_later():  # not sent: kept for the next crawl on the index
            if isinstance(action, Reissue):
                self.guard(self.parking.park, action.bet)
        if reason == "finished":
            # Idle re-issued every bet that could not be final; a spider that closes itself
            # as "finished" never went idle, so those stay for the next crawl on the index.
            stands, settles = self.judge.learner.stands, self.judge.settles
            kept = self.guard(self.bets.unsettled, stands, settles)
            if kept is None:  # the store failed: nothing is known final
                return
            if kept:
                logger.info(
                    "simdedup: %d skipped requests not settled when the crawl finished "
                    "without going idle stay in the index; the next crawl on it fetches them",
                    len(kept),
                )
            final = self.bets.settle_all()
            self.guard(self.parking.forget, [bet.url for bet in final])
            self.tally.set_value(keys.URL_FINAL, len(final))
        self.guard(self.judge.save_rules)

    # -- what the crawl's other parts ask ------------------------------------------------

    def takes_over(self) -> bool:
        """Whether dead workers' parked requests may be re-issued here now: not once the
        budget is nearly spent (sent then, one may never be fetched, and its record would
        be gone; it stays for the next crawl), nor after the store failed."""
        return not self.closing and not self.guard.failed()

    def adopted(self, url: str, ticket: T) -> Reissue[T] | None:
        """A dead worker's parked request, claimed by this one (``Reissuer.adopted``)."""
        return self.reissuer.adopted(url, ticket)

    def betting_on(self, rule: str) -> bool:
        """Whether requests the rule ``rule`` skipped are held now."""
        return self.bets.holds_under(rule)

    def refresh(self) -> list[Action[T]]:
        """Rules shared by other workers on the store (every few seconds at most)."""
        return [] if self.guard.failed() else self._refresh_rules()

    def requeued(self, url: str) -> None:
        """``url`` is requested again (a re-issue, a copy on a mirror): at hand."""
        self.judge.enqueue(url)

    def count_rules(self, every: float = 0.0) -> None:
        """The rules in force, in the stats (at most every ``every`` seconds)."""
        self.rule_counts.count(every)

    def standing_rules(self) -> list[tuple[Rule, int, int]]:
        """The rules in force at the end, each with (its samples judged, of them new)."""
        return self.rule_counts.standing()

    def mirror_lines(self) -> list[str]:
        """The mirror rules standing at the end, for the closing summary."""
        return self.rule_counts.mirror_lines()

    # -- deciding --------------------------------------------------------------------------

    def claim_fetch(self, url: str) -> bool:
        """On a crawl several workers share, whether this request may go to the
        downloader (``Admission.claim_fetch``)."""
        return self.admission.claim_fetch(url)

    def _refresh_rules(self) -> list[Action[T]]:
        actions, weakened = self.reissuer.heard()
        if weakened:
            self.count_rules()
        return actions

    # -- small helpers ---------------------------------------------------------------------

    def _progress(self) -> Progress:
        pages, items = self._counts()
        return Progress(self._clock() - self._started, pages, items)

    def _take_later(self) -> list[Action[T]]:
        taken = list(self._later)
        self._later.clear()  # the same list: ``Admission`` adds to it
        return taken

    def _judged(self, url: str) -> UrlParts | None:
        if self.guard.failed():
            return None
        try:
            return url_parts(url)
        except UrlNotCheckedError:
            return None
