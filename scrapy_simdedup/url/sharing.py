"""Rules shared between the workers of one crawl: ``RuleSharing``.

Workers sharing a store while they run exchange their rules (``refresh``, ``url/news.py``)
with the copies and new pages each saw itself, which the others add to theirs once
(``url/evidence.py``, ``url/merging.py``): a crawl's evidence counts once whichever worker
saw it, so two workers learn as soon as one would. What forbids a skip (a switcher, a
rule refuted while it learned, a page not what its path promised) goes with the rules
(``url/findings.py``), and what the others found is handed to the URL core (``heard``).
A worker alone (no ``news``) shares nothing, and every call here is then cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.evidence import CrawlEvidence
from scrapy_simdedup.url.findings import Findings
from scrapy_simdedup.url.merging import merge_into
from scrapy_simdedup.url.rules import Rule

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.url.evidence import Tally
    from scrapy_simdedup.url.gathering import GatheringBets
    from scrapy_simdedup.url.news import RuleNews
    from scrapy_simdedup.url.standing import Standing
    from scrapy_simdedup.url.switchers import Switchers

MAX_FOUND = 100_000
"""Findings of one kind waiting to be announced (a store that keeps failing); past it,
the others are not told of more."""
MAX_REANNOUNCED = 500
"""Switchers announced again with every learned rule, the most recent first, for a worker
that joined late; older ones it learns only from pages it parses."""


class RuleSharing:
    """This worker's rules, tallies and findings announced on ``news`` (None: a worker
    alone), and the others' taken into ``standing``, ``switchers`` and ``gathering``."""

    def __init__(
        self,
        news: RuleNews | None,
        standing: Standing,
        switchers: Switchers,
        gathering: GatheringBets,
    ) -> None:
        self.news = news
        self.standing = standing
        self.switchers = switchers
        self.gathering = gathering
        self.evidence = CrawlEvidence()  # what this worker saw itself, and the others
        # What this worker found that forbids skips, to announce (``found_*``), and what
        # the others found and this worker did not know, for the URL core (``heard``).
        self._found = Findings()
        self._heard = Findings()

    def record(self, rule: Rule, *, duplicate: bool, content_page: bool = False) -> None:
        """A verdict this worker saw, in its own tally for the other workers."""
        if self.news is not None:
            self.evidence.record(rule.identity, duplicate=duplicate, content_page=content_page)

    def found_switchers(self, found: list[tuple[str, str]]) -> None:
        if self.news is not None:
            self._found.switchers += found

    def found_unpredicted(self, urls: Iterable[str]) -> None:
        if self.news is not None and len(self._found.unpredicted) < MAX_FOUND:
            self._found.unpredicted += urls

    def found_refuted(self, identity: str) -> None:
        if self.news is not None and len(self._found.refuted) < MAX_FOUND:
            self._found.refuted.append(identity)

    def heard(self) -> Findings:
        """What the other workers found since the last call (``UrlLearner.heard``)."""
        heard, self._heard = self._heard, Findings()
        return heard

    def refresh(self) -> list[Rule]:
        """Every few seconds, on a store several workers share: announce the rules in force
        here and take in the others' (``url/news.py``). Returns the rules that stood here
        and no longer do, because another worker saw one fail."""
        if self.news is None or not self.news.due():
            return []
        book, standing = self.standing.book, self.standing
        changed = [rule for i in self.evidence.changed() if (rule := book.get(i))]
        # The rules whose evidence changed here, the most recent first, then now and then
        # every learned rule (in force at once on a worker that joined late); what one
        # entry cannot hold goes next time.
        learned = standing.learned_rules() if self.news.learned_due() else []
        # Switchers found since, and with every learned rule all of them (the most recent
        # first): a worker that joined late must not skip what the others know switches.
        if learned:
            self._found.switchers = self.switchers.latest(MAX_REANNOUNCED)
        self.announce([*reversed(changed), *learned], learned=True, findings=self._found)
        weakened = []
        for announcement in self.news.read():
            self._take_in(announcement.findings)
            for remote in announcement.rules:
                known = standing.find(remote)
                stood = known is not None and standing.learned(known)
                tally = announcement.tallies.get(remote.identity)
                local = self._merge(remote, announcement.author, tally)
                if stood and local is not None and not standing.learned(local):
                    weakened.append(local)
        standing.changed()
        return weakened

    def _take_in(self, findings: Findings) -> None:
        """Another worker's findings: switchers and refuted rules in force here at once,
        what is new here handed to the URL core (``heard``)."""
        for switcher in findings.switchers:
            if self.switchers.add(switcher):
                self._heard.switchers.append(switcher)
                self.standing.changed()
        for identity in findings.refuted:
            self.gathering.refute(identity)  # its waiting bets: re-issued at the next tick
        self._heard.unpredicted += findings.unpredicted  # the URL core takes them at once

    def _merge(self, remote: Rule, author: str, tally: Tally | None) -> Rule | None:
        """Another worker's rule, taken in (``merging.merge_into``). Not saved: its worker
        saved its own evidence."""
        probe = Rule(remote.kind, remote.host, remote.other, remote.names, remote.template)
        local = self.standing.find_or_add(probe)
        if local is None:
            return None
        added = None
        if tally is not None:
            stored = self.standing.book.was_stored(local.identity)
            added = self.evidence.take(author, local.identity, tally, stored=stored)
        merge_into(local, remote, added)
        if remote.chosen and not local.chosen:  # its direction, unless this one chose
            reverse = self.standing.reverse(local)
            local.chosen = reverse is None or not reverse.chosen
        return local

    def _with_reverses(self, rules: Iterable[Rule]) -> list[Rule]:
        """The rules and, for mirrors, their reverses: a mirror is learned from both."""
        found = {rule.identity: rule for rule in rules}
        for rule in list(found.values()):
            reverse = self.standing.reverse(rule)
            if rule.kind == "mirror" and reverse is not None:
                found.setdefault(reverse.identity, reverse)
        return list(found.values())

    def announce(
        self, rules: list[Rule], *, learned: bool, findings: Findings | None = None
    ) -> None:
        """Announce ``rules`` (and the reverses of mirrors) with this worker's tallies, and
        what ``findings`` one announcement holds."""
        assert self.news is not None
        own = self.evidence.own
        left = self.news.announce(
            self._with_reverses(rules), learned=learned, tally=own, findings=findings
        )
        self.evidence.changed_again([rule.identity for rule in left])
