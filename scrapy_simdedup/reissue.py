"""``RequestBets``: the URL middleware's skipped requests, held until their bets settle.

The bets themselves (``scrapy_simdedup.url.bets``) are plain Python; this adapter keeps
each parked request in the index too (``ParkingLot``) and sends the ones that lost back to
Scrapy's engine (past the dupefilter when it had seen them), counted under
``simdedup/url/reissued/<why>``.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy_simdedup import stats as keys
from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.parking import MAX_ADOPTED
from scrapy_simdedup.url.bets import Bet, ParkedBets

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler
    from scrapy.http import Request

    from scrapy_simdedup.index.crawls import CrawlRecord
    from scrapy_simdedup.parking import ParkingLot

logger = logging.getLogger(__name__)

AHEAD = 100
"""Priority added to a request re-issued late (its deadline passed, or the budget is nearly
spent), so that it is fetched before the crawl ends."""
REISSUED = "simdedup_reissued"
"""``Request.meta`` key of a parked request sent again: why (``counterpart_failed``, ...)."""
SEEN = "simdedup_seen"
"""``Request.meta`` key of a request parked after Scrapy's dupefilter saw it (skipped on its
way to the downloader): it is re-issued past the dupefilter. One parked before (when it was
scheduled) is re-issued through it, so that a URL an earlier run of the same JOBDIR fetched
is not fetched twice."""


@dataclass(frozen=True)
class Adopted:
    """What ``RequestBets.adopt`` did: the dead workers whose requests it looked at, how
    many it re-issued, and whether a worker's fate is still unknown (wait for it)."""

    dead: list[str]
    reissued: int
    waiting: bool


class RequestBets:
    """Parks, stores and re-issues skipped requests. ``requeued(url)`` is told of each
    re-issued URL; ``store_failed`` of a store error (the store is then left alone);
    ``reissued(bet, why)``, when given, of each bet re-issued (the verdict log)."""

    def __init__(
        self,
        crawler: Crawler,
        lot: ParkingLot,
        requeued: Callable[[str], None],
        store_failed: Callable[[StoreError], None],
        *,
        reissued: Callable[[Bet[Request], str], None] | None = None,
    ) -> None:
        self.crawler = crawler
        self.lot = lot
        self.held: ParkedBets[Request] = ParkedBets()
        self._requeued = requeued
        self._store_failed = store_failed
        self._reissued = reissued
        # A crawl several workers share (issue 35): its bets are written there, and a
        # re-issue is claimed there instead of passing the dupefilter the others fill too.
        self.crawl: CrawlRecord | None = None

    def __contains__(self, url: object) -> bool:
        return url in self.held

    def resume(self) -> int:
        """Hold what an interrupted crawl parked: due at once, re-issued at the first
        ``tick`` (or when a link to it comes first)."""
        left = self._guarded(self.lot.leftovers) or []
        for url, request in left:
            self.held.park(Bet(url, "", None, request, due_seconds=0.0))
        return len(left)

    def linked_again(self, url: str) -> bool:
        """A link to ``url``, held on a bet, came again: True when the bet was an
        interrupted crawl's (taken out: the request is judged afresh), False when it
        stands (the link is one more of the same skipped request)."""
        bet = self.held.get(url)
        if bet is None or bet.rule:
            return False
        self.held.take(url)
        self._guarded(self.lot.forget, [url])
        return True

    def tick(
        self,
        seconds: float,
        pages: int,
        stands: Callable[[str], bool],
        brought: Callable[[str], bool],
        *,
        closing: bool,
    ) -> int:
        """Re-issue the bets past their deadline whose counterpart has not brought its page
        (``overdue``; an interrupted crawl's: ``interrupted``), and, once the crawl is
        ``closing`` on its budget, every bet that is not final yet (``budget``). Re-issued
        late, they go ahead of what is queued. How many were."""
        late = self.held.overdue(seconds, pages, stands, brought)
        self._reissue([bet for bet in late if not bet.rule], "interrupted", ahead=True)
        self._reissue([bet for bet in late if bet.rule], "overdue", ahead=True)
        spent = self.held.unsettled(stands, brought) if closing else []
        self._reissue(spent, "budget", ahead=True)
        return len(late) + len(spent)

    def adopt(self, alive: Callable[[str], bool], unsure: Callable[[str], bool]) -> Adopted:
        """Re-issue what workers that are not ``alive`` parked on a shared store
        (``reissued/abandoned``). Each record is first rewritten as this worker's (one
        compare-and-set: one worker only takes it), then sent to the engine, and removed
        only after: a crash in between leaves it for another worker, never loses it. A
        record this worker cannot rebuild (a callback it lacks) is left for one that can."""
        fates: dict[str, bool] = {}  # owner -> dead, asked once per look
        reissued, waiting = 0, False
        try:
            for parked in self.lot.others(self.held):
                if parked.owner not in fates:
                    fates[parked.owner] = not alive(parked.owner)
                if not fates[parked.owner]:
                    waiting = waiting or unsure(parked.owner)
                    continue
                request = self.lot.request(parked)
                claimed = None if request is None else self.lot.claim(parked)
                if request is None or claimed is None:
                    continue
                self._send(Bet(parked.url, "", None, request), "abandoned")
                self.lot.release(parked.key, claimed)
                reissued += 1
                if reissued >= MAX_ADOPTED:
                    break
        except StoreError as exc:
            self._store_failed(exc)
        return Adopted(sorted(owner for owner, dead in fates.items() if dead), reissued, waiting)

    def watch(self, alive: Callable[[str], bool]) -> None:
        """Look at the workers that parked requests here, so that one that died is known
        dead by the time this one goes idle."""
        owners = {parked.owner for parked in self._guarded(self.lot.others, self.held) or ()}
        for owner in owners:
            self._guarded(alive, owner)

    def park(
        self,
        request: Request,
        url: str,
        rule: str,
        counterpart: str | None,
        due: tuple[float, int] = (math.inf, 2**62),
    ) -> bool:
        """Hold and store ``request`` until ``due`` (seconds into the crawl, pages fetched);
        False when it cannot be (it is then fetched)."""
        if url in self.held or not self._guarded(self.lot.park, url, request):
            return False
        if not self.held.park(Bet(url, rule, counterpart, request, *due)):
            self._guarded(self.lot.forget, [url])
            return False
        if self.crawl is not None and counterpart is not None:  # for the other workers' bets
            self._guarded(self.crawl.bet, url, counterpart)
        return True

    def betting_on(self, rule: str) -> bool:
        """Whether requests the rule ``rule`` skipped are held now."""
        return self.held.holds_under(rule)

    def lost(self, counterpart: str, why: str) -> None:
        """``counterpart`` will not bring its page: the bets relying on it are re-issued."""
        self._reissue(self.held.relying_on(counterpart), why)

    def unpredicted(self, counterpart: str) -> None:
        """``counterpart`` brought a page of another path (a soft 404): the bets that
        expected its own page are re-issued."""
        self._reissue(self.held.relying_on_its_page(counterpart), "counterpart_not_predicted")

    def weakened(self, rule: str) -> int:
        """The rule ``rule`` was weakened: everything it parked is re-issued."""
        bets = self.held.under(rule)
        self._reissue(bets, "rule_weakened")
        return len(bets)

    def before_idle(self, stands: Callable[[str], bool], brought: Callable[[str], bool]) -> int:
        """Re-issue every bet that cannot be final; how many were."""
        unsettled = self.held.unsettled(stands, brought)
        self._reissue([bet for bet in unsettled if not bet.rule], "interrupted")
        self._reissue([bet for bet in unsettled if bet.rule], "unsettled")
        return len(unsettled)

    def finished(self) -> int:
        """The crawl finished: the bets left are final and leave the index; how many."""
        final = self.held.settle_all()
        self._guarded(self.lot.forget, [bet.url for bet in final])
        return len(final)

    def _reissue(self, bets: list[Bet[Request]], why: str, *, ahead: bool = False) -> None:
        if not bets:
            return
        self._guarded(self.lot.forget, [bet.url for bet in bets])
        for bet in bets:
            self._send(bet, why, ahead=ahead)

    def _send(self, bet: Bet[Request], why: str, *, ahead: bool = False) -> None:
        """Send ``bet``'s request to the engine again (past the dupefilter if it saw it);
        ``ahead`` of what is queued (``AHEAD`` more priority) when it is late."""
        seen = bool(bet.ticket.meta.get(SEEN))
        if self.crawl is not None:  # a crawl shared by workers: one fetch per crawl (issue 35)
            if not self._guarded(self.crawl.claim_reissue, bet.url):
                self.crawler.stats.inc_value(keys.URL_REISSUED_ELSEWHERE)
                self._requeued(bet.url)  # at hand: another worker fetches it
                return
            seen = True  # claimed: past any dupefilter, which other workers fill too
        priority = bet.ticket.priority + (AHEAD if ahead else 0)
        request = bet.ticket.replace(
            dont_filter=seen, priority=priority, meta={**bet.ticket.meta, REISSUED: why}
        )
        self.crawler.stats.inc_value(keys.url_reissued(why))
        if self._reissued is not None:
            self._reissued(bet, why)
        logger.debug(
            "simdedup: re-issued %s (%s; it relied on %s)", request.url, why, bet.counterpart
        )
        self._requeued(bet.url)  # requests relying on it may be skipped again
        self.crawler.engine.crawl(request)

    def _guarded(self, action: Callable[..., Any], *args: Any) -> Any:
        try:
            return action(*args)
        except StoreError as exc:
            self._store_failed(exc)
            return None
