"""Real `scrapy crawl` runs of the demo project in a subprocess, against the demo sites."""

from __future__ import annotations

import datetime
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo_project"
sys.path.insert(0, str(DEMO))

from demosite import build_edited_mirror, build_sites, serve_sites  # noqa: E402

from tests.support import processes  # noqa: E402

__all__ = [
    "DEMO",
    "ROOT",
    "Crawl",
    "build_edited_mirror",
    "build_sites",
    "content_of",
    "crawl_command",
    "crawl_listed_pages",
    "feed_lines",
    "run_crawl",
    "scrapy_command",
    "serve_sites",
]

CRAWL_TIMEOUT = 300
_STATS = re.compile(r"Dumping Scrapy stats:\n(\{.*?\})\n(?=\d{4}-\d\d-\d\d |\Z)", re.S)


@dataclass
class Crawl:
    returncode: int
    log: str
    items: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def simdedup(self) -> dict[str, Any]:
        return {k: v for k, v in self.stats.items() if k.startswith("simdedup/")}


# `python -W error::scrapy.exceptions.ScrapyDeprecationWarning` is ignored (the module is
# not importable that early), so the filter is set here, before Scrapy runs the command.
SCRAPY = (
    "import sys, warnings; from scrapy.exceptions import ScrapyDeprecationWarning; "
    "warnings.simplefilter('error', ScrapyDeprecationWarning); "
    "from scrapy.cmdline import execute; execute(['scrapy', *sys.argv[1:]])"
)


def scrapy_command(*args: str) -> list[str]:
    """A `scrapy ...` command line in which a ScrapyDeprecationWarning is an error."""
    return [sys.executable, "-c", SCRAPY, *args]


def crawl_command(start_urls: list[str], feed: Path, *args: str) -> list[str]:
    return scrapy_command(
        "crawl", "pages", "-a", "start_urls=" + ",".join(start_urls), "-o", f"{feed}:jsonl", *args
    )


def run_crawl(start_urls: list[str], feed: Path, *args: str) -> Crawl:
    done = processes.run(
        crawl_command(start_urls, feed, *args),
        cwd=DEMO, capture_output=True, text=True, timeout=CRAWL_TIMEOUT, env=crawl_env(),
        check=False,
    )  # fmt: skip
    return parse(done.returncode, done.stderr, feed)


PAGES_SPIDER = ROOT / "tests" / "support" / "realpagespider.py"


def crawl_listed_pages(
    folder: Path, name: str, pages: Path, *settings: str, text: str = "html"
) -> Crawl:
    """``realpagespider.py`` over the ``[url, priority]`` pairs in ``pages`` (one request at
    a time, by priority), its feed ``folder/name.jsonl``; ``text``: its ``-a text=``. Fails
    the test when the crawl does."""
    feed = folder / f"{name}.jsonl"
    args = [arg for setting in settings for arg in ("-s", setting)]
    done = processes.run(
        scrapy_command("runspider", str(PAGES_SPIDER), "-a", f"pages={pages}", "-a",
                       f"text={text}", "-o", f"{feed}:jsonl", *args),
        cwd=folder, env=crawl_env(), capture_output=True, text=True, timeout=CRAWL_TIMEOUT,
        check=False,
    )  # fmt: skip
    crawl = parse(done.returncode, done.stderr, feed)
    assert crawl.returncode == 0, crawl.log[-3000:]
    return crawl


def beside_plain_scrapy(url: str, folder: Path, seed: int) -> tuple[Crawl, Crawl]:
    """(plain Scrapy's crawl, the plugin's on a new store of ``seed``) of ``url``; the
    plugin's verdict log is printed, for a run that fails."""
    from scrapy_simdedup.index.opening import open_index

    open_index(folder / "index" / "pages", seed=seed).close()  # the store's seed
    log = folder / "verdicts.jsonl"
    plain = run_crawl(
        [url], folder / "plain.jsonl", "-s", "ITEM_PIPELINES={}", "-s", "DOWNLOADER_MIDDLEWARES={}"
    )
    plugin = run_crawl(
        [url], folder / "plugin.jsonl",
        "-s", f"SIMDEDUP_DIR={folder / 'index'}", "-s", f"SIMDEDUP_VERDICT_LOG={log}",
    )  # fmt: skip
    assert plain.returncode == 0 and plugin.returncode == 0, plugin.log[-3000:]
    for line in log.read_text("utf-8").splitlines() if log.exists() else []:
        if json.loads(line).get("kind") != "crawl":
            print("verdict:", line[:700])
    return plain, plugin


def crawl_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def parse(returncode: int, log: str, feed: Path) -> Crawl:
    items = (
        [json.loads(line) for line in feed.read_text("utf-8").splitlines()] if feed.exists() else []
    )
    match = _STATS.search(log)
    stats = eval(match.group(1), {"datetime": datetime}) if match else {}  # our own log
    return Crawl(returncode, log, items, stats)


def feed_lines(feed: Path) -> int:
    """Items written to a JSON-lines feed so far (0 before it exists)."""
    return feed.read_bytes().count(b"\n") if feed.exists() else 0


def content_of(urls: dict[str, str]) -> dict[str, str]:
    """Page URL -> content id, for the sites served at ``urls``."""
    sites = build_sites()
    return {
        url.rstrip("/") + path: page.content
        for site, url in urls.items()
        for path, page in sites[site].items()
    }


def helper_pids(parent: int) -> list[int]:
    """The fingerprint helper processes whose parent is ``parent`` (read from /proc)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
            command = (proc / "cmdline").read_bytes()
        except OSError:  # not a process, or gone meanwhile
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"scrapy_simdedup.fingerprint.helper.worker" in command:
            found.append(int(proc.name))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its reaper is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
