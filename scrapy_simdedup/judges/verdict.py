"""A verdict: what the content judge decided about one page, and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy_simdedup.judges.confirmation import Confirmation


@dataclass(frozen=True)
class Verdict:
    """What the judge decided about one page.

    ``original``: the key of the page this one copies (``key`` itself for a re-visit), or
    None when it is new. ``found_by``: "exact", "simhash", "sentences" or "same_key" (a
    second item with this key in one run). ``confirmation``: the comparison that confirmed
    the copy, or the most similar one that did not (``unconfirmed``: the page is kept, and
    ``candidate`` names that stored page, ``distance`` and ``found_by`` say how near it was
    and how it was found; ``adds_content`` when a similar page was not confirmed because
    this one adds words of its own).
    """

    key: str
    original: str | None = None
    distance: int = 0
    found_by: str | None = None
    confirmation: Confirmation | None = None
    revisit: bool = False
    unconfirmed: bool = False
    exact_fallback: bool = False
    adds_content: bool = False  # a similar page was not confirmed: this one adds words
    candidate: str | None = None  # unconfirmed: the stored page most similar to this one

    @property
    def copy(self) -> bool:
        """True when the page should be dropped (or annotated) as a copy of ``original``."""
        return self.original is not None and not self.revisit

    @property
    def repeated_key(self) -> bool:
        """A second item with the page's key in this run: a copy of the first."""
        return self.found_by == "same_key"
