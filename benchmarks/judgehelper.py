"""An experiment for ``benchmarks/crawl.py --only site --judged``: the content judge in
the helper process, with an index of its own, to measure what moving it there would save
the crawl's process (issue 15).

``HelperJudgedPipeline`` sends each item's text and key to a worker process
(``python3 -m benchmarks.judgehelper FOLDER``), which fingerprints, judges and stores it
on a LevelDB folder it alone opens, and answers with the verdict; the crawl's process only
reads the item's text, waits and drops copies. It is not the plugin: no URL middleware
learns from its verdicts, nothing survives a crash in order, and a dead worker fails the
crawl. Compare it with ``--components``' pipeline alone (``pipe``), which does the same
with the judge in the crawl's process.
"""

from __future__ import annotations

import asyncio
import collections
import os
import resource
import signal
import struct
import sys
from typing import Any, BinaryIO

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from scrapy_simdedup import stats as keys
from scrapy_simdedup.fingerprint.helper.protocol import LENGTH, take_frames
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.itemtext import item_text
from scrapy_simdedup.judges.content import ContentJudge

BATCH_DELAY = 0.05  # as the fingerprint helper's client
_KEY = struct.Struct("<H")
_FIELDS = ("title", "text")
_MAX_CHARS = 1_000_000


def serve(folder: str, requests: BinaryIO, replies: BinaryIO) -> None:
    """Judge every request (key, text) until ``requests`` ends; answer 1 for a copy."""
    with open_index(folder) as index:
        judge = ContentJudge(index)
        buffer = bytearray()
        while chunk := requests.read1(1 << 16):  # type: ignore[attr-defined]
            buffer += chunk
            answers = []
            for raw in take_frames(buffer):
                (size,) = _KEY.unpack_from(raw)
                key = raw[_KEY.size : _KEY.size + size].decode()
                text = raw[_KEY.size + size :].decode("utf-8", "surrogatepass")
                verdict = judge.judge(text, key)
                unique = verdict.original is None and not verdict.revisit
                answers.append(LENGTH.pack(1) + bytes([2 if unique else int(verdict.copy)]))
            if answers:
                replies.write(b"".join(answers))
                replies.flush()


class HelperJudgedPipeline:
    """Drops the items the worker process judges copies."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.folder = str(crawler.settings.get("SIMDEDUP_DIR", ".simdedup")) + "-judged"
        self._process: asyncio.subprocess.Process | None = None
        self._pending: collections.deque[asyncio.Future[int]] = collections.deque()
        self._unsent: list[bytes] = []
        self._send_later: asyncio.TimerHandle | None = None
        self._reader: asyncio.Future[None] | None = None
        self._children_cpu = 0.0

    @classmethod
    def from_crawler(cls, crawler: Any) -> HelperJudgedPipeline:
        return cls(crawler)

    async def open_spider(self) -> None:
        self._children_cpu = _children_cpu()
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.judgehelper", self.folder,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            start_new_session=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        )  # fmt: skip
        self._reader = asyncio.ensure_future(self._read())

    async def process_item(self, item: Any) -> Any:
        found = item_text(ItemAdapter(item), _FIELDS, _MAX_CHARS)
        if found.skipped:
            return item
        key = ItemAdapter(item).get("url", "").encode()
        text = found.text.encode("utf-8", "surrogatepass")
        body = _KEY.pack(len(key)) + key + text
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append(future)
        self._unsent.append(LENGTH.pack(len(body)) + body)
        if self._send_later is None:
            self._send_later = asyncio.get_running_loop().call_later(BATCH_DELAY, self._send)
        answer = await future
        if answer == 2:
            self.crawler.stats.inc_value(keys.CONTENT_UNIQUE)
        if answer == 1:
            raise DropItem("a copy, judged in the helper process", log_level="DEBUG")
        return item

    def _send(self) -> None:
        self._send_later = None
        frames, self._unsent = self._unsent, []
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write(b"".join(frames))

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        buffer = bytearray()
        while chunk := await self._process.stdout.read(1 << 16):
            buffer += chunk
            for raw in take_frames(buffer):
                self._pending.popleft().set_result(raw[0])
        for future in self._pending:
            future.set_exception(RuntimeError("the judging helper exited"))

    async def close_spider(self) -> None:
        if self._send_later is not None:
            self._send_later.cancel()
            self._send()
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.close()
        await self._process.wait()
        if self._reader is not None:
            await self._reader
        helper = _children_cpu() - self._children_cpu
        self.crawler.stats.set_value(keys.HELPER_CPU_SECONDS, round(helper, 3))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.argv[1], sys.stdin.buffer, sys.stdout.buffer)
