"""``SamplesOut``: the samples on their way, until their verdicts count for their rules.

A rule's sample is a request it would skip, fetched to see whether it still copies its
counterpart. Its verdict counts for the rule only when it settles the sample: the page was
fetched as one, or it is the counterpart a sample judged new before it waited for
(``UrlLearner.sampled`` and ``sample_differed``). Strict mode's samples are only counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.url.parts import canonical_or_none

if TYPE_CHECKING:
    from scrapy_simdedup.url.context import Tally
    from scrapy_simdedup.url.guard import StoreGuard
    from scrapy_simdedup.url.learner import UrlLearner
    from scrapy_simdedup.url.rules import Decision, Rule

V = TypeVar("V")

MAX_SAMPLES_OUT = 10_000
"""Samples remembered at once until their verdicts; beyond, the oldest go."""

Sampled = tuple[str, str | None]
"""A rule's sample on its way: (the rule's identity, the counterpart it would copy)."""
Waiting = tuple[str, str]
"""A sample judged new before its counterpart: (the rule's identity, the sample's URL)."""


class SamplesOut:
    """Samples sent, by URL, until their verdicts."""

    def __init__(self, tally: Tally, guard: StoreGuard) -> None:
        self.tally = tally
        self.guard = guard
        self._strict: dict[str, None] = {}  # in order: the oldest go first
        self._rules: dict[str, Sampled] = {}  # URL -> (the rule, the counterpart)
        self._waiting: dict[str, Waiting] = {}  # counterpart -> (the rule, the sample)

    def sent(self, url: str, decision: Decision) -> None:
        """``url``'s request goes as ``decision``'s sample."""
        if decision.reason == "strict":
            _remember(self._strict, url, None)
        elif decision.rule is not None:
            _remember(self._rules, url, (decision.rule.identity, decision.counterpart))

    def judged(self, key: str, original: str | None) -> Sampled | None:
        """``key``'s verdict came (a copy of ``original``, or new): the rule sample it was,
        if any (a strict sample is counted here)."""
        sampled = self._rules.pop(key, None)
        if key in self._strict and original != key:
            del self._strict[key]
            copies = keys.URL_STRICT_SAMPLED_COPIES if original else keys.URL_STRICT_SAMPLED_NEW
            self.tally.inc_value(copies)
        return sampled

    def waiting_for(self, url: str) -> Waiting | None:
        """The sample judged new before ``url``, its counterpart, was: it waited for this
        verdict."""
        return self._waiting.pop(url, None)

    def count(
        self,
        learner: UrlLearner,
        url: str,
        original: str | None,
        *,
        sampled: Sampled | None,
        waiting: Waiting | None,
        weakened: list[Rule],
    ) -> None:
        """A rule's sample that came back a copy counts for the rule (one that came back
        new against it is counted as it weakens it: ``UrlLearner.observe``). A sample
        judged new before its counterpart was judged waits for the counterpart's verdict
        (``waiting``: the rule and the sample): found its copy, the sample was a copy all
        the same; otherwise the two differ, and the sample counts as one that did (a
        parameter rule's sample, whose counterpart came back new, weakened nothing)."""
        if waiting is not None and original and canonical_or_none(original) == waiting[1]:
            self.guard(learner.sampled, waiting[0], waiting[1])
        elif waiting is not None:
            self.guard(learner.sample_differed, waiting[0], weakened, waiting[1])
        if sampled is None:
            return
        identity, counterpart = sampled
        if original is not None:
            if canonical_or_none(original) == counterpart:  # not a soft 404's, a re-visit's
                self.guard(learner.sampled, identity, url)
        elif counterpart is not None and all(rule.identity != identity for rule in weakened):
            _remember(self._waiting, counterpart, (identity, url))


def _remember(table: dict[str, V], key: str, value: V) -> None:
    if len(table) >= MAX_SAMPLES_OUT:  # the oldest goes
        del table[next(iter(table))]
    table[key] = value
