"""The objects a crawl starts with, left out of garbage collection while it runs.

Every full collection walks every object the collector tracks: the modules, classes and
functions of Scrapy, Twisted and the plugin, which live as long as the process. On the
benchmark site a full collection took 79 ms with the plugin (56 without), about 0.6 ms per
fetched page. ``gc.freeze()`` once the engine has started moves what exists then into the
permanent generation, which no collection walks: the crawl's process then spent 7-8% less
CPU per fetched page with the plugin (5 rounds, docs/benchmarks.md).

What is frozen is not freed by the cycle collector until ``gc.unfreeze()`` (reference
counting still frees it): a collection runs first, so only what is alive when the engine
starts is frozen, and the heap is thawed when a crawl stops (and frozen again, after a
collection, for the crawls of the process still running), so a process that runs crawl
after crawl keeps nothing of the earlier ones. A heap the process froze itself is left as
it is. ``SIMDEDUP_GC_FREEZE = False`` leaves the collector alone.
"""

from __future__ import annotations

import gc
import logging
from typing import TYPE_CHECKING, ClassVar

from scrapy import signals

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_AT_IMPORT = gc.get_freeze_count()
"""Objects already frozen when the plugin was loaded: the interpreter's own (375 at the
start of CPython 3.12.1, none on 3.10, 3.11 and 3.13). More than these when a crawl starts
means the process froze its heap itself."""


class FrozenAtStart:
    """Freezes the heap when a crawl of the process starts its engine; when one stops, the
    heap is thawed (and frozen again, after a collection, while others still run: the
    crawl that stopped is then collected like any garbage)."""

    _running: ClassVar[int] = 0
    _froze: ClassVar[bool] = False  # this process's heap is frozen by us

    def __init__(self) -> None:
        self._started = False
        self._stopped = False  # a stop seen before the start: the start is passed over

    @classmethod
    def install(cls, crawler: Crawler) -> FrozenAtStart:
        hold = cls()
        crawler.signals.connect(hold.engine_started, signal=signals.engine_started)
        crawler.signals.connect(hold.engine_stopped, signal=signals.engine_stopped)
        return hold

    def engine_started(self) -> None:
        if self._started or self._stopped:
            return
        self._started = True
        cls = type(self)
        cls._running += 1
        if cls._froze:  # another crawl froze it: what this one made since joins it
            cls._freeze()
        elif gc.isenabled() and gc.get_freeze_count() <= _AT_IMPORT:  # else not ours
            cls._freeze()
            logger.debug(
                "simdedup: %d objects made before the crawl started are left out of "
                "garbage collection until it ends (SIMDEDUP_GC_FREEZE)",
                gc.get_freeze_count(),
            )

    def engine_stopped(self) -> None:
        self._stopped = True
        if not self._started:
            return
        self._started = False
        cls = type(self)
        cls._running -= 1
        if cls._froze:
            gc.unfreeze()
            cls._froze = False
            if cls._running:
                cls._freeze()

    @classmethod
    def _freeze(cls) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        cls._froze = True
