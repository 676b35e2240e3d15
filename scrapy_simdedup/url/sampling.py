"""A rule's samples: the requests it would skip that are fetched anyway to check it, and
what they say of the share of its skips that differ.

Every rule fetches one in so many of the requests it would skip (``interval``): one in as
many copies as it rests on while that is fewer than ``sample_every``, so a rule learned
from a handful of pages never covers many more URLs unchecked. A sample judged a copy
(``sampled``), or new where the rule predicted a copy (``differed``), is counted; copies
that taught the rule and new pages no sample brought are no draws from its skips and are
not. The counts bound the share of its skips that differ (``url/estimate.py``); with a
risk (``SIMDEDUP_URL_RISK``) the samples are drawn at random, one in two until they could
stand one new page within the risk. A mirror's two directions are one rule here: their
samples are counted together. Each section's are counted apart as well
(``url/sections.py``): where a page came back new, its section's own samples decide
whether the bets waiting there go.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from scrapy_simdedup.url.estimate import describe_bound, share_bound
from scrapy_simdedup.url.sections import SectionCounts

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.rules import Rule


class Sampling:
    """The samples of every rule; ``reverse``: a mirror rule's other direction (None when
    there is none); ``changed``: called when a sample may let a rule stand again."""

    def __init__(
        self,
        reverse: Callable[[Rule], Rule | None],
        changed: Callable[[], None],
        *,
        sample_every: int,
        risk: float,
    ) -> None:
        self._reverse = reverse
        self._changed = changed
        self.sample_every = sample_every
        self.risk = risk
        self._draw = random.Random()  # samples, with a risk: at random
        self.sections = SectionCounts()

    def samples(self, rule: Rule) -> tuple[int, int]:
        """(samples of ``rule`` judged, of them new): either way between its two hosts
        for a mirror."""
        reverse = self._reverse(rule) if rule.kind == "mirror" else None
        if reverse is None:
            return rule.samples, rule.samples_new
        return rule.samples + reverse.samples, rule.samples_new + reverse.samples_new

    def bound(self, rule: Rule, more_new: int = 0) -> float:
        """At most this share of the rule's skips differ (``samples``), were ``more_new``
        more samples new."""
        taken, new = self.samples(rule)
        return share_bound(new + more_new, taken + more_new)

    def estimate(self, rule: Rule) -> str:
        """What ``rule``'s samples say, as a user reads it (``estimate.describe_bound``)."""
        taken, new = self.samples(rule)
        return describe_bound(new, taken)

    def sampled(self, rule: Rule, url: str | None = None) -> None:
        """A request ``rule`` would have skipped, fetched as its sample (``url``), was
        judged a copy, as the rule predicted."""
        rule.samples += 1  # this crawl's: not stored
        if url is not None:
            self.sections.judged(rule.identity, url, new=False)
        if self.risk > 0.0:  # its bound may let it stand again
            self._changed()

    def differed(self, rules: list[Rule], samples: tuple[str, ...], url: str | None = None) -> None:
        """One page came back new where ``rules`` predicted a copy: for each of them whose
        sample it settles (``samples``: rule identities; a mirror's two directions are one
        rule here), a sample that differed, counted once. A new page no sample brought is
        evidence against the rule (it ends its run of copies) but no draw from its skips:
        counted, it stated "at most 49.1%" where a twentieth of the skips differed, for
        copies are counted only as samples (``sampled``). So in the section of ``url``
        (the page whose section is counted: the new page, or the sample that differed
        from it): a section with no sample judged is bound by nothing."""
        counted: set[str] = set()
        for rule in rules:
            reverse = self._reverse(rule) if rule.kind == "mirror" else None
            names = {rule.identity, *((reverse.identity,) if reverse is not None else ())}
            if names.isdisjoint(samples) or not names.isdisjoint(counted):
                continue
            rule.samples += 1
            rule.samples_new += 1
            counted.update(names)
            if url is not None:
                self.sections.judged(rule.identity, url, new=True)

    def section_bound(self, rule: Rule, section: str) -> float:
        """At most this share of the pages of ``section`` that ``rule`` would skip differ,
        by its samples judged there (``sections.py``); for a mirror, either way."""
        return self.sections.bound(self._names(rule), section)

    def section_estimate(self, rule: Rule, section: str) -> str:
        """What ``rule``'s samples in ``section`` say, as a user reads it."""
        judged, new = self.sections.counts(self._names(rule), section)
        return describe_bound(new, judged)

    def _names(self, rule: Rule) -> tuple[str, ...]:
        reverse = self._reverse(rule) if rule.kind == "mirror" else None
        return (rule.identity,) if reverse is None else (rule.identity, reverse.identity)

    def takes_sample(self, rule: Rule) -> bool:
        """One more request ``rule`` would skip: whether it is fetched as the rule's sample
        instead (see ``interval``). With a risk, each is drawn at random with probability
        one in the interval: a bound holds only for samples no order of the site's links
        can line up with (every other request, on a site whose older pages are every
        thirtieth, samples none of them)."""
        if self.risk > 0.0:
            return self._draw.random() * self.interval(rule) < 1.0
        rule.candidates += 1
        if rule.candidates >= self.interval(rule):
            rule.candidates = 0
            return True
        return False

    def interval(self, rule: Rule) -> int:
        """One in this many would-be skips is fetched: one in as many copies as the rule
        rests on (a mirror: copies either way between its two hosts) while that is fewer
        than ``sample_every``. With a risk, one in two until its samples bound the share
        of its differing skips within it with one more new page among them: a rule stands
        a new page only on samples enough to say so."""
        evidence = rule.duplicates
        if rule.kind == "mirror":
            reverse = self._reverse(rule)
            evidence += reverse.duplicates if reverse else 0
        if self.risk > 0.0 and self.bound(rule, more_new=1) > self.risk:
            return 2
        return max(2, min(self.sample_every, 2 * evidence))
