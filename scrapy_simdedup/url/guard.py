"""``StoreGuard``: the URL side's one boundary for store errors.

A store error (LevelDB gone, Redis down) must never crash a crawl nor lose a page: the URL
core reports it once, the crawl closes, and from then on it decides nothing (every request
is fetched, as plain Scrapy would). Each part of the core that touches the store goes
through one guard, so "what happens on a store error" is answered in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from scrapy_simdedup.errors import StoreError

R = TypeVar("R")


class StoreGuard:
    """``report(exc)`` is told of a store error; ``failed()`` says whether the crawl's
    store failed (the core then decides nothing more)."""

    def __init__(self, report: Callable[[StoreError], None], failed: Callable[[], bool]) -> None:
        self.report = report
        self.failed = failed

    def __call__(self, action: Callable[..., R], *args: object) -> R | None:
        """``action(*args)``; a store error is reported (the crawl closes) and gives None."""
        try:
            return action(*args)
        except StoreError as exc:
            self.report(exc)
            return None
