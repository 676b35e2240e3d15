"""``RuleCounts``: the URL rules in force, as the stats and the closing summary show them.

Counting the rules reads every learned rule, so while a crawl runs the stats are updated
at most every so often (``every``), and at once when a rule is weakened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup import stats as keys

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.context import Tally
    from scrapy_simdedup.url.judge import UrlJudge
    from scrapy_simdedup.url.rules import Rule


class RuleCounts:
    """The rules ``judge`` holds, counted into ``tally``."""

    def __init__(self, judge: UrlJudge, tally: Tally, clock: Callable[[], float]) -> None:
        self.judge = judge
        self.tally = tally
        self._clock = clock
        self._counted_at: float | None = None

    def count(self, every: float = 0.0) -> None:
        """The rules in force, in the stats (at most every ``every`` seconds)."""
        now = self._clock()
        if self._counted_at is not None and now - self._counted_at < every:
            return
        self._counted_at = now
        learned = self.judge.learned_rules()
        for kind, key in (
            ("mirror", keys.URL_MIRROR_HOSTS),
            ("pattern", keys.URL_PATTERNS),
            ("trap", keys.URL_TRAPS),
        ):
            self.tally.set_value(key, sum(1 for rule in learned if rule.kind == kind))

    def standing(self) -> list[tuple[Rule, int, int]]:
        """The rules in force at the end, each with (its samples judged, of them new)."""
        learner = self.judge.learner
        return [
            (rule, *learner.samples(rule))
            for rule in self.judge.learned_rules()
            if self.judge.stands(rule)
        ]

    def mirror_lines(self) -> list[str]:
        """The mirror rules standing at the end, with what their counts say, for the
        closing summary."""
        return [
            f"{rule.describe()}{rule.copy_note()}: {self.judge.learner.estimate(rule)}"
            for rule in self.judge.learned_rules()
            if rule.kind == "mirror" and self.judge.stands(rule)
        ]
