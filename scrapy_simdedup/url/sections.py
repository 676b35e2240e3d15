"""A rule's evidence in each section of a site: where a page that came back new sits.

A rule is one claim for a whole host ("its pages copy that host's"), but sites diverge by
section: a mirror grows a section of its own, a forum's archive lags behind its threads.
With a risk (``SIMDEDUP_URL_RISK``), a page that comes back new where a standing rule
predicted a copy says something of its section first. ``SectionCounts`` counts, per rule
and section (``section_template``: the path's first parts and shape), the rule's samples
judged there and, of them, the pages that came back new, as the rule's own bound counts
them (``sampling.py``); a section with no sample judged is bound by nothing (1.0). The
bound is ``estimate.share_bound``'s, as the rule's is.
"""

from __future__ import annotations

from scrapy_simdedup.url.estimate import share_bound
from scrapy_simdedup.url.features import section_template
from scrapy_simdedup.url.parts import parts_or_none
from scrapy_simdedup.url.rules import template_path

MAX_SECTIONS = 10_000
"""(rule, section) pairs counted; beyond, a section not yet counted is not counted, and is
bound by nothing (its new pages re-issue its skips, as at no risk). Dropping the first
counted instead would drop a busy section's new pages with it, and let it stand again on
a few more copies."""


def section_of(url: str) -> str | None:
    """The section (``section_template``) of a URL, as rules name sections."""
    parts = parts_or_none(url)
    return None if parts is None else template_path(section_template(parts))


class SectionCounts:
    """Judged and new pages per rule identity and section, for this crawl only (a site
    changes between crawls, and its sections with it)."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], list[int]] = {}

    def judged(self, identity: str, url: str, *, new: bool) -> None:
        """A page of ``url``'s section was judged for the rule ``identity``: a copy as it
        predicted, or ``new``."""
        section = section_of(url)
        if section is None:
            return
        key = (identity, section)
        counts = self._counts.get(key)
        if counts is None:
            if len(self._counts) >= MAX_SECTIONS:
                return
            counts = self._counts[key] = [0, 0]
        counts[0] += 1
        counts[1] += new

    def bound(self, identities: tuple[str, ...], section: str) -> float:
        """At most this share of the section's pages differ, by the counts of the rules
        ``identities`` (a mirror's two directions) there: 1.0 where none was judged."""
        judged, new = self.counts(identities, section)
        return share_bound(new, judged)

    def counts(self, identities: tuple[str, ...], section: str) -> tuple[int, int]:
        """(pages judged, of them new) in ``section`` for the rules ``identities``."""
        judged = new = 0
        for identity in identities:
            found = self._counts.get((identity, section), (0, 0))
            judged, new = judged + found[0], new + found[1]
        return judged, new
