"""The plugin's shape without its work: what Scrapy charges for hosting components like
the plugin's, for ``benchmarks/crawl.py --only site --shell``.

``ShellPipeline`` and ``ShellMiddleware`` hook into a crawl exactly where the plugin's
components do (an item pipeline whose item waits for a batched reply, a downloader
middleware's ``process_request`` and ``process_response``, receivers of
``request_scheduled`` and ``request_dropped``, a signal sent per verdict), and do nothing
there. A crawl with them costs what no work inside the plugin's functions can save; the
budget issue 15 sets for the plugin (a tenth of plain Scrapy's CPU) is measured against it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from scrapy import signals

BATCH_DELAY = 0.05
"""As the fingerprint helper's client: items are answered in batches, at most this late."""
verdict = object()  # the shell's own signal, sent once per item as the pipeline's verdict


class ShellPipeline:
    """Each item waits for a batch, as one waiting for the fingerprint helper does, then a
    signal is sent for it; it is kept."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self._waiting: list[asyncio.Future[None]] = []
        self._answer: asyncio.TimerHandle | None = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> ShellPipeline:
        return cls(crawler)

    def process_item(self, item: Any) -> Any:
        return self._after_reply(item)

    async def _after_reply(self, item: Any) -> Any:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append(future)
        if self._answer is None:
            self._answer = loop.call_later(BATCH_DELAY, self._reply)
        await future
        self.crawler.signals.send_catch_log(verdict, key=item["url"], original=None)
        return item

    def _reply(self) -> None:
        self._answer = None
        waiting, self._waiting = self._waiting, []
        for future in waiting:
            future.set_result(None)


class ShellMiddleware:
    """The URL middleware's hooks, each returning at once."""

    @classmethod
    def from_crawler(cls, crawler: Any) -> ShellMiddleware:
        middleware = cls()
        crawler.signals.connect(middleware.request_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(middleware.request_dropped, signal=signals.request_dropped)
        crawler.signals.connect(middleware.content_verdict, signal=verdict)
        return middleware

    def request_scheduled(self, request: Any) -> None:
        pass

    def request_dropped(self, request: Any) -> None:
        pass

    def content_verdict(self, key: str, original: str | None) -> None:
        pass

    def process_request(self, request: Any) -> None:
        return None

    def process_response(self, request: Any, response: Any) -> Any:
        return response
