"""The rulebook: every rule a crawl holds, found by identity, host and original, and
kept in the store.

Rules are read from the store when the crawl starts (on probation: their run of copies
starts at zero, so they skip nothing until this crawl confirms them) and written back a
second at most after they change, and when the crawl ends. How rules are learned and
applied is the learner's (``learner.py``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.url.rules import Rule

if TYPE_CHECKING:
    from scrapy_simdedup.index.stores.base import Store

MAX_RULES = 10_000
SAVE_EVERY = 1.0
"""Seconds between writes of changed rules to the store (and at ``save``): a verdict
changes a rule's counts, and a write per verdict cost the crawl more than the rest of the
learner. Changes wait for the next change at least this long after the last write, or
for the crawl's end, so a crash loses the evidence gathered since the last write (about a
second's worth while verdicts come in); rules are on probation when read back anyway."""


class Rulebook:
    """The rules held, by identity (``get``), host (``on_host``) and original host
    (``mirrors_of``), in the order they were first met (``rank``). ``store`` may be None
    (nothing persists)."""

    def __init__(self, store: Store | None, *, probation: bool = True) -> None:
        self.store = store
        self.overflow = 0  # rules not held because MAX_RULES were
        self.malformed = 0  # stored rule records that could not be read
        self._rules: dict[str, Rule] = {}
        self._stored: set[str] = set()  # rules read from the store at the start
        self._rank: dict[str, int] = {}  # identity -> order of first evidence
        self._by_host: dict[str, list[Rule]] = {}
        self._mirrors_of: dict[str, list[Rule]] = {}  # original host -> its mirror rules
        self._unsaved: dict[str, Rule] = {}
        self._saved_at = 0.0
        if store is None:
            return
        for _, raw in store.scan(keyspace.RULES, keyspace.end(keyspace.RULES)):
            try:
                rule = Rule.from_json(raw)
            except (ValueError, TypeError, KeyError):
                self.malformed += 1  # ignored and counted, never fatal
                continue
            if probation:
                rule.streak = 0
            self.add(rule)
            self._stored.add(rule.identity)

    def __len__(self) -> int:
        return len(self._rules)

    def all(self) -> list[Rule]:
        return list(self._rules.values())

    def get(self, identity: str) -> Rule | None:
        return self._rules.get(identity)

    def on_host(self, host: str) -> list[Rule]:
        return self._by_host.get(host, [])

    def mirrors_of(self, host: str) -> list[Rule]:
        """The mirror rules whose original is ``host``."""
        return self._mirrors_of.get(host, [])

    def rank(self, identity: str) -> int:
        """When the rule was first met, among those held (lower: earlier)."""
        return self._rank[identity]

    def was_stored(self, identity: str) -> bool:
        """Whether the rule was read from the store when the crawl started."""
        return identity in self._stored

    def admit(self, rule: Rule) -> Rule | None:
        """``add`` a rule met for the first time, unless ``MAX_RULES`` are held: then None,
        counted in ``overflow``."""
        if len(self._rules) >= MAX_RULES:
            self.overflow += 1
            return None
        return self.add(rule)

    def add(self, rule: Rule) -> Rule:
        self._rules[rule.identity] = rule
        self._rank[rule.identity] = len(self._rank)
        self._by_host.setdefault(rule.host, []).append(rule)
        if rule.kind == "mirror":
            self._mirrors_of.setdefault(rule.other, []).append(rule)
        return rule

    def save_soon(self, rule: Rule) -> None:
        """Write ``rule`` with the others changed meanwhile, ``SAVE_EVERY`` seconds after
        the last write at most (``save`` writes at once)."""
        if self.store is None:
            return
        self._unsaved[rule.identity] = rule
        if time.monotonic() - self._saved_at >= SAVE_EVERY:
            self.save()

    def save(self) -> None:
        """Write every rule changed since the last write (a crawl calls it when it ends)."""
        unsaved, self._unsaved = self._unsaved, {}
        self._saved_at = time.monotonic()
        if self.store is not None and unsaved:
            self.store.write(
                {
                    keyspace.RULES + identity.encode("utf-8", "surrogatepass"): rule.to_json()
                    for identity, rule in unsaved.items()
                }
            )
