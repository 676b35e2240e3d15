"""The fingerprint helper process, seen from the crawl: texts out, fingerprints back, in order.

Runs on the crawl's asyncio loop (Scrapy's default reactor). The helper is
``scrapy_simdedup.fingerprint.helper.worker``; when it cannot start, stops, answers garbage or
falls behind, the caller fingerprints in its own process instead: the helper only ever
saves time, it never decides.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted
from scrapy_simdedup.fingerprint.helper.protocol import decode_reply, encode_request, take_frames
from scrapy_simdedup.fingerprint.textprint import exact_hash
from scrapy_simdedup.fingerprint.tokens import Tokenizer

WORKER_MODULE = "scrapy_simdedup.fingerprint.helper.worker"
READ_SIZE = 1 << 16
STOP_TIMEOUT = 10.0
"""Seconds the helper may take to finish after its input closes, before it is killed."""
BATCH_TEXTS = 32
BATCH_DELAY = 0.05
"""At most one write to the helper per ``BATCH_DELAY`` seconds (or per ``BATCH_TEXTS``
texts): a text goes at once when the last write is older, else with the texts that follow
it until then. A helper woken for each text paid about half as much again for the wake-up
(cold caches) as for the text; so a fast crawl's texts go in batches, each waiting at most
this long more for its verdict, and a slow crawl's go one by one, at once (an item waiting
is one a kill -9 would lose)."""
REPLY_TIMEOUT = 30.0
"""Seconds the oldest text may wait for its reply. A fingerprint takes milliseconds (the
largest text allowed, seconds); a helper this late is stuck, and is treated as dead."""


class HelperStoppedError(Exception):
    """The helper process is gone; texts it held are fingerprinted in the crawl's process."""


class FingerprintHelper:
    """One helper process and the texts it has not answered yet.

    ``command`` runs the worker (default: this interpreter, ``-m`` the worker module); the
    tokenizer's name and the seed are appended to it.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        seed: int,
        *,
        max_pending: int,
        on_stop: Callable[[str], object],
        command: Sequence[str] | None = None,
        reply_timeout: float = REPLY_TIMEOUT,
    ) -> None:
        self.tokenizer = tokenizer
        self.seed = seed
        self.command = list(command or [sys.executable, "-m", WORKER_MODULE])
        self.max_pending = max_pending
        if reply_timeout <= BATCH_DELAY:  # a text may wait that long before it is written
            raise ValueError(f"reply_timeout must exceed {BATCH_DELAY} s, got {reply_timeout!r}")
        self.reply_timeout = reply_timeout
        self._on_stop = on_stop  # called once, with the reason, if it stops before stop()
        self.stopped: str | None = None  # why, once it has stopped
        self._process: asyncio.subprocess.Process | None = None
        self._pending: collections.deque[asyncio.Future[Fingerprinted]] = collections.deque()
        self._reader: asyncio.Future[None] | None = None
        self._starting: asyncio.Future[None] | None = None
        self._overdue: asyncio.TimerHandle | None = None  # fires when the oldest reply is late
        self._unsent: list[bytes] = []  # frames waiting for the next write
        self._send_later: asyncio.TimerHandle | None = None
        self._sent_at = -BATCH_DELAY  # the loop's time of the last write
        self.cpu_seconds: float | None = None  # its CPU time, once stopped (where measurable)

    def start(self) -> None:
        """Start the process (on the running loop); until it runs, ``ready`` is False."""
        self._starting = asyncio.ensure_future(self._start())

    async def _start(self) -> None:
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.command, self.tokenizer.name, str(self.seed), env=_environment(),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                # Its own session: Ctrl-C in the terminal is the crawl's to handle.
                start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            self._fail(f"it could not start ({exc})")
            return
        self._reader = asyncio.ensure_future(self._read_replies())

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    @property
    def ready(self) -> bool:
        """Running, and not so far behind that the crawl's process should do the work."""
        return (
            self.stopped is None
            and self._process is not None
            and len(self._pending) < self.max_pending
        )

    def submit(
        self, text: str, exact: int | None = None, outside: str = ""
    ) -> asyncio.Future[Fingerprinted]:
        """The fingerprints of ``text``, later (``exact``: its ``exact_hash`` under the
        seed, when the caller made it already; ``outside``: see ``fingerprinted``); fails
        with ``HelperStoppedError`` when the helper has stopped (also before this call: a
        caller may have seen it ``ready`` an instant before it failed), or when it does not
        answer within ``reply_timeout``."""
        future: asyncio.Future[Fingerprinted] = asyncio.get_running_loop().create_future()
        process = self._process
        if self.stopped is not None or process is None or process.stdin is None:
            future.set_exception(HelperStoppedError(self.stopped or "it has not started"))
            return future
        exact = exact_hash(text, self.seed) if exact is None else exact
        frame = encode_request(text, exact, outside)
        self._pending.append(future)
        if len(self._pending) == 1:
            self._watch_oldest()
        self._unsent.append(frame)
        loop = asyncio.get_running_loop()
        if len(self._unsent) >= BATCH_TEXTS or loop.time() - self._sent_at >= BATCH_DELAY:
            self._send()
        elif self._send_later is None:
            self._send_later = loop.call_at(self._sent_at + BATCH_DELAY, self._send)
        return future

    def _send(self) -> None:
        """Write the texts waiting for the next write."""
        if self._send_later is not None:
            self._send_later.cancel()
            self._send_later = None
        frames, self._unsent = self._unsent, []
        self._sent_at = asyncio.get_running_loop().time()
        requests = None if self._process is None else self._process.stdin
        if frames and requests is not None and not requests.is_closing():
            requests.write(b"".join(frames))

    def _watch_oldest(self) -> None:
        """Give the oldest unanswered text ``reply_timeout`` seconds from now."""
        if self._overdue is not None:
            self._overdue.cancel()
            self._overdue = None
        if self._pending and self.stopped is None:
            loop = asyncio.get_running_loop()
            self._overdue = loop.call_later(self.reply_timeout, self._stuck)

    def _stuck(self) -> None:
        self._overdue = None
        self._fail(f"it stopped answering (no reply within {self.reply_timeout:g} s)")
        self._kill()

    async def _read_replies(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        replies = self._process.stdout
        buffer = bytearray()
        try:
            while chunk := await replies.read(READ_SIZE):
                buffer += chunk
                self._answer(buffer)
            self._fail("it exited" if not buffer else "it exited in the middle of a reply")
        except ValueError as exc:
            self._fail(f"it answered wrongly ({exc})")
            self._kill()

    def _answer(self, buffer: bytearray) -> None:
        """Resolve the requests whose replies are complete in ``buffer``; consume them."""
        frames = take_frames(buffer)
        for raw in frames:
            reply = decode_reply(raw)
            if not self._pending:
                raise ValueError("a reply to no request")
            future = self._pending.popleft()
            if not future.done():
                future.set_result(reply)
        if frames:
            self._watch_oldest()

    def _fail(self, reason: str) -> None:
        if self._overdue is not None:
            self._overdue.cancel()
            self._overdue = None
        if self._send_later is not None:
            self._send_later.cancel()
            self._send_later = None
        self._unsent.clear()  # their futures fail below
        if self.stopped is None:
            self.stopped = reason
            self._on_stop(reason)  # stop() sets ``stopped`` first: no report then
        while self._pending:
            future = self._pending.popleft()
            if not future.done():
                future.set_exception(HelperStoppedError(reason))

    def _kill(self) -> None:
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()

    async def stop(self) -> None:
        """Close its input and wait for it to exit (killed after ``STOP_TIMEOUT``)."""
        if self.stopped is None:
            self.stopped = "the crawl closed"
        if self._starting is not None:
            await self._starting
        process = self._process
        if process is None:
            return
        children = _children_cpu()
        self._send()  # the texts still waiting for a batch are answered before it exits
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
        except asyncio.TimeoutError:
            self._kill()
            await process.wait()
        if children is not None and process.returncode is not None:
            # Reaped: its CPU time (all of it, it had not exited before) joined the children's.
            self.cpu_seconds = max(0.0, (_children_cpu() or children) - children)
        if self._reader is not None:
            await self._reader
        self._fail(self.stopped)


def _children_cpu() -> float | None:
    """CPU seconds of this process's reaped children (None where unknown, e.g. Windows)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""numpy's BLAS keeps one thread: the helper's products are 64 columns wide, and a second
BLAS thread took CPU beside it (a tenth more per text back to back, about 2% in a crawl),
on the core the crawl's process needs."""


def _environment() -> dict[str, str]:
    """This environment, with this package importable however the crawl found it, and
    numpy's BLAS on one thread."""
    root = str(Path(__file__).resolve().parents[3])
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, **SINGLE_THREADED, "PYTHONPATH": os.pathsep.join(paths)}
