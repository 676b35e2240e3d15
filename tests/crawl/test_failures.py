"""Faults during real crawls: a second crawl on a held folder, kill -9, a full disk.

Each crash runs `scrapy crawl` in a subprocess against the demo sites on 127.0.0.1,
bounded in time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from itemadapter import ItemAdapter

from scrapy_simdedup.fingerprint.helper.policy import cores_available
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.itemtext import item_text
from tests.support import processes
from tests.support.crawls import (
    DEMO,
    ROOT,
    content_of,
    crawl_command,
    crawl_env,
    feed_lines,
    helper_pids,
    parse,
    run_crawl,
    running,
    serve_sites,
)
from tests.support.waits import wait_until

# Real crawls (subprocesses with their own deadlines) take longer than the suite's
# default limit.
pytestmark = pytest.mark.timeout(900)

SLOW = ["-s", "DOWNLOAD_DELAY=0.1", "-s", "CONCURRENT_REQUESTS=1"]


@pytest.fixture(scope="module")
def sites() -> Iterator[dict[str, str]]:
    with serve_sites() as urls:
        yield urls


def _start(starts: list[str], feed: Path, *args: str) -> subprocess.Popen[str]:
    return processes.popen(
        crawl_command(starts, feed, *args), cwd=DEMO, env=crawl_env(),
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _wait_for_items(feed: Path, count: int) -> None:
    wait_until(lambda: feed_lines(feed) >= count, 120, f"{count} items in the feed")


def test_second_crawl_on_a_held_folder_stops_before_fetching(
    sites: dict[str, str], tmp_path: Path
) -> None:
    folder = ["-s", f"SIMDEDUP_DIR={tmp_path / 'index'}"]
    first = _start([sites["original"]], tmp_path / "first.jsonl", *folder, *SLOW)
    _wait_for_items(tmp_path / "first.jsonl", 3)
    second = run_crawl([sites["original"]], tmp_path / "second.jsonl", *folder)
    log = first.communicate(timeout=240)[1]
    first_crawl = parse(first.returncode, log, tmp_path / "first.jsonl")

    assert second.returncode != 0
    errors = [line for line in second.log.splitlines() if "simdedup: cannot open" in line]
    assert len(errors) == 1, second.log[-3000:]
    assert str(tmp_path / "index" / "pages") in errors[0]
    assert "Redis store" in errors[0]
    assert "Crawled (" not in second.log
    assert second.items == []
    # The first crawl is unaffected: it finished and kept every page of its site.
    assert first_crawl.returncode == 0
    assert first_crawl.stats["finish_reason"] == "finished"
    contents = content_of({"original": sites["original"]})
    assert {contents[item["url"]] for item in first_crawl.items} == set(contents.values())


def test_second_crawler_in_one_process_stops_before_fetching(
    sites: dict[str, str], tmp_path: Path
) -> None:
    feeds = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    done = processes.run(
        [sys.executable, "-m", "tests.support.twocrawlers", sites["original"], str(tmp_path),
         *feeds],
        cwd=ROOT, env=crawl_env(), capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    first, second = json.loads(done.stdout.splitlines()[-1])
    assert done.returncode != 0
    assert first["finish_reason"] == "finished"
    assert first["scraped"] == len(set(content_of({"original": sites["original"]}).values()))
    assert second["requests"] == 0
    assert second["scraped"] == 0
    errors = [line for line in done.stderr.splitlines() if "simdedup: cannot open" in line]
    assert len(errors) == 1
    assert "in use by another crawler in this process" in errors[0]


def test_kill_9_then_resume_loses_no_page(sites: dict[str, str], tmp_path: Path) -> None:
    feed = tmp_path / "feed.jsonl"
    args = ["-s", f"JOBDIR={tmp_path / 'job'}", "-s", f"SIMDEDUP_DIR={tmp_path / 'index'}", *SLOW]
    starts = list(sites.values())
    first = _start(starts, feed, *args)
    _wait_for_items(feed, 20)
    helpers = helper_pids(first.pid)
    assert len(helpers) == (cores_available() > 1)
    first.kill()  # SIGKILL: no close, no flush of Scrapy's or our state
    first.communicate(timeout=60)
    killed_at = feed_lines(feed)
    # Its input closed with the crawl, the fingerprint helper exits by itself.
    wait_until(lambda: not any(map(running, helpers)), 30, "the orphaned helper to exit")

    resumed = run_crawl(starts, feed, *args)
    assert resumed.returncode == 0, resumed.log[-3000:]
    assert "damaged" not in resumed.log  # the store opened as it was, without repair
    contents = content_of(sites)
    # The feed holds both runs: every distinct page appears at least once.
    assert {contents[item["url"]] for item in resumed.items} == set(contents.values())
    assert len(resumed.items) > killed_at >= 20
    with open_index(tmp_path / "index" / "pages") as index:
        assert index.verify().consistent


def _mount_tmpfs(where: Path, size: str) -> None:
    where.mkdir()
    done = processes.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs needs root: {done.stderr.strip()}")


def _fill(disk: Path) -> Path:
    """Write until the device is full; the file is the space to free later."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == 28  # ENOSPC
    finally:
        os.close(fd)
    return filler


def test_full_disk_closes_the_crawl_and_keeps_acknowledged_entries(
    sites: dict[str, str], tmp_path: Path
) -> None:

    disk = tmp_path / "disk"
    _mount_tmpfs(disk, "4m")
    try:
        feed = tmp_path / "feed.jsonl"
        crawl = _start(list(sites.values()), feed, "-s", f"SIMDEDUP_DIR={disk}", *SLOW)
        _wait_for_items(feed, 10)
        filler = _fill(disk)
        log = crawl.communicate(timeout=240)[1]
        result = parse(crawl.returncode, log, feed)

        assert result.stats["finish_reason"] == "simdedup_store_error", log[-3000:]
        errors = [line for line in log.splitlines() if " ERROR: " in line]
        assert len(errors) == 1 and "No space left on device" in errors[0]
        assert "Traceback" not in log
        filler.unlink()  # space freed
        # Items are scraped in order (one request at a time): the first `unique` of them
        # were acknowledged by the store, the rest passed unchecked after the failure.
        acknowledged = result.items[: result.stats["simdedup/content/unique"]]
        assert len(acknowledged) >= 10
        with open_index(disk / "pages") as index:
            assert index.verify().consistent
            for item in acknowledged:
                text = item_text(ItemAdapter(item), ("title", "text"), 300_000).text
                fingerprint = index.fingerprint_text(text)
                if fingerprint.simhash is None:
                    assert index.exact_or_add(fingerprint.exact, item["url"]) == item["url"]
                else:
                    stored = index.document(item["url"])
                    assert stored is not None and stored.fingerprint == fingerprint.simhash
    finally:
        processes.run(["umount", "-l", str(disk)], check=False, timeout=60)
