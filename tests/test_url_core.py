"""The URL core without Scrapy: each event of a crawl answered with what to do.

A bet's whole life, on a real LevelDB index: made, parked, and settled by each way the
evidence can turn (a failed counterpart, a soft 404, a deadline, a budget, idle, the end).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.url.actions import (
    Fetch,
    FollowFailed,
    FollowUnpredicted,
    Reissue,
    Seen,
    Skip,
)
from scrapy_simdedup.url.bets import Bet
from scrapy_simdedup.url.core import SAMPLE_WAIT_SECONDS, UrlCore
from scrapy_simdedup.url.deadlines import (
    GATHERING_SECONDS,
    PENDING_SECONDS,
    WAITING_SECONDS,
    Budget,
)
from scrapy_simdedup.url.judgewiring import judge_for_crawl
from scrapy_simdedup.url.probes import PROBE_SECONDS

ORIGINAL = "http://a.example"
MIRROR = "http://m.example"


class Tally(Counter[str]):
    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        self[key] += count

    def set_value(self, key: str, value: object) -> None:
        self[key] = int(value)  # type: ignore[call-overload]

    def get_value(self, key: str, default: object = None) -> object:
        return self.get(key, default)


class Lot:
    """Parked requests kept beyond the process, as a dict (the index's ``P`` records)."""

    def __init__(self, leftovers: list[str] = ()) -> None:  # type: ignore[assignment]
        self.kept: dict[str, str] = dict.fromkeys(leftovers, "")
        self.kept.update((url, url) for url in leftovers)

    def park(self, bet: Bet[str]) -> bool:
        self.kept[bet.url] = bet.ticket
        return True

    def forget(self, urls: list[str]) -> None:
        for url in urls:
            self.kept.pop(url, None)

    def leftovers(self) -> list[Bet[str]]:
        return [Bet(url, "", None, ticket) for url, ticket in self.kept.items()]

    def held_elsewhere(self, url: str) -> bool:
        return False  # one process: no other worker


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@contextmanager
def crawl(
    folder: Path,
    *,
    budget: Budget | None = None,
    depth_limit: int = 0,
    lot: Lot | None = None,
    risk: float = 0.0,
) -> Iterator[tuple[UrlCore[str], Lot, Tally, Clock]]:
    with open_index(folder, expected_size=10_000, seed=7) as index:
        judge = judge_for_crawl(
            index, mode="adaptive", max_distance=3, expected_size=10_000,
            min_evidence=3, sample_every=1000, risk=risk,
        )  # fmt: skip
        lot, tally, clock = lot or Lot(), Tally(), Clock()
        core = UrlCore(
            judge, lot, tally, drop=True, budget=budget, depth_limit=depth_limit, clock=clock,
            counts=lambda: (int(tally.get_value("response_received_count", 0)),
                            int(tally.get_value("item_scraped_count", 0))),
        )  # fmt: skip
        core.opened()
        yield core, lot, tally, clock


def _page(core: UrlCore[str], url: str, original: str | None = None, depth: int = 0) -> None:
    """``url`` scheduled, fetched (200) and judged a copy of ``original`` (or new)."""
    assert not isinstance(core.scheduled(Seen(url, url, depth=depth)), Skip)
    core.fetched(url, url, 200)
    core.verdict(url, original)


def _a_sample(
    core: UrlCore[str], pairs: Iterable[tuple[str, str]], *, counterpart_judged: bool = False
) -> tuple[str, str]:
    """The first of ``pairs`` (would-be skip, its counterpart) whose would-be skip is drawn
    as the rule's sample (one in two at random, with a risk); each counterpart is
    scheduled first, and with ``counterpart_judged`` fetched and judged new too."""
    for sample, counterpart in pairs:
        if counterpart_judged:
            _page(core, counterpart)
        else:
            assert not isinstance(core.scheduled(Seen(counterpart, counterpart)), Skip)
        if not isinstance(core.scheduled(Seen(sample, sample)), Skip):
            return sample, counterpart
    raise AssertionError("no sample in 40 would-be skips at one in two")


def _pairs(host: str, other: str, numbers: Iterable[int]) -> list[tuple[str, str]]:
    """(``host``'s page, ``other``'s at the same path) for each of ``numbers``."""
    return [(f"{host}/p/{n}", f"{other}/p/{n}") for n in numbers]


def _teach_mirror(core: UrlCore[str]) -> None:
    for n in range(3):  # min_evidence copies: learned
        _page(core, f"{ORIGINAL}/p/{n}")
        _page(core, f"{MIRROR}/p/{n}", f"{ORIGINAL}/p/{n}")


def _reissued(actions: list[object]) -> dict[str, str]:
    return {a.bet.url: a.why for a in actions if isinstance(a, Reissue)}


def test_a_bet_is_parked_then_reissued_when_its_counterpart_fails(tmp_path: Path) -> None:
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _teach_mirror(core)
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))
        skip = core.scheduled(Seen(f"{MIRROR}/p/9", "copy"))
        assert isinstance(skip, Skip) and skip.counterpart == f"{ORIGINAL}/p/9"
        assert lot.kept == {f"{MIRROR}/p/9": "copy"} and tally["simdedup/url/parked"] == 1
        again = core.scheduled(Seen(f"{MIRROR}/p/9", "copy again"))  # another link to it
        assert isinstance(again, Skip) and again.already_parked
        actions = core.fetched(f"{ORIGINAL}/p/9", "original", 404)
        assert _reissued(actions) == {f"{MIRROR}/p/9": "counterpart_failed"}
        assert any(isinstance(a, FollowFailed) for a in actions)  # followed on the mirror
        assert lot.kept == {} and tally["simdedup/url/reissued/counterpart_failed"] == 1


def test_a_link_met_again_is_answered_from_its_url_only_where_judging_would_change_nothing(
    tmp_path: Path,
) -> None:
    """``met_again`` spares the middleware building what ``scheduled`` needs, so it must
    say yes only where ``scheduled`` would fetch and change nothing."""
    with crawl(tmp_path / "db") as (core, _, tally, _):
        _teach_mirror(core)
        queued, copy, variant = f"{ORIGINAL}/p/9", f"{MIRROR}/p/9", f"{ORIGINAL}/p/0?lang=fr"
        assert not core.met_again(queued)  # never met: judged
        assert not isinstance(core.scheduled(Seen(queued, "original")), Skip)
        assert core.met_again(queued) and core.met_again(f"{ORIGINAL}/p/0")  # queued, fetched
        # What judging would have answered there: fetch, nothing counted, nothing queued anew.
        counted, queued_urls = dict(tally), set(core.judge.queued)
        for url in (queued, f"{ORIGINAL}/p/0"):
            answer = core.scheduled(Seen(url, url))
            assert isinstance(answer, Fetch) and not answer.queued and not answer.sample
        assert dict(tally) == counted and core.judge.queued == queued_urls
        assert isinstance(core.scheduled(Seen(copy, "copy")), Skip)
        assert not core.met_again(copy)  # held on a bet: the bet's link (already parked)
        _page(core, variant, f"{ORIGINAL}/p/0")
        assert not core.met_again(variant)  # a query may be a switcher's: judged with its source
        assert not core.met_again("mailto:someone@a.example")  # not checked: counted there
        parked = tally["simdedup/url/already_parked"]
        assert isinstance(core.scheduled(Seen(copy, "copy again")), Skip)
        assert tally["simdedup/url/already_parked"] == parked + 1


def test_of_a_mirror_pair_the_host_that_copied_is_skipped_however_much_of_it_was_crawled(
    tmp_path: Path,
) -> None:
    """The mirror's pages were found copies, and 30 of them went to the downloader, 12 of
    the original's: skipping the original's 28 still to come would save more, but would
    skip the original for its copy (issue 60)."""
    with crawl(tmp_path / "db") as (core, _, _, _):
        for site, queued in ((ORIGINAL, [*range(35), 37]), (MIRROR, range(36))):
            for n in queued:
                assert not isinstance(core.scheduled(Seen(f"{site}/p/{n}", "")), Skip)
        for site, sent in ((MIRROR, 30), (ORIGINAL, 12)):
            for n in range(sent):
                assert core.claim_fetch(f"{site}/p/{n}")
        _teach_mirror(core)
        assert not isinstance(core.scheduled(Seen(f"{ORIGINAL}/p/35", "")), Skip)
        skip = core.scheduled(Seen(f"{MIRROR}/p/37", ""))
        assert isinstance(skip, Skip) and skip.counterpart == f"{ORIGINAL}/p/37"


@pytest.mark.parametrize("notice", [ORIGINAL, MIRROR], ids=["own_host", "mirrors"])
def test_a_soft_404_settles_no_bet_that_expected_its_paths_page(
    notice: str, tmp_path: Path
) -> None:
    """A story "no longer available": the original's page copies a notice at another
    path of its own host or (``mirrors``) of its mirror, which diverged: its notice for a
    story it took down was kept first. The mirror's page may still carry the story."""
    with crawl(tmp_path / "db") as (core, lot, _, _):
        core.follows_failed = True  # adaptive, dropping: links are followed on mirrors
        _teach_mirror(core)
        _page(core, f"{notice}/gone")
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9", "copy")), Skip)
        core.fetched(f"{ORIGINAL}/p/9", "original", 200)
        actions = core.verdict(f"{ORIGINAL}/p/9", f"{notice}/gone")
        assert _reissued(actions) == {f"{MIRROR}/p/9": "counterpart_not_predicted"}
        # Both notices' links are followed on the mirrors, as the soft 404 was routed:
        # the mirror's pages that link them may all be skipped.
        follow = [a for a in actions if isinstance(a, FollowUnpredicted)]
        assert follow == [FollowUnpredicted("original", (f"{ORIGINAL}/p/9", f"{notice}/gone"))]
        assert lot.kept == {}
        assert not isinstance(core.scheduled(Seen(f"{MIRROR}/p/9", "copy")), Skip)
        # The rest of the mirror is still skipped on the original's pages.
        _page(core, f"{ORIGINAL}/p/12")
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/12", "copy")), Skip)


def test_a_page_that_copied_another_path_of_a_host_later_paired_with_its_own_is_no_counterpart(
    tmp_path: Path,
) -> None:
    """The original's notice was judged before any rule paired the two hosts: it copied a
    page of an unrelated host then. Once the mirror rule is learned, no bet relies on it."""
    with crawl(tmp_path / "db") as (core, _, _, _):
        _page(core, f"{MIRROR}/gone")
        _page(core, f"{ORIGINAL}/p/9", f"{MIRROR}/gone")
        _teach_mirror(core)
        assert not isinstance(core.scheduled(Seen(f"{MIRROR}/p/9", "copy")), Skip)
        _page(core, f"{ORIGINAL}/p/12")
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/12", "copy")), Skip)


THIRD = "http://c.example"


def test_two_pages_of_a_host_copying_one_page_of_a_third_host_settle_no_bet(
    tmp_path: Path,
) -> None:
    """A challenge page served with a 200, or a notice a mirror's mirror showed first, is
    kept on a host no rule pairs with the original: the original's first copy of it looks
    like a reprint, the second shows two of its paths with one page."""
    with crawl(tmp_path / "db") as (core, lot, _, _):
        core.follows_failed = True
        _teach_mirror(core)
        _page(core, f"{THIRD}/challenge")
        for n in (9, 10):
            core.scheduled(Seen(f"{ORIGINAL}/p/{n}", "original"))
            assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/{n}", "copy")), Skip)
        core.fetched(f"{ORIGINAL}/p/9", "original", 200)
        assert _reissued(core.verdict(f"{ORIGINAL}/p/9", f"{THIRD}/challenge")) == {}
        core.fetched(f"{ORIGINAL}/p/10", "original", 200)
        actions = core.verdict(f"{ORIGINAL}/p/10", f"{THIRD}/challenge")
        assert _reissued(actions) == {
            f"{MIRROR}/p/9": "counterpart_not_predicted",
            f"{MIRROR}/p/10": "counterpart_not_predicted",
        }
        follow = [a for a in actions if isinstance(a, FollowUnpredicted)]
        pages = (f"{ORIGINAL}/p/9", f"{ORIGINAL}/p/10", f"{THIRD}/challenge")
        assert follow == [FollowUnpredicted("original", pages)]
        assert lot.kept == {}


def test_a_reprint_between_hosts_that_share_only_boilerplate_leaves_bets_standing(
    tmp_path: Path,
) -> None:
    """Two sites of one platform share ``/privacy``: no pair. A story of one reprinted
    once by the other at its own path is what both paths promised: the bets on its
    ``?sid=`` variant stand."""
    with crawl(tmp_path / "db") as (core, _, _, _):
        _page(core, f"{ORIGINAL}/privacy")
        _page(core, f"{THIRD}/privacy", f"{ORIGINAL}/privacy")
        for n in range(3):  # a ?sid= rule on the original's stories
            _page(core, f"{ORIGINAL}/s/{n}")
            _page(core, f"{ORIGINAL}/s/{n}?sid=x{n}", f"{ORIGINAL}/s/{n}")
        _page(core, f"{ORIGINAL}/s/7")
        _page(core, f"{THIRD}/reprint/1", f"{ORIGINAL}/s/7")
        skip = core.scheduled(Seen(f"{ORIGINAL}/s/7?sid=y", "variant"))
        assert isinstance(skip, Skip) and skip.counterpart == f"{ORIGINAL}/s/7"


def test_under_a_depth_limit_a_copy_is_fetched_when_its_counterpart_is_deeper(
    tmp_path: Path,
) -> None:
    with crawl(tmp_path / "db", depth_limit=3) as (core, _, tally, _):
        _teach_mirror(core)
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original", depth=3))
        assert not isinstance(core.scheduled(Seen(f"{MIRROR}/p/9", "copy", depth=1)), Skip)
        assert tally["simdedup/url/deeper_counterpart"] == 1
        core.scheduled(Seen(f"{ORIGINAL}/p/10", "original", depth=1))
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/10", "copy", depth=2)), Skip)


def test_a_pending_bet_past_its_deadline_is_reissued_ahead(tmp_path: Path) -> None:
    with crawl(tmp_path / "db") as (core, lot, _, clock):
        _teach_mirror(core)
        skip = core.scheduled(Seen(f"{MIRROR}/p/9", "copy"))  # its original not queued yet
        assert isinstance(skip, Skip) and skip.pending
        clock.now = PENDING_SECONDS - 1
        assert _reissued(core.tick(force=True)) == {}
        clock.now = PENDING_SECONDS + 1
        actions = core.tick(force=True)
        assert _reissued(actions) == {f"{MIRROR}/p/9": "overdue"}
        assert all(a.ahead for a in actions if isinstance(a, Reissue)) and lot.kept == {}


def test_late_in_a_crawl_a_bet_on_a_queued_page_waits_as_long_as_the_crawl_has_run(
    tmp_path: Path,
) -> None:
    """Twenty minutes into a crawl the original's page is queued deep in Scrapy's
    last-in-first-out queue. Two minutes later it has not come: the mirror's copy is not
    fetched then (it was, a copy per such bet), but once the crawl has run as long again
    without it, it is, and it is never lost."""
    with crawl(tmp_path / "db") as (core, lot, tally, clock):
        _teach_mirror(core)
        clock.now = 1_200.0
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))  # queued, not fetched
        skip = core.scheduled(Seen(f"{MIRROR}/p/9", "copy"))
        assert isinstance(skip, Skip) and not skip.pending
        clock.now = 1_200.0 + WAITING_SECONDS + 1
        assert _reissued(core.tick(force=True)) == {} and f"{MIRROR}/p/9" in core.bets
        clock.now = 2_400.0 + 1
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/9": "overdue"}
        assert lot.kept == {} and tally["simdedup/url/reissued/overdue"] == 1


def test_a_bet_on_a_queued_page_waits_as_many_pages_as_the_crawl_has_fetched(
    tmp_path: Path,
) -> None:
    """The same in pages, in a fast crawl: 5,000 pages into it, the copy waits 5,000 more
    for its original's turn in the queue, not 400."""
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _teach_mirror(core)
        tally.set_value("response_received_count", 5_000)
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9", "copy")), Skip)
        tally.set_value("response_received_count", 5_000 + 401)
        assert _reissued(core.tick(force=True)) == {}
        tally.set_value("response_received_count", 10_000)
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/9": "overdue"}
        assert lot.kept == {}


def test_a_spider_that_closes_itself_as_finished_keeps_unsettled_bets_for_the_next_crawl(
    tmp_path: Path,
) -> None:
    """A spider raising ``CloseSpider("finished")`` ends the crawl without going idle, where
    bets that cannot be final are re-issued. Those stay in the index (the next crawl fetches
    them); only a bet whose counterpart's page came is final."""
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _teach_mirror(core)
        _page(core, f"{ORIGINAL}/p/8")
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/8", "settled")), Skip)
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))  # queued, never fetched
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9", "unsettled")), Skip)
        core.closed("finished")
        assert set(lot.kept) == {f"{MIRROR}/p/9"} and tally["simdedup/url/final"] == 1
    with crawl(tmp_path / "db", lot=lot) as (core, _, _, _):
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/9": "interrupted"}


def test_a_pending_bet_whose_counterparts_path_came_waits_once_more(tmp_path: Path) -> None:
    """A mirror crawled ahead of its original: its ``?sid=`` page waits for the original's
    ``?sid=`` page. The original's bare page came by the deadline, so the original's crawl
    is there: the bet waits as long as one on a counterpart at hand, then no longer."""
    sid, bare = f"{ORIGINAL}/p/9?sid=1", f"{ORIGINAL}/p/9"
    with crawl(tmp_path / "db") as (core, lot, tally, clock):
        _teach_mirror(core)
        skip = core.scheduled(Seen(f"{MIRROR}/p/9?sid=1", "copy"))
        assert isinstance(skip, Skip) and skip.pending and skip.counterpart == sid
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/8?sid=1", "other")), Skip)
        _page(core, bare)  # /p/8 never came
        clock.now = PENDING_SECONDS + 1
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/8?sid=1": "overdue"}
        assert tally["simdedup/url/extended"] == 1 and f"{MIRROR}/p/9?sid=1" in core.bets
        clock.now = PENDING_SECONDS + 1 + WAITING_SECONDS  # once only: now re-issued
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/9?sid=1": "overdue"}
        assert lot.kept == {} and tally["simdedup/url/extended"] == 1


def test_a_pending_bet_whose_counterparts_path_is_queued_waits_once_more(
    tmp_path: Path,
) -> None:
    """The original's home page queued its bare pages; the mirror's ``?sid=`` page waits
    for the original's ``?sid=`` page, which only the bare page links. At the deadline the
    bare page is queued, not yet fetched: the original's crawl is on its way there, so the
    bet waits once more rather than fetching the copy a moment before it comes. A bet
    whose counterpart's path is nowhere at hand is re-issued as before; the one given
    longer is settled by its counterpart, or re-issued at its next deadline, never lost."""
    sid = f"{ORIGINAL}/p/9?sid=1"
    with crawl(tmp_path / "db") as (core, lot, tally, clock):
        _teach_mirror(core)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9?sid=1", "copy")), Skip)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/8?sid=1", "other")), Skip)
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))  # queued, not fetched
        clock.now = PENDING_SECONDS + 1
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/8?sid=1": "overdue"}
        assert tally["simdedup/url/extended"] == 1 and f"{MIRROR}/p/9?sid=1" in core.bets
        _page(core, f"{ORIGINAL}/p/9")
        _page(core, sid, f"{ORIGINAL}/p/9")  # the variant came: a copy of the kept page
        assert _reissued(core.idle()) == {}
        core.closed("finished")
        assert lot.kept == {} and tally["simdedup/url/final"] == 1
    with crawl(tmp_path / "db2") as (core, lot, tally, clock):
        _teach_mirror(core)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9?sid=1", "copy")), Skip)
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))
        clock.now = PENDING_SECONDS + 1
        assert _reissued(core.tick(force=True)) == {}
        core.fetched(f"{ORIGINAL}/p/9", "original", 200)
        core.verdict(f"{ORIGINAL}/p/9", None)
        clock.now = PENDING_SECONDS + 2 + WAITING_SECONDS  # its ?sid= page never came
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/9?sid=1": "overdue"}
        assert lot.kept == {}


def test_a_pending_bet_whose_counterpart_was_queued_since_waits_once_more(
    tmp_path: Path,
) -> None:
    with crawl(tmp_path / "db") as (core, lot, tally, clock):
        _teach_mirror(core)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/7", "copy")), Skip)  # pending
        core.scheduled(Seen(f"{ORIGINAL}/p/7", "original"))  # its link came: queued
        clock.now = PENDING_SECONDS + 1
        assert _reissued(core.tick(force=True)) == {} and tally["simdedup/url/extended"] == 1
        # Still a bet on its counterpart: re-issued the moment that fails.
        actions = core.fetched(f"{ORIGINAL}/p/7", "original", 404)
        assert _reissued(actions) == {f"{MIRROR}/p/7": "counterpart_failed"} and lot.kept == {}


def test_a_bet_given_longer_is_settled_by_its_counterpart(tmp_path: Path) -> None:
    sid = f"{ORIGINAL}/p/9?sid=1"
    with crawl(tmp_path / "db") as (core, lot, tally, clock):
        _teach_mirror(core)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9?sid=1", "copy")), Skip)
        _page(core, f"{ORIGINAL}/p/9")
        clock.now = PENDING_SECONDS + 1
        assert _reissued(core.tick(force=True)) == {} and tally["simdedup/url/extended"] == 1
        _page(core, sid, f"{ORIGINAL}/p/9")  # the variant came: a copy of the kept page
        assert _reissued(core.idle()) == {}
        core.closed("finished")
        assert lot.kept == {} and tally["simdedup/url/final"] == 1


def test_a_bet_on_a_variant_the_originals_parameter_rule_skips_is_settled_by_its_bare_page(
    tmp_path: Path,
) -> None:
    """A mirror crawled ahead bets its ``?sid=`` page on the original's ``?sid=`` page,
    which never comes: the original learned that ``sid`` changes nothing, and its bare page
    came. The two rules chained settle the bet, at its deadline and at idle, while both
    stand; once the parameter rule is weakened, the bet is re-issued at idle."""
    with crawl(tmp_path / "db") as (core, lot, tally, clock):
        _teach_mirror(core)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9?sid=s9", "copy")), Skip)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/8?sid=s8", "other")), Skip)
        for n in range(20, 23):  # the original's sid rule
            _page(core, f"{ORIGINAL}/p/{n}")
            _page(core, f"{ORIGINAL}/p/{n}?sid=s{n}", f"{ORIGINAL}/p/{n}")
        _page(core, f"{ORIGINAL}/p/9")  # /p/8 never came
        clock.now = PENDING_SECONDS + 1
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/8?sid=s8": "overdue"}
        clock.now = PENDING_SECONDS + 1 + WAITING_SECONDS
        assert _reissued(core.tick(force=True)) == {}
        assert _reissued(core.idle()) == {} and f"{MIRROR}/p/9?sid=s9" in core.bets
        # A value of sid that brought a page of its own: the rule no longer says the
        # original's ?sid=s9 page is its bare page.
        _page(core, f"{ORIGINAL}/p/30")
        core.fetched(f"{ORIGINAL}/p/30?sid=s30", "a sample", 200)
        core.verdict(f"{ORIGINAL}/p/30?sid=s30", None)
        assert _reissued(core.idle()) == {f"{MIRROR}/p/9?sid=s9": "unsettled"}
        core.closed("finished")
        assert lot.kept == {} and tally["simdedup/url/final"] == 0


def test_a_variant_bet_is_not_settled_by_a_bare_page_that_is_a_soft_404(tmp_path: Path) -> None:
    """As above, but the original's bare page is "this story is no longer available" (a
    copy of another path of its host): it settles no bet on its path's variants."""
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _teach_mirror(core)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9?sid=s9", "copy")), Skip)
        for n in range(20, 23):
            _page(core, f"{ORIGINAL}/p/{n}")
            _page(core, f"{ORIGINAL}/p/{n}?sid=s{n}", f"{ORIGINAL}/p/{n}")
        _page(core, f"{ORIGINAL}/gone")
        _page(core, f"{ORIGINAL}/p/9", f"{ORIGINAL}/gone")
        assert _reissued(core.idle()) == {f"{MIRROR}/p/9?sid=s9": "unsettled"}
        core.closed("finished")
        assert lot.kept == {} and tally["simdedup/url/final"] == 0


def test_near_the_end_of_a_page_budget_bets_are_reissued_and_none_made(tmp_path: Path) -> None:
    with crawl(tmp_path / "db", budget=Budget(pages=100)) as (core, lot, tally, _):
        _teach_mirror(core)
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9", "copy")), Skip)
        tally["response_received_count"] = 78
        assert _reissued(core.tick(force=True)) == {} and not core.closing
        tally["response_received_count"] = 79  # 21 left: the reserve, a fifth plus 1 held
        actions = core.tick(force=True)
        assert _reissued(actions) == {f"{MIRROR}/p/9": "budget"} and core.closing
        core.scheduled(Seen(f"{ORIGINAL}/p/10", "original"))
        assert not isinstance(core.scheduled(Seen(f"{MIRROR}/p/10", "copy")), Skip)
        assert tally["simdedup/url/closing"] == 1 and lot.kept == {}


def test_idle_reissues_what_cannot_be_final_and_a_finished_crawl_ends_the_rest(
    tmp_path: Path,
) -> None:
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _teach_mirror(core)
        core.scheduled(Seen(f"{ORIGINAL}/p/9", "original"))
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/9", "kept")), Skip)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/8", "waits")), Skip)  # pending
        core.fetched(f"{ORIGINAL}/p/9", "original", 200)
        core.verdict(f"{ORIGINAL}/p/9", None)
        assert _reissued(core.idle()) == {f"{MIRROR}/p/8": "unsettled"}
        assert f"{MIRROR}/p/9" in core.bets  # its counterpart was kept: it may be final
        # The re-issued page comes back new: the mirror bet on a page its original lacks,
        # and every bet of the rule is re-issued.
        core.fetched(f"{MIRROR}/p/8", "waits", 200)
        actions = core.verdict(f"{MIRROR}/p/8", None)
        assert _reissued(actions) == {f"{MIRROR}/p/9": "rule_weakened"}
        assert not isinstance(core.scheduled(Seen(f"{MIRROR}/p/7", "copy")), Skip)
        core.closed("finished")
        assert lot.kept == {} and tally["simdedup/url/final"] == 0


def test_an_interrupted_crawls_bets_are_due_at_once(tmp_path: Path) -> None:
    left = Lot([f"{MIRROR}/p/5"])
    with crawl(tmp_path / "db", lot=left) as (core, lot, _, _):
        assert f"{MIRROR}/p/5" in core.bets
        assert _reissued(core.tick(force=True)) == {f"{MIRROR}/p/5": "interrupted"}
        assert lot.kept == {}


def test_a_crawl_that_does_not_finish_leaves_its_bets_for_the_next(tmp_path: Path) -> None:
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _teach_mirror(core)
        assert isinstance(core.scheduled(Seen(f"{MIRROR}/p/8", "waits")), Skip)
        core.closed("shutdown")
        assert lot.kept == {f"{MIRROR}/p/8": "waits"} and "simdedup/url/final" not in tally


def _teach_sid_and_lang(core: UrlCore[str]) -> None:
    for n, lang in enumerate(("fr", "de", "es")):
        _page(core, f"{ORIGINAL}/news/{n}")
        _page(core, f"{ORIGINAL}/news/{n}?lang={lang}", f"{ORIGINAL}/news/{n}")
        _page(core, f"{ORIGINAL}/news/{n}?sid=s{n}", f"{ORIGINAL}/news/{n}")


def test_a_variant_skipped_before_its_switcher_showed_is_reissued(tmp_path: Path) -> None:
    """An article links ``?lang=fr&sid=zz``, then ``?lang=de&sid=zz``: the second value shows a
    switcher, and the French variant skipped a moment before is re-issued; the German one
    is fetched. Re-issues found while scheduling go out at the next tick, or at idle."""
    with crawl(tmp_path / "db") as (core, lot, _, _):
        _teach_sid_and_lang(core)
        article = f"{ORIGINAL}/news/9"
        core.scheduled(Seen(article, "article"))
        french = Seen(f"{article}?lang=fr&sid=zz", "fr", source=article)
        assert isinstance(core.scheduled(french), Skip)
        assert f"{article}?lang=fr&sid=zz" in lot.kept
        german = core.scheduled(Seen(f"{article}?lang=de&sid=zz", "de", source=article))
        assert not isinstance(german, Skip)
        assert _reissued(core.idle()) == {f"{article}?lang=fr&sid=zz": "switcher"}
        assert lot.kept == {}


def test_a_switcher_is_seen_though_its_first_variant_was_queued_already(tmp_path: Path) -> None:
    with crawl(tmp_path / "db") as (core, _, _, _):
        _teach_sid_and_lang(core)
        article, listing = f"{ORIGINAL}/news/9", f"{ORIGINAL}/news/"
        core.scheduled(Seen(article, "article"))
        core.scheduled(Seen(f"{article}?lang=fr", "fr", source=listing))  # queued here
        core.scheduled(Seen(f"{article}?lang=fr", "fr", source=article))  # and linked again
        assert not isinstance(
            core.scheduled(Seen(f"{article}?lang=de", "de", source=article)), Skip
        )


def test_reissues_not_yet_sent_stay_in_the_index_when_the_crawl_stops(tmp_path: Path) -> None:
    with crawl(tmp_path / "db") as (core, lot, _, _):
        _teach_sid_and_lang(core)
        article = f"{ORIGINAL}/news/9"
        core.scheduled(Seen(article, "article"))
        assert isinstance(core.scheduled(Seen(f"{article}?lang=fr", "fr", source=article)), Skip)
        core.scheduled(Seen(f"{article}?lang=de", "de", source=article))  # a switcher
        core.closed("shutdown")  # before any tick: its re-issue was never sent
        assert lot.kept == {f"{article}?lang=fr": "fr"}


def _bare_pages(core: UrlCore[str], count: int) -> None:
    for n in range(count):
        _page(core, f"{ORIGINAL}/news/{n}")


def _on_its_way(core: UrlCore[str], url: str) -> Skip | None:
    """``url`` scheduled, then on its way to the downloader: the skip made on the way, if
    any (when scheduled once as many requests are on their way as its rule needs)."""
    answer = core.scheduled(Seen(url, url))
    if not isinstance(answer, Skip):
        answer = core.downloading(Seen(url, url))
    return answer if isinstance(answer, Skip) else None


def test_a_parameters_requests_wait_once_enough_are_on_their_way_to_learn_it(
    tmp_path: Path,
) -> None:
    """Ten ``?sid=`` pages whose bare pages came: the first three go to the downloader
    (as many as the rule needs), the rest wait on a bet. The three come back copies, the
    rule is learned, and the bets stand (final when the crawl ends), but for the one that
    falls to be the rule's sample (one in twice its copies), fetched; the bet after it
    waits for the sample's verdict, and stands once the sample came back a copy."""
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _bare_pages(core, 10)
        variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(10)]
        waiting = [url for url in variants if _on_its_way(core, url) is not None]
        assert waiting == variants[3:] and tally["simdedup/url/gathering"] == 7
        assert tally["simdedup/url/probes"] == 3 and set(lot.kept) == set(waiting)
        assert _reissued(core.tick(force=True)) == {}  # not learned yet: still waiting
        for n in range(3):
            core.fetched(variants[n], variants[n], 200)
            core.verdict(variants[n], f"{ORIGINAL}/news/{n}")
        reissued = _reissued(core.tick(force=True))  # the sixth the learned rule met
        assert list(reissued.values()) == ["unconfirmed"] and set(reissued) < set(waiting)
        (sample,) = reissued
        standing = [url for url in waiting if url not in reissued]
        gathering = [url for url in standing if core.bets.get(url).gathering]  # type: ignore[union-attr]
        assert len(gathering) == 1 and len(standing) == 6, gathering
        assert _reissued(core.tick(force=True)) == {}  # its sample's verdict not in yet
        assert core.bets.get(gathering[0]).gathering  # type: ignore[union-attr]
        core.fetched(sample, sample, 200)
        core.verdict(sample, sample.split("?")[0])
        assert _reissued(core.tick(force=True)) == {}  # four copies: one in eight
        assert all(core.bets.get(url).gathering is False for url in standing)  # type: ignore[union-attr]
        assert _reissued(core.idle()) == {}
        core.closed("finished")
        assert tally["simdedup/url/final"] == 6 and lot.kept == {}


def test_a_parameters_bets_after_its_sample_wait_for_its_verdict_and_no_longer(
    tmp_path: Path,
) -> None:
    """Fifteen ``?sid=`` pages wait while the rule is learned from three copies. Its
    first sample comes back new: the bets after it are re-issued, none stood on the
    sample's stage alone. Another crawl: the sample never comes back, and the next stage
    is confirmed after ``SAMPLE_WAIT_SECONDS``; at idle, every stage at once (none is
    left gathering when the crawl ends)."""
    for outcome in ("new", "never", "idle"):
        with crawl(tmp_path / outcome) as (core, lot, _, clock):
            _bare_pages(core, 20)
            variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(18)]
            waiting = [url for url in variants if _on_its_way(core, url) is not None]
            assert waiting == variants[3:]
            for n in range(3):
                core.fetched(variants[n], variants[n], 200)
                core.verdict(variants[n], f"{ORIGINAL}/news/{n}")
            if outcome == "idle":
                reissued = _reissued(core.idle())  # one in six, all at once: two samples
                assert list(reissued.values()) == ["unconfirmed"] * 2
                standing = [core.bets.get(u) for u in waiting if u not in reissued]
                assert all(bet is not None and not bet.gathering for bet in standing)
                continue
            (sample,) = _reissued(core.tick(force=True))
            after = [u for u in waiting if u != sample and core.bets.get(u).gathering]  # type: ignore[union-attr]
            assert len(after) == 9, after  # fifteen: five stood, the sixth is the sample
            if outcome == "new":
                core.fetched(sample, sample, 200)
                weakened = _reissued(core.verdict(sample, None))  # a page of its own
                weakened |= _reissued(core.tick(force=True))
                assert set(weakened) == set(waiting) - {sample} and lot.kept == {}
            else:
                clock.now = SAMPLE_WAIT_SECONDS - 1
                assert _reissued(core.tick(force=True)) == {}
                clock.now = SAMPLE_WAIT_SECONDS + 1
                assert len(_reissued(core.tick(force=True))) == 1  # the next stage's sample


def test_each_of_a_crawls_workers_sends_its_share_of_what_a_rule_learns_from(
    tmp_path: Path,
) -> None:
    """Two workers share one queue and their verdicts teach the rule on both: of the three
    requests the rule needs, the first worker (by ``rank``) sends two and the second one
    (rounding up for both sent four: one copy fetched for nothing per rule), and each waits
    on the rest; once two copies came, one more each (never none: the other worker may
    have met no request of the kind)."""
    with crawl(tmp_path / "second") as (core, lot, tally, _):
        core.crew.size, core.crew.rank = 2, 1
        _bare_pages(core, 10)
        variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(10)]
        waiting = [url for url in variants[:6] if _on_its_way(core, url) is not None]
        assert waiting == variants[1:6] and tally["simdedup/url/probes"] == 1
        core.fetched(variants[0], variants[0], 200)
        core.verdict(variants[0], f"{ORIGINAL}/news/0")
        assert _on_its_way(core, variants[6]) is None  # two more needed: one of them here
        assert _on_its_way(core, variants[7]) is not None
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        core.crew.size = 2
        _bare_pages(core, 10)
        variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(10)]
        waiting = [url for url in variants[:6] if _on_its_way(core, url) is not None]
        assert waiting == variants[2:6] and tally["simdedup/url/probes"] == 2
        for n in range(2):
            core.fetched(variants[n], variants[n], 200)
            core.verdict(variants[n], f"{ORIGINAL}/news/{n}")
        assert _on_its_way(core, variants[6]) is None  # the rule needs one more copy
        assert _on_its_way(core, variants[7]) is not None
        assert set(lot.kept) == {*waiting, variants[7]}


def test_a_worker_whose_share_came_back_sends_a_waiting_request_to_finish_the_rule(
    tmp_path: Path,
) -> None:
    """Two workers: this one sent its two of the three copies the rule needs, and the
    other worker met no request of the kind. Both came back copies and no request of the
    kind is left to come: one of the waiting requests is re-issued to teach the rule
    (``probe``), once; its copy makes the rule, and the rest stand. Without it, the rule
    stood at two copies and every waiting request was fetched at idle (issue 35)."""
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        core.crew.size = 2
        _bare_pages(core, 10)
        variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(6)]
        waiting = [url for url in variants if _on_its_way(core, url) is not None]
        assert waiting == variants[2:] and tally["simdedup/url/probes"] == 2
        assert _reissued(core.tick(force=True)) == {}  # its two are on their way
        for n in range(2):
            core.fetched(variants[n], variants[n], 200)
            core.verdict(variants[n], f"{ORIGINAL}/news/{n}")
        probe = _reissued(core.tick(force=True))
        assert list(probe.values()) == ["probe"] and set(probe) < set(waiting), probe
        assert tally["simdedup/url/probes"] == 3
        assert _reissued(core.tick(force=True)) == {}  # on its way: no other one
        (url,) = probe
        core.fetched(url, url, 200)
        core.verdict(url, url.split("?")[0])
        assert _reissued(core.tick(force=True)) == {}  # learned: one in six is a sample
        assert all(not core.bets.get(u).gathering for u in waiting if u != url)  # type: ignore[union-attr]
        assert _reissued(core.idle()) == {}
        core.closed("finished")
        assert tally["simdedup/url/final"] == 3 and lot.kept == {}


def test_a_request_on_its_way_that_comes_back_new_reissues_the_waiting_ones(
    tmp_path: Path,
) -> None:
    """``?tab=`` pages are pages of their own: the first one back is new, the requests
    waiting meanwhile are re-issued at once, and no more wait in this crawl."""
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _bare_pages(core, 10)
        variants = [f"{ORIGINAL}/news/{n}?tab=t{n}" for n in range(8)]
        waiting = [url for url in variants if _on_its_way(core, url) is not None]
        assert waiting == variants[3:]
        core.fetched(variants[0], variants[0], 200)
        core.verdict(variants[0], None)
        assert _reissued(core.tick(force=True)) == dict.fromkeys(waiting, "unconfirmed")
        assert lot.kept == {} and tally["simdedup/url/reissued/unconfirmed"] == 5
        assert _on_its_way(core, f"{ORIGINAL}/news/8?tab=t8") is None  # fetched from now on
        assert _on_its_way(core, f"{ORIGINAL}/news/9?tab=t9") is None


def test_a_value_the_learned_rule_does_not_cover_is_reissued(tmp_path: Path) -> None:
    """``?ref=home`` came back a copy three times: ``ref`` changes nothing for that value
    only (``GENERAL_VALUES``), so ``?ref=footer``, waiting meanwhile, is re-issued."""
    with crawl(tmp_path / "db") as (core, lot, _, _):
        _bare_pages(core, 5)
        probes = [f"{ORIGINAL}/news/{n}?ref=home" for n in range(3)]
        for url in probes:
            assert _on_its_way(core, url) is None
        footer = f"{ORIGINAL}/news/4?ref=footer"
        assert _on_its_way(core, footer) is not None
        for n, url in enumerate(probes):
            core.fetched(url, url, 200)
            core.verdict(url, f"{ORIGINAL}/news/{n}")
        assert _reissued(core.tick(force=True)) == {footer: "unconfirmed"}
        assert lot.kept == {}


def test_requests_waiting_for_a_rule_that_is_not_learned_in_time_are_reissued(
    tmp_path: Path,
) -> None:
    """The requests on their way never bring a verdict (the spider yields no item for
    them): the waiting ones are re-issued at their deadline, and at idle."""
    with crawl(tmp_path / "db") as (core, _, _, clock):
        _bare_pages(core, 6)
        variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(5)]
        waiting = [url for url in variants if _on_its_way(core, url) is not None]
        assert waiting == variants[3:]
        clock.now = GATHERING_SECONDS + 1
        assert _reissued(core.tick(force=True)) == dict.fromkeys(waiting, "overdue")
        # The probes' time is up too: the next request goes to the downloader.
        assert _on_its_way(core, f"{ORIGINAL}/news/5?sid=s5") is None
    with crawl(tmp_path / "db2") as (core, _, _, _):
        _bare_pages(core, 5)
        variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(5)]
        waiting = [url for url in variants if _on_its_way(core, url) is not None]
        assert _reissued(core.idle()) == dict.fromkeys(waiting, "unsettled")


def test_a_request_of_the_kind_that_came_back_new_reissues_the_waiting_ones_though_learned(
    tmp_path: Path,
) -> None:
    """The second ``?sid=`` page back is new, before its bare page (queued) came: no rule
    counts it, and three copies then teach the rule. The requests that waited meanwhile
    are re-issued all the same: what they waited on did not hold."""
    with crawl(tmp_path / "db") as (core, lot, _, _):
        for n in (0, 2, 3, 4, 5, 6, 7):
            _page(core, f"{ORIGINAL}/news/{n}")
        core.scheduled(Seen(f"{ORIGINAL}/news/1", "queued"))
        variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(7)]
        waiting = [url for url in variants if _on_its_way(core, url) is not None]
        assert waiting == variants[3:]
        core.fetched(variants[1], variants[1], 200)
        core.verdict(variants[1], None)
        # The next moment (each response is one) would re-issue them; here the copies
        # are judged first, as verdicts come in between responses.
        for n in (0, 2, 7):  # the seventh is sent now: nothing waits on a refuted kind
            url = f"{ORIGINAL}/news/{n}?sid=s{n}"
            if n == 7:
                assert _on_its_way(core, url) is None
            core.verdict(url, f"{ORIGINAL}/news/{n}")
        assert core.judge.learner.stands(core.judge.learner.rules()[0].identity)  # learned
        assert _reissued(core.tick(force=True)) == dict.fromkeys(waiting, "unconfirmed")
        assert lot.kept == {}


def test_a_late_verdict_of_a_request_no_longer_counted_on_its_way_still_refutes(
    tmp_path: Path,
) -> None:
    """A request sent to learn ``tab`` answers after ``PROBE_SECONDS``: others were sent in
    its place, and one more waits. Its page, new, still re-issues the waiting one."""
    with crawl(tmp_path / "db") as (core, _, _, clock):
        _bare_pages(core, 8)
        first = [f"{ORIGINAL}/news/{n}?tab=t{n}" for n in range(3)]
        assert all(_on_its_way(core, url) is None for url in first)
        clock.now = PROBE_SECONDS + 1
        later = [f"{ORIGINAL}/news/{n}?tab=t{n}" for n in range(3, 7)]
        waiting = [url for url in later if _on_its_way(core, url) is not None]
        assert waiting == later[3:]
        core.fetched(first[0], first[0], 200)
        core.verdict(first[0], None)
        assert _reissued(core.tick(force=True)) == dict.fromkeys(waiting, "unconfirmed")


def test_a_crawl_that_ends_before_its_rule_is_learned_keeps_what_waited_for_the_next(
    tmp_path: Path,
) -> None:
    """Requests waiting while ``sid`` is learned are never final: a crawl closed as finished
    without going idle first (its bets are otherwise re-issued there) leaves them in the
    index, and the next crawl re-issues them at once."""
    with crawl(tmp_path / "db") as (core, lot, tally, _):
        _bare_pages(core, 5)
        variants = [f"{ORIGINAL}/news/{n}?sid=s{n}" for n in range(5)]
        waiting = [url for url in variants if _on_its_way(core, url) is not None]
        assert waiting == variants[3:]
        core.closed("finished")
        assert set(lot.kept) == set(waiting) and tally["simdedup/url/final"] == 0
    with crawl(tmp_path / "db", lot=lot) as (core, _, _, _):
        assert _reissued(core.tick(force=True)) == dict.fromkeys(waiting, "interrupted")


def test_a_parameter_an_earlier_crawl_saw_bring_a_page_of_its_own_never_waits(
    tmp_path: Path,
) -> None:
    """The stored rule for ``tab`` met a new page in an earlier crawl: loaded on probation,
    it lets no request wait while this crawl learns it again."""
    with crawl(tmp_path / "db") as (core, _, _, _):
        _bare_pages(core, 4)
        for n, value in enumerate("abc"):  # learned: three copies, three values
            _page(core, f"{ORIGINAL}/news/{n}?tab={value}", f"{ORIGINAL}/news/{n}")
        core.fetched(f"{ORIGINAL}/news/3?tab=d", "its sample", 200)  # a page of its own
        core.verdict(f"{ORIGINAL}/news/3?tab=d", None)
        core.closed("finished")
    with crawl(tmp_path / "db") as (core, _, tally, _):
        assert core.judge.learner.rules()[0].uniques == 1  # read back from the index
        _bare_pages(core, 8)
        for n in range(8):
            assert _on_its_way(core, f"{ORIGINAL}/news/{n}?tab=t{n}") is None
        assert tally["simdedup/url/gathering"] == 0


def test_a_mirrors_requests_wait_once_enough_are_on_their_way_to_learn_it(
    tmp_path: Path,
) -> None:
    """The mirror's first story came back a copy of the original's: of its next nine
    stories (the original's queued), the two the rule still needs go to the downloader and
    the rest wait on a bet; its events, a section where no copy was seen yet, are
    fetched. The two come back copies, the mirror rule is learned with the mirror as the
    copy, and the bets stand (but for the rule's sample, fetched). Another crawl: a story
    of the mirror's own comes back new, and every bet is re-issued."""
    for outcome in ("copies", "own story"):
        with crawl(tmp_path / outcome) as (core, lot, tally, _):
            for n in range(9):
                _page(core, f"{ORIGINAL}/news/{n}")
            core.scheduled(Seen(f"{ORIGINAL}/news/9", ""))  # queued, still to come
            _page(core, f"{MIRROR}/news/0", f"{ORIGINAL}/news/0")
            stories = [f"{MIRROR}/news/{n}" for n in range(1, 10)]
            waiting = [url for url in stories if _on_its_way(core, url) is not None]
            assert waiting == stories[2:] and tally["simdedup/url/probes"] == 2
            assert set(lot.kept) == set(waiting)
            # No copy seen in its section: fetched, as a learned rule's first would-be skip
            # there (a section of the mirror's own, or one where it diverged).
            for n in range(3):
                core.scheduled(Seen(f"{ORIGINAL}/events/{n}", ""))
                assert _on_its_way(core, f"{MIRROR}/events/{n}") is None
            assert _reissued(core.tick(force=True)) == {}  # not learned yet: still waiting
            # A link that fails on the original meanwhile was on the pages waiting too: it
            # is followed on the mirror as soon as it fails, not once the rule stands.
            mirrors = core.judge.copying_mirrors("a.example", core.betting_on)
            assert [rule.describe() for rule in mirrors] == ["m.example mirrors a.example"]
            # A counterpart that fails re-issues the request waiting on it, at once.
            failed = _reissued(core.fetched(f"{ORIGINAL}/news/9", "", 404))
            assert failed == {f"{MIRROR}/news/9": "counterpart_failed"}, failed
            waiting.remove(f"{MIRROR}/news/9")
            core.fetched(stories[0], stories[0], 200)
            if outcome == "own story":
                reissued = _reissued(core.verdict(stories[0], None))
                reissued |= _reissued(core.tick(force=True))
                assert set(reissued) == set(waiting) and lot.kept == {}, reissued
                continue
            core.verdict(stories[0], f"{ORIGINAL}/news/1")
            core.fetched(stories[1], stories[1], 200)
            core.verdict(stories[1], f"{ORIGINAL}/news/2")
            reissued = _reissued(core.tick(force=True))
            assert set(reissued.values()) <= {"unconfirmed"} and len(reissued) <= 1, reissued
            assert _reissued(core.idle()) == {} or len(reissued) == 0
            standing = [url for url in waiting if url in lot.kept]
            assert len(standing) >= len(waiting) - 2, standing
            assert all(not core.bets.get(url).gathering for url in standing)  # type: ignore[union-attr]
            core.closed("finished")
            assert tally["simdedup/url/final"] == len(standing)


def test_no_mirror_bet_is_made_on_a_host_whose_pages_came_first_as_often(tmp_path: Path) -> None:
    """A host whose only copy is a shared legal page is not bet on; nor, when two shops
    share their legal pages, are the pages of their top level (hubs) or of a section where
    no page was seen copied; of two hosts crawled together whose pages each came second
    once in a section, neither is there (which one is the copy is not known yet: a bet on
    the original would wait on pages of the copy)."""
    with crawl(tmp_path / "legal") as (core, lot, _, _):
        _page(core, f"{MIRROR}/about")
        _page(core, f"{ORIGINAL}/about", f"{MIRROR}/about")  # not a content page
        for n in range(10):
            core.scheduled(Seen(f"{MIRROR}/news/{n}", ""))
            assert _on_its_way(core, f"{ORIGINAL}/news/{n}") is None
        _page(core, f"{MIRROR}/legal/imprint")
        _page(core, f"{ORIGINAL}/legal/imprint", f"{MIRROR}/legal/imprint")
        for path in ("/collections", "/events", "/collections/shoes", "/events/1"):
            core.scheduled(Seen(f"{MIRROR}{path}", ""))
            assert _on_its_way(core, f"{ORIGINAL}{path}") is None
        for page in ("privacy", "returns", "refunds"):  # where the copy was seen
            core.scheduled(Seen(f"{MIRROR}/legal/{page}", ""))
            _on_its_way(core, f"{ORIGINAL}/legal/{page}")
        assert set(lot.kept) == {f"{ORIGINAL}/legal/refunds"}  # after the rule's two probes
    with crawl(tmp_path / "together") as (core, lot, _, _):
        _page(core, f"{ORIGINAL}/x/1")
        _page(core, f"{MIRROR}/x/1", f"{ORIGINAL}/x/1")
        _page(core, f"{MIRROR}/x/2")
        _page(core, f"{ORIGINAL}/x/2", f"{MIRROR}/x/2")
        for n in range(20, 30):
            core.scheduled(Seen(f"{MIRROR}/x/{n}", ""))
            assert _on_its_way(core, f"{ORIGINAL}/x/{n}") is None
            core.scheduled(Seen(f"{ORIGINAL}/x/{n + 20}", ""))
            assert _on_its_way(core, f"{MIRROR}/x/{n + 20}") is None
        assert lot.kept == {}


@pytest.mark.parametrize("risk", [0.0, 0.1])
def test_a_new_page_re_issues_its_sections_bets_when_the_rule_stands_all_when_it_ends(
    tmp_path: Path, risk: float
) -> None:
    """A mirror rule skips 200 pages of ``/p/`` (with a risk of 10%, one in two is its
    sample until 45 samples came back copies) and five of ``/docs/``, whose first page is
    fetched as the section's sample and comes back new. With the risk the rule stands (at
    most 9.8% of its skips differ): the five bets of ``/docs/`` go, those of ``/p/`` stand.
    At the default risk the rule ends and every bet goes."""
    with crawl(tmp_path / "db", risk=risk) as (core, _, tally, _):
        _teach_mirror(core)
        skipped = []
        for n in range(3, 203):
            _page(core, f"{ORIGINAL}/p/{n}")
            url = f"{MIRROR}/p/{n}"
            if isinstance(core.scheduled(Seen(url, url)), Skip):
                skipped.append(url)
            else:  # a sample: fetched, and a copy
                core.fetched(url, url, 200)
                core.verdict(url, f"{ORIGINAL}/p/{n}")
        assert tally["simdedup/url/sampled"] >= (45 if risk else 1)
        docs = [f"/docs/{n}" for n in range(6)]
        for path in docs:
            _page(core, ORIGINAL + path)
        sample = MIRROR + docs[0]
        assert not isinstance(core.scheduled(Seen(sample, sample)), Skip)  # the section's
        in_docs = []
        for path in docs[1:]:
            url = MIRROR + path
            if isinstance(core.scheduled(Seen(url, url)), Skip):
                in_docs.append(url)
            else:  # a sample (one in so many)
                core.fetched(url, url, 200)
                core.verdict(url, ORIGINAL + path)
        assert in_docs
        core.fetched(sample, sample, 200)
        reissued = _reissued(core.verdict(sample, None))
        if risk:
            assert reissued == dict.fromkeys(in_docs, "rule_contradicted")
            assert tally["simdedup/url/rules_held"] == 1
            assert all(core.bets.get(url) for url in skipped)
        else:
            assert reissued == dict.fromkeys([*skipped, *in_docs], "rule_weakened")
            assert tally["simdedup/url/rules_held"] == 0


def test_a_new_page_among_its_sections_many_copies_re_issues_nothing_within_the_risk(
    tmp_path: Path,
) -> None:
    """A mirror of one section, ``/p/``, some of whose pages lag behind (issue 60's lagging
    mirror): with a risk of 10%, once the rule's samples in ``/p/`` bound its differing
    pages within the risk, a sample that comes back new there re-issues none of the
    section's bets (before, all of them went at each such page: on a mirror of one
    section, nothing was saved). A section whose first sample is new still loses its
    bets (``test_a_new_page_re_issues_its_sections_bets_when_the_rule_stands_all_when_it_ends``)."""
    with crawl(tmp_path / "db", risk=0.1) as (core, _, tally, _):
        _teach_mirror(core)
        skipped, samples = [], 0
        for n in range(3, 3000):
            _page(core, f"{ORIGINAL}/p/{n}")
            url = f"{MIRROR}/p/{n}"
            if isinstance(core.scheduled(Seen(url, url)), Skip):
                skipped.append(url)
                continue
            core.fetched(url, url, 200)
            if samples < 50:  # a copy, as predicted
                samples += 1
                core.verdict(url, f"{ORIGINAL}/p/{n}")
                continue
            assert _reissued(core.verdict(url, None)) == {}  # an older version: new
            break
        else:
            raise AssertionError(f"{samples} samples among 3,000 would-be skips")
        assert tally["simdedup/url/sections_held"] == 1
        assert len(skipped) > 100 and all(core.bets.get(url) for url in skipped)
        rule = core.judge.learner.rules()[0]
        assert core.judge.learner.stands(rule.identity)
        assert "51 samples, 1 new" in core.judge.learner.estimate(rule)


def test_a_sample_judged_before_its_counterpart_counts_once_the_counterpart_copies_it(
    tmp_path: Path,
) -> None:
    """Fetched at once, a mirror's sample may be judged (new: nothing stored yet) before
    the original's page, which is then judged its copy: the sample was a copy all the
    same. One judged new beside a counterpart judged before it differed."""
    with crawl(tmp_path / "db", risk=0.3) as (core, _, _, _):
        _teach_mirror(core)
        learner = core.judge.learner
        (rule,) = [r for r in learner.learned_rules() if core.judge.stands(r)]
        sample, counterpart = _a_sample(core, _pairs(MIRROR, ORIGINAL, range(9, 49)))
        core.fetched(sample, sample, 200)
        core.verdict(sample, None)  # first: nothing stored to copy
        assert learner.samples(rule) == (0, 0)
        core.fetched(counterpart, counterpart, 200)
        core.verdict(counterpart, sample)
        assert learner.samples(rule) == (1, 0)
        later = _pairs(MIRROR, ORIGINAL, range(49, 89))  # judged after its counterpart
        differing, _ = _a_sample(core, later, counterpart_judged=True)
        core.fetched(differing, differing, 200)
        core.verdict(differing, None)
        assert learner.samples(rule) == (2, 1)
        # A new page of the mirror no sample brought is no sample of the rule's skips.
        unsampled, its_counterpart = f"{MIRROR}/p/100", f"{ORIGINAL}/p/100"
        _page(core, its_counterpart)
        core.fetched(unsampled, unsampled, 200)
        core.verdict(unsampled, None)
        assert learner.samples(rule) == (2, 1)


def test_a_sample_judged_before_its_counterpart_differs_when_the_counterpart_is_new(
    tmp_path: Path,
) -> None:
    """The sample came back new before its counterpart was judged, then the counterpart
    came back new too: a sample that differed, counted when the counterpart is judged."""
    with crawl(tmp_path / "db", risk=0.3) as (core, _, _, _):
        _teach_mirror(core)
        learner = core.judge.learner
        (rule,) = [r for r in learner.learned_rules() if core.judge.stands(r)]
        sample, counterpart = _a_sample(core, _pairs(MIRROR, ORIGINAL, range(9, 49)))
        core.fetched(sample, sample, 200)
        core.verdict(sample, None)
        assert learner.samples(rule) == (0, 0)
        core.fetched(counterpart, counterpart, 200)
        core.verdict(counterpart, None)
        assert learner.samples(rule) == (1, 1)


def test_a_parameter_rules_sample_judged_before_its_counterpart_differs_when_it_is_new(
    tmp_path: Path,
) -> None:
    """A ``?sid=`` sample came back new before its bare page was judged, then the bare
    page came back new too: the parameter changed the page, and the sample counts as one
    that differed (its counterpart's verdict weakened no rule to count it)."""
    with crawl(tmp_path / "db", risk=0.3) as (core, _, _, _):
        for n in range(3):
            _page(core, f"{ORIGINAL}/s/{n}")
            _page(core, f"{ORIGINAL}/s/{n}?sid=x{n}", f"{ORIGINAL}/s/{n}")
        learner = core.judge.learner
        (rule,) = [r for r in learner.learned_rules() if r.kind == "pattern"]
        variants = [(f"{ORIGINAL}/s/{n}?sid=z", f"{ORIGINAL}/s/{n}") for n in range(9, 49)]
        sample, counterpart = _a_sample(core, variants)
        core.fetched(sample, sample, 200)
        core.verdict(sample, None)  # first: nothing to copy yet
        assert learner.samples(rule) == (0, 0)
        core.fetched(counterpart, counterpart, 200)
        core.verdict(counterpart, None)
        assert learner.samples(rule) == (1, 1)
