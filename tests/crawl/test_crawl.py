"""Real crawls of the demo project against the demo sites on 127.0.0.1."""

from __future__ import annotations

import signal
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scrapy_simdedup.fingerprint.helper.policy import cores_available
from tests.support import processes
from tests.support.crawls import (
    DEMO,
    Crawl,
    content_of,
    crawl_command,
    crawl_env,
    feed_lines,
    parse,
    run_crawl,
    serve_sites,
)
from tests.support.loadedmodules import FINGERPRINTED_HERE, GC_FROZEN, NUMPY_LOADED
from tests.support.waits import wait_until

# Real crawls (subprocesses with their own deadlines) take longer than the suite's
# default limit.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def sites() -> Iterator[dict[str, str]]:
    with serve_sites() as urls:
        yield urls


def _kept(items: list[dict[str, object]], contents: dict[str, str]) -> Counter[str]:
    return Counter(contents[str(item["url"])] for item in items)


def _reissued(stats: dict[str, Any]) -> int:
    """Skips re-issued: fetched after all, and then counted as dropped or kept too."""
    return sum(n for key, n in stats.items() if key.startswith("simdedup/url/reissued/"))


TWO_CORES = cores_available() > 1


@pytest.mark.parametrize("helper", [True, False], ids=["helper-process", "in-process"])
def test_demo_crawl_keeps_one_page_per_content(
    sites: dict[str, str], tmp_path: Path, helper: bool
) -> None:
    crawl = run_crawl(
        list(sites.values()), tmp_path / "feed.jsonl", "-s", f"SIMDEDUP_DIR={tmp_path}",
        "-s", f"SIMDEDUP_FINGERPRINT_PROCESS={helper}",
        "-s", 'EXTENSIONS={"tests.support.loadedmodules.LoadedModules": 0}',
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert "ScrapyDeprecationWarning" not in crawl.log
    by_helper = crawl.simdedup().get("simdedup/content/helper_fingerprints", 0)
    assert (by_helper > 0) == (helper and TWO_CORES)
    # Fingerprints made by the helper: the crawl's process never loads numpy (its import
    # and its objects, walked by every full garbage collection, are the helper's alone),
    # unless it fingerprinted texts itself (all of them in-process; with the helper, those
    # that came while it started or held 64 texts).
    here = crawl.stats.get(FINGERPRINTED_HERE, 0)
    assert here > 0 or helper
    assert crawl.stats[NUMPY_LOADED] == (here > 0), (by_helper, here)
    # What existed when the engine started is out of the collector's walks (SIMDEDUP_GC_FREEZE)
    assert crawl.stats[GC_FROZEN] > 10_000
    _assert_one_page_per_content(crawl, sites)
    # Skips are no downloader errors: the demo's sites fail no download, so whatever the
    # URL middleware skipped (how much depends on the order pages come in), none is counted.
    errors = {k: v for k, v in crawl.stats.items() if k.startswith("downloader/exception")}
    assert errors == {}, (errors, crawl.simdedup().get("simdedup/url/skipped/mirror", 0))


def test_a_killed_helper_process_loses_nothing(sites: dict[str, str], tmp_path: Path) -> None:
    if not TWO_CORES:
        pytest.skip("one CPU core: the pipeline starts no helper process")
    crawl = run_crawl(
        list(sites.values()), tmp_path / "feed.jsonl", "-s", f"SIMDEDUP_DIR={tmp_path}",
        "-s", 'ITEM_PIPELINES={"scrapy_simdedup.ContentSeenPipeline": 100, '
        '"tests.support.killhelper.KillHelper": 200}', "-s", "KILL_HELPER_AFTER=10",
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert crawl.log.count("the fingerprint helper process stopped: it exited") == 1
    # Texts it held when it died, and every later one, were fingerprinted in-process.
    by_helper = crawl.simdedup()["simdedup/content/helper_fingerprints"]
    assert 0 < by_helper < crawl.simdedup()["simdedup/content/unique"]
    _assert_one_page_per_content(crawl, sites)


def test_a_stuck_helper_process_does_not_hang_the_crawl(
    sites: dict[str, str], tmp_path: Path
) -> None:
    """Alive but silent (SIGSTOP): its texts are given up after the reply deadline."""
    if not TWO_CORES:
        pytest.skip("one CPU core: the pipeline starts no helper process")
    crawl = run_crawl(
        list(sites.values()), tmp_path / "feed.jsonl", "-s", f"SIMDEDUP_DIR={tmp_path}",
        "-s", 'ITEM_PIPELINES={"scrapy_simdedup.ContentSeenPipeline": 100, '
        '"tests.support.killhelper.KillHelper": 200}', "-s", "KILL_HELPER_AFTER=10",
        "-s", "KILL_HELPER_SIGNAL=SIGSTOP",
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert crawl.log.count("the fingerprint helper process stopped: it stopped answering") == 1
    _assert_one_page_per_content(crawl, sites)


def _assert_one_page_per_content(crawl: Crawl, sites: dict[str, str]) -> None:
    contents = content_of(sites)
    kept = _kept(crawl.items, contents)
    assert set(kept) == set(contents.values())  # no distinct page lost
    assert [c for c, n in kept.items() if n > 1] == []  # no copy kept
    stats = crawl.simdedup()
    dropped = crawl.stats["item_dropped_reasons_count/NearDuplicateItem"]
    assert stats["simdedup/content/dropped"] == dropped == crawl.stats["item_dropped_count"]
    assert stats["simdedup/content/checked"] == dropped + crawl.stats["item_scraped_count"]
    assert stats["simdedup/content/unique"] == len(kept)
    assert (
        f"simdedup: {stats['simdedup/content/checked']:,} pages checked, {dropped:,} near"
        in crawl.log
    )
    _assert_each_judged_request_checked_once(crawl)


def _assert_each_judged_request_checked_once(crawl: Crawl) -> None:
    """``simdedup/url/checked`` reads as named: every request the URL judge decided on,
    skipped or sent to download, once; exempt ones (start URLs) are ``unchecked``."""
    stats = crawl.simdedup()
    skipped = sum(n for key, n in stats.items() if key.startswith("simdedup/url/skipped/"))
    exempt = sum(n for key, n in stats.items() if key.startswith("simdedup/url/unchecked/"))
    downloaded = crawl.stats["downloader/request_count"]
    assert stats["simdedup/url/checked"] + exempt == downloaded + skipped


def test_second_crawl_drops_what_the_first_stored(sites: dict[str, str], tmp_path: Path) -> None:
    folder = ["-s", f"SIMDEDUP_DIR={tmp_path}"]
    first = run_crawl([sites["original"]], tmp_path / "first.jsonl", *folder)
    second = run_crawl([sites["mirror"]], tmp_path / "second.jsonl", *folder)
    assert first.returncode == second.returncode == 0
    assert len(first.items) > 40
    assert second.items == []
    # Each mirror page is dropped, or skipped before download once the URL middleware has
    # seen enough of them copy the original pages fetched by the first crawl.
    skipped = second.simdedup().get("simdedup/url/skipped/mirror", 0)
    reissued = _reissued(second.simdedup())  # skips fetched after all (their bet was lost)
    assert second.stats["item_dropped_count"] + skipped - reissued == len(first.items)
    assert second.simdedup()["simdedup/index/size"] > 0


def test_interrupted_and_resumed_crawl_emits_each_page_once(
    sites: dict[str, str], tmp_path: Path
) -> None:
    feed = tmp_path / "feed.jsonl"
    args = [
        "-s", f"JOBDIR={tmp_path / 'job'}", "-s", f"SIMDEDUP_DIR={tmp_path / 'index'}",
        "-s", "DOWNLOAD_DELAY=0.15", "-s", "CONCURRENT_REQUESTS=1",
    ]  # fmt: skip
    starts = list(sites.values())
    first = processes.popen(
        crawl_command(starts, feed, *args), cwd=DEMO, env=crawl_env(),
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    wait_until(lambda: feed_lines(feed) >= 15, 120, "15 items in the feed")
    first.send_signal(signal.SIGINT)
    _, log = first.communicate(timeout=120)
    interrupted = parse(first.returncode, log, feed)
    assert interrupted.stats.get("finish_reason") == "shutdown", log[-2000:]
    resumed = run_crawl(starts, feed, *args)
    assert resumed.returncode == 0, resumed.log[-2000:]
    contents = content_of(sites)
    kept = _kept(resumed.items, contents)  # the feed holds both runs' items
    assert set(kept) == set(contents.values())
    assert [c for c, n in kept.items() if n > 1] == []
    assert 0 < len(interrupted.items) < len(resumed.items)
    # The resumed run's requests come from the JOBDIR queue, never scheduled in this run:
    # they are judged, and counted, on their way to the downloader.
    for run in (interrupted, resumed):
        _assert_each_judged_request_checked_once(run)


def test_annotate_mode_keeps_every_page(sites: dict[str, str], tmp_path: Path) -> None:
    crawl = run_crawl(
        [sites["original"], sites["mirror"]], tmp_path / "feed.jsonl",
        "-s", f"SIMDEDUP_DIR={tmp_path}", "-s", "SIMDEDUP_DROP=False",
    )  # fmt: skip
    contents = content_of(sites)
    clusters: dict[str, set[str]] = {}
    for item in crawl.items:
        clusters.setdefault(contents[item["url"]], set()).add(item["simdedup_cluster"])
    assert crawl.stats.get("item_dropped_count", 0) == 0
    assert all(len(found) == 1 for found in clusters.values())  # one cluster per content
    assert crawl.simdedup()["simdedup/content/annotated"] == len(crawl.items) - len(clusters)


def test_disabled_plugin_changes_nothing(sites: dict[str, str], tmp_path: Path) -> None:
    crawl = run_crawl(
        [sites["original"], sites["mirror"]],
        tmp_path / "feed.jsonl",
        "-s",
        "SIMDEDUP_ENABLED=False",
        "-s",
        'EXTENSIONS={"tests.support.loadedmodules.LoadedModules": 0}',
    )
    assert crawl.returncode == 0
    assert crawl.simdedup() == {}
    assert crawl.stats[GC_FROZEN] == 0  # the collector is left alone
    assert len(crawl.items) == 2 * len(content_of({"original": sites["original"]}))


def test_addon_turns_it_on(sites: dict[str, str], tmp_path: Path) -> None:
    crawl = run_crawl(
        [sites["original"], sites["mirror"]], tmp_path / "feed.jsonl",
        "-s", "ITEM_PIPELINES={}", "-s", 'ADDONS={"scrapy_simdedup.Addon": 0}',
        "-s", f"SIMDEDUP_DIR={tmp_path}",
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-2000:]
    counts = crawl.simdedup()
    skipped = sum(n for key, n in counts.items() if key.startswith("simdedup/url/skipped/"))
    # The URL middleware is on too (whether it learns the mirror before the mirror's pages
    # are fetched depends on timing): each mirror page is skipped before download or dropped.
    assert counts.get("simdedup/url/checked", 0) > 0
    assert counts["simdedup/content/dropped"] + skipped - _reissued(counts) == len(crawl.items)
    crawled = content_of({name: sites[name] for name in ("original", "mirror")})
    assert set(crawled.values()) == {crawled[item["url"]] for item in crawl.items}


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "SIMDEDUP_CONTENT_MAX_DISTANSE=2",
            "SIMDEDUP_CONTENT_MAX_DISTANSE is not a scrapy-simdedup setting; did you mean "
            "SIMDEDUP_CONTENT_MAX_DISTANCE?",
        ),
        (
            "SIMDEDUP_CONFIRM_SIMILARITY=80",
            "SIMDEDUP_CONFIRM_SIMILARITY must be between 0.0 and 1.0; got 80.0.",
        ),
    ],
)
def test_invalid_setting_stops_before_fetching_with_one_error_line(
    sites: dict[str, str], tmp_path: Path, setting: str, message: str
) -> None:
    crawl = run_crawl(
        [sites["original"]], tmp_path / "feed.jsonl", "-s", setting,
        "-s", f"SIMDEDUP_DIR={tmp_path}",
    )  # fmt: skip
    assert crawl.returncode == 1
    problems = [
        line for line in crawl.log.splitlines()
        if " ERROR: " in line or " CRITICAL: " in line or "Traceback" in line
    ]  # fmt: skip
    assert problems == [
        f"{problems[0][:19]} [scrapy_simdedup.scrapy_layer.startup] ERROR: simdedup: {message} "
        "Fix it in settings.py, the spider's custom_settings or the -s option; the crawl stopped "
        "before fetching anything."
    ]
    assert "Task exception was never retrieved" not in crawl.log
    assert "Crawled (200)" not in crawl.log
