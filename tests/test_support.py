"""The suite's own safety: a test run killed from outside leaves no server behind."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import processes
from tests.support.crawls import ROOT, running
from tests.support.waits import read_line, wait_until

# A stand-in for a test run: it starts the tests' redis-server, then waits to be killed.
_RUN = """
import sys, time
from pathlib import Path
from tests.support.redisserver import RedisServer
server = RedisServer(Path(sys.argv[1]))
server.start()
print(server.process.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.redis  # it starts a redis-server in a child process
def test_a_killed_test_run_leaves_no_redis_server(tmp_path: Path) -> None:
    run = processes.popen(
        [sys.executable, "-c", _RUN, str(tmp_path)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert run.stdout is not None
        server = int(read_line(run.stdout, 60, "the redis-server to start"))
        assert running(server)
        run.send_signal(signal.SIGKILL)  # no teardown runs
        run.wait(timeout=30)
        wait_until(lambda: not running(server), 30, f"redis-server {server} to die with its run")
    finally:
        run.kill()
        run.communicate(timeout=30)


def test_marks_select_the_tests_without_crawls_and_redis() -> None:
    # Marks are given by where a test lives and what it asks for (conftest.py): a user
    # runs everything but the crawls and Redis with one option.
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-m", "not crawl and not redis", "tests"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=True,
    ).stdout.splitlines()  # fmt: skip
    tests = [line for line in collected if "::" in line]
    assert len(tests) > 500
    assert not [t for t in tests if t.startswith(("tests/crawl/", "tests/test_redis"))]
    assert not [t for t in tests if "[redis" in t or "-redis" in t]
    assert any(t.startswith("tests/test_blocks.py::") for t in tests)  # the core's own
