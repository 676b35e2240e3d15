"""UrlJudge without a crawler: one decide() for strict and adaptive, and what it covers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from scrapy_simdedup import hamming_distance, url_parts, url_simhash
from scrapy_simdedup.errors import StoreMismatchError, UrlNotCheckedError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.handle import MARKS_FIELD, SimHashIndex
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.url.bets import Bet, ParkedBets
from scrapy_simdedup.url.judge import UrlJudge
from scrapy_simdedup.url.judgewiring import judge_for_crawl, judge_for_stored

ORIGINAL = "http://a.example"
MIRROR = "http://m.example"
SEED = 0x5EED  # fixed: which URLs fall within strict mode's bound depends on the seed


@contextmanager
def crawl_judge(
    folder: Path, mode: str = "adaptive", max_distance: int = 3
) -> Iterator[tuple[SimHashIndex, UrlJudge]]:
    with open_index(folder, expected_size=10_000, seed=SEED) as index:
        judge = judge_for_crawl(
            index, mode=mode, max_distance=max_distance, expected_size=10_000,
            min_evidence=3, sample_every=1000,
        )  # fmt: skip
        yield index, judge
        judge.save_rules()  # as a crawl does when it ends


def _fetch(judge: UrlJudge, url: str) -> None:
    judge.fetched(url_parts(url))


def _teach_mirror(judge: UrlJudge) -> None:
    for n in range(3):
        _fetch(judge, f"{ORIGINAL}/p/{n}")
        _fetch(judge, f"{MIRROR}/p/{n}")
        judge.observe(f"{MIRROR}/p/{n}", f"{ORIGINAL}/p/{n}")


def test_a_skip_relies_on_a_counterpart_this_crawl_fetched_or_queued(tmp_path: Path) -> None:
    with crawl_judge(tmp_path / "db") as (_, judge):
        _teach_mirror(judge)
        ahead = judge.decide(f"{MIRROR}/p/7")  # counterpart not queued yet: the bet waits
        assert ahead.skip and ahead.pending
        judge.enqueue(f"{ORIGINAL}/p/7")
        decision = judge.decide(f"{MIRROR}/p/7")
        assert decision.skip and decision.reason == "mirror"
        assert decision.counterpart == f"{ORIGINAL}/p/7" and not decision.pending
        judge.lost(f"{ORIGINAL}/p/7")  # it failed
        assert not judge.decide(f"{MIRROR}/p/7").skip
        _fetch(judge, f"{ORIGINAL}/p/8")
        assert judge.decide(url_parts(f"{MIRROR}/p/8")).skip  # parts or a URL alike
        judge.released(f"{ORIGINAL}/p/8")  # a later pipeline dropped it
        assert not judge.decide(f"{MIRROR}/p/8").skip
        with pytest.raises(UrlNotCheckedError):
            judge.decide("ftp://m.example/p/8")


def test_a_link_that_failed_on_the_original_is_wanted_on_a_mirror_betting_on_it(
    tmp_path: Path,
) -> None:
    with crawl_judge(tmp_path / "db") as (_, judge):
        failed = url_parts(f"{ORIGINAL}/article/1?b=2&a=1")
        judge.lost(failed.url)
        assert judge.copying_mirrors("a.example", lambda rule: True) == []  # none learned
        _teach_mirror(judge)
        assert judge.decide(f"{MIRROR}/p/7").skip  # the mirror is in force, a.example original
        assert judge.copying_mirrors("a.example", lambda rule: False) == []  # nothing skipped
        assert judge.copying_mirrors("m.example", lambda rule: True) == []  # the copy's own
        [mirror] = judge.copying_mirrors("a.example", lambda rule: True)
        assert mirror.host == "m.example"
        assert judge.wanted_copy(failed, mirror) == f"{MIRROR}/article/1?a=1&b=2"
        judge.enqueue(f"{MIRROR}/article/1?a=1&b=2")  # requested: wanted no more
        assert judge.wanted_copy(failed, mirror) is None
        other = url_parts(f"{ORIGINAL}/article/2")
        _fetch(judge, f"{MIRROR}/article/2")  # its copy came anyway
        assert judge.wanted_copy(other, mirror) is None
        third = url_parts(f"{ORIGINAL}/article/3")
        _fetch(judge, third.url)  # it failed once, then came back
        assert judge.wanted_copy(third, mirror) is None
        with crawl_judge(tmp_path / "strict", mode="strict") as (_, strict):
            assert strict.copying_mirrors("a.example", lambda rule: True) == []


def test_a_url_fetched_by_an_earlier_crawl_is_not_at_hand(tmp_path: Path) -> None:
    with crawl_judge(tmp_path / "db") as (_, judge):
        _teach_mirror(judge)
        _fetch(judge, f"{ORIGINAL}/p/9")
    with crawl_judge(tmp_path / "db") as (index, judge):
        assert judge.was_fetched(f"{ORIGINAL}/p/9")
        assert not judge.covers(f"{ORIGINAL}/p/9")
        assert not judge.decide(f"{MIRROR}/p/9").skip  # and the rule is on probation
        stored = judge_for_stored(index, mode="adaptive", min_evidence=3)
        assert stored is not None
        # The command judges the stored index as it stands: rules as learned, every URL
        # fetched before at hand.
        assert stored.decide(f"{MIRROR}/p/9", tally=False).skip


def test_a_weakened_rule_is_reported_and_stops_standing(tmp_path: Path) -> None:
    with crawl_judge(tmp_path / "db") as (_, judge):
        _teach_mirror(judge)
        judge.enqueue(f"{ORIGINAL}/p/20")
        decision = judge.decide(f"{MIRROR}/p/20")
        assert decision.rule is not None and judge.stands(decision.rule)
        _fetch(judge, f"{ORIGINAL}/p/21")
        _fetch(judge, f"{MIRROR}/p/21")
        # Fetched but not judged yet: no evidence (both may be new, or copies).
        assert judge.observe(f"{MIRROR}/p/21", None) == []
        _fetch(judge, f"{ORIGINAL}/p/22")
        assert judge.observe(f"{ORIGINAL}/p/22", None) == []
        _fetch(judge, f"{MIRROR}/p/22")
        assert judge.observe(f"{MIRROR}/p/22", None) == [decision.rule]
        assert not judge.stands(decision.rule)


def test_strict_mode_skips_near_urls_of_the_same_host_and_samples(tmp_path: Path) -> None:
    with crawl_judge(tmp_path / "db", mode="strict", max_distance=6) as (index, judge):
        _fetch(judge, f"{ORIGINAL}/product?id=17")
        fetched = url_simhash(url_parts(f"{ORIGINAL}/product?id=17"), index.seed)
        near = [
            f"{ORIGINAL}/product?id={n}"
            for n in range(18, 400)
            if hamming_distance(
                url_simhash(url_parts(f"{ORIGINAL}/product?id={n}"), index.seed), fetched
            )
            <= 6
        ]
        assert len(near) >= 4
        decision = judge.decide(near[0])
        assert decision.skip and decision.counterpart == f"{ORIGINAL}/product?id=17"
        assert not judge.decide(near[0].replace(ORIGINAL, MIRROR)).skip  # another host
        assert not judge.decide(f"{ORIGINAL}/about/contact-us.html").skip
        judge.sample_every = 2
        decisions = [judge.decide(url) for url in near[:4]]
        assert sum(d.sample for d in decisions) == 2


def test_another_stored_url_distance_is_refused(tmp_path: Path) -> None:
    with crawl_judge(tmp_path / "db", max_distance=3):
        pass
    with (
        pytest.raises(StoreMismatchError, match="max_distance"),
        crawl_judge(tmp_path / "db", max_distance=5),
    ):
        pass


def test_parked_bets_are_taken_out_once_by_counterpart_rule_or_at_the_end() -> None:
    bets: ParkedBets[str] = ParkedBets(limit=3)
    assert bets.park(Bet("m/1", "mirror", "a/1", "request 1"))
    assert bets.park(Bet("m/2", "mirror", "a/2", "request 2"))
    assert bets.park(Bet("t/1", "trap", None, "request 3"))
    assert not bets.park(Bet("t/2", "trap", None, "request 4"))  # full
    assert [bet.ticket for bet in bets.relying_on("a/1")] == ["request 1"]
    assert bets.relying_on("a/1") == []
    assert bets.holds_under("mirror") and not bets.holds_under("pattern")
    assert not bets.park(Bet("m/2", "mirror", "a/2", "again"))  # parked already
    unsettled = bets.unsettled(lambda rule: rule == "trap", lambda url: True)
    assert [bet.url for bet in unsettled] == ["m/2"]  # its rule no longer stands
    assert [bet.url for bet in bets.settle_all()] == ["t/1"]
    assert len(bets) == 0


def test_adaptive_mode_records_fetches_without_url_fingerprints(tmp_path: Path) -> None:
    """Adaptive mode never looks URLs up by similarity: a fetch is a mark, not a document
    with table entries; strict mode's fetches stay documents, and both are "fetched"."""
    with crawl_judge(tmp_path / "db") as (_, judge):
        _fetch(judge, f"{ORIGINAL}/p/1")
        _fetch(judge, f"{ORIGINAL}/p/2")
        _fetch(judge, f"{ORIGINAL}/p/1")
        assert len(judge) == 2 and len(judge.urls) == 0
        assert judge.urls.verify().consistent
        judge.released(f"{ORIGINAL}/p/2")
        assert len(judge) == 1 and not judge.was_fetched(f"{ORIGINAL}/p/2")
    with crawl_judge(tmp_path / "db", mode="strict") as (index, strict):
        assert strict.was_fetched(f"{ORIGINAL}/p/1")
        # A mark has no fingerprint: strict mode finds nothing near it (it skips fewer).
        assert strict.urls.near(url_simhash(url_parts(f"{ORIGINAL}/p/1"), index.seed)) == []
        _fetch(strict, f"{ORIGINAL}/q/1")
        assert len(strict.urls) == 1 and len(strict) == 2
        _fetch(strict, f"{ORIGINAL}/p/1")  # marked by the adaptive crawl: already fetched
        assert len(strict) == 2
        found = strict.urls.near(url_simhash(url_parts(f"{ORIGINAL}/q/1"), index.seed))
        assert [match.key for match in found] == [f"{ORIGINAL}/q/1"]  # a document


def test_the_url_index_tells_earlier_versions_it_holds_marks(tmp_path: Path) -> None:
    """Earlier versions compare the URL index's design record whole: one naming marks is
    refused by them (they would take marked URLs for never fetched); an earlier record is
    upgraded when this version opens it."""
    record = keyspace.URL_INDEX + keyspace.DESIGN
    with crawl_judge(tmp_path / "db") as (_, judge):
        store = judge.urls.store
        design = json.loads(store.get(record) or b"{}")
        assert design[MARKS_FIELD] is True
        earlier = {k: v for k, v in design.items() if k != MARKS_FIELD}
        assert design != earlier  # what an earlier version asks: a mismatch, so refused
        store.write({record: json.dumps(earlier).encode()})
    with crawl_judge(tmp_path / "db") as (_, judge):
        assert json.loads(judge.urls.store.get(record) or b"{}")[MARKS_FIELD] is True
