"""Skipped requests as Scrapy holds them: kept in the index, sent again, adopted.

The URL core (``url/core.py``) owns each bet's life; this module is its Scrapy side.
``RequestParking`` keeps each parked ``Request`` in the index (``ParkingLot``), so an
interrupted crawl re-issues it; ``send_again`` turns a ``Reissue`` into a request for the
engine (past the dupefilter when it had seen it); ``Adoption`` re-issues what dead workers
parked on a store several workers share.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.scrapy_layer.parking import MAX_ADOPTED
from scrapy_simdedup.url.bets import Bet

if TYPE_CHECKING:
    from collections.abc import Callable, Container

    from scrapy.http import Request

    from scrapy_simdedup.scrapy_layer.parking import ParkingLot
    from scrapy_simdedup.url.actions import Reissue

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
    """What ``Adoption.adopt`` did: the dead workers whose requests it looked at, how
    many it re-issued, and whether a worker's fate is still unknown (wait for it)."""

    dead: list[str]
    reissued: int
    waiting: bool


class RequestParking:
    """The core's ``Parking`` of Scrapy requests: records in the index (``ParkingLot``).

    ``running(worker)``, on a store several workers share, says whether a worker may still
    run (``Heartbeats.alive``): its parked requests are its own to settle or re-issue. A
    stopped worker's are another's to take: at open (its crawl was interrupted), or once
    it is known dead (``Adoption``), and a link to one is judged, not left to wait."""

    def __init__(self, lot: ParkingLot, running: Callable[[str], bool] | None = None) -> None:
        self.lot = lot
        self.running = running

    def park(self, bet: Bet[Request]) -> bool:
        """Store the bet's request; False when it cannot be serialised (then fetched)."""
        if bet.past_filter:
            bet.ticket.meta[SEEN] = True
        return self.lot.park(bet.url, bet.ticket)

    def forget(self, urls: list[str]) -> None:
        self.lot.forget(urls)

    def held_elsewhere(self, url: str) -> bool:
        owner = self.lot.holder(url)
        if not owner or owner == self.lot.owner:
            return False
        return self.running is not None and self.running(owner)

    def leftovers(self) -> list[Bet[Request]]:
        """What an interrupted crawl parked, as bets on no rule; a running worker's are not."""
        found = self.lot.leftovers(self.running) if self.running else self.lot.leftovers()
        return [
            Bet(url, "", None, request, past_filter=bool(request.meta.get(SEEN)))
            for url, request in found
        ]


def send_again(reissue: Reissue[Request]) -> Request:
    """The request of a re-issued bet: past the dupefilter when it had seen it, ahead of
    what is queued (``AHEAD`` more priority) when it is late, its reason in its meta."""
    ticket = reissue.bet.ticket
    seen = reissue.bet.past_filter or bool(ticket.meta.get(SEEN))
    priority = ticket.priority + (AHEAD if reissue.ahead else 0)
    return ticket.replace(
        dont_filter=seen, priority=priority, meta={**ticket.meta, REISSUED: reissue.why}
    )


class Adoption:
    """Re-issues what dead workers parked on a store several workers share.

    ``send(request)`` gives a request to the engine (False when it is not sent: another
    worker of the crawl fetches it); ``store_failed`` is told of a store error."""

    def __init__(
        self,
        lot: ParkingLot,
        send: Callable[[Request], bool],
        store_failed: Callable[[StoreError], None],
    ) -> None:
        self.lot = lot
        self._send = send
        self._store_failed = store_failed

    def adopt(
        self,
        held: Container[str],
        alive: Callable[[str], bool],
        unsure: Callable[[str], bool],
    ) -> Adopted:
        """Re-issue what workers that are not ``alive`` parked (``reissued/abandoned``),
        leaving out this worker's ``held`` bets. Each record is first rewritten as this
        worker's (one compare-and-set: one worker only takes it), then sent to the engine,
        and removed only after: a crash in between leaves it for another worker, never
        loses it. A record this worker cannot rebuild (a callback it lacks) is left for one
        that can."""
        fates: dict[str, bool] = {}  # owner -> dead, asked once per look
        reissued, waiting = 0, False
        try:
            for parked in self.lot.others(held):
                if parked.owner not in fates:
                    fates[parked.owner] = not alive(parked.owner)
                if not fates[parked.owner]:
                    waiting = waiting or unsure(parked.owner)
                    continue
                request = self.lot.request(parked)
                claimed = None if request is None else self.lot.claim(parked)
                if request is None or claimed is None:
                    continue
                sent = self._send(request)
                self.lot.release(parked.key, claimed)
                reissued += sent
                if reissued >= MAX_ADOPTED:
                    break
        except StoreError as exc:
            self._store_failed(exc)
        return Adopted(sorted(owner for owner, dead in fates.items() if dead), reissued, waiting)
