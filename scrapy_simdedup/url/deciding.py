"""The decision the learned rules make on one request: ``Decisions``.

A request is skipped only when a rule in force on its host (``standing.py``) predicts a
copy whose counterpart (``counterparts.py``) is at hand, or, for a mirror that waits, on
its way; else it is fetched, sometimes as the rule's sample (``sampling.py``; a mirror's
first would-be skip in a section, ``places.py``). Applying rules is kept apart from
learning them (``observe.py``): this is what every request pays for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.counterparts import on_host
from scrapy_simdedup.url.features import path_template
from scrapy_simdedup.url.rules import FETCH, Decision, template_path

if TYPE_CHECKING:
    from collections.abc import Container

    from scrapy_simdedup.url.counterparts import Counterparts
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.places import PlacesSeen
    from scrapy_simdedup.url.rules import Rule
    from scrapy_simdedup.url.standing import Standing
    from scrapy_simdedup.url.verdicts import Verdicts


class Decisions:
    """Skips and samples of the rules ``standing`` holds in force."""

    def __init__(
        self,
        standing: Standing,
        counterparts: Counterparts,
        places: PlacesSeen,
        verdicts: Verdicts,
    ) -> None:
        self.standing = standing
        self.counterparts = counterparts
        self.places = places
        self.verdicts = verdicts

    def decide(
        self,
        parts: UrlParts,
        covered: Container[str],
        *,
        tally: bool = True,
        awaited: Container[str] = (),
        source: UrlParts | None = None,
    ) -> Decision:
        """Skip ``parts`` when a learned rule predicts a duplicate whose original is here.

        The original (the counterpart) must be in ``covered``: URLs this crawl fetched or
        has queued. A mirror's copy may also wait for an original that is not yet queued but
        ``awaited`` (its host is crawled, and it did not fail): the skip is then ``pending``,
        a bet that the original's own link brings it. ``tally=False`` asks without counting
        the request (it is never sampled). ``source``: the page that linked it (its
        referrer), which tells a trap's chain from a listing.
        """
        in_force = self.standing.in_force(parts.host)
        waiting: tuple[Rule, str] | None = None  # a mirror's skip on an original awaited
        unproven: tuple[Rule, str] | None = None  # a page past the first, see below
        # A parameter rule the host inherits from its original speaks only for pages the
        # original has too (``_shared``). A section of the mirror's own, paged with
        # ``?page=`` as the original's one-page tags are, is not the original's to judge:
        # once the mirror rule stopped waiting for pages the original lacks, the inherited
        # rule cut its pager's chain at the first page.
        for rule in in_force:
            counterpart = self.counterparts.of(rule, parts, in_force)
            if rule.kind == "trap":
                applies = (
                    template_path(path_template(parts)) == template_path(rule.template)
                    and counterpart in covered
                )
            else:
                applies = counterpart is not None and counterpart in covered
                if (
                    not applies
                    and waiting is None
                    and counterpart is not None
                    and rule.kind == "mirror"
                    and rule.waits
                    and counterpart in awaited
                ):
                    waiting = (rule, counterpart)
            if applies and rule.kind == "pattern" and not self.places.paged_copy_seen(rule, parts):
                assert counterpart is not None
                unproven, applies = unproven or (rule, counterpart), False
            if applies and rule.host != parts.host:  # inherited
                assert counterpart is not None
                theirs = on_host(counterpart, parts, rule.host)
                applies = self._shared(counterpart, theirs, covered)
            if applies and (waiting is None or rule.host == parts.host):
                assert counterpart is not None
                return self._decided(rule, parts, counterpart, tally, source, pending=False)
        # A pending bet only when none of the host's own rules has its counterpart at hand:
        # a mirror's calendar page whose original was never linked (the original's trap
        # skips the chain that would link it) is a copy of the mirror's own trap, once its
        # months showed one. Not of a rule it inherits: none of its pages was seen to copy
        # there (a section of its own, paged with ``?page=`` as the original's is).
        if waiting is not None:
            rule, counterpart = waiting
            return self._decided(rule, parts, counterpart, tally, source, pending=True)
        if unproven is not None:  # fetched as the rule's sample on this path
            rule, counterpart = unproven
            return Decision(skip=False, rule=rule, sample=tally, counterpart=counterpart)
        return FETCH

    def _shared(self, mine: str, theirs: str, covered: Container[str]) -> bool:
        """Whether the mirror's page ``mine`` is its original's page ``theirs``: that one
        is at hand, and ``mine`` was not fetched (a bet on it, or on its way) or was found
        its copy. A page of the same path that came back otherwise (new, or not judged
        yet) has grown apart: its variants are not the original's rule's to skip."""
        if theirs not in covered:
            return False
        return not self.verdicts.fetched(mine) or self.verdicts.copy_of(mine) == theirs

    def _decided(
        self,
        rule: Rule,
        parts: UrlParts,
        counterpart: str,
        tally: bool,
        source: UrlParts | None,
        *,
        pending: bool,
    ) -> Decision:
        """The skip ``rule`` makes of ``parts``, or the sample it fetches instead."""
        if not tally:
            return Decision(True, rule, counterpart=counterpart, pending=pending)
        if self._first_in_section(rule, parts):
            return Decision(skip=False, rule=rule, sample=True, counterpart=counterpart)
        if self.standing.sampling.takes_sample(rule):
            return Decision(skip=False, rule=rule, sample=True, counterpart=counterpart)
        if rule.kind == "trap":
            rule.skipped_here += 1
            rule.chained_here += _chained(rule, parts, source)
        return Decision(True, rule, counterpart=counterpart, pending=pending)

    def _first_in_section(self, rule: Rule, parts: UrlParts) -> bool:
        """Whether ``parts`` is in a section (``section_template``) where a mirror rule has
        no evidence in this crawl: no copy seen there, no would-be skip fetched there. Its
        first would-be skip there is fetched as a sample, and its links followed: a
        mirror's section of its own is often linked from a page of a section that is
        unlike the rest (an ``/about/`` that links the mirror's local events). Elsewhere
        one in ``Sampling.interval`` is: a section linked from ``m`` skipped pages of
        sections with evidence is missed with probability ``(1 - 1/interval) ** m``. A
        pattern rule has one section; a trap one template."""
        if rule.kind != "mirror":
            return False
        return self.places.evidence_in(rule, parts)


def _chained(trap: Rule, parts: UrlParts, source: UrlParts | None) -> bool:
    """Whether ``parts`` was linked from a page of ``trap``'s own template (its next day,
    its next page): what an endless template does, ahead of the crawl."""
    return (
        source is not None
        and source.host == parts.host
        and template_path(path_template(source)) == template_path(trap.template)
    )
