"""The closing summary lines: their counts agree with the stats, or say why they differ."""

from __future__ import annotations

from typing import Any

from scrapy_simdedup import stats as keys


class Stats:
    """The two methods the summaries read, over a plain dict."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def get_value(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def get_stats(self) -> dict[str, Any]:
        return self.values


def test_the_summary_says_why_the_index_holds_fewer_pages_than_unique() -> None:
    line = keys.summary(
        Stats(
            {
                keys.CONTENT_CHECKED: 123,
                keys.CONTENT_DROPPED: 59,
                keys.CONTENT_UNIQUE: 64,
                keys.CONTENT_EXACT_FALLBACK: 17,
                keys.INDEX_SIZE: 52,
            }
        )
    )
    assert line == (
        "simdedup: 123 pages checked, 59 near-duplicates dropped (48%), 64 unique, 0 re-visits, "
        "0 unconfirmed matches kept, 0 skipped; index holds 52 pages (short texts, compared by "
        "exact hash, are not in it: 17)"
    )


def test_the_summary_without_a_gap_adds_nothing() -> None:
    line = keys.summary(
        Stats({keys.CONTENT_CHECKED: 2, keys.CONTENT_UNIQUE: 2, keys.INDEX_SIZE: 2})
    )
    assert line.endswith("index holds 2 pages")


def test_the_url_summary_counts_mirror_rules_not_in_force() -> None:
    mirrors = [
        "b.example mirrors a.example: 22 samples, 0 new: at most 12.7% of its skips "
        "differ (95% confidence)"
    ]
    values = {keys.URL_CHECKED: 161, keys.url_skipped("mirror"): 38, keys.URL_MIRROR_HOSTS: 3}
    line = keys.url_summary(Stats(values), mirrors)
    assert line.endswith(f"; {mirrors[0]}; 2 more mirror rules learned, not in force")
    values[keys.URL_MIRROR_HOSTS] = 1
    assert keys.url_summary(Stats(values), mirrors).endswith(mirrors[0])
