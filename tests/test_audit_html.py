"""The HTML report: one self-contained page, every crawled text escaped."""

from __future__ import annotations

import itertools
import re
from typing import Any

from scrapy_simdedup.audit.bins import Histogram
from scrapy_simdedup.audit.charts import LABEL_CHAR_PX, bar_chart
from scrapy_simdedup.audit.html import NOT_IN_FEED, html_report
from scrapy_simdedup.audit.summary import summarise

CRAWL = {"event": "crawl", "spider": "pages", "confirm_similarity": 0.8, "content_max_distance": 3}
HOSTILE = '<script>alert("x")</script><img src="http://evil.example/x.png" onerror="alert(1)">'


def _records() -> list[dict[str, Any]]:
    copies = [
        {"event": "dropped", "key": f"http://m.example/{n}", "original": f"http://a.example/{n}",
         "found_by": "simhash", "distance": 1, "similarity": 0.95, "length_ratio": 1.0,
         "content_words": 120, "chrome_words": 4, "template_words": 0}
        for n in range(4)
    ]  # fmt: skip
    doubt = {"event": "unconfirmed", "key": "http://a.example/evil?<b>", "found_by": "simhash",
             "candidate": "http://a.example/0", "distance": 2, "similarity": 0.78,
             "adds_content": False, "length_ratio": 0.97, "novel_words": 3}  # fmt: skip
    return [CRAWL, *copies, doubt]


TEXTS = {
    "http://a.example/0": "Home > News\nThe river rose two metres overnight in the valley.",
    "http://a.example/evil?<b>": f"Home > News\nThe river rose three metres. {HOSTILE}",
}


def test_the_page_is_self_contained_and_escapes_crawled_text() -> None:
    page = html_report(summarise(_records()), TEXTS, source="verdicts-<pages>.jsonl")
    assert page.count("<script>") == 1  # the report's own, at the end
    assert "<script>alert" not in page and "<img" not in page and "<b>" not in page
    assert "&lt;" in page and "&quot;" in page  # shown as text, cut into marked words
    assert "verdicts-&lt;pages&gt;.jsonl" in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # Nothing is loaded: no src or href attribute anywhere (the SVG namespace is no load).
    assert not re.search(r"\s(src|href)=", page)


def test_charts_tables_and_the_side_by_side_view() -> None:
    page = html_report(summarise(_records()), TEXTS, source="v.jsonl")
    assert page.count('<svg class="chart"') == 2
    assert "m.example" in page and "serves copies of" in page  # the mirror host
    assert page.count("<section class='pair'>") == 5  # 1 kept, 4 dropped
    kept = page.split("<section class='pair'>")[1]
    assert "<mark>three</mark>" in kept and "<mark>two</mark>" in kept
    assert "class='line chrome'>Home &gt; News" in kept
    assert NOT_IN_FEED in page  # the dropped pages are not in the feed


def test_without_a_feed_the_pages_are_named_not_shown() -> None:
    page = html_report(summarise(_records()))
    assert "--feed FILE" in page and "class='sbs'" not in page


def test_a_chart_of_twenty_bins_prints_labels_that_do_not_overlap() -> None:
    # The similarity histogram's 20 labels ("0.80-0.85") printed on top of each other.
    edges = [n / 20 for n in range(21)]
    labels = [f"{edges[n]:.2f}-{edges[n + 1]:.2f}" for n in range(20)]
    chart = bar_chart(Histogram("similarity", labels, {"dropped": list(range(20))}), marker="t")
    ticks = re.findall(
        r'<text x="([\d.]+)" y="[\d.]+" class="tick" text-anchor="middle">([^<]+)<', chart
    )
    assert 5 <= len(ticks) < 20
    width = max(len(label) for label in labels) * LABEL_CHAR_PX
    positions = [float(x) for x, _ in ticks]
    assert all(b - a >= width for a, b in itertools.pairwise(positions)), positions
    assert all(f"dropped {label}: " in chart for label in labels)  # each bin still named


def test_the_url_rules_in_force_are_listed_with_their_bounds_escaped() -> None:
    rule = {"event": "url_rule", "rule": "mirror", "rule_name": f"m.example mirrors {HOSTILE}",
            "samples": 240, "new": 1, "bound": 0.0196, "why": f"{HOSTILE} copied more"}  # fmt: skip
    page = html_report(summarise([*_records(), rule]))
    listed = page.split("<h2>URL rules at the crawl's end</h2>")[1].split("<h2>")[0]
    assert "240 samples, 1 new: at most 2.0% of its skips differ" in listed
    assert "(the copy: " in listed and " copied more)" in listed
    assert "<script>alert" not in listed and "&lt;script&gt;" in listed
    assert "<p>none</p>" in html_report(summarise(_records())).split("crawl's end</h2>")[1][:20]
