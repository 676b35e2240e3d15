"""The heap frozen while a crawl runs (``SIMDEDUP_GC_FREEZE``), on Scrapy's own signals."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from scrapy import signals
from scrapy.utils.test import get_crawler

from scrapy_simdedup.scrapy_layer.gcfreeze import FrozenAtStart
from scrapy_simdedup.scrapy_layer.state import DedupState

_SETTINGS = {"SIMDEDUP_STORE": "memory", "MEMUSAGE_ENABLED": False}


@pytest.fixture(autouse=True)
def _thawed() -> Iterator[None]:
    gc.unfreeze()
    FrozenAtStart._running, FrozenAtStart._froze = 0, False
    yield
    gc.unfreeze()
    FrozenAtStart._running, FrozenAtStart._froze = 0, False


def _send(crawler: object, signal: object) -> None:
    crawler.signals.send_catch_log(signal)  # type: ignore[attr-defined]


def test_frozen_from_engine_start_to_stop() -> None:
    crawler = get_crawler(settings_dict=_SETTINGS)
    DedupState.for_crawler(crawler)
    assert gc.get_freeze_count() == 0
    _send(crawler, signals.engine_started)
    assert gc.get_freeze_count() > 10_000
    _send(crawler, signals.engine_stopped)
    assert gc.get_freeze_count() == 0  # a process that runs another crawl keeps nothing


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_crawl_that_stops_beside_another_is_thawed_and_collected() -> None:
    first, second = (get_crawler(settings_dict=_SETTINGS) for _ in "ab")
    DedupState.for_crawler(first)
    DedupState.for_crawler(second)
    held = _Cycle()  # made before the first crawl starts: frozen with it
    watch = weakref.ref(held)
    _send(first, signals.engine_started)
    _send(second, signals.engine_started)
    del held
    gc.collect()
    assert watch() is not None  # frozen: no collection frees it
    _send(first, signals.engine_stopped)
    assert gc.get_freeze_count() > 10_000  # the second crawl still runs: frozen again ...
    assert watch() is None  # ... after a collection: the garbage of the first is gone
    _send(second, signals.engine_stopped)
    assert gc.get_freeze_count() == 0


def test_a_stop_before_the_start_leaves_the_heap_alone() -> None:
    hold = FrozenAtStart()
    hold.engine_stopped()  # the engine stopped while its start signal was on its way
    hold.engine_started()
    assert gc.get_freeze_count() == 0


def test_off_leaves_the_collector_alone() -> None:
    crawler = get_crawler(settings_dict={**_SETTINGS, "SIMDEDUP_GC_FREEZE": False})
    DedupState.for_crawler(crawler)
    _send(crawler, signals.engine_started)
    assert gc.get_freeze_count() == 0


def test_a_heap_frozen_by_the_process_itself_is_not_thawed() -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    hold = FrozenAtStart()
    hold.engine_started()
    hold.engine_stopped()
    assert gc.get_freeze_count() >= frozen > 0  # not ours to unfreeze
