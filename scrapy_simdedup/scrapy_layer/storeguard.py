"""``StoreGuard``: a store failure met by the URL middleware closes the spider, not the call.

The URL core reads and writes the index on Scrapy's events; a ``StoreError`` raised there
must not reach Scrapy as an error of the request at hand. It is counted
(``simdedup/url/unchecked/store_error``) and handed to ``DedupState.store_failed``, which
closes the spider once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler

    from scrapy_simdedup.scrapy_layer.state import DedupState

R = TypeVar("R")


class StoreGuard:
    """Runs the URL core's store calls (``guard(action, *args)``) for a crawl's state."""

    def __init__(self, crawler: Crawler, state: DedupState) -> None:
        self.crawler = crawler
        self.state = state

    def __call__(self, action: Callable[..., R], *args: object) -> R | None:
        """``action(*args)``, a store failure closing the spider (and returning None)."""
        try:
            return action(*args)
        except StoreError as exc:
            self.store_failed(exc)
            return None

    def store_failed(self, exc: StoreError) -> None:
        stats: Any = self.crawler.stats
        stats.inc_value(keys.url_unchecked("store_error"))
        self.state.store_failed(exc)
