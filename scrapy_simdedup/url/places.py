"""Where in this crawl a rule was seen at work: ``PlacesSeen``.

Three rules of thumb need to know where, not only how often, a rule's evidence came:

* a mirror pair's first would-be skip in a section without evidence is fetched as a
  sample (``evidence_in``): a mirror's section of its own is often linked from a page of a
  section unlike the rest;
* a mirror still learning may bet only in a section where a content page was seen copied
  (``copied_in``, ``copied_section``);
* a pattern rule judges a page past the first (``?page=2``) only on a path where one was
  seen to copy (``paged_copy``, ``paged_copy_seen``): a server that clamps its pager
  teaches that ``page`` changes nothing, a tag with a real second page looks the same.

All of it is this crawl's, kept in memory (not stored, not exchanged), with bounds on
its size; only the first section a pair meets is claimed among the workers of a crawl
(``first_section``, issue 35).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from scrapy_simdedup.url.features import section_template
from scrapy_simdedup.url.rules import path_key, template_path

if TYPE_CHECKING:
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.rules import Rule

MAX_SECTIONS_SAMPLED = 1_000
"""Sections per mirror rule whose first would-be skip is fetched as a sample."""
MAX_PAGED_PATHS = 100_000
"""Paths remembered where a page past the first copied (``_paged_here``); beyond, pages
past the first of other paths are fetched."""
MAX_PAGE_DIGITS = 6
"""A page number or offset (``?page=2``, ``?start=40``) has at most this many digits; a
longer number is an id or a timestamp, not a place in a pager."""


class PlacesSeen:
    """The sections of each mirror pair, and the paths of each pattern rule, where this
    crawl has evidence."""

    def __init__(self) -> None:
        # a mirror's two hosts -> the sections where this crawl has evidence of the pair
        self._sections_here: dict[tuple[str, str], set[str]] = {}
        # A mirror pair's two hosts -> the sections where a content page was seen copied.
        self._copied_sections: dict[tuple[str, str], set[str]] = {}
        # (pattern rule, path): a page past the first copied there in this crawl
        self._paged_here: set[tuple[str, str]] = set()
        # Workers of one crawl: (a mirror's two hosts, section) -> whether this worker is
        # the first with evidence there (its sample is the crawl's one, issue 35).
        self.first_section: Callable[[tuple[str, str], str], bool] | None = None

    def evidence_in(self, mirror: Rule, parts: UrlParts) -> bool:
        """Note that the pair of hosts of ``mirror`` has evidence in ``parts``' section in
        this crawl (a copy seen there, or a sample fetched); whether it had none before."""
        pair = pair_of(mirror)
        sections = self._sections_here.setdefault(pair, set())
        section = template_path(section_template(parts))
        if section in sections or len(sections) >= MAX_SECTIONS_SAMPLED:
            return False
        sections.add(section)
        return self.first_section is None or self.first_section(pair, section)

    def copied_in(self, mirror: Rule, parts: UrlParts) -> None:
        """Note that a content page of ``parts``' section was found copied between the two
        hosts of ``mirror`` in this crawl: the section where their requests may wait while
        the rule is learned (``GatheringBets._gathering_mirror``)."""
        sections = self._copied_sections.setdefault(pair_of(mirror), set())
        if len(sections) < MAX_SECTIONS_SAMPLED:
            sections.add(template_path(section_template(parts)))

    def copied_section(self, mirror: Rule, section: str) -> bool:
        """Whether a content page of ``section`` was found copied between the two hosts of
        ``mirror`` in this crawl (``copied_in``)."""
        return section in self._copied_sections.get(pair_of(mirror), ())

    def paged_copy(self, rule: Rule, parts: UrlParts) -> None:
        """``parts`` was found a copy under ``rule``: when a page past the first, the pager
        clamps on its path."""
        # A page past the first copied here: the pager clamps on this path (beyond
        # MAX_PAGED_PATHS, such pages of paths not remembered are fetched).
        paged = rule.kind == "pattern" and past_first_page(rule, parts)
        if paged and len(self._paged_here) < MAX_PAGED_PATHS:
            self._paged_here.add((rule.identity, path_key(parts)))

    def paged_copy_seen(self, rule: Rule, parts: UrlParts) -> bool:
        """Whether ``rule`` may judge ``parts`` for the page number it asks for: a page
        past the first (``?page=2``) only on a path where one was seen to copy in this
        crawl. A blog's one-page tags whose pager shows "next" on a server that clamps
        (``?page=2`` answers with page 1) teach that ``page`` changes nothing; a tag that
        really has a second page looks the same from its URL, and skipping its page 2
        cut its pager's chain. One fetch per path finds out (and a new page there denies
        the path, ``Rule.deny``). The first page (``?page=1``) needs no such proof."""
        if not past_first_page(rule, parts):
            return True
        return (rule.identity, path_key(parts)) in self._paged_here


def past_first_page(rule: Rule, parts: UrlParts) -> bool:
    """Whether ``parts`` gives one of ``rule``'s parameters a page number or offset past
    the first page (``2``, ``40``; not ``0``, ``1``, nor a long number: an id, a
    timestamp)."""
    return any(
        name in rule.names
        and 0 < len(value) <= MAX_PAGE_DIGITS
        and value.isascii()
        and value.isdigit()
        and int(value) > 1
        for name, value in parts.params
    )


def pair_of(mirror: Rule) -> tuple[str, str]:
    """A mirror rule's two hosts, in one order whichever way the rule goes."""
    first, second = sorted((mirror.host, mirror.other))
    return first, second
