"""A real crawl of real pages (issue 57): the originals of three sites per language first,
then their reprints in other real sites' pages, which must be dropped, and pages that share
a stored page's chrome or first paragraph, which must be kept.

The pages are ``tests/fixtures/realpages/`` (``tests/support/realpagesite.py``), each host
label served on its own port. ``scrapy runspider tests/support/realpagespider.py`` runs in a
subprocess: one request at a time on Scrapy's priority queue, the originals first, then the
pages that must be kept (each site's own), then the copies, each page's HTML an item. The
plugin runs at its defaults (``ADDONS``: the pipeline and the URL middleware); plain Scrapy
crawls the same pages beside it. A failure names each page concerned with its verdicts
(``SIMDEDUP_VERDICT_LOG``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from scrapy_simdedup.index.opening import open_index
from tests.support.crawls import Crawl, crawl_listed_pages
from tests.support.realpagesite import (
    COPY_ROLES,
    KEEP_ROLES,
    RealPage,
    real_pages,
    serve_real_pages,
)

pytestmark = pytest.mark.timeout(900)

SEED = 1  # the store's seed: the same fingerprints on every run
ORIGINAL_PRIORITY = 10
PRIORITY = {"original": ORIGINAL_PRIORITY, **dict.fromkeys(KEEP_ROLES, 5)}
"""The originals first, then each site's own pages, then the copies: a portal is crawled
with its own pages, so its chrome is on one of its stored pages before its reprints come."""
PLUGIN = ('ADDONS={"scrapy_simdedup.Addon": 0}',)


@dataclass
class Crawled:
    """Both crawls of the same pages, and the plugin's verdict log."""

    pages: list[RealPage]
    urls: dict[str, str]  # file -> URL
    plugin: Crawl
    plain: Crawl
    verdicts: list[dict[str, Any]]

    def url(self, page: RealPage) -> str:
        return self.urls[page.file]

    def of(self, *roles: str) -> list[RealPage]:
        return [page for page in self.pages if page.role in roles]

    def kept(self, crawl: Crawl) -> list[str]:
        """The feed's URLs, in feed order."""
        return [str(item["url"]) for item in crawl.items]

    def verdicts_on(self, page: RealPage) -> list[dict[str, Any]]:
        url = self.url(page)
        return [{k: v for k, v in line.items() if k != "time"} for line in self.verdicts
                if url in (line.get("key"), line.get("url"))]  # fmt: skip

    def described(self, pages: list[RealPage]) -> str:
        """Each page's file, role, URL and verdicts: for a failure's message."""
        return "\n".join(
            f"{page.file} ({page.role} of {page.original}) {self.url(page)}: "
            f"{self.verdicts_on(page) or 'no verdict logged'}"
            for page in pages
        )


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawled]:
    """The plugin's crawl (a new store of ``SEED``, with its verdict log) and plain
    Scrapy's, of every fixture page."""
    folder = tmp_path_factory.mktemp("realpages")
    pages = real_pages()
    open_index(folder / "index" / "realpages", seed=SEED).close()
    log = folder / "verdicts.jsonl"
    with serve_real_pages(pages) as urls:
        listed = folder / "pages.json"
        priority = {page.file: PRIORITY.get(page.role, 0) for page in pages}
        listed.write_text(json.dumps([[urls[p.file], priority[p.file]] for p in pages]))
        plugin = crawl_listed_pages(
            folder, "plugin", listed, *PLUGIN, f"SIMDEDUP_DIR={folder / 'index'}",
            f"SIMDEDUP_VERDICT_LOG={log}",
        )  # fmt: skip
        plain = crawl_listed_pages(folder, "plain", listed)
    verdicts = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    yield Crawled(pages, urls, plugin, plain, verdicts)


def test_the_crawls_meet_every_page_once_and_the_originals_first(crawled: Crawled) -> None:
    originals = {crawled.url(page) for page in crawled.of("original")}
    for crawl in (crawled.plugin, crawled.plain):
        assert crawl.stats["finish_reason"] == "finished"
        kept = crawled.kept(crawl)
        assert len(kept) == len(set(kept))  # one item per page
        assert set(kept[: len(originals)]) == originals, kept
    assert crawled.plain.stats["downloader/response_status_count/200"] == len(crawled.pages)
    # The plugin's crawl fetched each page, or skipped it before download on a bet that held.
    stats = crawled.plugin.simdedup()
    skipped = sum(n for key, n in stats.items() if key.startswith("simdedup/url/skipped/"))
    reissued = sum(n for key, n in stats.items() if key.startswith("simdedup/url/reissued/"))
    fetched = crawled.plugin.stats["downloader/response_status_count/200"]
    assert fetched + skipped - reissued == len(crawled.pages), stats


def test_plain_scrapy_keeps_every_page(crawled: Crawled) -> None:
    assert sorted(crawled.kept(crawled.plain)) == sorted(crawled.urls.values())
    for item in crawled.plain.items:  # the page's HTML, as the plugin's crawl yields it
        assert "<html" in str(item["text"]).lower(), item["url"]


def test_every_original_is_kept(crawled: Crawled) -> None:
    kept = set(crawled.kept(crawled.plugin))
    lost = [page for page in crawled.of("original") if crawled.url(page) not in kept]
    assert lost == [], crawled.described(lost)


@pytest.mark.parametrize("role", KEEP_ROLES)
def test_pages_that_add_an_article_are_kept(crawled: Crawled, role: str) -> None:
    kept = set(crawled.kept(crawled.plugin))
    lost = [page for page in crawled.of(role) if crawled.url(page) not in kept]
    assert lost == [], crawled.described(lost)


MIN_DROPPED = {"reprint": 6, "cut": 6}
"""Of the six copies of each kind, how many the judge drops on these pages (issue 57: 95% is
the target on the benchmark's held-out sites). One reprint carries the three lines of its
original's "Story Timeline" box as text; the original's extract left them out (they were
links there), and its page showed them all the same (``fingerprint/payload.py``)."""


@pytest.mark.parametrize("role", COPY_ROLES)
def test_reprints_are_dropped_as_copies_of_their_original(crawled: Crawled, role: str) -> None:
    kept = set(crawled.kept(crawled.plugin))
    copies = crawled.of(role)
    copies_kept = [page for page in copies if crawled.url(page) in kept]
    assert len(copies) - len(copies_kept) >= MIN_DROPPED[role], crawled.described(copies_kept)
    files = {crawled.url(page): page.file for page in crawled.pages}
    dropped = {
        files[line["key"]]: files.get(line["original"])
        for line in crawled.verdicts
        if line["event"] == "dropped"
    }
    # Each copy dropped is dropped for the page it copies, or for a copy of it kept.
    copied = {page.file: page.original for page in crawled.pages}
    for page in copies:
        if page.file in dropped:
            assert page.original in (dropped[page.file], copied.get(dropped[page.file])), (
                crawled.described([page])
            )


def test_the_stats_count_one_drop_for_each_page_dropped(crawled: Crawled) -> None:
    stats = crawled.plugin.simdedup()
    dropped = len(crawled.pages) - len(crawled.kept(crawled.plugin))
    assert stats.get("simdedup/content/dropped", 0) == dropped >= sum(MIN_DROPPED.values()), (
        f"{stats}\n{crawled.described(crawled.of(*COPY_ROLES))}"
    )


def test_the_plugin_keeps_every_page_plain_scrapy_keeps_but_the_reprints(
    crawled: Crawled,
) -> None:
    copies = {crawled.url(page) for page in crawled.of(*COPY_ROLES)}
    lost = set(crawled.kept(crawled.plain)) - copies - set(crawled.kept(crawled.plugin))
    by_url = {crawled.url(page): page for page in crawled.pages}
    assert lost == set(), crawled.described([by_url[url] for url in sorted(lost)])
