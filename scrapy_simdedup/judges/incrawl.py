"""A content verdict seen by every worker of one crawl on a shared store (issue 35).

On one worker, a key stored earlier in the same run is a repeated key, and one stored by an
earlier run a re-visit. With several workers, "earlier in this run" includes the other
workers' pages: ``in_crawl`` asks the crawl's record (``index/crawls.py``) and records the
verdict there, so that a bet on another worker settles on the page kept here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.judges.verdict import Verdict
from scrapy_simdedup.url.parts import canonical_or_none

if TYPE_CHECKING:
    from scrapy_simdedup.index.crawls import CrawlRecord


def in_crawl(verdict: Verdict, crawl: CrawlRecord) -> Verdict:
    """``verdict``, a re-visit of a page another worker of this crawl kept made a repeated
    key; recorded as judged, and kept (new, or a re-visit) or barren (a copy of a page this
    crawl did not keep). Keys that are no URL (``text:...``) are left alone. Raises
    ``StoreError``."""
    if verdict.repeated_key:
        return verdict
    url = canonical_or_none(verdict.key)
    if url is None:
        return verdict
    if verdict.original is None or verdict.revisit:
        first = crawl.keep(url)
        crawl.judged(url, barren=False)
        if verdict.revisit and not first:  # the other worker's page is in the feed already
            return Verdict(verdict.key, verdict.key, found_by="same_key")
        return verdict
    original = canonical_or_none(verdict.original)
    barren = original is None or not crawl.was_kept(original)
    crawl.judged(url, barren=barren, original=original)
    return verdict
