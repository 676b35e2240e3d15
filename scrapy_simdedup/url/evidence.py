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
and this worker's own run starts over (``Merged.ended``). A worker's run counts only when it
knew of every new page this worker knows of (``Tally.known``): copies announced by a worker
that had not yet heard of a new page may predate it, and never extend a run past it. Where
the counts cannot be told apart, the ledger errs towards fewer copies and more new pages,
which costs skips, never pages: totals first met from a worker for a rule this worker read
from the store (the store may hold them already, saved by that worker) add their new pages
and their run but not their copies, and once the ledger had to forget a worker's totals
(``MAX_TRACKED``), totals it no longer knows add only their new pages.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_TRACKED = 10_000
"""(worker, rule) pairs whose latest totals are kept; beyond, the oldest are forgotten."""


@dataclass
class Tally:
    """What one worker saw of one rule in this crawl: copies, new pages, copies among
    content pages, its run of copies since the last new page it knew of, and how many new
    pages of this crawl it knew of (its own and the others'), when it announced."""

    duplicates: int = 0
    uniques: int = 0
    content_duplicates: int = 0
    streak: int = 0
    known: int = 0

    def to_list(self) -> list[int]:
        return [self.duplicates, self.uniques, self.content_duplicates, self.streak, self.known]

    @classmethod
    def from_list(cls, values: object) -> Tally:
        """Raises ValueError on anything but five counts that are not negative."""
        if not isinstance(values, list) or len(values) != 5:
            raise ValueError(f"a tally is five counts, not {values!r}")
        counts = [int(value) for value in values]
        if min(counts) < 0:
            raise ValueError(f"a tally counts nothing below zero: {values!r}")
        return cls(*counts)

    def empty(self) -> bool:
        return not (self.duplicates or self.uniques or self.streak)


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
        self._known: dict[str, int] = {}  # new pages of this crawl known here, per rule
        self._forgot = False  # some worker's totals were forgotten (MAX_TRACKED)

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
            self._known[identity] = self._known.get(identity, 0) + 1
        self.changed_again([identity])

    def own(self, identity: str) -> Tally:
        """This worker's totals for the rule, to announce (zeros when it saw none)."""
        tally = self._own.get(identity, Tally())
        return Tally(
            tally.duplicates,
            tally.uniques,
            tally.content_duplicates,
            tally.streak,
            self._known.get(identity, 0),
        )

    def changed(self) -> list[str]:
        """Rules whose own tally changed since the last call, most recent last."""
        found, self._changed = list(self._changed), {}
        return found

    def changed_again(self, identities: list[str]) -> None:
        """Announce these rules' tallies at the next chance (changed, or not sent)."""
        for identity in identities:
            self._changed.pop(identity, None)
            self._changed[identity] = None

    def take(self, author: str, identity: str, totals: Tally, *, stored: bool = False) -> Merged:
        """Another worker's latest totals for a rule: what they add to this worker's view
        since the last totals taken from it. ``stored``: the rule was read from the store
        (its counts may hold these totals already)."""
        before = self._theirs.pop((author, identity), None)
        first = before is None
        if before is None:
            before = Tally()
            if self._forgot:  # may have been taken already: its new pages only
                before = Tally(totals.duplicates, 0, totals.content_duplicates, totals.streak)
            elif stored:  # its copies may be in the stored counts: its run, new pages
                before = Tally(totals.duplicates, 0, totals.content_duplicates)
        if not (first and totals.empty()):
            if len(self._theirs) >= MAX_TRACKED:
                del self._theirs[next(iter(self._theirs))]
                self._forgot = True
            self._theirs[(author, identity)] = totals
        uniques = max(0, totals.uniques - before.uniques)
        known_here = self._known.get(identity, 0) + uniques
        self._known[identity] = known_here
        ended = uniques > 0
        if ended:
            mine = self._own.get(identity)
            if mine is not None:
                mine.streak = 0  # a new page elsewhere ends this worker's run too
        if totals.known < known_here:  # it had not heard of a new page known here
            streak = 0
        elif ended or totals.streak < before.streak:  # a new page: its run since
            streak = totals.streak
        else:
            streak = totals.streak - before.streak
        return Merged(
            duplicates=max(0, totals.duplicates - before.duplicates),
            uniques=uniques,
            content_duplicates=max(0, totals.content_duplicates - before.content_duplicates),
            streak=streak,
            ended=ended,
        )
