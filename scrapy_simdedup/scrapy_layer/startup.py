"""The crawl's ``SIMDEDUP_*`` settings, read once: a wrong one stops it with one ERROR line.

Scrapy builds components inside an asyncio task, so an exception raised there reaches the
user as asyncio's "Task exception was never retrieved" and some 25 lines of traceback, with
the message at the bottom. Instead the message is logged first, as one ERROR naming the
setting and where to fix it, and the loop is asked not to print that same exception again
(every other one is printed as before). The exception still propagates: Scrapy stops the
crawl before anything is fetched and ``scrapy crawl`` exits 1.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy_simdedup.config import SimDedupConfig
from scrapy_simdedup.errors import SettingError

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_configs: WeakKeyDictionary[Crawler, SimDedupConfig] = WeakKeyDictionary()
_refused: WeakKeyDictionary[Crawler, SettingError] = WeakKeyDictionary()
_LOGGED = "_simdedup_logged"  # set on a SettingError once its ERROR line is out


def config_for(crawler: Crawler) -> SimDedupConfig:
    """The crawler's validated settings; raises ``SettingError`` after one ERROR line."""
    config = _configs.get(crawler)
    if config is not None:
        return config
    refused = _refused.get(crawler)
    if refused is not None:
        raise refused
    try:
        config = _configs[crawler] = SimDedupConfig.from_settings(crawler.settings)
    except SettingError as exc:
        _refused[crawler] = exc
        report_setting_error(exc)
        raise
    return config


def report_setting_error(exc: SettingError) -> None:
    """Log ``exc`` as the one ERROR line of a crawl that stops at start; the caller raises."""
    message = str(exc) if str(exc).endswith(("?", ".")) else f"{exc}."
    logger.error(
        "simdedup: %s Fix it in settings.py, the spider's custom_settings or the -s "
        "option; the crawl stopped before fetching anything.",
        message,
    )
    setattr(exc, _LOGGED, True)
    _print_once(exc)


def _print_once(exc: SettingError) -> None:
    """Ask the running asyncio loop not to print ``exc`` again when its task ends."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # another reactor: Twisted prints its own traceback after our line
        return
    previous = loop.get_exception_handler()
    if getattr(previous, _LOGGED, False):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if getattr(context.get("exception"), _LOGGED, False):
            return
        if previous is None:
            loop.default_exception_handler(context)
        else:
            previous(loop, context)

    setattr(handler, _LOGGED, True)
    loop.set_exception_handler(handler)
