"""scrapy-redis: RedisSpider workers on one Redis queue and dupefilter, the plugin's index on
the same Redis (issue 35), against plain scrapy-redis on the same site in the same run.

The site is the demo's trap site: an original, its mirror, a partial mirror, every page
linked again with a session id, index pages with sort orders. Each worker closes by itself
(MAX_IDLE_TIME_BEFORE_CLOSE); a run that does not is killed at its deadline and fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.crawls import build_sites, serve_sites
from tests.support.redisworkers import Run, contents_of, kept_contents, run_workers

pytestmark = pytest.mark.timeout(1800)

AVOIDED_SHARE = 0.7
"""Two workers avoid at least this share of the fetches one worker avoids (measured over ten
runs: 0.82 to 1.03, median about 0.92). Not always all: until a rule is learned, two
workers fetch copies twice as fast as one, and the order in which a loaded machine serves
the site moves either figure by 10-20% from run to run."""


def test_two_workers_keep_every_page_and_avoid_fetches_like_one(
    redis_url: str, tmp_path: Path
) -> None:
    built = build_sites(traps=True)
    sites = {name: built[name] for name in ("original", "mirror", "partial")}
    with serve_sites(sites) as served:
        plain = run_workers(redis_url, served, tmp_path, "plain", workers=1, plugin=False)
        one = run_workers(redis_url, served, tmp_path, "one", workers=1, plugin=True)
        two = run_workers(redis_url, served, tmp_path, "two", workers=2, plugin=True)
    for run in (plain, one, two):
        for crawl in run.workers:
            assert crawl.returncode == 0, crawl.log[-3000:]
            assert "Traceback" not in crawl.log, crawl.log[-3000:]
            assert crawl.stats.get("finish_reason") == "finished", crawl.log[-3000:]
    contents = contents_of(sites, served)
    distinct = kept_contents(plain.items(), contents)
    assert len(distinct) >= 100, "plain scrapy-redis crawled the site"
    for run in (one, two):
        assert distinct <= kept_contents(run.items(), contents)  # no distinct page lost
    _no_reissue_dropped(one)
    _no_reissue_dropped(two)
    _one_crawl(two)
    fetched = {name: run.total("downloader/request_count") for name, run in
               (("plain", plain), ("one", one), ("two", two))}  # fmt: skip
    avoided_one = fetched["plain"] - fetched["one"]
    avoided_two = fetched["plain"] - fetched["two"]
    print("fetches:", fetched, "avoided by one worker:", avoided_one, "by two:", avoided_two)
    assert avoided_one > 0
    assert avoided_two >= AVOIDED_SHARE * avoided_one, fetched


def _no_reissue_dropped(run: Run) -> None:
    """Every re-issued request reached the downloader: none was refused by scrapy-redis's
    dupefilter (the scheduler's ``request_dropped``), each went on its way to the
    downloader (counted there; a retry or a redirect hop of one is counted again)."""
    assert run.total("simdedup/url/reissued_dropped") == 0
    reissued = run.totals("simdedup/url/reissued/")
    assert run.total("simdedup/url/unchecked/reissued") >= reissued


def _one_crawl(run: Run) -> None:
    """Two workers are one crawl: one started it, the other joined; neither counts the
    other's fetches as fetched before, nor keeps a page the other kept as a re-visit."""
    logs = [crawl.log for crawl in run.workers]
    assert sum("started by this worker" in log for log in logs) == 1, logs[0][-2000:]
    assert sum("simdedup: joined crawl" in log for log in logs) == 1, logs[1][-2000:]
    for log in logs:
        assert "URL mode adaptive, 0 URLs fetched before" in log
    assert run.total("simdedup/content/revisits") == 0
    urls = [str(item["url"]) for item in run.items()]
    assert len(urls) == len(set(urls)), "a page kept twice"
