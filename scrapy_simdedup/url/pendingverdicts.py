"""``PendingVerdicts``: fetched requests remembered until their content verdict.

A copy of a page this crawl did not keep may need a re-visit of the page it copies, taking
the request's route as the spider routed it; a soft 404's links are followed on mirrors as
it was routed; and a page whose verdict never came by idle brought nothing into the feed
(a bot wall, an empty app shell), so its links are followed on mirrors too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.url.actions import FollowUnpredicted

if TYPE_CHECKING:
    from scrapy_simdedup.url.actions import Action
    from scrapy_simdedup.url.context import Tally
    from scrapy_simdedup.url.judge import UrlJudge

T = TypeVar("T")

MAX_AWAITING_VERDICT = 10_000
"""Fetched requests remembered until their content verdict (a re-visit takes their route,
a soft 404's links are followed on mirrors as it was routed)."""


class PendingVerdicts(Generic[T]):
    """Canonical URL -> the request's ticket, as routed, in the order fetched."""

    def __init__(self) -> None:
        self._tickets: dict[str, T] = {}

    def fetched(self, url: str, ticket: T) -> None:
        """``url``'s page came back; its verdict is to come."""
        if len(self._tickets) >= MAX_AWAITING_VERDICT:  # the oldest goes
            del self._tickets[next(iter(self._tickets))]
        self._tickets[url] = ticket

    def judged(self, url: str) -> T | None:
        """``url``'s verdict came: its ticket, if it was remembered."""
        return self._tickets.pop(url, None)

    def brought_nothing(self, judge: UrlJudge, tally: Tally) -> list[Action[T]]:
        """Pages fetched with a 2xx whose content verdict never came by idle: the response
        yielded no item, or one with no text (a bot wall, an empty app shell, or a page
        the spider takes no item from). The page its path promised did not reach the
        feed, so its links are followed on the mirrors whose pages this crawl skipped as
        copies of its host, as a soft 404's are (the bets relying on it are re-issued:
        ``UrlJudge.settles``). Each once; counted as ``simdedup/url/brought_nothing``."""
        actions: list[Action[T]] = []
        for url, ticket in list(self._tickets.items()):
            if judge.judged(url):  # on another worker
                continue
            del self._tickets[url]
            tally.inc_value(keys.URL_BROUGHT_NOTHING)
            actions.append(FollowUnpredicted(ticket, (url,)))
        return actions
