"""Parked bets: skipped requests held until the evidence they relied on settles.

A skip is a bet that the page will come in through another request (its counterpart) or
is one more copy of a trap. The bet is parked with its rule and counterpart, and re-issued
when the evidence turns: the counterpart failed or was dropped, or the rule was weakened.
A bet is also due after a deadline (``deadlines.py``): one whose counterpart has not come
by then is re-issued, so a crawl that never goes idle, or closes on a budget, loses none.
When the crawl is about to end, bets whose counterpart never came back are re-issued too;
the rest are final. So a wrong rule costs re-fetches, never pages.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")

MAX_PARKED = 100_000
"""Bets held at once; beyond this a request that could be skipped is fetched."""


@dataclass
class Bet(Generic[T]):
    """A skipped request (``ticket``, e.g. a Scrapy ``Request``) and what it relied on."""

    url: str  # canonical
    rule: str  # the rule's identity; empty for a bet left over from an interrupted crawl
    counterpart: str | None  # the URL whose page it expects; None for a trap
    ticket: T
    due_seconds: float = math.inf  # due then (seconds into the crawl), or
    due_pages: int = 2**62  # once this many pages were fetched
    past_filter: bool = False  # skipped after the dupefilter saw it: re-issued past it
    pending: bool = False  # its counterpart was not queued yet when it was made
    extended: bool = False  # its deadline was put off once (``url/overdue.py``)
    gathering: bool = False  # made before its rule was learned: never final until it is


RECHECK_ALWAYS = 64
RECHECK_RATIO = 8
RECHECK_SECONDS = 30.0
"""Due bets that stood are asked again when more come due: every time while they are few
(``RECHECK_ALWAYS``), else once as many as an eighth of them came due since, or
``RECHECK_SECONDS`` passed. A crawl holding tens of thousands of such bets walked them all
on every look at its deadlines. A bet that stops standing with no event that takes it out
(its rule outvoted by another mirror's, the bet it relies on re-issued, another worker's
verdict) is re-issued that much later; when the crawl goes idle or its budget is nearly
spent, every bet is asked (``unsettled``), and a crawl stopped otherwise keeps its bets
parked for the next run."""

MAX_CHAIN = 4
"""A bet may rely on another bet (``/x?sid=1`` on a skipped ``/x``, itself a mirror's copy
of ``/x`` on the original) this many deep; longer chains, or a cycle, are re-issued."""


class ParkedBets(Generic[T]):
    """Bets by URL, by counterpart and by rule; each taken out once when settled."""

    def __init__(self, limit: int = MAX_PARKED) -> None:
        self.limit = limit
        self._by_url: dict[str, Bet[T]] = {}
        self._by_counterpart: dict[str, set[str]] = {}
        self._by_rule: dict[str, set[str]] = {}
        # Deadlines in order (a bet taken out or parked again leaves a stale entry, passed
        # over when it comes up): a look at the deadlines walks only the bets due since the
        # last, and those found due before that stood then (``_due``), as each such look
        # asks again whether they still do.
        self._by_seconds: list[tuple[float, int, str]] = []
        self._by_pages: list[tuple[int, int, str]] = []
        self._parked = 0  # a tie-breaker: bets are not ordered
        self._due: set[str] = set()
        self._walked = 0  # bets come due since those that stood were last asked again
        self._rechecked_at = 0.0

    def __len__(self) -> int:
        return len(self._by_url)

    def __contains__(self, url: object) -> bool:
        return url in self._by_url

    def park(self, bet: Bet[T]) -> bool:
        """Hold ``bet``; False (nothing held) when full or its URL is already parked."""
        if len(self._by_url) >= self.limit or bet.url in self._by_url:
            return False
        self._by_url[bet.url] = bet
        self._parked += 1
        if bet.due_seconds < math.inf:
            heapq.heappush(self._by_seconds, (bet.due_seconds, self._parked, bet.url))
        if bet.due_pages < 2**62:
            heapq.heappush(self._by_pages, (bet.due_pages, self._parked, bet.url))
        if bet.counterpart is not None:
            self._by_counterpart.setdefault(bet.counterpart, set()).add(bet.url)
        self._by_rule.setdefault(bet.rule, set()).add(bet.url)
        return True

    def holds_under(self, rule: str) -> bool:
        """Whether the rule ``rule`` has a bet held (a request it skipped, not yet settled)."""
        return bool(self._by_rule.get(rule))

    def relying_on(self, counterpart: str) -> list[Bet[T]]:
        """Take out the bets whose counterpart is ``counterpart`` (it failed)."""
        return self._take(self._by_counterpart.get(counterpart, set()))

    def relying_on_its_page(self, counterpart: str) -> list[Bet[T]]:
        """Take out the bets that expect ``counterpart``'s page at its path (a mirror's, a
        parameter's), not a trap's, whose copies rely on a page others copy."""
        urls = self._by_counterpart.get(counterpart, set())
        return self._take({url for url in urls if not self._by_url[url].rule.startswith("trap")})

    def gathered_under(self, rule: str) -> list[Bet[T]]:
        """Take out the bets the rule ``rule`` made while it was being learned."""
        urls = self._by_rule.get(rule, set())
        return self._take({url for url in urls if self._by_url[url].gathering})

    def under_if(self, rule: str, wanted: Callable[[Bet[T]], bool]) -> list[Bet[T]]:
        """Take out the bets the rule ``rule`` made that are ``wanted``."""
        urls = self._by_rule.get(rule, set())
        return self._take({url for url in urls if wanted(self._by_url[url])})

    def under(self, rule: str) -> list[Bet[T]]:
        """Take out every bet the rule ``rule`` made (it was weakened)."""
        return self._take(self._by_rule.get(rule, set()))

    def unsettled(
        self, stands: Callable[[str], bool], fetched: Callable[[str], bool]
    ) -> list[Bet[T]]:
        """Take out the bets that cannot be final: their rule no longer ``stands``, or
        their counterpart was not ``fetched`` and is no final bet itself."""
        good: dict[str, bool] = {}
        bad = {url for url in self._by_url if not self._final(url, stands, fetched, good, 0)}
        return self._take(bad)

    def _final(
        self,
        url: str,
        stands: Callable[[str], bool],
        fetched: Callable[[str], bool],
        good: dict[str, bool],
        depth: int,
    ) -> bool:
        if url in good:
            return good[url]
        bet = self._by_url[url]
        counterpart = bet.counterpart
        final = bool(bet.rule) and not bet.gathering and stands(bet.rule) and depth < MAX_CHAIN
        if final and counterpart is not None and not fetched(counterpart):
            final = counterpart in self._by_url and self._final(
                counterpart, stands, fetched, good, depth + 1
            )
        good[url] = final
        return final

    def overdue(
        self,
        seconds: float,
        pages: int,
        stands: Callable[[str], bool],
        fetched: Callable[[str], bool],
    ) -> list[Bet[T]]:
        """Take out the bets past their deadline that cannot be final yet (see
        ``unsettled``): their counterpart has not brought its page in time."""
        new = self._came_due(self._by_seconds, seconds, _due_seconds)
        new |= self._came_due(self._by_pages, pages, _due_pages)
        if not new:
            return []
        self._walked += len(new)
        again = (
            len(self._due) <= RECHECK_ALWAYS
            or self._walked * RECHECK_RATIO >= len(self._due)
            or seconds >= self._rechecked_at + RECHECK_SECONDS
        )
        due = self._due | new if again else new
        if again:
            self._walked, self._rechecked_at = 0, seconds
        good: dict[str, bool] = {}
        late = {url for url in due if not self._final(url, stands, fetched, good, 0)}
        self._due = (due if again else self._due | due) - late
        return self._take(late)

    def _came_due(
        self, deadlines: list[Any], now: float, deadline: Callable[[Bet[T]], float]
    ) -> set[str]:
        """The URLs of the bets held whose ``deadline`` is ``now`` or past, not due
        before (an entry of a bet taken out, or parked again with another deadline, is
        passed over; one due by its other deadline already came due)."""
        due: set[str] = set()
        while deadlines and deadlines[0][0] <= now:
            when, _, url = heapq.heappop(deadlines)
            held = self._by_url.get(url)
            if held is not None and deadline(held) == when and url not in self._due:
                due.add(url)
        return due

    def get(self, url: str) -> Bet[T] | None:
        return self._by_url.get(url)

    def take(self, url: str) -> Bet[T] | None:
        """Take out the bet on ``url``, if one is held."""
        taken = self._take({url})
        return taken[0] if taken else None

    def take_where(self, wanted: Callable[[Bet[T]], bool]) -> list[Bet[T]]:
        """Take out the bets ``wanted`` picks (a walk over every bet: for rare events)."""
        return self._take({url for url, bet in self._by_url.items() if wanted(bet)})

    def settle_all(self) -> list[Bet[T]]:
        """Take out every bet: the crawl ended with them final."""
        return self._take(set(self._by_url))

    def _take(self, urls: set[str]) -> list[Bet[T]]:
        taken = []
        for url in list(urls):
            bet = self._by_url.pop(url, None)
            if bet is None:
                continue
            self._due.discard(url)
            if bet.counterpart is not None:
                self._discard(self._by_counterpart, bet.counterpart, url)
            self._discard(self._by_rule, bet.rule, url)
            taken.append(bet)
        return taken

    @staticmethod
    def _discard(table: dict[str, set[str]], key: str, url: str) -> None:
        urls = table.get(key)
        if urls is not None:
            urls.discard(url)
            if not urls:
                del table[key]


def _due_seconds(bet: Bet[Any]) -> float:
    return bet.due_seconds


def _due_pages(bet: Bet[Any]) -> float:
    return bet.due_pages
