"""The heap frozen while a crawl runs (``SIMDEDUP_GC_FREEZE``), on Scrapy's own signals."""

from __future__ import annotations

import gc
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
    yield
    gc.unfreeze()


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


def test_two_crawlers_thaw_when_the_last_stops() -> None:
    first, second = (get_crawler(settings_dict=_SETTINGS) for _ in "ab")
    for crawler in (first, second):
        DedupState.for_crawler(crawler)
        _send(crawler, signals.engine_started)
    _send(first, signals.engine_stopped)
    assert gc.get_freeze_count() > 0  # the second crawl still runs
    _send(second, signals.engine_stopped)
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
