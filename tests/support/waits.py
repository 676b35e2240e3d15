"""Waits with deadlines: a test that waits for something fails, naming it, instead of hanging."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import IO, AnyStr

import pytest

POLL = 0.01


def wait_until(condition: Callable[[], object], seconds: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail the test after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {seconds:g} s waiting for {what}")
        time.sleep(POLL)


async def wait_until_async(condition: Callable[[], object], seconds: float, what: str) -> None:
    """``wait_until`` on an asyncio loop: the loop keeps running between polls."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {seconds:g} s waiting for {what}")
        await asyncio.sleep(POLL)


def read_line(stream: IO[AnyStr], seconds: float, what: str) -> AnyStr:
    """One line from a subprocess's pipe; fail after ``seconds`` (the reader thread is left
    blocked, and ends when the process is killed and its pipe closes)."""
    lines: list[AnyStr] = []
    reader = threading.Thread(target=lambda: lines.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    if not lines:
        pytest.fail(f"gave up after {seconds:g} s waiting for {what}")
    return lines[0]
