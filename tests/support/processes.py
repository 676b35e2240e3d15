"""Child processes that cannot outlive the test run.

A test run killed from outside (a CI limit, ``kill -9``) runs no fixture teardown, so every
process a test starts asks the kernel to kill it when its parent dies (Linux's
``PR_SET_PDEATHSIG``). Helpers a crawl starts exit by themselves when the crawl is gone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
import subprocess
import sys
from typing import Any

PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the test process that started it dies."""
    if sys.platform.startswith("linux"):
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def popen(args: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen`` whose child dies with the test run."""
    return subprocess.Popen(args, preexec_fn=die_with_parent, **kwargs)  # noqa: PLW1509


def run(args: list[str], *, timeout: float, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` with a deadline, whose child dies with the test run."""
    return subprocess.run(  # noqa: PLW1510 (callers say check=...)
        args, preexec_fn=die_with_parent, timeout=timeout, **kwargs
    )
