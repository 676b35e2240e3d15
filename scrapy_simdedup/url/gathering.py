"""Bets on rules still gathering evidence: ``GatheringBets``.

A rule skips nothing until it is learned, but its first pages are on their way while it
learns: a mirror linked from its home page sends its sections to the downloader before
three copies teach the rule, and two workers send twice as many (issue 35). The URL core
(``Probing.bet_or_probe``) may skip such a request on a bet that those pages say what the
rule's copies so far say; this module says which bet, and when none may be made any more
in this crawl (``refute``). Whether the bet is made, and whether it stands once the rule is
learned, is the core's (``url/probing.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.features import section_template
from scrapy_simdedup.url.places import past_first_page
from scrapy_simdedup.url.rulebook import MAX_RULES
from scrapy_simdedup.url.rules import Decision, Rule, template_path

if TYPE_CHECKING:
    from collections.abc import Callable, Container

    from scrapy_simdedup.url.counterparts import Counterparts
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.places import PlacesSeen
    from scrapy_simdedup.url.standing import Standing
    from scrapy_simdedup.url.switchers import Switchers


class GatheringBets:
    """The bets on the rules of ``standing`` not learned yet, and the rules refuted while
    they gathered evidence (no more bets on them in this crawl)."""

    def __init__(
        self,
        standing: Standing,
        places: PlacesSeen,
        switchers: Switchers,
        counterparts: Counterparts,
    ) -> None:
        self.standing = standing
        self.places = places
        self.switchers = switchers
        self.counterparts = counterparts
        # parameter rules a request fetched while they gathered evidence came back new
        # for: no more bets before they are learned (``gathering``), in this crawl
        self._refuted: set[str] = set()

    def bet(
        self,
        parts: UrlParts,
        covered: Container[str],
        ready: Callable[[Rule], bool] | None = None,
    ) -> Decision | None:
        """A bet made while a rule's first pages are on their way (``Probing.bet_or_probe``):
        on a parameter rule (``_gathering_parameter``), else on a mirror rule
        (``_gathering_mirror``); None when neither applies."""
        if parts.params:
            found = self._gathering_parameter(parts, covered, ready)
            if found is not None:
                return found
        return self._gathering_mirror(parts, covered, ready)

    def _gathering_mirror(
        self,
        parts: UrlParts,
        covered: Container[str],
        ready: Callable[[Rule], bool] | None,
    ) -> Decision | None:
        """A skip of ``parts`` on the mirror rule of its host not learned yet, whose pages
        so far all came back copies of the other host's pages at the same path (of its
        content pages, more came second than of the other host's): the bet, as a
        parameter rule's, that its pages on their way say so too. A mirror linked from its
        home page sends its sections to the downloader before three copies teach the
        rule, twice as many with two workers (issue 35). Never final while the rule is not
        learned: once it is, a bet stands if the rule in force skips its URL (this host
        chosen as the copy), else it is re-issued; a new page of the host (``refute``)
        or its deadline re-issues it. Only in a section below the top level where a
        content page was seen copied (a section of the mirror's own, or one where it
        diverged, has its first page fetched, as a learned rule's sample; one shared
        ``/terms`` says nothing of a site's hubs), and not on a host that is another
        pair's original, nor one whose other host is another pair's copy."""
        section = template_path(section_template(parts))
        if not section:  # a site's top level: its hubs, /about, /terms
            return None
        mirrors = self.standing.mirrors
        for rule in self.standing.book.on_host(parts.host):
            if rule.kind != "mirror" or rule.host != parts.host or rule.uniques or rule.stopped:
                continue
            reverse = self.standing.reverse(rule)
            if (
                rule.identity in self._refuted
                or (reverse is not None and (reverse.uniques or reverse.chosen))
                or rule.content_duplicates
                <= (reverse.content_duplicates if reverse is not None else 0)
                or not self.places.copied_section(rule, section)
                or mirrors.is_original(rule.host, rule.other)
                or mirrors.is_copy(rule.other, rule.host)  # the other host is the copy then
                or self.standing.learned(rule)  # learned: ``decide`` judged it
                or (ready is not None and not ready(rule))
            ):
                continue
            counterpart = parts.with_host(rule.other)
            if counterpart in covered:
                return Decision(True, rule, counterpart=counterpart, gathering=True)
        return None

    def _gathering_parameter(
        self,
        parts: UrlParts,
        covered: Container[str],
        ready: Callable[[Rule], bool] | None,
    ) -> Decision | None:
        """A skip of ``parts`` on a parameter rule of its host not learned yet, whose
        copies so far all said the parameter changes nothing here: a bet, made while the
        rule's first pages are on their way, that they will say so too (``UrlCore`` makes
        it only once enough of them are on their way to learn the rule). Two workers have
        twice the requests in flight while a ``?sid=`` rule is learned, and fetched each
        (issue 35). Such a bet is never final while the rule is not learned: once it is,
        the bet stands if the rule skips its URL, else it is re-issued; a new page under
        the rule (``refute``), or its deadline, re-issues it. A parameter with no rule yet
        is such a rule with no evidence: its first requests are on their way. None when no
        such rule applies: a value or path that brought a new page, a switcher, a page
        past the first; or ``ready`` says the rule does not skip yet (asked before the
        counterpart, which may cost a store read)."""
        template = section_template(parts)
        section = template_path(template)
        present = {name for name, _ in parts.params}
        in_force: list[Rule] | None = None
        for name in sorted(present):
            probe = Rule("pattern", parts.host, names=(name,), template=template)
            rule = self.standing.find(probe) or probe
            if (
                rule.identity in self._refuted
                or rule.uniques
                or rule.specific
                or rule.denied
                or rule.paths
                or self.standing.learned(rule)  # learned: ``decide`` judged it
                or past_first_page(rule, parts)
                or self.switchers.switches(parts, rule.names)
                or (ready is not None and not ready(rule))
            ):
                continue
            if in_force is None:
                in_force = self.standing.in_force(parts.host)
            counterpart = self.counterparts.without_learned(rule, parts, in_force, present, section)
            if counterpart in covered:
                return Decision(True, rule, counterpart=counterpart, gathering=True)
        return None

    def refute(self, identity: str) -> None:
        """A request fetched while the rule ``identity`` gathered evidence came back new
        (here, or on another worker): no more bets on it before it is learned, in this
        crawl."""
        if len(self._refuted) < MAX_RULES:
            self._refuted.add(identity)

    def refuted(self, identity: str) -> bool:
        return identity in self._refuted

    def needs(self, rule: Rule) -> int:
        """Copies in a row ``rule`` still needs to be learned (at least one); a mirror's,
        of content pages, counted either way between its two hosts."""
        min_evidence = self.standing.min_evidence
        if rule.kind != "mirror":
            return max(1, min_evidence - rule.streak)
        reverse = self.standing.reverse(rule)
        streak, content = rule.streak, rule.content_duplicates
        if reverse is not None:
            streak, content = streak + reverse.streak, content + reverse.content_duplicates
        return max(1, min_evidence - min(streak, content))

    def chosen_against(self, rule: Rule) -> bool:
        """Whether the mirror pair of ``rule`` is learned with the other host as the copy:
        a bet made on ``rule`` while it gathered evidence cannot stand."""
        if rule.kind != "mirror":
            return False
        reverse = self.standing.reverse(rule)
        return reverse is not None and reverse.chosen and not rule.chosen
