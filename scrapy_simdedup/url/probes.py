"""Probes: requests on their way that will teach a rule still gathering evidence.

A parameter rule is learned from its first copies (``?sid=`` pages found to be their bare
page). Until then every request it would skip is fetched, and two workers have twice as
many in flight as one (issue 35). Once enough of them are on their way to learn the rule,
the rest can wait on a bet (``UrlLearner.gathering``). A probe counts as on its way from
the moment it goes to the downloader until its content verdict, its failure, or
``PROBE_SECONDS`` (a page that never yields an item teaches nothing: another request is
sent in its place); the rule it probes is remembered until its verdict, however late, which
may refute the rule.
"""

from __future__ import annotations

from collections.abc import Callable

PROBE_SECONDS = 10.0
MAX_PROBES = 10_000
"""Probes remembered at once; beyond, the oldest go (a rule then sends one more)."""


class Probes:
    """Requests on their way per rule, each until its verdict, failure, or expiry."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._rule_of: dict[str, str] = {}  # canonical URL -> the rule it probes, in order
        self._sent: dict[str, dict[str, float]] = {}  # rule -> URL on its way -> sent when

    def __len__(self) -> int:
        return len(self._rule_of)

    def sent(self, rule: str, url: str) -> None:
        """``url`` went to the downloader and its page will count for or against ``rule``."""
        if url in self._rule_of:
            return
        if len(self._rule_of) >= MAX_PROBES:
            self.done(next(iter(self._rule_of)))
        self._rule_of[url] = rule
        self._sent.setdefault(rule, {})[url] = self._clock()

    def done(self, url: str) -> str | None:
        """``url``'s verdict came, or its request failed: it probes no more. The rule it
        probed, if any."""
        rule = self._rule_of.pop(url, None)
        if rule is None:
            return None
        sent = self._sent.get(rule)
        if sent is not None:
            sent.pop(url, None)
            if not sent:
                del self._sent[rule]
        return rule

    def on_the_way(self, rule: str) -> int:
        """How many probes of ``rule`` are on their way (expired ones are forgotten)."""
        sent = self._sent.get(rule)
        if not sent:
            return 0
        oldest = self._clock() - PROBE_SECONDS
        for url in [url for url, when in sent.items() if when < oldest]:
            del sent[url]  # no longer counted; its verdict may still refute the rule
        if not sent:
            del self._sent[rule]
        return len(sent)
