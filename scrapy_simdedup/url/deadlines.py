"""When a bet must be settled: deadlines in time and in fetches, and a crawl's budget.

A skipped request waits for its counterpart's page. Waiting for the spider to go idle is
not enough: a crawl that closes on a budget (``CLOSESPIDER_TIMEOUT``,
``CLOSESPIDER_PAGECOUNT``, ``CLOSESPIDER_ITEMCOUNT``) or that never runs dry (a long
archive) never goes idle, and its parked requests would be lost. So each bet is due after
``PENDING_FETCHES`` fetches or ``PENDING_SECONDS`` when its counterpart was not queued yet
(a mirror's page its original may lack); when it was, as long again as the crawl has run
(at least ``WAITING_FETCHES`` and ``WAITING_SECONDS``, at most ``WAITING_SECONDS_MAX``): a
queued page may sit deep in Scrapy's last-in-first-out queue for most of a crawl (a fixed
400 fetches re-issued some 400 copies in a crawl of a 5,000-page site with session ids,
``benchmarks/crawl.py --only site``). A pending bet whose counterpart was queued by then,
or whose counterpart's path is at hand under another query (queued, fetched or parked),
waits once more, ``WAITING_FETCHES`` or ``WAITING_SECONDS`` (``once_more``,
``url/overdue.py``), and one whose counterpart a parameter rule skips on a page
that came waits again, as a bet on a queued page, each time (``UrlJudge.settles``); a bet
read back from an interrupted crawl is due at once; one made while its rule was still
gathering evidence is due after ``GATHERING_FETCHES`` or ``GATHERING_SECONDS`` unless the
rule was learned by then. And once a budget is nearly spent (``closing``: its reserve
grows with the bets held), every bet not settled is re-issued and no new one is made.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PENDING_FETCHES = 60
PENDING_SECONDS = 30.0
WAITING_FETCHES = 400
WAITING_SECONDS = 120.0
WAITING_SECONDS_MAX = 1800.0
"""Half an hour: what a bet whose counterpart is queued may wait at most, however long the
crawl has run. A crawl that ends without going idle or spending a budget (killed, or
stopped by its spider) leaves its bets in the index for the next crawl to re-issue."""
GATHERING_FETCHES = 60
GATHERING_SECONDS = 10.0
RESERVE_SHARE = 0.2
"""The last fifth of a budget is kept for re-issued bets: none is made after its start."""
MIN_RESERVE_PAGES = 10
MIN_RESERVE_SECONDS = 5.0


@dataclass(frozen=True)
class Budget:
    """What a crawl that closes on its own allows; 0 is no limit."""

    pages: int = 0
    seconds: float = 0.0
    items: int = 0


@dataclass(frozen=True)
class Progress:
    """Where a crawl stands: seconds since it started, pages fetched, items scraped."""

    seconds: float
    pages: int
    items: int


class Deadlines:
    """Deadlines of new bets, and whether the crawl's budget is nearly spent."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget

    def due(self, now: Progress, *, pending: bool, gathering: bool = False) -> tuple[float, int]:
        """(seconds, pages) at which a bet parked ``now`` is due: a bet whose counterpart is
        queued waits as long again as the crawl has run (within its bounds), so that its
        page's turn in the queue usually comes first, in a small crawl or a large one."""
        if gathering:
            return now.seconds + GATHERING_SECONDS, now.pages + GATHERING_FETCHES
        if pending:
            return now.seconds + PENDING_SECONDS, now.pages + PENDING_FETCHES
        waited = min(WAITING_SECONDS_MAX, max(WAITING_SECONDS, now.seconds))
        return now.seconds + waited, now.pages + max(WAITING_FETCHES, now.pages)

    def once_more(self, now: Progress) -> tuple[float, int]:
        """(seconds, pages) at which a pending bet given longer once is due: the fixed
        ``WAITING_*``, not the crawl's age, since the page it waits for may never be
        requested at all (a mirror's ``?sid=`` page whose original has only the bare one)."""
        return now.seconds + WAITING_SECONDS, now.pages + WAITING_FETCHES

    def closing(self, now: Progress, held: int) -> bool:
        """Whether what is left of the budget is the reserve for the ``held`` bets: time to
        re-issue them all, and to skip nothing more. Each reserve grows with the bets held:
        a page each; an item each, and for a time budget the time the crawl has taken per
        page so far, each, to twice the reserve at most (a bet on a queued page may wait
        long, so many may be held; but ``held`` counts settled bets too, and a long crawl
        holds thousands)."""
        budget = self.budget
        if budget.pages:
            reserve = max(MIN_RESERVE_PAGES, math.ceil(RESERVE_SHARE * budget.pages)) + held
            if budget.pages - now.pages <= reserve:
                return True
        if budget.items:
            reserve = max(MIN_RESERVE_PAGES, math.ceil(RESERVE_SHARE * budget.items))
            reserve += min(held, reserve)
            if budget.items - now.items <= reserve:
                return True
        if budget.seconds:
            per_page = now.seconds / max(1, now.pages)
            reserve_seconds = max(MIN_RESERVE_SECONDS, RESERVE_SHARE * budget.seconds)
            reserve_seconds += min(held * per_page, reserve_seconds)
            if budget.seconds - now.seconds <= reserve_seconds:
                return True
        return False
