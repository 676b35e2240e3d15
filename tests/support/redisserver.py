"""A real redis-server for the tests, started on 127.0.0.1 in a temporary folder.

Tests that need Redis skip when no ``redis-server`` binary is installed, unless
``SIMDEDUP_REQUIRE_REDIS=1`` (set by ``.ci/run``), which makes a missing server an error.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

from tests.support import processes

START_TIMEOUT = 20.0


def redis_binary() -> str:
    found = shutil.which("redis-server")
    if found is None:
        message = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get("SIMDEDUP_REQUIRE_REDIS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


class RedisServer:
    """One redis-server process with append-only persistence (fsync on every write)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = processes.popen(
            [
                redis_binary(), "--bind", "127.0.0.1", "--port", str(self.port),
                "--dir", str(self.folder), "--save", "", "--appendonly", "yes",
                "--appendfsync", "always", "--protected-mode", "yes",
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            try:
                if redis.Redis.from_url(self.url, socket_timeout=1).ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def kill(self) -> None:
        """SIGKILL: what a crash or the OOM killer does."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def flush(self) -> None:
        redis.Redis.from_url(self.url).flushall()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
