"""Hostile and odd input through a real crawl: the crawl finishes, nothing raises out of
our components, every skip is counted by its reason, and no page is lost."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tests.support import processes
from tests.support.crawls import DEMO, ROOT, Crawl, crawl_env, parse, scrapy_command
from tests.support.hostilesite import build_pages, serve_hostile

# Real crawls (subprocesses with their own deadlines) take longer than the suite's
# default limit.
pytestmark = pytest.mark.timeout(900)


CODECS = ("gbk", "big5", "shift_jis", "utf-16")


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawl]:
    folder = tmp_path_factory.mktemp("hostile")
    feed = folder / "feed.jsonl"
    with serve_hostile() as site:
        done = processes.run(
            scrapy_command(
                "runspider", str(ROOT / "tests" / "support" / "hostilespider.py"),
                "-a", f"site={site}",
                "-o", f"{feed}:jsonl", "-s", f"SIMDEDUP_DIR={folder / 'index'}",
                "-s", "LOG_LEVEL=DEBUG",
            ),
            cwd=DEMO, env=crawl_env(), capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
    yield parse(done.returncode, done.stderr, feed)


def _paths(crawl: Crawl) -> set[str]:
    return {urlsplit(item["url"]).path for item in crawl.items}


def test_the_crawl_finishes_without_an_error(crawl: Crawl) -> None:
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert crawl.stats["finish_reason"] == "finished"
    # Scrapy may log a download error of its own (the 100 KB request line can be cut by
    # the server); nothing may come from our components, or from the pipeline chain.
    tracebacks = crawl.log.split("Traceback (most recent call last):")[1:]
    assert not [t for t in tracebacks if "scrapy_simdedup" in t.split("\n20")[0]]
    errors = [line for line in crawl.log.splitlines() if " ERROR: " in line]
    assert not [line for line in errors if "[scrapy_simdedup" in line]
    assert not [line for line in errors if "Error processing" in line or "signal handler" in line]
    stats = crawl.simdedup()
    # Every item reached a verdict: scraped (kept, or passed with a counted skip) or dropped.
    assert stats["simdedup/content/checked"] == (
        crawl.stats["item_scraped_count"] + crawl.stats["item_dropped_count"]
    )


def test_each_skip_is_counted_by_its_reason(crawl: Crawl) -> None:
    stats = crawl.simdedup()
    assert stats["simdedup/content/skipped/binary"] == 2  # PNG, PDF
    assert stats["simdedup/content/skipped/undetectable"] == 1  # random bytes sent as HTML
    assert stats["simdedup/content/skipped/no_text"] == 2  # empty body, blank page
    assert stats["simdedup/content/truncated"] == 2  # 50 MB page, 1 MB of CJK
    assert stats["simdedup/url/unchecked/too_long"] == 1  # the 100 KB URL
    assert stats["simdedup/url/unchecked/no_host"] == 1  # http:///...


def test_no_page_is_lost(crawl: Crawl) -> None:
    single = {path for path in build_pages() if not path.startswith("/enc/")} | {"/big.html"}
    assert single <= _paths(crawl)  # skipped pages pass through untouched
    odd = {path for path in _paths(crawl) if path.startswith("/odd/")}
    assert {"/odd/zone-id.html", "/odd/idn.html", "/odd/auth.html"} <= odd


@pytest.mark.parametrize("codec", CODECS)
def test_encodings_are_read_right_whatever_the_declaration(crawl: Crawl, codec: str) -> None:
    variants = {f"/enc/{codec}-{label}.html" for label in ("right", "wrong", "missing")}
    kept = variants & _paths(crawl)
    assert kept  # never all three lost
    # With its declaration right or missing, the page decodes to the same text: whichever
    # variant came first is kept, and the other is dropped as a copy of its own page.
    dropped = _dropped_as_copies(crawl)
    for path in {f"/enc/{codec}-right.html", f"/enc/{codec}-missing.html"} - kept:
        assert dropped[path] in variants
    assert len(kept & {f"/enc/{codec}-right.html", f"/enc/{codec}-missing.html"}) == 1 or (
        dropped[f"/enc/{codec}-right.html"] == dropped[f"/enc/{codec}-missing.html"]
    )


_DROP = re.compile(r"near-duplicate of (\S+) \(\d+ bits apart\): (\S+)")


def _dropped_as_copies(crawl: Crawl) -> dict[str, str]:
    """Dropped page's path -> the path of the page it copies, from the DEBUG log."""
    return {
        urlsplit(copy).path: urlsplit(original).path for original, copy in _DROP.findall(crawl.log)
    }
