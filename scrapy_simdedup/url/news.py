"""Rules shared while crawling: what one worker learns is in force on the others in seconds.

Workers on one shared store (Redis) each learn rules from their own verdicts. Every
``every`` seconds at most, a worker announces the rules in force on it (with their
evidence) as one numbered entry under ``keyspace.RULE_NEWS``, and reads the entries the
others announced since it last looked. A rule weakened by a new page is announced at once.

What counts as fresh evidence: rules stored by an earlier crawl are on probation (the
learner's docstring). An announcement read here was written after this worker started, by
a worker that holds the rule in force from evidence of its own session (its stored rules
were on probation too), so it is this crawl's evidence: the rule is in force here at once.
Announcements from before this worker started are not read.

Cost, bounded: one counter read per ``every`` seconds, at most ``MAX_READ`` entries read
then, at most ``MAX_RULES_PER_ENTRY`` rules per entry; the store keeps the last ``KEEP``.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.url.learner import Rule

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.index.stores.atomic import AtomicStore

REFRESH_SECONDS = 2.0
MAX_READ = 200
MAX_RULES_PER_ENTRY = 500
KEEP = 10_000


@dataclass(frozen=True)
class Announcement:
    """Rules another worker holds in force (``learned``), or one it saw fail."""

    learned: bool
    rules: list[Rule]


class RuleNews:
    """Announces this worker's rules and reads the others' (``announce``, ``read``)."""

    def __init__(
        self,
        store: AtomicStore,
        *,
        every: float = REFRESH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.every = every
        self.clock = clock
        self.author = secrets.token_hex(8)
        self.malformed = 0  # entries that could not be read, skipped
        self.seen = self._latest()
        self._due = clock()

    def due(self) -> bool:
        """True once every ``every`` seconds: time to announce and read."""
        now = self.clock()
        if now < self._due:
            return False
        self._due = now + self.every
        return True

    def announce(self, rules: Iterable[Rule], *, learned: bool) -> None:
        # With whether a mirror still waits for originals not queued and whether a trap
        # stopped: not evidence (not stored), but this crawl's findings, which the other
        # workers need not make again.
        data = [
            {**json.loads(rule.to_json()), "waits": rule.waits, "stopped": rule.stopped}
            for rule in rules
        ][:MAX_RULES_PER_ENTRY]
        if data:
            entry = {"by": self.author, "learned": learned, "rules": data}
            self.store.append(
                keyspace.RULE_NEWS_COUNT, keyspace.RULE_NEWS, json.dumps(entry).encode(), KEEP
            )

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
                    rules = [Rule.from_json(json.dumps(rule).encode()) for rule in entry["rules"]]
                    found.append(Announcement(bool(entry["learned"]), rules))
            except (ValueError, TypeError, KeyError):
                self.malformed += 1
        return found

    def _latest(self) -> int:
        raw = self.store.get(keyspace.RULE_NEWS_COUNT)
        return int.from_bytes(raw, "big") if raw else 0


def _key(number: int) -> bytes:
    return keyspace.RULE_NEWS + number.to_bytes(8, "big")
