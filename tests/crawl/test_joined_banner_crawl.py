"""A real crawl with a spider that joins each page's paragraphs, its footer's banner with them.

The banner ("generated at ..., view #...") is a sentence of its own on most pages, and
learned as the site's template: a page whose banner alone differs is dropped. Lines with a
date are counted in the site's template by their masked figures: a last sentence the banner
joined (four pages that differ in its own figure), and a daily report's one line beside a
description every day repeats. Their third and fourth pages were dropped; all are kept,
beside plain Scrapy, which keeps every page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scrapy_simdedup.index.opening import open_index
from tests.support.crawls import crawl_listed_pages
from tests.support.htmlsite import serve_html
from tests.support.joinedbanner import articles, html_page, paragraphs

pytestmark = pytest.mark.timeout(600)


def _site() -> tuple[dict[str, str], dict[str, int], set[str]]:
    """path -> HTML, path -> priority (the site's pages with a banner of their own first),
    and the paths of the copies."""
    docs = articles(6)
    pages: dict[str, str] = {}
    priority: dict[str, int] = {}

    def page(path: str, article: list[str], view: int, rank: int, last: str | None = None) -> None:
        pages[path] = html_page(f"Page {path}", paragraphs(article, last), view)
        priority[path] = rank

    for n in (1, 2, 3):  # their last paragraph ends with a full stop: the banner stands alone
        page(f"/doc/{n}", docs[n], 10 + n, 10, last=docs[n][-1])
    page("/doc/1?print=1", docs[1], 21, 1, last=docs[1][-1])  # a copy: its banner's figures
    items = "{} The call returns the remaining {} items:"
    for n, count in enumerate((12, 14, 16, 18)):  # a figure of their own before the banner
        page(f"/doc/4?v={n}", docs[4], 30 + n, 8 - n, last=items.format(docs[4][-1], count))
    report = "On 2026-11-0{} the high was {} degrees and the low {} degrees, with winds of {} km/h."
    for day, high, low, wind in ((1, 12, 5, 20), (2, 14, 6, 25), (3, 9, 2, 40), (4, 16, 8, 10)):
        # a daily report: one line of its own beside a description every day repeats
        page(
            f"/day/{day}",
            [report.format(day, high, low, wind), *docs[5]],
            40 + day,
            5 - day,
            last=docs[5][-1],
        )
    return pages, priority, {"/doc/1?print=1"}


def test_pages_differing_before_a_joined_banner_are_kept_and_a_copy_dropped(
    tmp_path: Path,
) -> None:
    pages, priority, copies = _site()
    open_index(tmp_path / "index" / "realpages", seed=1).close()  # the spider's store
    with serve_html(pages) as url:
        listed = tmp_path / "pages.json"
        listed.write_text(json.dumps([[url + path.lstrip("/"), priority[path]] for path in pages]))
        plugin = crawl_listed_pages(
            tmp_path, "plugin", listed, 'ADDONS={"scrapy_simdedup.Addon": 0}',
            f"SIMDEDUP_DIR={tmp_path / 'index'}", text="paragraphs",
        )  # fmt: skip
        plain = crawl_listed_pages(tmp_path, "plain", listed, text="paragraphs")
    every = {url + path.lstrip("/") for path in pages}
    assert {item["url"] for item in plain.items} == every
    kept = {item["url"] for item in plugin.items}
    assert kept == every - {url + path.lstrip("/") for path in copies}, plugin.simdedup()
    assert plugin.simdedup()["simdedup/content/dropped"] == len(copies)
