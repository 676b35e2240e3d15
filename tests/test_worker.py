"""The fingerprint helper: its wire format, the worker process, and the crawl-side client."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest

from benchmarks.corpora import chinese_articles, english_articles
from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted, fingerprinted
from scrapy_simdedup.fingerprint.helper.client import (
    BATCH_DELAY,
    FingerprintHelper,
    HelperStoppedError,
)
from scrapy_simdedup.fingerprint.helper.protocol import (
    LENGTH,
    decode_reply,
    encode_reply,
    encode_request,
)
from scrapy_simdedup.fingerprint.helper.worker import serve
from scrapy_simdedup.fingerprint.textprint import exact_hash
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from tests.support.processes import popen
from tests.support.waits import wait_until_async

WAIT = 60.0
"""Seconds any step here may take on a loaded machine before the test fails."""

TEXTS = [
    english_articles(3000)[0],
    chinese_articles()[0],
    "",
    "Page not found",
    "lone \ud800 surrogate and NUL \x00 " * 40,
    "日本語のテキスト、カタカナ。" * 30,
]
TOKENIZER = Tokenizer()
SEED = 4242


def test_the_worker_imports_only_the_fingerprint_modules() -> None:
    """It starts once per crawl, and its start-up is CPU the crawl pays per page: the
    package's names load on first use, so neither lxml, the stores nor Scrapy come with it."""
    heavy = ("lxml", "plyvel", "redis", "scrapy", "twisted", "w3lib")
    probe = (
        "import sys, scrapy_simdedup.fingerprint.helper.worker; "
        f"print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=WAIT, check=True
    ).stdout.strip()
    assert found == "", f"the helper process imports {found}"


@pytest.mark.parametrize("text", TEXTS)
def test_a_reply_reads_back_as_it_was_written(text: str) -> None:
    done = fingerprinted(text, TOKENIZER, SEED)
    assert decode_reply(encode_reply(done)) == done


@pytest.mark.parametrize("cut", [0, 10, 280, -1])
def test_a_cut_or_padded_reply_is_refused(cut: int) -> None:
    raw = encode_reply(fingerprinted(TEXTS[0], TOKENIZER, SEED))
    with pytest.raises(ValueError, match="reply"):
        decode_reply(raw[:cut] if cut >= 0 else raw + b"\x00")


def test_the_worker_process_answers_as_this_process_would() -> None:
    command = [
        sys.executable,
        "-m",
        "scrapy_simdedup.fingerprint.helper.worker",
        TOKENIZER.name,
        "4242",
    ]
    replies = []
    with popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as worker:
        assert worker.stdin is not None and worker.stdout is not None
        for n, text in enumerate(TEXTS):
            worker.stdin.write(encode_request(text, exact_hash(text, SEED)))
            worker.stdin.flush()
            (size,) = LENGTH.unpack(_read(worker.stdout, LENGTH.size))
            replies.append(decode_reply(_read(worker.stdout, size)))
            if n == 0:  # Ctrl-C reaches a helper too; the crawl decides when it ends
                worker.send_signal(signal.SIGINT)
        worker.stdin.close()  # its input ends: it exits
        assert worker.wait(timeout=60) == 0
    assert replies == [fingerprinted(text, TOKENIZER, SEED) for text in TEXTS]


def _read(stream: IO[bytes], size: int) -> bytes:
    """``size`` bytes of a reply, or the test fails after a deadline."""
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(stream.read(size)), daemon=True)
    reader.start()
    reader.join(WAIT)
    if not got:
        pytest.fail(f"the worker sent no reply within {WAIT} s")
    return got[0]


def _helper(
    stops: list[str], command: list[str] | None = None, reply_timeout: float = WAIT
) -> FingerprintHelper:
    return FingerprintHelper(
        TOKENIZER, SEED, max_pending=3, on_stop=stops.append, command=command,
        reply_timeout=reply_timeout,
    )  # fmt: skip


async def _started(helper: FingerprintHelper) -> None:
    """Until the helper runs or has already failed (a failing one may fail at once)."""
    await wait_until_async(
        lambda: helper.ready or helper.stopped is not None, WAIT, "the helper to start"
    )


def test_the_helper_answers_in_order_and_stops_quietly() -> None:
    stops: list[str] = []

    async def run() -> list[Fingerprinted]:
        helper = _helper(stops)
        helper.start()
        await _started(helper)
        assert helper.ready, helper.stopped
        futures = [helper.submit(text) for text in TEXTS[:3]]
        assert not helper.ready  # three texts held: the caller does the fourth itself
        answers = list(await asyncio.wait_for(asyncio.gather(*futures), WAIT))
        assert helper.ready
        await helper.stop()
        assert helper.stopped == "the crawl closed" and not helper.ready
        return answers

    assert asyncio.run(run()) == [fingerprinted(text, TOKENIZER, SEED) for text in TEXTS[:3]]
    assert stops == []  # stop() asked for it: nothing to report


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        ("import sys; sys.stdin.buffer.read(4)", "it exited"),
        ("import sys; sys.stdout.buffer.write(b'\\x05\\x00\\x00\\x00hello'); "
         "sys.stdout.flush(); sys.stdin.read()", "it answered wrongly"),
    ],
    ids=["exits", "garbage"],
)  # fmt: skip
def test_a_helper_that_fails_fails_its_texts_and_reports_once(script: str, reason: str) -> None:
    stops: list[str] = []

    async def run() -> None:
        helper = _helper(stops, [sys.executable, "-c", script])
        helper.start()
        await _started(helper)
        # Submitted whether or not it has failed yet: either way the text comes back.
        waiting = helper.submit(TEXTS[0])
        with pytest.raises(HelperStoppedError):
            await asyncio.wait_for(waiting, WAIT)
        assert not helper.ready
        await asyncio.wait_for(helper.stop(), WAIT)

    asyncio.run(run())
    assert len(stops) == 1 and stops[0].startswith(reason)


def test_a_helper_that_cannot_start_reports_why() -> None:
    stops: list[str] = []

    async def run() -> None:
        helper = _helper(stops, ["/nonexistent/python"])
        helper.start()
        await wait_until_async(lambda: helper.stopped is not None, WAIT, "the start to fail")
        with pytest.raises(HelperStoppedError):
            await asyncio.wait_for(helper.submit(TEXTS[0]), WAIT)
        await asyncio.wait_for(helper.stop(), WAIT)
        assert not helper.ready

    asyncio.run(run())
    assert len(stops) == 1 and stops[0].startswith("it could not start")


def test_a_helper_that_stops_answering_is_given_up_on_time() -> None:
    """A stuck helper (alive, silent: SIGSTOP stands in for it) must not hang the crawl."""
    stops: list[str] = []

    async def run() -> None:
        helper = _helper(stops, [sys.executable, "-c", STUCK], reply_timeout=0.5)
        helper.start()
        await _started(helper)
        waiting = [helper.submit(text) for text in TEXTS[:2]]
        for future in waiting:
            with pytest.raises(HelperStoppedError, match="stopped answering"):
                await asyncio.wait_for(future, WAIT)
        assert not helper.ready
        await asyncio.wait_for(helper.stop(), WAIT)

    asyncio.run(run())
    assert len(stops) == 1 and stops[0].startswith("it stopped answering")


def test_a_helper_answering_in_time_is_never_given_up() -> None:
    """Replies that keep coming re-arm the deadline: many texts, each answered in time."""
    stops: list[str] = []

    async def run() -> list[Fingerprinted]:
        helper = _helper(stops, reply_timeout=5.0)
        helper.start()
        await _started(helper)
        answers = []
        for text in TEXTS * 3:
            answers.append(await asyncio.wait_for(helper.submit(text), WAIT))
        await asyncio.wait_for(helper.stop(), WAIT)
        return answers

    assert asyncio.run(run()) == [fingerprinted(text, TOKENIZER, SEED) for text in TEXTS * 3]
    assert stops == []


STUCK = "import sys; sys.stdin.buffer.read()"  # reads everything, answers nothing


def test_a_request_cut_short_ends_the_worker_quietly() -> None:
    """The crawl's process killed in the middle of writing a request: the worker answers
    what came whole and exits, with no traceback on the crawl's terminal."""
    whole = encode_request(TEXTS[0], exact_hash(TEXTS[0], SEED))
    replies = io.BytesIO()
    serve(io.BytesIO(whole + whole[: LENGTH.size + 5]), replies, TOKENIZER, SEED)
    raw = replies.getvalue()
    (size,) = LENGTH.unpack_from(raw)
    assert len(raw) == LENGTH.size + size
    assert decode_reply(raw[LENGTH.size :]) == fingerprinted(TEXTS[0], TOKENIZER, SEED)


class _Trickle(io.BytesIO):
    """A pipe that delivers a few bytes per read, as a busy crawl's process may write."""

    def read1(self, size: int = -1, /) -> bytes:
        return super().read1(min(7, size) if size > 0 else 7)


def test_requests_arriving_in_pieces_and_together_are_each_answered_in_order() -> None:
    frames = b"".join(encode_request(text, exact_hash(text, SEED)) for text in TEXTS)
    for requests in (io.BytesIO(frames), _Trickle(frames)):
        replies = io.BytesIO()
        serve(requests, replies, TOKENIZER, SEED)
        raw, answers = replies.getvalue(), []
        while raw:
            (size,) = LENGTH.unpack_from(raw)
            answers.append(decode_reply(raw[LENGTH.size : LENGTH.size + size]))
            raw = raw[LENGTH.size + size :]
        assert answers == [fingerprinted(text, TOKENIZER, SEED) for text in TEXTS]


def test_texts_still_waiting_for_their_batch_are_answered_when_the_crawl_stops() -> None:
    """Texts go to the helper in batches; the last ones, submitted as the crawl closes,
    still get their fingerprints, not the crawl's own fallback."""
    stops: list[str] = []

    async def run() -> list[Fingerprinted]:
        helper = _helper(stops)
        helper.start()
        await _started(helper)
        waiting = [helper.submit(text) for text in TEXTS[:2]]
        await asyncio.wait_for(helper.stop(), WAIT)
        return [future.result() for future in waiting]

    assert asyncio.run(run()) == [fingerprinted(text, TOKENIZER, SEED) for text in TEXTS[:2]]
    assert stops == []


def test_a_slow_crawls_texts_go_at_once_and_a_fast_crawls_together() -> None:
    """One write per ``BATCH_DELAY`` at most: a text after a quiet spell is written at once
    (no item waits, none a kill -9 could lose), texts in quick succession wait for one
    write; every one is answered."""
    stops: list[str] = []

    async def run() -> list[Fingerprinted]:
        helper = _helper(stops)
        helper.start()
        await _started(helper)
        loop = asyncio.get_running_loop()
        first = helper.submit(TEXTS[0])
        assert helper._unsent == []  # written at once
        written = helper._sent_at
        burst = [helper.submit(text) for text in TEXTS[1:3]]
        # Within the delay they wait for one write (unless this machine stalled that long).
        assert helper._unsent or loop.time() - written >= BATCH_DELAY
        answers = list(await asyncio.wait_for(asyncio.gather(first, *burst), WAIT))
        await asyncio.sleep(BATCH_DELAY)
        later = helper.submit(TEXTS[3])
        assert helper._unsent == []  # a quiet spell: at once again
        answers.append(await asyncio.wait_for(later, WAIT))
        await asyncio.wait_for(helper.stop(), WAIT)
        return answers

    assert asyncio.run(run()) == [fingerprinted(text, TOKENIZER, SEED) for text in TEXTS[:4]]
    assert stops == []


def test_a_reply_timeout_shorter_than_a_batch_is_refused() -> None:
    with pytest.raises(ValueError, match="reply_timeout"):
        _helper([], reply_timeout=BATCH_DELAY)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_the_helper_process_runs_one_thread() -> None:
    """A BLAS thread per core beside it, spinning after each SimHash vote, would take CPU
    from the crawl's process (``SINGLE_THREADED``)."""

    async def run() -> int:
        helper = _helper([])
        helper.start()
        await _started(helper)
        await asyncio.wait_for(helper.submit(TEXTS[0]), WAIT)  # numpy loaded and used
        threads = len(os.listdir(f"/proc/{helper.pid}/task"))
        await helper.stop()
        return threads

    assert asyncio.run(run()) == 1
