"""An experiment for ``benchmarks/crawl.py --only site``: Scrapy's per-response output
workers started as outputs arrive, to see how much of a crawl's CPU they cost.

Scrapy 2.13-2.19 run a callback's output through ``_parallel_asyncio``, which starts
``CONCURRENT_ITEMS`` (100) tasks for every response, however few outputs it has, and keeps
all of them until the last ends (a waiting item keeps them for its whole wait). With

    python3 benchmarks/crawl.py --only site \\
        --setting 'EXTENSIONS={"benchmarks.lazyitems.LazyItemWorkers": 0}'

every crawl, plain Scrapy's too, starts one task per output instead, at most
``CONCURRENT_ITEMS`` at once, and lets each go when it ends. Outputs are handled in the
same order with the same limit. This replaces a private Scrapy function, for measuring
only: the plugin never does it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from typing import Any

import scrapy.core.scraper
from scrapy.utils.asyncio import as_async_generator, is_asyncio_available


async def _workers_as_needed(
    iterable: Iterable[Any] | AsyncIterator[Any],
    count: int,
    callable_: Callable[..., Coroutine[Any, Any, None]],
    *args: Any,
    **kwargs: Any,
) -> None:
    running: set[asyncio.Future[None]] = set()
    async for output in as_async_generator(iterable):
        while len(running) >= count:
            _, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        running.add(asyncio.ensure_future(callable_(output, *args, **kwargs)))
    if running:
        await asyncio.wait(running)


class LazyItemWorkers:
    """Installs ``_workers_as_needed`` in Scrapy's scraper when the crawl starts."""

    def __init__(self) -> None:
        if not hasattr(scrapy.core.scraper, "_parallel_asyncio"):
            raise RuntimeError("this Scrapy has no scraper._parallel_asyncio to replace")
        scrapy.core.scraper._parallel_asyncio = _workers_as_needed  # type: ignore[attr-defined]

    @classmethod
    def from_crawler(cls, crawler: Any) -> LazyItemWorkers:
        if not is_asyncio_available():
            raise RuntimeError("without the asyncio reactor Scrapy does not use these workers")
        return cls()
