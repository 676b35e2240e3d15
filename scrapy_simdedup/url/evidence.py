"""``CrawlEvidence``: each copy and each new page counted once per crawl, whichever worker saw it.

Workers sharing a store split one crawl's verdicts between them. Were each to learn from its
own verdicts alone, or take the larger of two workers' counts, two workers would need about
twice the copies one worker needs before a rule skips, and would avoid fewer fetches than
one (issue 35). So each worker announces (``url/news.py``) what it saw itself in this crawl,
per rule, as running totals (``Tally``), and every worker adds what each other worker saw
to its own view of the rule, once: the ledger remembers the last totals it took from each
worker and adds only the difference. Totals rather than differences, so an announcement
read twice, or a worker that joins late and reads only the latest, counts each verdict once.

A rule's run of copies (its streak) ends at a new page wherever it was seen: a worker's
totals with more new pages than it had before set the run to that worker's own run since,
and this worker's own run starts over (``Merged.ended``). The order of two workers' copies
between two of their announcements is not known; counting both is the crawl's run as either
worker would have seen it had it seen both.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_WORKERS_TRACKED = 10_000
"""(worker, rule) pairs whose latest totals are kept; beyond, the oldest are forgotten
(a worker announcing again then counts in full once more, which errs towards learning
sooner, and a rule still needs its share of copies and its run)."""


@dataclass
class Tally:
    """What one worker saw of one rule in this crawl: copies, new pages, copies among
    content pages, and its run of copies since the last new page it knew of."""

    duplicates: int = 0
    uniques: int = 0
    content_duplicates: int = 0
    streak: int = 0

    def to_list(self) -> list[int]:
        return [self.duplicates, self.uniques, self.content_duplicates, self.streak]

    @classmethod
    def from_list(cls, values: object) -> Tally:
        """Raises ValueError on anything but four counts that are not negative."""
        if not isinstance(values, list) or len(values) != 4:
            raise ValueError(f"a tally is four counts, not {values!r}")
        counts = [int(value) for value in values]
        if min(counts) < 0:
            raise ValueError(f"a tally counts nothing below zero: {values!r}")
        return cls(*counts)


@dataclass(frozen=True)
class Merged:
    """What another worker's totals add to this worker's view of one rule; ``ended``: it
    saw a new page, so the rule's run is ``streak`` now (not extended by it)."""

    duplicates: int
    uniques: int
    content_duplicates: int
    streak: int
    ended: bool


class CrawlEvidence:
    """This worker's own tallies per rule (``record``) and the last totals taken from each
    other worker (``take``)."""

    def __init__(self) -> None:
        self._own: dict[str, Tally] = {}
        self._changed: dict[str, None] = {}  # rules whose own tally changed, oldest first
        self._theirs: dict[tuple[str, str], Tally] = {}

    def record(self, identity: str, *, duplicate: bool, content_page: bool = False) -> None:
        """This worker saw a copy (``duplicate``) or a new page where the rule bet."""
        tally = self._own.setdefault(identity, Tally())
        if duplicate:
            tally.duplicates += 1
            tally.content_duplicates += content_page
            tally.streak += 1
        else:
            tally.uniques += 1
            tally.streak = 0
        self._changed.pop(identity, None)
        self._changed[identity] = None

    def own(self, identity: str) -> Tally:
        """This worker's totals for the rule (zeros when it saw none)."""
        return self._own.get(identity, Tally())

    def changed(self) -> list[str]:
        """Rules whose own tally changed since the last call, most recent last."""
        found, self._changed = list(self._changed), {}
        return found

    def take(self, author: str, identity: str, totals: Tally) -> Merged:
        """Another worker's latest totals for a rule: what they add to this worker's view
        since the last totals taken from it."""
        before = self._theirs.pop((author, identity), None) or Tally()
        if len(self._theirs) >= MAX_WORKERS_TRACKED:
            del self._theirs[next(iter(self._theirs))]
        self._theirs[(author, identity)] = totals
        uniques = max(0, totals.uniques - before.uniques)
        ended = uniques > 0
        if ended:
            streak = totals.streak
            mine = self._own.get(identity)
            if mine is not None:
                mine.streak = 0  # a new page elsewhere ends this worker's run too
        elif totals.streak >= before.streak:
            streak = totals.streak - before.streak
        else:  # its run ended on a third worker's new page, taken from that worker
            streak = totals.streak
        return Merged(
            duplicates=max(0, totals.duplicates - before.duplicates),
            uniques=uniques,
            content_duplicates=max(0, totals.content_duplicates - before.content_duplicates),
            streak=streak,
            ended=ended,
        )
