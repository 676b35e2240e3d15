"""The verdict log's summary and report, on records as the crawl writes them."""

from __future__ import annotations

from typing import Any

import pytest

from scrapy_simdedup.audit.histogram import counts_in, histogram
from scrapy_simdedup.audit.records import url_requested_record, url_rule_record
from scrapy_simdedup.audit.report import report
from scrapy_simdedup.audit.summary import last_crawl, summarise
from scrapy_simdedup.audit.tuning import distance_advice, threshold_advice
from scrapy_simdedup.url.rules import Rule

CRAWL = {"event": "crawl", "spider": "pages", "confirm_similarity": 0.8, "content_max_distance": 3}


def _copy(key: str, original: str, **fields: Any) -> dict[str, Any]:
    return {"event": "dropped", "key": key, "original": original, "found_by": "simhash",
            "distance": 1, "similarity": 0.95, "length_ratio": 1.0, **fields}  # fmt: skip


def _doubt(key: str, candidate: str, similarity: float, **fields: Any) -> dict[str, Any]:
    return {"event": "unconfirmed", "key": key, "candidate": candidate, "found_by": "simhash",
            "distance": 2, "similarity": similarity, "adds_content": False,
            "length_ratio": 0.97, "novel_words": 0, **fields}  # fmt: skip


def _skip(url: str, counterpart: str) -> dict[str, Any]:
    return {"event": "url_skipped", "url": url, "rule": "mirror", "counterpart": counterpart,
            "rule_name": "m.example mirrors a.example"}  # fmt: skip


def test_histogram_bars_compare_across_columns_and_never_hide_a_count() -> None:
    rows = histogram(["0", "1", "2"], {"copies": [40, 1, 0], "unconfirmed": [0, 20, 0]}, width=8)
    assert rows[0].split() == ["copies", "unconfirmed"]
    assert rows[1].split() == ["0", "########", "40"]
    assert rows[2].split() == ["1", "#", "1", "####", "20"]
    assert rows[3] == "2"


def test_values_fall_in_half_open_bins_and_one_in_the_last() -> None:
    assert counts_in([0.0, 0.49, 0.5, 0.99, 1.0], [0.0, 0.5, 1.0]) == [2, 3]


def test_mirror_hosts_count_both_ways_and_leave_out_a_few_copies() -> None:
    records = [CRAWL]
    records += [_copy(f"http://m.example/{n}", f"http://a.example/{n}") for n in range(4)]
    records += [_copy("http://a.example/x", "http://m.example/x")]  # met on the mirror first
    records += [_skip(f"http://m.example/s{n}", f"http://a.example/s{n}") for n in range(3)]
    records += [_copy(f"http://b.example/{n}", f"http://a.example/{n}") for n in range(2)]
    records += [_copy("http://a.example/y", "http://a.example/z"), _copy("text:ab", "text:cd")]
    (pair,) = summarise(records).mirrors
    assert pair.hosts == ("m.example", "a.example")
    assert [(way.copy, way.copies, way.skipped) for way in pair.ways] == [
        ("m.example", 4, 3),
        ("a.example", 1, 0),
    ]
    assert pair.pages == 8


def test_clusters_are_listed_largest_first() -> None:
    records = [_copy("http://b.example/1", "http://a.example/1")]
    records += [_copy(f"http://{h}.example/2", "http://a.example/2") for h in "bcd"]
    clusters = summarise(records).clusters
    assert [(c.original, len(c.copies)) for c in clusters] == [
        ("http://a.example/2", 3),
        ("http://a.example/1", 1),
    ]


def test_only_the_last_crawl_is_reported_unless_asked() -> None:
    older = {**CRAWL, "confirm_similarity": 0.9}
    records = [older, _copy("http://b/1", "http://a/1"), CRAWL, _copy("http://b/2", "http://a/2")]
    assert last_crawl(records) == records[2:]
    assert summarise(last_crawl(records)).threshold == 0.8
    assert summarise(records).crawls == 2


def _edited_mirror(similarities: list[float], **fields: Any) -> list[dict[str, Any]]:
    return [CRAWL] + [
        _doubt(f"http://e.example/{n}", f"http://a.example/{n}", value, **fields)
        for n, value in enumerate(similarities)
    ]


@pytest.mark.parametrize(
    ("similarities", "fields", "suggested"),
    [
        ([0.78, 0.75, 0.72, 0.69, 0.3], {}, 0.65),  # an edited mirror just under 0.8
        ([0.78, 0.75], {}, None),  # too few to tell
        ([0.78, 0.75, 0.72, 0.2, 0.2, 0.2, 0.2], {}, None),  # most are far under
        ([0.78, 0.75, 0.72], {"adds_content": True}, None),  # kept for their own words
        ([0.78, 0.75, 0.72], {"length_ratio": 0.6}, None),  # lengths differ
        ([0.7, 0.68, 0.66], {}, 0.65),
    ],
)
def test_a_threshold_is_suggested_when_many_candidates_sit_just_under_it(
    similarities: list[float], fields: dict[str, Any], suggested: float | None
) -> None:
    advice = threshold_advice(summarise(_edited_mirror(similarities, **fields)))
    assert advice.suggested == suggested
    if suggested is not None:
        assert advice.would_drop == sum(1 for value in similarities if value >= suggested)


def test_the_suggestion_never_goes_under_one_half() -> None:
    records = [{**CRAWL, "confirm_similarity": 0.6}]
    records += _edited_mirror([0.55, 0.5, 0.47, 0.46])[1:]
    assert threshold_advice(summarise(records)).suggested == 0.5


def test_a_larger_k_is_suggested_when_copies_lie_just_beyond_it() -> None:
    far = [_copy(f"http://b/{n}", f"http://a/{n}", found_by="sentences", distance=5)
           for n in range(3)]  # fmt: skip
    near = [_copy(f"http://c/{n}", f"http://a/{n}") for n in range(5)]
    advice = distance_advice(summarise([CRAWL, *far, *near]))
    assert (advice.beyond, advice.fingerprinted, advice.suggested) == (3, 8, 5)
    assert distance_advice(summarise([CRAWL, *far[:1], *near])).suggested is None


def test_the_report_reads_at_a_glance() -> None:
    records = _edited_mirror([0.78, 0.75, 0.72, 0.69])
    records += [_copy(f"http://m.example/{n}", f"http://a.example/{n}") for n in range(3)]
    lines = report(summarise(records))
    text = "\n".join(lines)
    assert lines[1] == (
        "3 copies dropped (3 SimHash); 4 pages kept although near a stored one (0 add words "
        "of their own); 0 requests skipped before download, 0 re-issued"
    )
    assert "  e.example and a.example: 0 pages served by both, 4 more near but unconfirmed" in text
    followed = report(summarise([*records, url_requested_record(
        "http://m.example/9", "http://a.example/9", Rule("mirror", "m.example", other="a.example")
    )]))  # fmt: skip
    assert followed[1].endswith("0 re-issued, 1 failed links followed on a mirror")
    assert "  m.example and a.example: 3 pages served by both\n" in text
    assert "    0.780  http://e.example/0  ~ http://a.example/0  (2 bits; similarity under" in text
    assert "0.80-0.85" in text and "<- the threshold" in text
    assert "  SIMDEDUP_CONFIRM_SIMILARITY = 0.65: 4 of the 4 pages kept on similarity alone" in text


def test_each_url_rule_in_force_at_the_end_is_reported_with_its_bound() -> None:
    # Only the last crawl's rules; a line edited by hand is named, not a crash.
    mirror = Rule("mirror", "m.example", other="a.example", chosen=True)
    mirror.chosen_why = "m.example is a partial copy"
    pattern = Rule("pattern", "a.example", names=("sid",), template="/news/")
    old = [CRAWL, url_rule_record(mirror, 20, 1)]
    records = [*old, CRAWL, url_rule_record(mirror, 240, 1), url_rule_record(pattern, 59, 0)]
    records.append({"event": "url_rule", "rule_name": "x.example mirrors y.example", "new": "?"})
    text = "\n".join(report(summarise(last_crawl(records))))
    assert (
        "  m.example mirrors a.example (the copy: m.example is a partial copy): 240 samples,"
        " 1 new: at most 2.0% of its skips differ (95% confidence)" in text
    )
    assert (
        "a.example: parameters sid change nothing on /news/: 59 samples, 0 new: at most 5.0%"
        in text
    )
    assert "20 samples" not in text
    assert "  x.example mirrors y.example: counts unreadable (None samples, '?' new)" in text
    assert "URL rules at the crawl's end" in "\n".join(report(summarise([CRAWL])))
