"""``BetMaker``: a rule's skip made into a bet, or declined.

A skip is made only where it can be settled: skipping at all (not annotate mode, the
budget not nearly spent), a counterpart no deeper than the copy under a depth limit, and
a counterpart not known to be another path's page (a soft 404). The bet is parked in the
index before the request is dropped, so an interrupted crawl re-issues it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.url.actions import Skip
from scrapy_simdedup.url.bets import Bet

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.actions import Seen
    from scrapy_simdedup.url.context import CoreContext
    from scrapy_simdedup.url.deadlines import Progress
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.probing import Probing
    from scrapy_simdedup.url.rules import Decision

T = TypeVar("T")

# The core's logger: its lines keep the name users filter them by.
logger = logging.getLogger("scrapy_simdedup.url.core")

MAX_DEPTHS = 2_000_000
"""URLs whose depth is remembered under a depth limit; beyond, a counterpart's depth is
unknown and the copy is fetched."""


class BetMaker(Generic[T]):
    """Makes the bets of one crawl; ``depth_limit``: Scrapy's ``DEPTH_LIMIT`` (0: none)."""

    def __init__(
        self, context: CoreContext[T], probing: Probing[T], *, depth_limit: int = 0
    ) -> None:
        self.judge = context.judge
        self.bets = context.bets
        self.parking = context.parking
        self.probing = probing
        self.deadlines = context.deadlines
        self.tally = context.tally
        self.guard = context.guard
        self.depth_limit = depth_limit
        self._depths: dict[str, int] = {}  # under a depth limit: canonical URL -> its depth

    def queued(self, url: str, depth: int) -> None:
        """``url`` was queued at ``depth`` (remembered under a depth limit)."""
        if self.depth_limit and len(self._depths) < MAX_DEPTHS:
            self._depths[url] = min(depth, self._depths.get(url, depth))

    def may_skip(self, seen: Seen[T], decision: Decision) -> bool:
        """Whether a rule's skip may be made into a bet here (the caller asks only when
        skipping at all): a counterpart no deeper than the copy under a depth limit, a
        counterpart not known to be another path's page."""
        return self._as_deep(seen.depth, decision) and self._predicted(decision)

    def _predicted(self, decision: Decision) -> bool:
        """Whether the page a mirror or parameter skip relies on is what its path promised
        (not a soft 404: a copy of another path of its host or of a mirror of it). A
        trap's copies rely on a page others copy."""
        rule = decision.rule
        if rule is None or rule.kind == "trap" or decision.counterpart is None:
            return True
        return self.judge.predicted(decision.counterpart)

    def _as_deep(self, depth: int, decision: Decision) -> bool:
        """Under a depth limit, whether the counterpart a skip relies on was queued no
        deeper than the copy: else the links its page holds may lie beyond the limit on the
        original, and only this copy would bring them (counted as ``deeper_counterpart``;
        fetched). A trap's skip relies on no path of its own."""
        if not self.depth_limit or decision.counterpart is None:
            return True
        if self._depths.get(decision.counterpart, depth + 1) <= depth:
            return True
        self.tally.inc_value(keys.URL_DEEPER_COUNTERPART)
        return False

    def skip(
        self,
        seen: Seen[T],
        parts: UrlParts,
        decision: Decision,
        progress: Callable[[], Progress],
        *,
        scheduling: bool,
    ) -> Skip | None:
        """Park the bet; None when it cannot be (the request is then fetched).
        ``progress()``: where the crawl stands, which the bet's deadline counts from."""
        rule = decision.rule
        assert rule is not None
        first = rule.kind == "mirror" and not self.bets.holds_under(rule.identity)
        if rule.kind != "strict":
            due = self.deadlines.due(
                progress(), pending=decision.pending, gathering=decision.gathering
            )
            bet = Bet(
                parts.url, rule.identity, decision.counterpart, seen.ticket, *due,
                past_filter=not scheduling, pending=decision.pending,
                gathering=decision.gathering,
            )  # fmt: skip
            if parts.url in self.bets or not self.guard(self.parking.park, bet):
                return None
            if not self.bets.park(bet):
                self.guard(self.parking.forget, [parts.url])
                return None
            if decision.counterpart is not None:
                self.guard(self.judge.peers.bet, parts.url, decision.counterpart)
            self.tally.inc_value(keys.URL_PARKED)
            if decision.gathering:
                self.probing.began(rule)
                self.tally.inc_value(keys.URL_GATHERING)
                if rule.kind == "mirror":  # a path of its host all the same (``SiteSizes``)
                    self.judge.learner.sizes.add(parts.url)
        self.tally.inc_value(keys.url_skipped(decision.reason))
        self.tally.inc_value(keys.URL_CHECKED)  # judged and skipped: checked, once
        if decision.pending:
            self.tally.inc_value(keys.URL_PENDING)
        logger.debug("simdedup: skipped %s (%s)", seen.url, rule.describe())
        self.judge.dequeue(parts.url)  # bets relying on it now rely on this one
        return Skip(rule, decision.counterpart, pending=decision.pending, first=first)
