"""Deadlines of bets and a crawl's budget: no bet outlives the crawl."""

from __future__ import annotations

import math

import pytest

from scrapy_simdedup.url.bets import RECHECK_ALWAYS, RECHECK_RATIO, RECHECK_SECONDS, Bet, ParkedBets
from scrapy_simdedup.url.deadlines import (
    PENDING_FETCHES,
    PENDING_SECONDS,
    WAITING_FETCHES,
    WAITING_SECONDS,
    WAITING_SECONDS_MAX,
    Budget,
    Deadlines,
    Progress,
)


def test_a_bet_waiting_for_a_page_not_queued_is_due_sooner() -> None:
    deadlines = Deadlines(Budget())
    now = Progress(10.0, 100, 0)
    assert deadlines.due(now, pending=True) == (10.0 + PENDING_SECONDS, 100 + PENDING_FETCHES)
    assert deadlines.due(now, pending=False) == (10.0 + WAITING_SECONDS, 100 + WAITING_FETCHES)


def test_a_bet_on_a_queued_page_waits_as_long_again_as_the_crawl_has_run() -> None:
    """Late in a crawl a queued page may sit deep in Scrapy's last-in-first-out queue: a
    fixed wait re-issued the copy before its counterpart's turn came. Half an hour at most."""
    deadlines = Deadlines(Budget())
    assert deadlines.due(Progress(600.0, 5_000, 0), pending=False) == (1_200.0, 10_000)
    assert deadlines.due(Progress(600.0, 5_000, 0), pending=True)[1] == 5_000 + PENDING_FETCHES
    late = deadlines.due(Progress(36_000.0, 10**6, 0), pending=False)
    assert late == (36_000.0 + WAITING_SECONDS_MAX, 2 * 10**6)


@pytest.mark.parametrize(
    ("budget", "progress", "held", "closing"),
    [
        (Budget(), Progress(10_000.0, 10**6, 10**6), 50, False),  # no budget: never
        (Budget(pages=90), Progress(1.0, 50, 0), 0, False),
        (Budget(pages=90), Progress(1.0, 72, 0), 0, True),  # its last fifth
        (Budget(pages=90), Progress(1.0, 60, 0), 12, True),  # and one page per bet held
        (Budget(pages=1000), Progress(1.0, 790, 0), 0, False),
        (Budget(seconds=60.0), Progress(47.0, 10, 0), 0, False),
        (Budget(seconds=60.0), Progress(48.0, 10, 0), 0, True),
        (Budget(seconds=10.0), Progress(5.0, 10, 0), 0, True),  # at least 5 s kept
        (Budget(items=100), Progress(1.0, 500, 81), 0, True),
        (Budget(items=100), Progress(1.0, 500, 70), 0, False),
        (Budget(items=100), Progress(1.0, 500, 70), 10, True),  # and one item per bet held
        (Budget(seconds=600.0), Progress(400.0, 2_000, 0), 0, False),
        # and per bet held, the time a page has taken so far (0.2 s): 500 bets, 100 s more
        (Budget(seconds=600.0), Progress(400.0, 2_000, 0), 500, True),
        # to twice the reserve at most: a long crawl holds thousands of settled bets
        (Budget(seconds=600.0), Progress(300.0, 1_000, 0), 10**6, False),
        (Budget(seconds=600.0), Progress(360.0, 1_000, 0), 10**6, True),
        (Budget(items=1_000), Progress(1.0, 500, 500), 10**6, False),
    ],
)
def test_a_budget_nearly_spent_is_closing(
    budget: Budget, progress: Progress, held: int, closing: bool
) -> None:
    assert Deadlines(budget).closing(progress, held) is closing


def _bet(
    url: str, counterpart: str | None, *, seconds: float = math.inf, pages: int = 2**62
) -> Bet[str]:
    return Bet(url, "mirror", counterpart, url, due_seconds=seconds, due_pages=pages)


def test_overdue_bets_are_taken_out_unless_their_counterpart_came() -> None:
    bets: ParkedBets[str] = ParkedBets()
    bets.park(_bet("m/1", "o/1", pages=50))
    bets.park(_bet("m/2", "o/2", pages=50))
    bets.park(_bet("m/3", "o/3", seconds=30.0))
    bets.park(_bet("m/4", "o/4", pages=500))
    stands, fetched = (lambda rule: True), (lambda url: url == "o/2")
    assert bets.overdue(5.0, 49, stands, fetched) == []  # none due yet
    late = bets.overdue(5.0, 50, stands, fetched)
    assert [bet.url for bet in late] == ["m/1"]  # m/2's counterpart brought its page
    assert [bet.url for bet in bets.overdue(31.0, 60, stands, fetched)] == ["m/3"]
    assert "m/4" in bets and "m/2" in bets and len(bets) == 2


def test_a_bet_parked_again_is_due_at_its_new_deadline_only() -> None:
    bets: ParkedBets[str] = ParkedBets()
    bet = _bet("m/1", "o/1", seconds=30.0, pages=60)
    bets.park(bet)
    stands, came = (lambda rule: True), (lambda url: False)
    assert [b.url for b in bets.overdue(31.0, 10, stands, came)] == ["m/1"]
    bet.due_seconds, bet.due_pages = 150.0, 460  # waits once more (``url/overdue.py``)
    assert bets.park(bet)
    assert bets.overdue(100.0, 100, stands, came) == []  # its old page deadline passed
    assert [b.url for b in bets.overdue(151.0, 100, stands, came)] == ["m/1"]
    bets.park(_bet("m/2", "o/2", pages=50))
    bets.take("m/2")
    assert bets.overdue(1_000.0, 1_000, stands, came) == [] and len(bets) == 0


def test_a_due_bet_that_stood_is_asked_again_when_another_comes_due() -> None:
    bets: ParkedBets[str] = ParkedBets()
    bets.park(_bet("m/1", "o/1", pages=50))
    bets.park(_bet("m/2", "o/2", pages=80))
    came = {"o/1"}
    stands = lambda rule: True  # noqa: E731
    assert bets.overdue(0.0, 50, stands, came.__contains__) == []  # its counterpart came
    came.discard("o/1")  # (released since)
    late = bets.overdue(0.0, 80, stands, came.__contains__)
    assert sorted(bet.url for bet in late) == ["m/1", "m/2"]


def test_many_due_bets_that_stood_are_asked_again_now_and_then_not_each_time() -> None:
    bets: ParkedBets[str] = ParkedBets()
    held = RECHECK_ALWAYS * RECHECK_RATIO
    for n in range(held):
        bets.park(Bet(f"m/{n}", f"mirror-{n}", f"o/{n}", f"m/{n}", due_pages=10))
    asked: list[str] = []
    outvoted: set[str] = set()

    def stands(rule: str) -> bool:
        asked.append(rule)
        return rule not in outvoted

    came = lambda url: True  # noqa: E731
    assert bets.overdue(0.0, 10, stands, came) == [] and len(asked) == held  # all stood
    outvoted.add("mirror-0")  # another mirror's rule won: m/0 no longer stands
    steps = 0
    while True:  # one bet comes due at a time: asked alone, until an eighth of them came
        steps += 1
        bets.park(_bet(f"n/{steps}", f"p/{steps}", pages=10 + steps))
        asked.clear()
        late = bets.overdue(1.0, 10 + steps, stands, came)
        if late:
            break
        assert asked == ["mirror"] and steps < held
    assert [bet.url for bet in late] == ["m/0"] and len(asked) > held  # all asked again
    assert held / RECHECK_RATIO <= steps <= held / (RECHECK_RATIO - 1) + 1
    outvoted.add("mirror-1")
    bets.park(_bet("n/late", "p/late", pages=held))
    assert bets.overdue(2.0, held, stands, came) == []  # m/1 is asked again later ...
    bets.park(_bet("n/later", "p/later", pages=held + 1))
    late = bets.overdue(1.0 + RECHECK_SECONDS, held + 1, stands, came)  # ... then at last
    assert [bet.url for bet in late] == ["m/1"]
    outvoted.add("mirror-2")  # when the crawl goes idle, every bet is asked at once
    assert [bet.url for bet in bets.unsettled(stands, came)] == ["m/2"]


def test_an_interrupted_crawls_bet_is_due_at_once() -> None:
    bets: ParkedBets[str] = ParkedBets()
    bets.park(Bet("m/9", "", None, "m/9", due_seconds=0.0))
    assert [bet.url for bet in bets.overdue(0.0, 0, lambda rule: True, lambda url: True)] == ["m/9"]
