"""Content verdicts taken in as evidence for rules: ``Observer``.

A copy is evidence for the rule its pair of URLs teaches (a mirror, a parameter that
changes nothing, a trap); a new page is evidence against every rule that predicted a copy
of a page judged apart from it (``Verdicts.judged_apart``), and against a rule whose bet
waited in vain (``contradicted``). The rules weakened are returned, so that their bets can
be re-issued, and announced at once to the other workers (``url/sharing.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.counterparts import on_host
from scrapy_simdedup.url.features import path_template, section_template
from scrapy_simdedup.url.rules import Rule, template_path
from scrapy_simdedup.url.shapes import is_variable

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.url.counterparts import Counterparts
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.places import PlacesSeen
    from scrapy_simdedup.url.sharing import RuleSharing
    from scrapy_simdedup.url.standing import Standing
    from scrapy_simdedup.url.verdicts import Verdicts


class Observer:
    """Records each verdict in the rules of ``standing`` it concerns, saves them, and tells
    ``sharing`` (the other workers) what this worker saw."""

    def __init__(
        self,
        standing: Standing,
        places: PlacesSeen,
        counterparts: Counterparts,
        verdicts: Verdicts,
        sharing: RuleSharing,
    ) -> None:
        self.standing = standing
        self.book = standing.book
        self.places = places
        self.counterparts = counterparts
        self.verdicts = verdicts
        self.sharing = sharing

    def observe(
        self, parts: UrlParts, original: UrlParts | None, samples: tuple[str, ...] = ()
    ) -> list[Rule]:
        """A content verdict: ``parts`` duplicated ``original``, or was new (None).
        ``samples``: the rules whose sample this verdict settles (the page was fetched as
        one, or is the counterpart a sample judged before it waited for).

        Returns the rules this evidence weakened (a new page where they predicted a copy).
        """
        if original is None:
            return self._observe_new(parts, samples)
        content_page = is_content_page(parts)
        for rule in self._rules_for_pair(parts, original):
            self._record(rule, duplicate=True, content_page=content_page)
            self.places.paged_copy(rule, parts)
            if rule.kind == "trap":
                rule.exemplar = original.url
            elif rule.kind == "mirror":
                self.places.evidence_in(rule, parts)
                if content_page:
                    self.places.copied_in(rule, parts)
            self.book.save_soon(rule)
        self.standing.changed()
        return []

    def _observe_new(self, parts: UrlParts, samples: tuple[str, ...]) -> list[Rule]:
        rules = self.book.on_host(parts.host)
        # Most new pages are on hosts without rules: nothing to work out for them.
        weakened = self._contradicted_on_host(parts, rules) if rules else []
        # A new page on an original whose mirror's copy was judged: they differ.
        for rule in self.book.mirrors_of(parts.host):
            if self.verdicts.judged_apart(parts.with_host(rule.host), parts):
                weakened.append(rule)
        for rule in weakened:
            self._record(rule, duplicate=False)
            self.book.save_soon(rule)
        self.standing.sampling.differed(weakened, samples, parts.url)
        if weakened:
            self.standing.changed()
        if self.sharing.news is not None and weakened:  # at once: the others stop betting on it
            self.sharing.announce(weakened, learned=False)
        return weakened

    def _contradicted_on_host(self, parts: UrlParts, rules: Iterable[Rule]) -> list[Rule]:
        """The rules of ``parts``' host that its new page contradicts: a trap on its path
        template, a skip whose counterpart was fetched."""
        template, in_force = path_template(parts), self.standing.in_force(parts.host)
        # and the parameter rules it inherits, on a page the original has too: a mirror's
        # tag that grew pages of its own under the path of the original's one-page tag
        inherited = [rule for rule in in_force if rule.host != parts.host]
        weakened = []
        for rule in (*rules, *inherited):
            if rule.kind == "trap":
                relevant = rule.template == template
                rule.stopped = rule.stopped or relevant
            else:
                counterpart = self.counterparts.of(rule, parts, in_force)
                relevant = counterpart is not None and self.verdicts.judged_apart(
                    counterpart, parts
                )
                if relevant and rule.host != parts.host:  # a page the original has too
                    assert counterpart is not None
                    relevant = self.verdicts.fetched(on_host(counterpart, parts, rule.host))
                if relevant and rule.kind == "pattern":
                    rule.specific = True  # this value is no copy: nor is any value
                    rule.deny(parts)  # nor this value in the section, nor any on this path
            if relevant:
                weakened.append(rule)
        return weakened

    def contradicted(self, identity: str, url: str | None = None) -> list[Rule]:
        """A request skipped on the rule ``identity`` waited for a counterpart that never
        came, was re-issued, and its page came back new: the rule bet on a copy of a page
        its other host lacks (a site taken for the copy of its own partial mirror, a section
        only this host has). Evidence against it, as a new page beside a fetched
        counterpart is: its run of copies ends and it skips nothing until a new run. A
        mirror also stops waiting for this crawl: once back in force (its other pages are
        copies), it skips only copies whose original is fetched or queued. Returns the rule
        (its bets are re-issued), or nothing when it is unknown. Announced to the other
        workers sharing the store, which stop waiting too."""
        rule = self.book.get(identity)
        if rule is None:
            return []
        rule.waits = False
        self._record(rule, duplicate=False)
        # a skip of it (``url``), fetched after all
        self.standing.sampling.differed([rule], (rule.identity,), url)
        self.book.save_soon(rule)
        self.standing.changed()
        if self.sharing.news is not None:
            self.sharing.announce([rule], learned=False)
        return [rule]

    def _record(self, rule: Rule, *, duplicate: bool, content_page: bool = False) -> None:
        """A verdict this worker saw: in the rule's counts, and in its own tally for the
        other workers (``refresh``)."""
        rule.record(duplicate, content_page=content_page)
        if duplicate and self.standing.risk > 0.0 and not rule.proven:  # only a risk asks it
            rule.proven = self.standing.learned(rule)
        self.sharing.record(rule, duplicate=duplicate, content_page=content_page)

    def _rules_for_pair(self, copy: UrlParts, original: UrlParts) -> list[Rule]:
        if copy.host != original.host:
            if copy.with_host(original.host).partition("?")[0] != original.url.partition("?")[0]:
                # Another path on another host: a reprint, nothing to learn; unless the two
                # hosts are mirrors, one site, and the copies repeat one page: the
                # calendar's first month came from the other host, and its months here copy
                # each other as they copy that month (a mirror that numbers its pages
                # otherwise copies a page each, and teaches no trap).
                trap = Rule("trap", copy.host, template=path_template(copy))
                known = self.standing.find(trap)
                if not self._mirrored(copy, original) or (
                    known is not None and known.exemplar not in ("", original.url)
                ):
                    return []
                return self._trap(copy, original)
            if copy.path_and_query != original.path_and_query:
                # The same path on another host with other parameters: those parameters
                # change nothing on the copy's host (its URL without them is the page).
                return self._patterns(copy, original)
            found = self.standing.find_or_add(Rule("mirror", copy.host, other=original.host))
            return [found] if found else []
        if copy.url.partition("?")[0] == original.url.partition("?")[0]:
            return self._patterns(copy, original)
        return self._trap(copy, original)

    def _trap(self, copy: UrlParts, original: UrlParts) -> list[Rule]:
        """The trap rule of ``copy``'s template, when ``original`` is another page of it."""
        template = path_template(copy)
        if template_path(template) != template_path(path_template(original)):
            return []
        found = self.standing.find_or_add(Rule("trap", copy.host, template=template))
        return [found] if found else []

    def _mirrored(self, copy: UrlParts, original: UrlParts) -> bool:
        """Whether a mirror rule between the two hosts (either way) is learned."""
        return any(
            rule is not None and self.standing.learned(rule)
            for rule in (
                self.standing.find(Rule("mirror", copy.host, other=original.host)),
                self.standing.find(Rule("mirror", original.host, other=copy.host)),
            )
        )

    def _patterns(self, copy: UrlParts, original: UrlParts) -> list[Rule]:
        """One rule per parameter the copy has and the original lacks (or has otherwise),
        in the copy's section, with the value the copy showed."""
        theirs = dict(original.params)
        differing = {n: v for n, v in copy.params if theirs.get(n) != v}
        section = section_template(copy)
        found = []
        for name in sorted(differing):
            probe = Rule("pattern", copy.host, names=(name,), template=section)
            rule = self.standing.find_or_add(probe)
            if rule is not None:
                rule.saw_value(differing[name])
                found.append(rule)
        return found


def is_content_page(parts: UrlParts) -> bool:
    """A page below the top level or with a generated id (``/docs/intro.html``,
    ``/item/42``), unlike the boilerplate every site of a platform shares (``/terms``,
    ``/privacy``, ``/about``): only copies of such pages show that a host is a mirror."""
    return len(parts.segments) >= 2 or any(is_variable(s) for s in parts.segments)
