"""Real crawls with UrlSimHashMiddleware against a site full of URL traps on 127.0.0.1."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.crawls import Crawl, build_sites, run_crawl, serve_sites

# Real crawls (subprocesses with their own deadlines) take longer than the suite's
# default limit.
pytestmark = pytest.mark.timeout(900)

SITES = ("original", "mirror", "partial")


@pytest.fixture(scope="module")
def trap_sites() -> Iterator[dict[str, str]]:
    built = build_sites(traps=True)
    with serve_sites({name: built[name] for name in SITES}) as urls:
        yield urls


@pytest.fixture(scope="module")
def baseline(trap_sites: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    """The same crawl without the middleware: what a crawl fetches only to drop."""
    folder = tmp_path_factory.mktemp("baseline")
    crawl = run_crawl(
        list(trap_sites.values()), folder / "feed.jsonl",
        "-s", f"SIMDEDUP_DIR={folder}", "-s", "SIMDEDUP_URL_MODE=off",
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    return crawl


def _contents(urls: dict[str, str]) -> dict[str, str]:
    built = build_sites(traps=True)
    return {
        url.rstrip("/") + path: page.content
        for name, url in urls.items()
        for path, page in built[name].items()
    }


def _kept(crawl: Crawl, urls: dict[str, str]) -> Counter[str]:
    contents = _contents(urls)
    return Counter(contents[str(item["url"]).split("?", 1)[0]] for item in crawl.items)


def _skipped(stats: dict[str, Any]) -> int:
    return sum(n for key, n in stats.items() if key.startswith("simdedup/url/skipped/"))


def test_adaptive_mode_skips_most_duplicate_fetches_and_loses_nothing(
    trap_sites: dict[str, str], baseline: Crawl, tmp_path: Path
) -> None:
    crawl = run_crawl(
        list(trap_sites.values()), tmp_path / "feed.jsonl", "-s", f"SIMDEDUP_DIR={tmp_path}"
    )
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert "ScrapyDeprecationWarning" not in crawl.log
    distinct = set(_contents(trap_sites).values())
    assert set(_kept(baseline, trap_sites)) == distinct
    assert set(_kept(crawl, trap_sites)) == distinct  # every distinct page still emitted
    duplicate_fetches = baseline.stats["item_dropped_count"]
    assert duplicate_fetches > 150
    assert crawl.stats["item_dropped_count"] <= 0.2 * duplicate_fetches  # >= 80% avoided
    assert crawl.stats["downloader/request_count"] < baseline.stats["downloader/request_count"]
    stats = crawl.simdedup()
    for kind in ("mirror", "pattern", "trap"):
        assert stats[f"simdedup/url/skipped/{kind}"] > 0, kind
    assert stats["simdedup/url/mirror_hosts"] >= 1
    assert stats["simdedup/url/sampled"] > 0
    # The only way to the notice page is a 503 (retried, dont_filter) and two redirects.
    assert crawl.stats["retry/count"] >= 1
    assert stats["simdedup/url/unchecked/dont_filter"] >= 1
    assert f"requests checked, {_skipped(stats):,} skipped before download" in crawl.log
    assert " mirrors 127.0.0.1:" in crawl.log


def test_a_second_crawl_starts_knowing_the_mirror(
    trap_sites: dict[str, str], tmp_path: Path
) -> None:
    folder = ["-s", f"SIMDEDUP_DIR={tmp_path}"]
    original = run_crawl([trap_sites["original"]], tmp_path / "1.jsonl", *folder)
    learning = run_crawl([trap_sites["mirror"]], tmp_path / "2.jsonl", *folder)
    knowing = run_crawl([trap_sites["mirror"]], tmp_path / "3.jsonl", *folder)
    for crawl in (original, learning, knowing):
        assert crawl.returncode == 0, crawl.log[-3000:]
    mirror, source = (trap_sites[name].split("/")[2] for name in ("mirror", "original"))
    assert f"learned rules; {mirror} mirrors {source}" in knowing.log
    assert learning.items == knowing.items == []
    # The learning crawl fetched evidence first; the second skips from its first request on:
    # what it fetches again are the pages the first one fetched (re-visits of a URL are
    # never skipped) and its samples.
    assert knowing.stats["item_dropped_count"] <= learning.stats["item_dropped_count"]
    learned_skips = learning.simdedup()["simdedup/url/skipped/mirror"]
    assert knowing.simdedup()["simdedup/url/skipped/mirror"] >= 0.85 * learned_skips > 30


def test_strict_mode_skips_by_url_alone(
    trap_sites: dict[str, str], baseline: Crawl, tmp_path: Path
) -> None:
    crawl = run_crawl(
        [trap_sites["original"]], tmp_path / "feed.jsonl",
        "-s", f"SIMDEDUP_DIR={tmp_path}",
        "-s", "SIMDEDUP_URL_MODE=strict", "-s", "SIMDEDUP_URL_MAX_DISTANCE=6",
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    stats = crawl.simdedup()
    assert stats["simdedup/url/skipped/strict"] > 0
    assert "simdedup/url/mirror_hosts" in stats and stats["simdedup/url/mirror_hosts"] == 0
