"""What the learner knows of the pages judged: ``Verdicts``.

A new page is evidence against a rule only beside a counterpart whose response came back
(``fetched``) and was judged otherwise (``copy_of``). Both answers come from the URL judge,
which sets ``copy_of`` once it is built (``UrlLearner.copy_of``); observing verdicts and
deciding requests ask the same object, so they cannot disagree on a page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.parts import UrlParts


def _not_known(url: str) -> str | None:
    return None


class Verdicts:
    """``fetched(url)``: whether a canonical URL's response came back (in this crawl or an
    earlier one on the same store). ``copy_of(url)``: the page a judged URL's page was
    found a copy of (None: new, or not known)."""

    def __init__(self, fetched: Callable[[str], bool]) -> None:
        self.fetched = fetched
        self.copy_of: Callable[[str], str | None] = _not_known

    def judged_apart(self, other: str, new: UrlParts) -> bool:
        """Whether ``other``'s page was judged and is not ``new``'s: ``new`` came back new
        beside it, so the two differ. On one worker a page's verdict follows the verdicts
        judged before it. Another worker may have judged ``other`` a copy of ``new`` in
        the moment between ``new``'s verdict and this worker hearing of it: the two are
        one page then, and no rule relying on it failed (a mirror rule so weakened re-issued
        192 requests of a crawl of two workers, issue 35)."""
        return self.fetched(other) and self.copy_of(other) != new.url
