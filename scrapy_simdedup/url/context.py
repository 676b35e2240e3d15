"""``CoreContext``: what the URL core's parts share, and the protocols it is built on.

The core (``url/core.py``) answers the crawl's events; its parts make bets
(``url/betting.py``), confirm those made while a rule gathered evidence
(``url/probing.py``), re-issue them (``url/reissuing.py``), hold them at idle
(``url/idling.py``) and count samples (``url/samplesout.py``). They all work on one crawl's
bets, judge, stats and store guard: built once by the core and handed to each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.bets import Bet, ParkedBets
    from scrapy_simdedup.url.crew import Crew
    from scrapy_simdedup.url.deadlines import Deadlines
    from scrapy_simdedup.url.guard import StoreGuard
    from scrapy_simdedup.url.judge import UrlJudge

T = TypeVar("T")


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


@dataclass(frozen=True)
class CoreContext(Generic[T]):
    """One crawl's bets (``bets``, and ``parking`` beyond this process), the judge that
    decides and settles them, the stats (``tally``), the store-error boundary
    (``guard``), the deadlines, the crawl's workers (``crew``) and the clock."""

    judge: UrlJudge
    bets: ParkedBets[T]
    parking: Parking[T]
    tally: Tally
    guard: StoreGuard
    deadlines: Deadlines
    crew: Crew
    clock: Callable[[], float]
