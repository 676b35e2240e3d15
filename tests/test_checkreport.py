"""``scrapy simdedup check``'s lines: the verdict log's path as the crawl writes it."""

from __future__ import annotations

import pytest

from scrapy_simdedup.scrapy_layer.checkreport import verdict_log_line


@pytest.mark.parametrize(
    ("template", "spider", "expected"),
    [
        (None, "news", "off (SIMDEDUP_VERDICT_LOG)"),
        ("verdicts-%(name)s.jsonl", "news", "verdicts-news.jsonl"),
        ("v.jsonl", None, "v.jsonl (name the spider to see the path its crawl writes)"),
    ],
)
def test_verdict_log_line(template: str | None, spider: str | None, expected: str) -> None:
    assert verdict_log_line(template, spider) == expected


def test_a_timed_log_is_one_file_per_crawl() -> None:
    line = verdict_log_line("logs/%(name)s-%(time)s.jsonl", "news")
    assert line.startswith("logs/news-20") and "%(" not in line
    assert line.endswith("the time being the crawl's start (a new file per crawl)")
