"""The URL middleware's store guard: a store failure closes the spider, not the call.

The URL core reads and writes the index on Scrapy's events; a ``StoreError`` raised there
must not reach Scrapy as an error of the request at hand. The guard is the core floor's
``StoreGuard`` (``url/guard.py``), reporting here: the failure is counted
(``simdedup/url/unchecked/store_error``) and handed to ``DedupState.store_failed``, which
closes the spider once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy_simdedup import stats as keys
from scrapy_simdedup.url.guard import StoreGuard

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_simdedup.errors import StoreError
    from scrapy_simdedup.scrapy_layer.state import DedupState


def crawl_store_guard(crawler: Crawler, state: DedupState) -> StoreGuard:
    """The guard of the URL middleware's store calls for ``crawler``'s state."""

    def report(exc: StoreError) -> None:
        stats: Any = crawler.stats
        stats.inc_value(keys.url_unchecked("store_error"))
        state.store_failed(exc)

    return StoreGuard(report, lambda: state.failed)
