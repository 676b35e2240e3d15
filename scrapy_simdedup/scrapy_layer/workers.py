"""A worker's part in a crawl several workers share on one store (Redis): its heartbeat,
how many workers share the crawl, and what workers known dead parked, taken over.

The middleware holds one when its store is shared (``index.shared``) and calls it from
Scrapy's events; its looping call (``start``) looks at the bets' deadlines and beats. Nothing
here decides a skip (the URL core does).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy.utils.asyncio import create_looping_call

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request

    from scrapy_simdedup.index.heartbeats import Heartbeats
    from scrapy_simdedup.scrapy_layer.reissue import Adopted, Adoption
    from scrapy_simdedup.url.actions import Action
    from scrapy_simdedup.url.core import UrlCore

logger = logging.getLogger(__name__)
# The heartbeat loop was the middleware's: its line keeps the name users filter it by.
middleware_logger = logging.getLogger("scrapy_simdedup.scrapy_layer.middleware")

COUNT_WORKERS_SECONDS = 1.0
"""How often, at most, a worker on a shared store counts the crawl's workers (a scan of
their heartbeats): each sends its share of the requests a parameter rule learns from."""


class SharedCrawlWorkers:
    """This worker among the others of a shared crawl. ``guarded`` runs a store call, a
    store failure closing the spider (and returning None); ``engine_closing`` says whether
    a request sent now would reach a scheduler about to close; ``failed``, whether the
    store failed; ``carry_out`` sends what the core answers to the engine."""

    def __init__(
        self,
        heartbeats: Heartbeats,
        adoption: Adoption,
        core: UrlCore[Request],
        *,
        guarded: Callable[..., Any],
        engine_closing: Callable[[], bool],
        failed: Callable[[], bool],
        carry_out: Callable[[list[Action[Request]]], object],
    ) -> None:
        self.heartbeats = heartbeats
        self.adoption = adoption
        self._core = core
        self._guarded = guarded
        self._engine_closing = engine_closing
        self._failed = failed
        self._carry_out = carry_out
        self._pulse: Any = None  # the looping call: deadlines, heartbeats, dead workers
        self._idle_since: float | None = None  # when this idle began (heartbeats' clock)
        self._mourned: set[str] = set()  # dead workers whose end was logged
        self.counted_at = -COUNT_WORKERS_SECONDS

    def start(self, interval: float) -> None:
        """Deadlines are looked at as requests go by, and every ``interval`` seconds
        (``pulse``), with the heartbeat."""
        self._pulse = create_looping_call(self.pulse)
        self._pulse.start(interval, now=False)

    def stop(self) -> None:
        """Before the core closes (the middleware's ``spider_closed``): ``pulse`` uses the
        core without asking whether it is still open."""
        if self._pulse is not None and self._pulse.running:
            self._pulse.stop()
        self._pulse = None

    def pulse(self) -> None:
        """Every ``SIMDEDUP_WORKER_TIMEOUT / 4`` seconds on a shared store: the bets'
        deadlines, and this worker's part among the others (``beat``)."""
        if self._failed():
            return
        try:  # an error must not end the looping call: this worker would look dead
            self._carry_out(self._guarded(self._core.tick) or [])
            self.beat()
        except Exception:
            middleware_logger.exception("simdedup: the heartbeat failed; it goes on")

    def busy(self) -> None:
        """A request goes to the downloader: a later idle is a new one."""
        self._idle_since = None

    def count(self) -> None:
        """Tell the URL core how many workers share the crawl (their heartbeats), at most
        every ``COUNT_WORKERS_SECONDS``: a worker that starts a moment after this one is
        counted within a second, not at the next heartbeat."""
        now = time.monotonic()
        if now < self.counted_at + COUNT_WORKERS_SECONDS:
            return
        self.counted_at = now
        others = self._guarded(self.heartbeats.others)
        if others is not None:
            self._core.crew.size = 1 + len(others)
            self._core.crew.rank = sum(other < self.heartbeats.worker for other in others)

    def beat(self) -> None:
        """The heartbeat that tells the other workers this one is alive; what workers
        known dead parked, re-issued now (a crawl that ends on a budget never goes idle,
        and their links were on pages already fetched); a killed worker's crawl left."""
        self._guarded(self.heartbeats.beat)
        if self._core.takes_over() and not self._engine_closing():
            self._take_over(lambda worker: False)
        self._guarded(self.heartbeats.sweep)

    def adopt_at_idle(self) -> bool:
        """At idle: re-issue what dead workers parked. True to stay open: requests were
        re-issued, or a worker that parked some has not been seen to beat since this one
        went idle (it may have died just before: known within
        ``SIMDEDUP_WORKER_TIMEOUT``)."""
        if self._failed() or not self._core.takes_over():
            return False
        heartbeats = self.heartbeats
        if self._idle_since is None:
            self._idle_since = heartbeats.clock()
        since = self._idle_since
        adopted = self._take_over(lambda worker: heartbeats.unsure(worker, since))
        return adopted.reissued > 0 or adopted.waiting

    def leave(self) -> None:
        """The crawl is closing: this worker's heartbeat goes (after its final bets)."""
        self._guarded(self.heartbeats.leave)

    def _take_over(self, unsure: Callable[[str], bool]) -> Adopted:
        """Re-issue what workers known dead parked (``Adoption``), and bury them."""
        heartbeats = self.heartbeats
        adopted = self.adoption.adopt(self._core.bets, heartbeats.alive, unsure)
        for worker in adopted.dead:
            if worker not in self._mourned:
                self._mourned.add(worker)
                logger.info("simdedup: worker %s stopped; re-issued what it had parked", worker)
            self._guarded(heartbeats.bury, worker)
        return adopted
