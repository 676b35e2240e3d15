"""scrapy-redis crawls of the demo's sites: one or more ``RedisPagesSpider`` workers on one
queue, with the plugin or without it (plain scrapy-redis), each ending by itself once idle
for ``MAX_IDLE_TIME_BEFORE_CLOSE`` seconds (killed at a deadline, which fails the run).

Shared by ``tests/crawl/test_scrapy_redis.py`` and ``benchmarks/scrapy_redis.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import redis

from tests.support import processes
from tests.support.crawls import DEMO, SCRAPY, Crawl, crawl_env, parse

IDLE_SECONDS = 6
"""MAX_IDLE_TIME_BEFORE_CLOSE: a worker idle this long (nothing queued) closes."""
# scrapy-redis 0.9.1 passes Scrapy's deprecated ``spider`` arguments (not ours): its own
# warnings are let through, every other ScrapyDeprecationWarning stays an error.
SCRAPY_REDIS = SCRAPY.replace(
    "from scrapy.cmdline",
    "warnings.filterwarnings('ignore', category=ScrapyDeprecationWarning, "
    "module=r'scrapy_redis(\\.|$)'); from scrapy.cmdline",
)
DEADLINE = 600.0
"""Seconds a whole run of workers may take before they are killed and the run fails."""


@dataclass
class Run:
    """The workers' crawls of one run, in start order."""

    workers: list[Crawl]

    def items(self) -> list[dict[str, Any]]:
        return [item for crawl in self.workers for item in crawl.items]

    def total(self, stat: str) -> int:
        return sum(int(crawl.stats.get(stat, 0)) for crawl in self.workers)

    def totals(self, prefix: str) -> int:
        return sum(
            int(value)
            for crawl in self.workers
            for key, value in crawl.stats.items()
            if key.startswith(prefix)
        )


def run_workers(
    redis_url: str,
    served: dict[str, str],
    folder: Path,
    name: str,
    *,
    workers: int,
    plugin: bool,
    extra: tuple[str, ...] = (),
    join_when: Callable[[], None] | None = None,
) -> Run:
    """Push the sites' home pages to a fresh start-URL list ``name:start_urls``, start
    ``workers`` workers on it together and wait for all of them to close by themselves.
    ``join_when``: called before each worker after the first starts (it returns once that
    worker is to join the crawl; it must have a deadline of its own)."""
    settings = [
        "-s", "SPIDER_MODULES=tests.support.redisspider",
        "-s", "SCHEDULER=scrapy_redis.scheduler.Scheduler",
        "-s", "DUPEFILTER_CLASS=scrapy_redis.dupefilter.RFPDupeFilter",
        "-s", f"REDIS_URL={redis_url}",
        # Several workers: the first to close must not empty the queue under the others.
        "-s", "SCHEDULER_PERSIST=True",
        "-s", f"SCHEDULER_QUEUE_KEY={name}:requests",
        "-s", f"SCHEDULER_DUPEFILTER_KEY={name}:dupefilter",
        "-s", f"REDIS_START_URLS_KEY={name}:start_urls",
        "-s", f"MAX_IDLE_TIME_BEFORE_CLOSE={IDLE_SECONDS}",
        *extra,
    ]  # fmt: skip
    if plugin:
        settings += ["-s", f"SIMDEDUP_REDIS_URL={redis_url}", "-s", f"SIMDEDUP_REDIS_PREFIX={name}"]
        settings += ["-s", "SIMDEDUP_WORKER_TIMEOUT=4"]
    else:
        settings += ["-s", "ITEM_PIPELINES={}", "-s", "DOWNLOADER_MIDDLEWARES={}"]
    client = redis.Redis.from_url(redis_url)
    try:
        for url in served.values():
            client.rpush(f"{name}:start_urls", json.dumps({"url": url}))
    finally:
        client.close()
    hosts = ",".join(urlsplit(url).netloc for url in served.values())
    feeds = [folder / f"{name}-{n}.jsonl" for n in range(workers)]
    logs = [folder / f"{name}-{n}.log" for n in range(workers)]
    started = []
    for feed, log in zip(feeds, logs, strict=True):
        if started and join_when is not None:
            try:
                join_when()
            except BaseException:
                _stop(started)
                raise
        command = [sys.executable, "-c", SCRAPY_REDIS, "crawl", "redis_pages"]
        command += ["-a", f"hosts={hosts}", "-o", f"{feed}:jsonl", *settings]
        with log.open("w") as out:
            started.append(
                processes.popen(command, cwd=DEMO, env=crawl_env(), stderr=out, text=True)
            )
    _wait_all(started, DEADLINE, name)
    return Run(
        [
            parse(process.returncode, log.read_text("utf-8"), feed)
            for process, log, feed in zip(started, logs, feeds, strict=True)
        ]
    )


def _wait_all(started: list[subprocess.Popen[Any]], seconds: float, name: str) -> None:
    """Wait for every worker to exit; past ``seconds``, kill them all and fail."""
    deadline = time.monotonic() + seconds
    try:
        for process in started:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _stop(started)
        raise AssertionError(
            f"the {name} workers did not close by themselves within {seconds:g} s "
            "(MAX_IDLE_TIME_BEFORE_CLOSE); killed"
        ) from None


def _stop(started: list[subprocess.Popen[Any]]) -> None:
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def contents_of(sites: dict[str, dict[str, Any]], served: dict[str, str]) -> dict[str, str]:
    """Page URL (with its query) -> content id, for the demo's sites served at ``served``."""
    return {
        served[name].rstrip("/") + path: page.content
        for name, pages in sites.items()
        for path, page in pages.items()
    }


def kept_contents(items: list[dict[str, Any]], contents: dict[str, str]) -> set[str]:
    """The content ids of the pages in a feed."""
    kept = set()
    for item in items:
        url = str(item["url"])
        found = contents.get(url) or contents.get(url.split("?", 1)[0])
        if found is None:
            raise AssertionError(f"{url} is in the feed but on no site")
        kept.add(found)
    return kept
