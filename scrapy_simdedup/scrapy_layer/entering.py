"""``EnteringRequests``: the last requests let into the scheduler, until it takes or drops them.

A request the dupefilter drops right after the URL middleware let it in was counted as
queued in vain: the URL core is told (``UrlCore.dropped``) with its canonical URL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.scrapy_layer.requestmeta import canonical

if TYPE_CHECKING:
    from scrapy import Request

ENTERING = 64
"""Requests let into the scheduler remembered until Scrapy's scheduler takes or drops them:
the engine sends ``request_dropped`` right after ``request_scheduled``, so a handful suffice
(a component scheduling from within ``request_scheduled`` nests a few)."""


class EnteringRequests:
    """The last ``ENTERING`` requests let into the scheduler, with their canonical URLs."""

    def __init__(self) -> None:
        # The last requests let into the scheduler (by id; held, so no id is reused), and
        # their canonical URLs: a request the dupefilter drops next was queued here in vain.
        # Not a map of every queued request: its entries made each full garbage collection
        # of a crawl longer.
        self._entering: dict[int, tuple[Request, str]] = {}

    def let_in(self, request: Request) -> None:
        """``request`` is queued, to be taken or dropped next."""
        entering = self._entering
        if len(entering) >= ENTERING:  # the oldest was taken or dropped long since
            del entering[next(iter(entering))]
        entering[id(request)] = (request, canonical(request.url))

    def forget(self, request: Request) -> None:
        """``request`` was skipped: it never reaches the scheduler."""
        self._entering.pop(id(request), None)

    def dropped(self, request: Request) -> str | None:
        """The canonical URL of ``request``, dropped by the scheduler after it was let in;
        None when it was not let in here."""
        entering = self._entering.pop(id(request), None)
        if entering is None or entering[0] is not request:
            return None
        return entering[1]
