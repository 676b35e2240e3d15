"""Adaptive URL skipping: rules learned online from what the content pipeline found.

The DUST idea (Bar-Yossef et al. 2007) and Bharat & Broder's mirror detection, inside one
crawl. Every content verdict ("page A duplicates page B", or "A is new") is evidence for
one of three kinds of rule:

* **mirror**: host A serves copies of host B's pages under the same path and query. The
  direction is fixed by the first evidence (the host that served a copy second is the
  mirror), so a mirror's evidence never blocks the original host. A request to A is
  skipped only when its counterpart on B has been fetched or is queued, so pages that
  exist only on the mirror are still fetched.
* **pattern**: on host A, URLs that differ from a fetched URL only in some query
  parameters (session ids, tracking, sort order) repeat its content. A request is skipped
  only when the same URL without those parameters has been fetched or is queued.
* **trap**: pages of one path template (``/calendar/{date}``) are copies of each other, an
  endless calendar or pager. No counterpart exists, so this rule needs twice the evidence.

A rule skips only after ``min_evidence`` duplicates in a row (twice that for a trap) with
at least ``MIN_DUPLICATE_SHARE`` of its verdicts duplicates. Every ``sample_every``-th
request it would skip is fetched instead; a sample (or any page) that turns out new while
its counterpart was fetched resets the rule's run of duplicates, so it stops skipping at
once. Rules are kept in the store under ``L`` keys: a second crawl starts knowing them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Literal

from scrapy_simdedup.url.features import path_template
from scrapy_simdedup.url.parts import UrlParts

if TYPE_CHECKING:
    from scrapy_simdedup.index.stores.base import Store

MIN_EVIDENCE = 5
MIN_DUPLICATE_SHARE = 0.9
SAMPLE_EVERY = 10
MAX_RULES = 10_000
RULE_PREFIX = b"L"
RULE_PREFIX_END = b"M"

RuleKind = Literal["mirror", "pattern", "trap", "strict"]


@dataclass
class Rule:
    """One learned (or still learning) rule and its evidence."""

    kind: RuleKind
    host: str
    other: str = ""  # mirror: the original host; strict: the fetched URL it is near
    names: tuple[str, ...] = ()  # pattern: the parameters that change nothing
    template: str = ""  # trap: the path template
    duplicates: int = 0
    uniques: int = 0
    streak: int = 0  # duplicates since the last new page
    candidates: int = field(default=0, compare=False)  # requests it would skip, this run

    @property
    def identity(self) -> str:
        return "\x00".join((self.kind, self.host, self.other, ",".join(self.names), self.template))

    def describe(self) -> str:
        if self.kind == "mirror":
            return f"{self.host} mirrors {self.other}"
        if self.kind == "pattern":
            return f"{self.host}: parameters {', '.join(self.names)} change nothing"
        if self.kind == "trap":
            return f"{self.template} is a trap (its pages copy each other)"
        return f"near the fetched {self.other}"

    def learned(self, min_evidence: int) -> bool:
        needed = 2 * min_evidence if self.kind == "trap" else min_evidence
        share = self.duplicates / max(1, self.duplicates + self.uniques)
        return self.streak >= needed and share >= MIN_DUPLICATE_SHARE

    def record(self, duplicate: bool) -> None:
        if duplicate:
            self.duplicates += 1
            self.streak += 1
        else:
            self.uniques += 1
            self.streak = 0

    def to_json(self) -> bytes:
        data = asdict(self)
        del data["candidates"]
        return json.dumps(data, sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Rule:
        data = json.loads(raw)
        data["names"] = tuple(data["names"])
        return cls(**data)


@dataclass(frozen=True)
class Decision:
    """What to do with a request: ``skip`` it, or fetch it (``sample`` when a rule wanted
    to skip it but it is fetched to check the rule)."""

    skip: bool
    rule: Rule | None = None
    sample: bool = False

    @property
    def reason(self) -> str:
        return self.rule.kind if self.rule else ""


FETCH = Decision(skip=False)


class UrlLearner:
    """Learns rules from content verdicts (``observe``) and applies them (``decide``).

    ``fetched(url)`` says whether a canonical URL's response came back (in this crawl or an
    earlier one on the same store). ``store`` may be None (nothing persists).
    """

    def __init__(
        self,
        store: Store | None,
        fetched: Callable[[str], bool],
        *,
        min_evidence: int = MIN_EVIDENCE,
        sample_every: int = SAMPLE_EVERY,
    ) -> None:
        if min_evidence < 1 or sample_every < 2:
            raise ValueError("min_evidence must be at least 1 and sample_every at least 2")
        self.store = store
        self.fetched = fetched
        self.min_evidence = min_evidence
        self.sample_every = sample_every
        self.overflow = 0  # rules not learned because MAX_RULES were held
        self.malformed = 0  # stored rule records that could not be read
        self._rules: dict[str, Rule] = {}
        self._by_host: dict[str, list[Rule]] = {}
        if store is not None:
            for _, raw in store.scan(RULE_PREFIX, RULE_PREFIX_END):
                try:
                    self._remember(Rule.from_json(raw))
                except (ValueError, TypeError, KeyError):
                    self.malformed += 1  # ignored and counted, never fatal

    def rules(self) -> list[Rule]:
        """Every rule with evidence, learned or not."""
        return list(self._rules.values())

    def learned_rules(self) -> list[Rule]:
        return [rule for rule in self._rules.values() if rule.learned(self.min_evidence)]

    def decide(self, parts: UrlParts, queued: Container[str], *, tally: bool = True) -> Decision:
        """Skip ``parts`` when a learned rule predicts a duplicate whose original is here.

        ``tally=False`` asks again about a request already counted (it is never sampled).
        """
        for rule in self._by_host.get(parts.host, ()):
            if not rule.learned(self.min_evidence) or not self._applies(rule, parts, queued):
                continue
            if not tally:
                return Decision(skip=True, rule=rule)
            rule.candidates += 1
            if rule.candidates % self.sample_every == 0:
                return Decision(skip=False, rule=rule, sample=True)
            return Decision(skip=True, rule=rule)
        return FETCH

    def _applies(self, rule: Rule, parts: UrlParts, queued: Container[str]) -> bool:
        if rule.kind == "trap":
            return path_template(parts) == rule.template
        counterpart = self._counterpart(rule, parts)
        return counterpart is not None and (counterpart in queued or self.fetched(counterpart))

    @staticmethod
    def _counterpart(rule: Rule, parts: UrlParts) -> str | None:
        if rule.kind == "mirror":
            return parts.with_host(rule.other)
        present = {name for name, _ in parts.params}
        if rule.kind == "pattern" and present.issuperset(rule.names):
            return parts.without_params(frozenset(rule.names))
        return None

    def observe(self, parts: UrlParts, original: UrlParts | None) -> None:
        """A content verdict: ``parts`` duplicated ``original``, or was new (None)."""
        if original is None:
            self._observe_new(parts)
            return
        rule = self._rule_for_pair(parts, original)
        if rule is not None:
            rule.record(duplicate=True)
            self._save(rule)

    def _observe_new(self, parts: UrlParts) -> None:
        template = path_template(parts)
        for rule in self._by_host.get(parts.host, ()):
            if rule.kind == "trap":
                relevant = rule.template == template
            else:
                counterpart = self._counterpart(rule, parts)
                relevant = counterpart is not None and self.fetched(counterpart)
            if relevant:
                rule.record(duplicate=False)
                self._save(rule)

    def _rule_for_pair(self, copy: UrlParts, original: UrlParts) -> Rule | None:
        if copy.host != original.host:
            if copy.path_and_query != original.path_and_query:
                return None  # a reprint under another address: nothing to learn
            if self._find(Rule("mirror", original.host, other=copy.host)) is not None:
                return None  # the pair's direction is already fixed the other way
            return self._find_or_add(Rule("mirror", copy.host, other=original.host))
        base, original_base = copy.url.partition("?")[0], original.url.partition("?")[0]
        if base == original_base:
            theirs = dict(original.params)
            names = tuple(sorted({n for n, v in copy.params if theirs.get(n) != v}))
            if not names:
                return None
            return self._find_or_add(Rule("pattern", copy.host, names=names))
        template = path_template(copy)
        if template == path_template(original):
            return self._find_or_add(Rule("trap", copy.host, template=template))
        return None

    def _find(self, probe: Rule) -> Rule | None:
        return self._rules.get(probe.identity)

    def _find_or_add(self, probe: Rule) -> Rule | None:
        found = self._find(probe)
        if found is None:
            if len(self._rules) >= MAX_RULES:
                self.overflow += 1
                return None
            found = self._remember(probe)
        return found

    def _remember(self, rule: Rule) -> Rule:
        self._rules[rule.identity] = rule
        self._by_host.setdefault(rule.host, []).append(rule)
        return rule

    def _save(self, rule: Rule) -> None:
        if self.store is not None:
            key = RULE_PREFIX + rule.identity.encode("utf-8", "surrogatepass")
            self.store.write({key: rule.to_json()})
