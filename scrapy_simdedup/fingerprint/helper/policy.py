"""When to start a fingerprint helper process: when it can save time, and only then."""

from __future__ import annotations

import asyncio
import os


def cores_available() -> int:
    """CPU cores this process may run on (its affinity where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def helper_wanted(enabled: bool) -> bool:
    """Start one when asked to (``SIMDEDUP_FINGERPRINT_PROCESS``), the machine has a core
    to spare, and the crawl runs on an asyncio loop (Scrapy's default reactor)."""
    if not enabled or cores_available() < 2:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
