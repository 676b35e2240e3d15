"""``CrawlEvidence``: each verdict counted once per crawl, whichever worker saw it."""

from __future__ import annotations

import pytest

from scrapy_simdedup.url.evidence import CrawlEvidence, Tally


def test_totals_taken_twice_add_nothing_the_second_time() -> None:
    ledger = CrawlEvidence()
    first = ledger.take("w2", "rule", Tally(duplicates=3, content_duplicates=2, streak=3))
    assert (first.duplicates, first.content_duplicates, first.streak) == (3, 2, 3)
    again = ledger.take("w2", "rule", Tally(duplicates=3, content_duplicates=2, streak=3))
    assert (again.duplicates, again.uniques, again.streak, again.ended) == (0, 0, 0, False)
    later = ledger.take("w2", "rule", Tally(duplicates=5, content_duplicates=2, streak=5))
    assert (later.duplicates, later.streak) == (2, 2)


def test_workers_are_counted_apart() -> None:
    ledger = CrawlEvidence()
    ledger.take("w2", "rule", Tally(duplicates=2, streak=2))
    other = ledger.take("w3", "rule", Tally(duplicates=2, streak=2))
    assert other.duplicates == 2


def test_a_new_page_elsewhere_ends_the_run_here() -> None:
    ledger = CrawlEvidence()
    for _ in range(4):
        ledger.record("rule", duplicate=True, content_page=True)
    assert ledger.own("rule") == Tally(4, 0, 4, 4)
    merged = ledger.take("w2", "rule", Tally(duplicates=1, uniques=1, streak=0))
    assert merged.ended and merged.streak == 0 and merged.uniques == 1
    assert ledger.own("rule").streak == 0  # announced so, the others end it too
    assert ledger.own("rule").duplicates == 4


def test_a_run_ended_by_a_third_worker_counts_from_its_new_start() -> None:
    ledger = CrawlEvidence()
    ledger.take("w2", "rule", Tally(duplicates=5, streak=5))
    merged = ledger.take("w2", "rule", Tally(duplicates=6, streak=1))
    assert (merged.duplicates, merged.streak, merged.ended) == (1, 1, False)


def test_changed_lists_each_rule_once_most_recent_last() -> None:
    ledger = CrawlEvidence()
    ledger.record("a", duplicate=True)
    ledger.record("b", duplicate=True)
    ledger.record("a", duplicate=False)
    assert ledger.changed() == ["b", "a"]
    assert ledger.changed() == []


@pytest.mark.parametrize("raw", [[1, 2, 3], [1, 2, 3, -1], "1,2,3,4", [1, 2, "x", 4]])
def test_a_malformed_tally_is_refused(raw: object) -> None:
    with pytest.raises(ValueError):
        Tally.from_list(raw)
