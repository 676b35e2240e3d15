"""Where a crawl's CPU goes, without a profiler's distortion: a Scrapy extension for
``benchmarks/crawl.py --profile``.

cProfile charges every Python call, so it inflates the plugin's many small functions
several times over; the garbage collector's time lands on whichever call allocated when
it ran. This extension instead times the plugin's entry points (what Scrapy and the
asyncio loop call) with the thread's CPU clock, less the collector's time meanwhile, and
times the collector itself per generation. Loaded with ``-s EXTENSIONS=...`` and
``-s ATTRIBUTION_FILE=PATH``; it writes its figures there as JSON when the spider
closes. In a plain crawl (no plugin components) it reports the collector alone. It also
counts the objects the collector tracks, by type, at the ``CENSUS_AT``-th response (what
makes each full collection longer), and how long the plugin's texts waited for the
fingerprint helper's replies (a waiting item keeps its response's work open in Scrapy).

Its own timing costs a few microseconds per call, counted in the call: entry points called
tens of thousands of times (``request_scheduled``, ``request_dropped``) read several times
too high. A sampling profiler (py-spy) sees those better.
"""

from __future__ import annotations

import functools
import gc
import inspect
import json
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy import signals

from benchmarks.distribution import percentiles
from scrapy_simdedup.fingerprint.helper.client import FingerprintHelper
from scrapy_simdedup.judges.content import ContentJudge
from scrapy_simdedup.scrapy_layer.middleware import UrlSimHashMiddleware
from scrapy_simdedup.scrapy_layer.pipeline import ContentSeenPipeline
from scrapy_simdedup.url.judge import UrlJudge

ENTRY_POINTS = {
    ContentSeenPipeline: ("process_item", "_decide", "item_dropped"),
    FingerprintHelper: ("submit", "_answer"),
    UrlSimHashMiddleware: (
        "request_scheduled",
        "process_request",
        "process_response",
        "process_exception",
        "request_dropped",
        "spider_idle",
    ),
}
"""What Scrapy or the loop calls. One called inside another (the pipeline deciding at
once, a request scheduled by the middleware itself) is counted in the outer one only, so
their times add up."""
INSIDE = {
    UrlSimHashMiddleware: ("content_verdict",),  # the pipeline's signal, sent as it decides
    ContentJudge: ("shortcut", "decide"),
    UrlJudge: ("decide", "fetched", "observe"),
}
"""Parts of the entry points' time, each already counted in one of them."""
DISTRIBUTED = ("ContentJudge.decide",)
"""Calls whose every duration is kept: ``decide_us`` holds their percentiles."""

_cpu: Counter[str] = Counter()
_calls: Counter[str] = Counter()
_each: dict[str, list[float]] = {label: [] for label in DISTRIBUTED}
_waits: list[float] = []  # seconds from a text's submission to the helper to its reply
_pending: list[int] = []  # texts awaiting the helper when another one was submitted
CENSUS_AT = 2000
"""The response at which tracked objects are counted: mid-crawl, at full speed."""


class _Collector:
    """The garbage collector's CPU time and runs, per generation."""

    def __init__(self) -> None:
        self.seconds = [0.0, 0.0, 0.0]
        self.runs = [0, 0, 0]
        self.total = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.thread_time()
            return
        spent = time.thread_time() - self._started
        self.seconds[info["generation"]] += spent
        self.runs[info["generation"]] += 1
        self.total += spent


_collector = _Collector()
_depth = [0]  # entry points running now


def _timed(owner: type, name: str, *, entry: bool) -> None:
    original = getattr(owner, name)
    label = f"{owner.__name__}.{name}"
    # Signal handlers are called with the keyword arguments their signature names (Scrapy
    # inspects it): the wrapper keeps the signature and passes on only those.
    parameters = inspect.signature(original).parameters
    accepted = set(parameters)
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if not takes_any:
            kwargs = {k: v for k, v in kwargs.items() if k in accepted}
        if entry and _depth[0]:
            return original(*args, **kwargs)
        _depth[0] += entry
        started, collected = time.thread_time(), _collector.total
        try:
            return original(*args, **kwargs)
        finally:
            gc_meanwhile = _collector.total - collected
            spent = time.thread_time() - started - gc_meanwhile
            _cpu[label] += spent
            _calls[label] += 1
            if label in _each:
                _each[label].append(spent)
            _depth[0] -= entry

    setattr(owner, name, timed)


def _install() -> None:
    for table in (ENTRY_POINTS, INSIDE):
        for owner, names in table.items():
            for name in names:
                _timed(owner, name, entry=table is ENTRY_POINTS)
    _time_replies()


def _time_replies() -> None:
    submit = FingerprintHelper.submit

    @functools.wraps(submit)
    def timed(self: FingerprintHelper, *args: Any, **kwargs: Any) -> Any:
        started = time.monotonic()
        _pending.append(len(self._pending))
        future = submit(self, *args, **kwargs)
        future.add_done_callback(lambda _: _waits.append(time.monotonic() - started))
        return future

    FingerprintHelper.submit = timed  # type: ignore[method-assign]


def _census() -> dict[str, int]:
    """Objects the collector tracks, by type (the 40 most numerous)."""
    counted = Counter(type(thing).__qualname__ for thing in gc.get_objects())
    return dict(counted.most_common(40))


class Attribution:
    """Installs the timers when built, writes the figures when the spider closes."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.path = Path(crawler.settings.get("ATTRIBUTION_FILE"))
        gc.callbacks.append(_collector)
        _install()
        self.responses = 0
        self.census: dict[str, int] = {}
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.response_received, signal=signals.response_received)

    @classmethod
    def from_crawler(cls, crawler: Any) -> Attribution:
        return cls(crawler)

    def response_received(self) -> None:
        self.responses += 1
        if self.responses == CENSUS_AT:
            self.census = _census()

    def spider_closed(self) -> None:
        entry_points, inside = _labels(ENTRY_POINTS), _labels(INSIDE)
        figures = {
            "collector_seconds": _collector.seconds,
            "collector_runs": _collector.runs,
            "census": self.census,
            "helper_waits": _waits,
            "helper_pending": _pending,
            "entry_points": entry_points,
            "cpu_seconds": {label: _cpu[label] for label in entry_points + inside},
            "calls": {label: _calls[label] for label in entry_points + inside},
            "distributions_us": {label: percentiles(each) for label, each in _each.items()},
        }
        self.path.write_text(json.dumps(figures), "utf-8")


def _labels(table: dict[type, tuple[str, ...]]) -> list[str]:
    return [f"{owner.__name__}.{name}" for owner, names in table.items() for name in names]


def report(
    plain: dict[str, Any],
    plugin: dict[str, Any],
    pages: tuple[int, int],
    cpu: tuple[float, float],
    print_line: Callable[[str], None] = print,
) -> None:
    """Print the attribution of two crawls: ``pages`` fetched and ``cpu`` seconds of each
    (plain, plugin), the crawl's process alone."""
    plain_pages, plugin_pages = pages
    per_plain = 1000 * cpu[0] / plain_pages
    per_plugin = 1000 * cpu[1] / plugin_pages
    gc_plain = 1000 * sum(plain["collector_seconds"]) / plain_pages
    gc_plugin = 1000 * sum(plugin["collector_seconds"]) / plugin_pages
    print_line(
        f"CPU ms per fetched page, the crawl's process: plain {per_plain:.3f}, plugin "
        f"{per_plugin:.3f} ({per_plugin - per_plain:+.3f})"
    )
    print_line(
        f"  garbage collector: plain {gc_plain:.3f} ({plain['collector_runs']} runs of each "
        f"generation), plugin {gc_plugin:.3f} ({plugin['collector_runs']}): "
        f"{gc_plugin - gc_plain:+.3f}"
    )
    print_line(
        "    seconds per generation: plain "
        f"{[round(s, 2) for s in plain['collector_seconds']]}, plugin "
        f"{[round(s, 2) for s in plugin['collector_seconds']]}"
    )
    _report_census(plain["census"], plugin["census"], print_line)
    _report_waits(plugin["helper_waits"], plugin["helper_pending"], print_line)
    total = 0.0
    print_line("  the plugin's entry points (thread CPU, collector excluded), ms per fetched page:")
    for label in plugin["entry_points"]:
        seconds, calls = plugin["cpu_seconds"][label], plugin["calls"][label]
        total += seconds
        if calls:
            print_line(
                f"    {1000 * seconds / plugin_pages:7.3f}  {label} "
                f"({calls:,} calls, {1e6 * seconds / calls:.1f} us each)"
            )
    own = 1000 * total / plugin_pages
    print_line(f"    {own:7.3f}  in all")
    print_line("  of which:")
    for label, seconds in plugin["cpu_seconds"].items():
        if label not in plugin["entry_points"] and plugin["calls"][label]:
            calls = plugin["calls"][label]
            print_line(
                f"    {1000 * seconds / plugin_pages:7.3f}  {label} "
                f"({calls:,} calls, {1e6 * seconds / calls:.1f} us each)"
            )
    rest = per_plugin - per_plain - own - (gc_plugin - gc_plain)
    print_line(
        f"  left over: {rest:+.3f} ms per fetched page (Scrapy's work for the plugin: "
        "signals, the item's coroutine, and colder caches; and run-to-run noise)"
    )


def _report_census(
    plain: dict[str, int], plugin: dict[str, int], print_line: Callable[[str], None]
) -> None:
    if not plain or not plugin:
        return
    print_line(
        f"  objects the collector tracks at response {CENSUS_AT:,}: plain "
        f"{sum(plain.values()):,}, plugin {sum(plugin.values()):,} (40 most numerous types); "
        "grown most:"
    )
    grown = sorted(plugin, key=lambda name: plugin[name] - plain.get(name, 0), reverse=True)
    for name in grown[:8]:
        print_line(f"    {plugin[name] - plain.get(name, 0):+8,}  {name}")


def _report_waits(
    waits: list[float], pending: list[int], print_line: Callable[[str], None]
) -> None:
    if len(waits) < 2:
        return
    tenths = statistics.quantiles(waits, n=10)
    print_line(
        f"  texts waited for the helper's reply {1000 * statistics.mean(waits):.0f} ms on "
        f"average (median {1000 * tenths[4]:.0f}, 90th percentile {1000 * tenths[8]:.0f}), "
        f"with {statistics.mean(pending):.1f} others waiting (at most {max(pending)})"
    )
