"""Rules shared while crawling: what one worker learns is in force on the others in seconds.

Workers on one shared store (Redis) each learn rules from their own verdicts. Every
``every`` seconds at most (``REFRESH_SECONDS``), a worker announces the rules whose evidence
changed on it as one numbered entry under ``keyspace.RULE_NEWS``, every ``every_learned``
seconds all the rules in force on it too (for a worker that joined late), and reads the
entries the others announced since it last looked. A rule weakened by a new page is
announced at once. A quarter of a second (the URL core's tick): a crawl's first seconds are
when rules are learned, at tens of pages a second, and a worker that waits longer to hear
of the others' copies fetches copies meanwhile.

What forbids a skip goes too (``Findings``), since the worker that found it may not be
the one that holds the bets it concerns or takes the links from the shared queue: switchers
(``UrlLearner.linked``: a parameter a page offers its reader several values of, which no
pattern rule skips in that section), pages that were not what their path promised (a soft
404: no mirror or parameter bet settles on them) and rules a request fetched while they
were learned refuted (their waiting bets are re-issued). Each is announced once found;
switchers again with every learned rule, for a worker that joined late.

Each rule goes with this worker's own tally of it in this crawl (``url/evidence.py``): the
copies and new pages it saw itself, which the others add to theirs once, so the crawl's
evidence is counted once whichever worker saw it.

What counts as fresh evidence: rules stored by an earlier crawl are on probation (the
learner's docstring). An announcement read here was written after this worker started, and
its tallies count only what its author saw in its own session (its stored rules were on
probation too), so they are this crawl's evidence. Announcements from before this worker
started are not read; the ``every_learned`` announcements bring a late worker up to date.

Cost, bounded: one counter read per ``every`` seconds, at most ``MAX_READ`` entries read
then, at most ``MAX_RULES_PER_ENTRY`` rules per entry; the store keeps the last ``KEEP``.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.url.evidence import Tally
from scrapy_simdedup.url.findings import Findings
from scrapy_simdedup.url.rules import Rule

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.index.stores.atomic import AtomicStore

REFRESH_SECONDS = 0.25
LEARNED_SECONDS = 2.0
MAX_READ = 200
MAX_RULES_PER_ENTRY = 500
KEEP = 10_000


@dataclass(frozen=True)
class Announcement:
    """Rules another worker (``author``) holds in force or is learning (``learned``), or
    one it saw fail; with its own tally of each (``tallies``, by identity), when it sent one."""

    author: str
    learned: bool
    rules: list[Rule]
    tallies: dict[str, Tally]
    findings: Findings = field(default_factory=Findings)


class RuleNews:
    """Announces this worker's rules and reads the others' (``announce``, ``read``)."""

    def __init__(
        self,
        store: AtomicStore,
        *,
        every: float = REFRESH_SECONDS,
        every_learned: float = LEARNED_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.every = every
        self.every_learned = every_learned
        self.clock = clock
        self.author = secrets.token_hex(8)
        self.malformed = 0  # entries that could not be read, skipped
        self.seen = self._latest()
        self._due = self._learned_due = clock()

    def due(self) -> bool:
        """True once every ``every`` seconds: time to announce and read."""
        now = self.clock()
        if now < self._due:
            return False
        self._due = now + self.every
        return True

    def learned_due(self) -> bool:
        """True once every ``every_learned`` seconds: time to announce every rule in force."""
        now = self.clock()
        if now < self._learned_due:
            return False
        self._learned_due = now + self.every_learned
        return True

    def announce(
        self,
        rules: Iterable[Rule],
        *,
        learned: bool,
        tally: Callable[[str], Tally],
        findings: Findings | None = None,
    ) -> list[Rule]:
        """Announce ``rules``, each with this worker's own ``tally`` of it, and what
        ``findings`` one entry holds (taken out of it once written); returns the rules one
        entry could not hold (``MAX_RULES_PER_ENTRY``), to announce next time."""
        rules = list(rules)
        # With whether a mirror still waits for originals not queued and whether a trap
        # stopped: not evidence (not stored), but this crawl's findings, which the other
        # workers need not make again.
        data = [
            {
                **json.loads(rule.to_json()),
                "waits": rule.waits,
                "stopped": rule.stopped,
                "tally": tally(rule.identity).to_list(),
            }
            for rule in rules[:MAX_RULES_PER_ENTRY]
        ]
        head = findings.head() if findings else Findings()
        found = head.to_data()
        if data or found:
            entry = {"by": self.author, "learned": learned, "rules": data, **found}
            self.store.append(
                keyspace.RULE_NEWS_COUNT, keyspace.RULE_NEWS, json.dumps(entry).encode(), KEEP
            )
        if findings:  # only once written: after a store error they go next time
            findings.drop(head)
        return rules[MAX_RULES_PER_ENTRY:]

    def read(self) -> list[Announcement]:
        """The other workers' announcements since the last read, oldest first."""
        latest = self._latest()
        if latest <= self.seen:
            return []
        start, stop = self.seen + 1, min(latest, self.seen + MAX_READ) + 1
        self.seen = stop - 1
        found = []
        for _, raw in self.store.scan(_key(start), _key(stop)):
            try:
                entry = json.loads(raw)
                if entry["by"] != self.author:
                    found.append(_announcement(entry))
            except (ValueError, TypeError, KeyError):
                self.malformed += 1
        return found

    def _latest(self) -> int:
        raw = self.store.get(keyspace.RULE_NEWS_COUNT)
        return int.from_bytes(raw, "big") if raw else 0


def _announcement(entry: dict[str, Any]) -> Announcement:
    """Raises ValueError, TypeError or KeyError on an entry this version cannot read."""
    rules, tallies = [], {}
    for data in entry["rules"]:
        tally = data.pop("tally", None)
        rule = Rule.from_json(json.dumps(data).encode())
        rules.append(rule)
        if tally is not None:
            tallies[rule.identity] = Tally.from_list(tally)
    findings = Findings.from_data(entry)
    return Announcement(str(entry["by"]), bool(entry["learned"]), rules, tallies, findings)


def _key(number: int) -> bytes:
    return keyspace.RULE_NEWS + number.to_bytes(8, "big")
