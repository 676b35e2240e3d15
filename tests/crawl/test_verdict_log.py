"""The verdict log of a real crawl of the demo sites, and ``scrapy simdedup report`` on it."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support import processes
from tests.support.crawls import (
    DEMO,
    Crawl,
    build_edited_mirror,
    content_of,
    crawl_env,
    run_crawl,
    scrapy_command,
    serve_sites,
)

pytestmark = pytest.mark.timeout(900)


Crawled = tuple[Crawl, Path, dict[str, str]]


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawled]:
    """One crawl of every demo site with the verdict log on; yields it, the log, the sites."""
    folder = tmp_path_factory.mktemp("verdicts")
    with serve_sites() as sites:
        crawl = run_crawl(
            list(sites.values()), folder / "feed.jsonl", "-s", f"SIMDEDUP_DIR={folder}",
            "-s", f"SIMDEDUP_VERDICT_LOG={folder / 'verdicts-%(name)s.jsonl'}",
        )  # fmt: skip
        assert crawl.returncode == 0, crawl.log[-3000:]
        yield crawl, folder / "verdicts-pages.jsonl", sites


def _lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


def _by(stats: dict[str, Any], prefix: str) -> Counter[str]:
    return Counter({k[len(prefix) :]: v for k, v in stats.items() if k.startswith(prefix)})


def test_the_log_has_a_line_for_each_counted_event(crawled: Crawled) -> None:
    crawl, log, sites = crawled
    lines = _lines(log)
    stats = crawl.simdedup()
    events = Counter(line["event"] for line in lines)
    assert events["crawl"] == 1
    assert stats["simdedup/content/dropped"] > 0  # URL skips depend on races: maybe none
    for event in ("dropped", "annotated", "unconfirmed"):
        assert events[event] == stats.get(f"simdedup/content/{event}", 0), event
    dropped = [line for line in lines if line["event"] == "dropped"]
    found_by = Counter(line["found_by"] for line in dropped)
    assert found_by["exact"] == stats.get("simdedup/content/exact_copies", 0)
    assert found_by["same_key"] == stats.get("simdedup/content/repeated_keys", 0)
    skipped = Counter(line["rule"] for line in lines if line["event"] == "url_skipped")
    assert skipped == _by(stats, "simdedup/url/skipped/")
    reissued = Counter(line["why"] for line in lines if line["event"] == "url_reissued")
    assert reissued == _by(stats, "simdedup/url/reissued/")
    requested = sum(1 for line in lines if line["event"] == "url_requested")
    assert requested == stats.get("simdedup/url/requested_on_mirror", 0)
    # One line per event: each dropped page once, none of them in the feed, each one a
    # copy of a page the feed holds; each page kept although near a stored one is in it.
    contents = content_of(sites)
    kept = {item["url"] for item in crawl.items}
    assert len({line["key"] for line in dropped}) == len(dropped)
    assert not {line["key"] for line in dropped} & kept
    for line in dropped:
        assert contents[line["key"]] == contents[line["original"]]
        assert line["original"] in kept
    assert {line["key"] for line in lines if line["event"] == "unconfirmed"} <= kept
    # A skip stays out of the feed unless its bet was lost and it was re-issued.
    skipped_urls = {line["url"] for line in lines if line["event"] == "url_skipped"}
    reissued_urls = {line["url"] for line in lines if line["event"] == "url_reissued"}
    assert not (skipped_urls - reissued_urls) & kept


def _report(*args: str) -> subprocess.CompletedProcess[str]:
    return processes.run(
        scrapy_command("simdedup", "report", "pages", *args),
        cwd=DEMO, env=crawl_env(), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_report_names_the_mirror_host(crawled: Crawled) -> None:
    crawl, log, sites = crawled
    template = str(log.parent / "verdicts-%(name)s.jsonl")
    done = _report("-s", f"SIMDEDUP_VERDICT_LOG={template}")  # found as the crawl wrote it
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"verdict log: {log} (1 crawl, started ")
    mirror, original = (urlsplit(sites[name]).netloc for name in ("mirror", "original"))
    section = done.stdout.split("\nMirror hosts")[1].split("\nLargest clusters")[0]
    pairs = [line.strip() for line in section.splitlines() if line.startswith("  127")]
    assert any(line.startswith((f"{mirror} and {original}:", f"{original} and {mirror}:"))
               for line in pairs), section  # fmt: skip
    stats = crawl.simdedup()
    assert f"\n{stats['simdedup/content/dropped']:,} copies dropped (" in done.stdout
    skipped = stats.get("simdedup/url/skipped/mirror", 0)
    by_rule = f" ({skipped:,} mirror)" if skipped else ""
    assert f"; {skipped:,} requests skipped before download{by_rule}, " in done.stdout
    for heading in (
        "SimHash distance in bits",
        "Similarity (",
        "Nearest the threshold (0.80), the nearest first",
    ):
        assert f"\n{heading}" in done.stdout
    assert "\nSuggestions\n  SIMDEDUP_CONFIRM_SIMILARITY: keep 0.80" in done.stdout
    assert _report("--log", str(log)).stdout == done.stdout


def test_the_report_says_what_is_missing(tmp_path: Path) -> None:
    done = _report("-s", f"SIMDEDUP_VERDICT_LOG={tmp_path / '%(name)s.jsonl'}")
    assert done.returncode == 2
    assert "no verdict log of pages at" in done.stderr
    assert "give --log FILE, or set SIMDEDUP_VERDICT_LOG" in _report().stderr


def test_on_an_edited_mirror_every_copy_is_dropped_and_nothing_lost(tmp_path: Path) -> None:
    """Four words replaced per page: about half the copies sit just under 0.8 similarity,
    which once kept them (and the report suggested a lower threshold). The words are
    edits of the stored sentences, so each copy adds nothing: all dropped at defaults."""
    sites = build_edited_mirror()
    with serve_sites(sites) as urls:
        contents = {
            urls[site].rstrip("/") + path: page.content
            for site, pages in sites.items()
            for path, page in pages.items()
        }
        folder = tmp_path / "defaults"
        crawl = run_crawl(
            list(urls.values()), folder / "feed.jsonl", "-s", f"SIMDEDUP_DIR={folder}",
            "-s", f"SIMDEDUP_VERDICT_LOG={folder / 'verdicts.jsonl'}",
        )  # fmt: skip
        assert crawl.returncode == 0, crawl.log[-3000:]
    kept = Counter(contents[item["url"]] for item in crawl.items)
    assert set(kept) == set(contents.values())  # no distinct page lost
    assert sum(n - 1 for n in kept.values()) == 0  # no copy kept
    report = _report("--log", str(folder / "verdicts.jsonl")).stdout
    assert "SIMDEDUP_CONFIRM_SIMILARITY: keep 0.80" in report
