"""A crawl's feed read as the pipeline reads items: page key -> text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scrapy_simdedup.audit.feed import feed_texts


def test_json_lines_and_a_json_array_read_alike(tmp_path: Path) -> None:
    items = [
        {"url": "http://a.example/1", "title": "One", "text": "<p>First <b>page</b></p>"},
        {"url": "http://a.example/1", "title": "Again", "text": "a second item of a key"},
        {"url": "http://a.example/2", "title": "Title only"},
        {"title": "no key", "text": "never shown"},
    ]
    lines, array = tmp_path / "items.jsonl", tmp_path / "items.json"
    lines.write_text("".join(json.dumps(item) + "\n" for item in items), "utf-8")
    array.write_text(json.dumps(items), "utf-8")
    for feed in (lines, array):
        texts = feed_texts(feed, ("title", "text"), "url", main=False)
        assert texts == {"http://a.example/1": "One\nFirst page"}


def test_a_file_that_is_no_feed_is_refused_with_a_hint(tmp_path: Path) -> None:
    feed = tmp_path / "items.csv"
    feed.write_text("url,title\nhttp://a.example/1,One\n", "utf-8")
    with pytest.raises(ValueError, match=r"items.csv is not a JSON-lines or JSON feed.*--feed"):
        feed_texts(feed, ("title", "text"), "url")
