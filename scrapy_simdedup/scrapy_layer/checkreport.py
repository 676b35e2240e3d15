"""``scrapy simdedup check`` and ``report``: what a project's settings turn on, and what a
spider's verdict log says. The command (``commands.py``) only parses and prints."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from scrapy.exceptions import UsageError

from scrapy_simdedup.audit.feed import feed_texts
from scrapy_simdedup.audit.html import html_report
from scrapy_simdedup.audit.log import log_files, log_path, read_log
from scrapy_simdedup.audit.report import report
from scrapy_simdedup.audit.summary import last_crawl, summarise
from scrapy_simdedup.scrapy_layer.enabled import (
    enabled,
    half_enabled_warning,
    idle_plugin_warning,
    own_settings,
)

if TYPE_CHECKING:
    from scrapy.settings import Settings

    from scrapy_simdedup.config import SimDedupConfig
    from scrapy_simdedup.index.location import StoreLocation


def with_spider_settings(settings: Settings, spider: str | None) -> Settings:
    """``settings`` with the spider's ``custom_settings``, as ``scrapy crawl`` would use."""
    if spider is None:
        return settings
    from scrapy.spiderloader import get_spider_loader

    try:
        spidercls = get_spider_loader(settings).load(spider)
    except KeyError:  # not a spider of this project: the project's settings alone
        return settings
    found = settings.copy()
    spidercls.update_settings(found)
    return found


def check_lines(
    settings: Settings,
    config: SimDedupConfig,
    location: StoreLocation | None,
    spider: str | None = None,
) -> tuple[list[str], bool]:
    """What ``check`` prints, and whether all is well (no warning)."""
    on, names = enabled(settings), own_settings(settings)
    listed = f": {', '.join(names)}" if names else ""
    lines = [f"settings:    valid; {len(names)} SIMDEDUP_* set{listed}"]
    lines.append(
        f"components:  ContentSeenPipeline {'on' if on.content else 'off'}, "
        f"UrlSimHashMiddleware {'on' if on.urls else 'off'} "
        f"(SIMDEDUP_URL_MODE {config.url_mode!r})"
        + (" through the Addon" if on.addon else "")
        + ("; SIMDEDUP_ENABLED is False: both off" if not config.enabled else "")
    )
    if location is not None:
        lines.append(f"index:       {location}")
    lines.append(f"verdict log: {verdict_log_line(config.verdict_log, spider)}")
    adaptive = config.url_mode == "adaptive"
    warnings = [
        warning
        for warning in (
            idle_plugin_warning(settings),
            half_enabled_warning(settings, adaptive=adaptive),
        )
        if warning
    ]
    return lines + [f"warning: {warning}" for warning in warnings], not warnings


def verdict_log_line(template: str | None, spider: str | None) -> str:
    """Where the crawl of ``spider`` writes its verdict log: the path ``log_path`` gives the
    crawl itself, so ``%(name)s`` reads as the spider's name."""
    if template is None:
        return "off (SIMDEDUP_VERDICT_LOG)"
    if spider is None:
        return f"{template} (name the spider to see the path its crawl writes)"
    path = log_path(template, spider)
    if "%(time)s" in template:
        return f"{path}, the time being the crawl's start (a new file per crawl)"
    return str(path)


def find_verdict_log(config: SimDedupConfig, spider: str | None, given: str | None) -> Path:
    """``given``, or the newest log the spider's ``SIMDEDUP_VERDICT_LOG`` names."""
    if given:
        return Path(given).expanduser()
    template = config.verdict_log
    if template is None:
        raise UsageError("give --log FILE, or set SIMDEDUP_VERDICT_LOG in the project")
    if spider is None:
        raise UsageError("name the spider whose verdict log to read, or give --log FILE")
    found = log_files(template, spider)
    if not found:
        raise UsageError(
            f"no verdict log of {spider} at {template} yet; has a crawl run with "
            "SIMDEDUP_VERDICT_LOG set?"
        )
    return found[-1]


def report_lines(path: Path, config: SimDedupConfig, *, every_crawl: bool) -> list[str]:
    """What ``report`` prints: which crawls of the log, then the summary."""
    contents = read_log(path)
    crawls = [r for r in contents.records if r.get("event") == "crawl"]
    records = contents.records if every_crawl else last_crawl(contents.records)
    if every_crawl or len(crawls) < 2:
        which = f"{len(crawls):,} crawl{'s' if len(crawls) != 1 else ''}"
    else:
        which = f"the last of {len(crawls):,} crawls (--all: every one)"
    if crawls:
        first = crawls[0] if every_crawl else records[0]
        which += f", started {first.get('time')}"
    lines = [f"verdict log: {path} ({which})"]
    if contents.malformed:
        cut = contents.malformed
        lines.append(f"  {cut:,} unreadable lines left out (a crawl killed mid-line?)")
    defaults = {
        "confirm_similarity": config.confirm_similarity,
        "content_max_distance": config.content_max_distance,
    }
    return lines + report(summarise(records, defaults))


def write_html_report(
    path: Path, config: SimDedupConfig, html: Path, feed: Path | None, *, every_crawl: bool
) -> str:
    """Write ``report --html``'s page to ``html``; ``feed``: the crawl's feed, whose texts
    the pages near the threshold are shown with. Returns the line to print."""
    contents = read_log(path)
    records = contents.records if every_crawl else last_crawl(contents.records)
    defaults = {
        "confirm_similarity": config.confirm_similarity,
        "content_max_distance": config.content_max_distance,
    }
    texts = None
    if feed is not None:
        texts = feed_texts(
            feed.expanduser(),
            config.content_fields,
            config.key_field,
            html=config.content_html,
            main=config.html_content == "main",
        )
    page = html_report(summarise(records, defaults), texts, source=str(path))
    html = html.expanduser()
    html.write_text(page, encoding="utf-8")
    shown = f", with {len(texts):,} texts from {feed}" if texts is not None else ""
    return f"wrote {html} ({len(records):,} verdict log lines of {path}{shown})"
