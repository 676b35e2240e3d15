"""A real redis-server for the tests, started on 127.0.0.1 in a temporary folder.

Tests that need Redis skip when no ``redis-server`` binary is installed, unless
``SIMDEDUP_REQUIRE_REDIS=1`` (set by ``.ci/run``), which makes a missing server an error.
"""

from __future__ import annotations

import os
import random
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
        self.port = free_port()
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
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if redis.Redis.from_url(self.url, socket_timeout=1).ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
        exited = self.process.poll()
        self.stop()
        why = f"exited with {exited}" if exited is not None else f"no answer in {START_TIMEOUT:g} s"
        raise RuntimeError(f"redis-server did not start on port {self.port}: {why}")

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


def free_port() -> int:
    """A port no one listens on, below the kernel's ephemeral range: a port the kernel hands
    out for ``bind(0)`` is also what it gives the suite's outgoing connections, so one of
    them could take it between this probe and the server's own bind (a cluster test once
    waited 30 s for a server that had exited on "address in use")."""
    low = _ephemeral_low()
    for _ in range(200):
        port = _random.randrange(max(1024, low - 12_000), low)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port below {low} on 127.0.0.1 after 200 tries")


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


_random = random.Random()
