"""Bets past their deadline that wait once more, because their counterpart is at hand.

A deadline bounds how long a bet may wait for its counterpart's page. Past it, a bet
whose counterpart the rules chained say came, or a pending bet whose counterpart (or its
path under another query) is queued, fetched or parked, waits once more: the original's
crawl has reached the page. Re-issued, a mirror crawled ahead of its original fetched such
copies by the dozen (the original's bare pages, queued from its home page, came a moment
after).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from scrapy_simdedup import stats as keys

if TYPE_CHECKING:
    from scrapy_simdedup.url.bets import Bet
    from scrapy_simdedup.url.context import CoreContext
    from scrapy_simdedup.url.deadlines import Progress

T = TypeVar("T")


def past_deadline(late: list[Bet[T]], progress: Progress, context: CoreContext[T]) -> list[Bet[T]]:
    """Of the bets past their deadline, those to re-issue now; the others are parked
    again with a later deadline (counted as ``simdedup/url/extended`` when a pending bet
    waits once more). The caller asks only while bets are skipped (not closing)."""
    judge, bets, deadlines = context.judge, context.bets, context.deadlines
    reissue = []
    for bet in late:
        counterpart = bet.counterpart
        if (
            counterpart is not None
            and judge.learner.stands(bet.rule)
            and judge.settles(counterpart)
        ):  # the rules chained say its page came: asked again at the next deadline
            bet.due_seconds, bet.due_pages = deadlines.due(progress, pending=False)
            if bets.park(bet):
                continue
        if (
            bet.pending
            and not bet.extended
            and counterpart is not None
            and (
                judge.covers(counterpart)
                or ("?" in counterpart and judge.covers(counterpart.partition("?")[0]))
            )
        ):
            bet.due_seconds, bet.due_pages = deadlines.once_more(progress)
            bet.extended = True
            if bets.park(bet):
                context.tally.inc_value(keys.URL_EXTENDED)
                continue
        reissue.append(bet)
    return reissue
