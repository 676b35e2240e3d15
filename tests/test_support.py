"""The suite's own safety: a test run killed from outside leaves no server behind."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

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
