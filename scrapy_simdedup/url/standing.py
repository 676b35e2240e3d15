"""Which of the rules held stand: ``Standing``.

A rule stands once its run of copies is long enough (``Rule.learned``) or, with a risk,
while its samples bound its differing skips within it (``sampling.py``); a mirror is
learned from the copies either way between its two hosts, and skips only in the
direction chosen (``mirrors.py``). A host's rules in force, its own and the parameter
rules it inherits from its original, are worked out once per host and kept until
evidence changes a rule (``changed``): every request asks for them. The mirror choice and
the samples are built here because each tells this cache when it changed a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.mirrors import MirrorChoice
from scrapy_simdedup.url.rulebook import MAX_RULES
from scrapy_simdedup.url.rules import Rule
from scrapy_simdedup.url.sampling import Sampling

if TYPE_CHECKING:
    from scrapy_simdedup.url.rulebook import Rulebook
    from scrapy_simdedup.url.sitesize import SiteSizes


class Standing:
    """The rules of ``book`` that are learned (``learned``), and those in force on a host
    (``in_force``). ``risk``: the share of a rule's skips that may differ (0: none)."""

    def __init__(
        self,
        book: Rulebook,
        sizes: SiteSizes,
        *,
        min_evidence: int,
        sample_every: int,
        risk: float,
    ) -> None:
        self.book = book
        self.min_evidence = min_evidence
        self.risk = risk
        self.mirrors = MirrorChoice(book, sizes, self.find_or_add, self.changed)
        self.sampling = Sampling(
            self.mirrors.reverse, self.changed, sample_every=sample_every, risk=risk
        )
        self._in_force_of: dict[str, list[Rule]] = {}  # host -> _in_force, until a change

    def learned_rules(self) -> list[Rule]:
        return [rule for rule in self.book.all() if self.learned(rule)]

    def learned(self, rule: Rule) -> bool:
        """``rule.learned``; for a mirror, from the copies either way between its two hosts
        (fetched at once, either host's copy may come second)."""
        reverse = self.reverse(rule) if rule.kind == "mirror" else None
        subject = rule if reverse is None else _pair(rule, reverse)
        if subject.learned(self.min_evidence):
            return True
        return (  # with a risk: standing on its samples (the bound, worked out last)
            self.risk > 0.0
            and subject.proven
            and subject.may_stand(self.min_evidence)
            and self.sampling.bound(rule) <= self.risk
        )

    def stands(self, identity: str) -> bool:
        """Whether the rule ``identity`` is still learned (and, for a mirror, chosen)."""
        rule = self.book.get(identity)
        return rule is not None and rule in self.in_force(rule.host)

    def in_force(self, host: str) -> list[Rule]:
        """The learned rules of ``host``, then the parameter rules it inherits from each
        host it mirrors (a mirror copies its original's URL scheme too; not its traps: a
        mirror's month the original has is the mirror rule's, and one it lacks is not the
        original's to judge). Worked out once per host until evidence changes a rule
        (``changed``)."""
        found = self._in_force_of.get(host)
        if found is None:
            if len(self._in_force_of) >= MAX_RULES:
                self._in_force_of.clear()
            found = self._in_force_of[host] = self._work_out_in_force(host)
        return found

    def _work_out_in_force(self, host: str) -> list[Rule]:
        own = [
            rule
            for rule in self.book.on_host(host)
            if not rule.stopped and self.learned(rule) and not self.mirrors.outvoted(rule)
        ]
        inherited = [
            rule
            for mirror in own
            if mirror.kind == "mirror"
            for rule in self.book.on_host(mirror.other)
            if rule.kind == "pattern" and self.learned(rule)
        ]
        return own + inherited

    def changed(self) -> None:
        """Evidence changed a rule: which rules are in force is worked out afresh."""
        self._in_force_of.clear()

    def find(self, probe: Rule) -> Rule | None:
        return self.book.get(probe.identity)

    def reverse(self, mirror: Rule) -> Rule | None:
        return self.mirrors.reverse(mirror)

    def find_or_add(self, probe: Rule) -> Rule | None:
        found = self.find(probe)
        if found is None:
            found = self.book.admit(probe)
            if found is not None:
                self.changed()
        return found


def _pair(mirror: Rule, reverse: Rule) -> Rule:
    """A mirror and its reverse as one rule: the copies either way between two hosts."""
    return Rule(
        "mirror", mirror.host, other=mirror.other,
        duplicates=mirror.duplicates + reverse.duplicates,
        uniques=mirror.uniques + reverse.uniques,
        streak=mirror.streak + reverse.streak,
        content_duplicates=mirror.content_duplicates + reverse.content_duplicates,
        proven=mirror.proven or reverse.proven,
    )  # fmt: skip
