"""A request's counterpart under a rule: the page the rule says it copies.

A mirror's counterpart is the same path on the original host; a trap's, the page its
latest copies copied (its ``exemplar``); a pattern rule's, the URL without the learned
parameters. Deciding a request, betting on a rule still gathering evidence and weakening a
rule with a new page all ask the same ``Counterparts``, so a bet and the verdict that
settles it name the same page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.features import section_template
from scrapy_simdedup.url.rules import template_path

if TYPE_CHECKING:
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.places import PlacesSeen
    from scrapy_simdedup.url.rules import Rule
    from scrapy_simdedup.url.switchers import Switchers


class Counterparts:
    """Counterparts never lead away from a switcher (``switchers``), nor to page 1 from a
    page past the first not seen to copy on its path (``places``)."""

    def __init__(self, switchers: Switchers, places: PlacesSeen) -> None:
        self.switchers = switchers
        self.places = places

    def of(self, rule: Rule, parts: UrlParts, in_force: list[Rule]) -> str | None:
        """``parts``' counterpart under ``rule`` (``in_force``: the rules in force on its
        host); None when the rule says nothing of it."""
        if rule.kind == "mirror":
            return parts.with_host(rule.other)
        if rule.kind == "trap":
            return rule.exemplar or None
        present = {name for name, _ in parts.params}
        if rule.kind != "pattern" or not present.issuperset(rule.names):
            return None
        section = template_path(section_template(parts))
        if not covers(rule, parts, section) or self.switchers.switches(parts, rule.names):
            return None
        return self.without_learned(rule, parts, in_force, present, section)

    def without_learned(
        self, rule: Rule, parts: UrlParts, in_force: list[Rule], present: set[str], section: str
    ) -> str:
        """``parts`` without ``rule``'s parameters and every other one learned to change
        nothing here: ``?sid=..&sort=..`` leads to the bare page once both are learned.
        Never without a switcher: ``?lang=de&sid=..`` leads to ``?lang=de``."""
        learned = {
            name
            for other in in_force
            if other.kind == "pattern"
            and covers(other, parts, section)
            and not self.switchers.switches(parts, other.names)
            and self.places.paged_copy_seen(other, parts)  # ``?page=2&sid=..`` is not page 1
            for name in other.names
        }
        return parts.without_params(frozenset(rule.names) | (learned & present))


def covers(rule: Rule, parts: UrlParts, section: str) -> bool:
    """A pattern rule applies in its section (without the host: a mirror inherits its
    original's rules) and to the values it covers; one without a section (an earlier
    version's, learned host-wide) applies nowhere."""
    return (
        bool(rule.template)
        and template_path(rule.template) == section
        and rule.covers_values(parts)
    )


def on_host(url: str, parts: UrlParts, host: str) -> str:
    """``url``, a URL on ``parts.host``, on ``host`` instead."""
    return f"{parts.scheme}://{host}{url[len(parts.scheme) + 3 + len(parts.host) :]}"
