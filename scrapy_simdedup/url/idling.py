"""``IdleHolds``: bets a shared crawl holds at idle for evidence on its way.

Scrapy-redis shares one queue, so when one worker goes idle the last requests are in the
others' downloaders: a rule's probes, a bet's counterpart, or a page fetched there whose
verdict is still to come (a page settles a bet only once judged). Such a bet is held, not
re-issued, for a bounded wait; never final meanwhile, as the next idle asks again. A worker
alone has nothing on its way when idle: what did not come will not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_simdedup import stats as keys

if TYPE_CHECKING:
    from scrapy_simdedup.url.bets import Bet
    from scrapy_simdedup.url.context import CoreContext

T = TypeVar("T")

AWAIT_OTHERS_SECONDS = 60.0
"""At idle on a crawl several workers share, a bet whose counterpart another worker has on
its way waits this long at most for it (the other worker may have been killed with it)."""


class IdleHolds(Generic[T]):
    """The bets the last idle held, each with when it was first held."""

    def __init__(self, context: CoreContext[T], *, sample_wait: float) -> None:
        self.judge = context.judge
        self.bets = context.bets
        self.tally = context.tally
        self.guard = context.guard
        self.crew = context.crew
        self._clock = context.clock
        self._sample_wait = sample_wait
        self._awaited: dict[str, float] = {}  # URL -> held since

    def __bool__(self) -> bool:
        """Whether the last idle held bets: the crawl stays open until their evidence
        comes, or the wait runs out."""
        return bool(self._awaited)

    def held(self, unsettled: list[Bet[T]], *, closing: bool) -> list[Bet[T]]:
        """Of the bets idle found unsettled, hold again those that evidence on its way
        may settle (``_may_wait``); return the rest, to re-issue. A bet held before whose
        counterpart has come since stays held until its verdict (a soft 404, or a copy
        of a page the crawl did not keep, re-issues it at the next idle): it would
        otherwise be final on a page not judged yet, and the worker close."""
        now, held_since = self._clock(), self._awaited
        self._awaited = {}
        peers = self.judge.peers
        if peers.shared and not closing:
            for url, since in held_since.items():
                bet = self.bets.get(url)
                if (
                    bet is not None
                    and bet.counterpart is not None
                    and now - since < AWAIT_OTHERS_SECONDS
                    and self.guard(peers.awaits_verdict, bet.counterpart)
                ):
                    self._awaited[url] = since
        rest: list[Bet[T]] = []
        for bet in unsettled:
            since = held_since.get(bet.url, now)
            if self._may_wait(bet, now - since, closing) and self.bets.park(bet):
                if bet.url not in held_since:
                    self.tally.inc_value(keys.URL_AWAITED)
                self._awaited[bet.url] = since
            else:
                rest.append(bet)
        return rest

    def _may_wait(self, bet: Bet[T], waited: float, closing: bool) -> bool:
        """Whether ``bet``, held ``waited`` seconds at idle so far, may wait longer on a
        crawl several workers share: the probes of a rule still being learned (the
        sample wait), or a bet's counterpart (``AWAIT_OTHERS_SECONDS``) on its way or
        fetched elsewhere with its verdict still to come."""
        peers = self.judge.peers
        if not bet.rule or not peers.shared or self.crew.size < 2 or closing:
            return False
        if bet.gathering:
            return waited < self._sample_wait and not self.judge.learner.refuted(bet.rule)
        counterpart = bet.counterpart
        return (
            counterpart is not None
            and waited < AWAIT_OTHERS_SECONDS
            and self.judge.may_bring(counterpart)
            and bool(
                self.guard(peers.on_its_way, counterpart)
                or self.guard(peers.awaits_verdict, counterpart)
            )
        )
