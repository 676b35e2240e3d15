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
    assert ledger.own("rule") == Tally(4, 0, 4, 4, 0)
    merged = ledger.take("w2", "rule", Tally(duplicates=1, uniques=1, streak=0, known=1))
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


@pytest.mark.parametrize(
    "raw", [[1, 2, 3, 4], [1, 2, 3, 4, -1], "1,2,3,4,5", [1, 2, "x", 4, 5], None]
)
def test_a_malformed_tally_is_refused(raw: object) -> None:
    with pytest.raises(ValueError):
        Tally.from_list(raw)


def test_copies_announced_before_their_author_heard_of_a_new_page_extend_no_run() -> None:
    """Worker x announces three copies it saw before worker a's new page reached it: they
    may predate that page, so the run here stays where the new page left it."""
    ledger = CrawlEvidence()
    ended = ledger.take("a", "rule", Tally(duplicates=3, uniques=1, streak=0, known=1))
    assert ended.ended and ended.streak == 0
    stale = ledger.take("x", "rule", Tally(duplicates=3, streak=3, known=0))
    assert (stale.duplicates, stale.streak) == (3, 0)
    # Once x has heard of it, its copies since count.
    heard = ledger.take("x", "rule", Tally(duplicates=5, streak=2, known=1))
    assert (heard.duplicates, heard.streak) == (2, 2)
    assert ledger.own("rule").known == 1  # announced so: the others trust its run


def test_a_rule_read_from_the_store_takes_a_workers_first_totals_as_counted() -> None:
    """The store may hold them already (saved by their worker): only the run and the new
    pages, which the stored counts never carry over (probation), are added."""
    ledger = CrawlEvidence()
    first = ledger.take("w2", "rule", Tally(4, 0, 2, 4, 0), stored=True)
    assert (first.duplicates, first.content_duplicates, first.streak) == (0, 0, 4)
    later = ledger.take("w2", "rule", Tally(5, 0, 2, 5, 0), stored=True)
    assert (later.duplicates, later.streak) == (1, 1)
    failed = ledger.take("w3", "rule", Tally(1, 1, 1, 0, 1), stored=True)
    assert failed.uniques == 1 and failed.ended  # a new page is never taken as counted


def test_once_totals_were_forgotten_unknown_ones_add_only_new_pages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("scrapy_simdedup.url.evidence.MAX_TRACKED", 1)
    ledger = CrawlEvidence()
    ledger.take("w2", "rule", Tally(8, 0, 8, 8, 0))
    ledger.take("w3", "rule", Tally(1, 0, 1, 1, 0))  # w2's totals are forgotten
    again = ledger.take("w2", "rule", Tally(8, 0, 8, 8, 0))
    assert (again.duplicates, again.content_duplicates, again.streak) == (0, 0, 0)
    failed = ledger.take("w4", "rule", Tally(0, 1, 0, 0, 1))
    assert failed.uniques == 1 and failed.ended


def test_a_worker_with_nothing_to_add_is_not_tracked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("scrapy_simdedup.url.evidence.MAX_TRACKED", 1)
    ledger = CrawlEvidence()
    ledger.take("w2", "rule", Tally(3, 0, 3, 3, 0))
    for n in range(5):  # learned rules announced with empty tallies evict nothing
        ledger.take(f"idle-{n}", "rule", Tally())
    assert ledger.take("w2", "rule", Tally(4, 0, 4, 4, 0)).duplicates == 1
