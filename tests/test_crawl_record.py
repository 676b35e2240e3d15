"""One crawl's record on a real Redis, shared by its workers (issue 35): who joins which
crawl, what settles a bet across workers, and one fetch per re-issued URL."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from scrapy_simdedup import url_parts
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.crawls import CrawlRecord, join_crawl
from scrapy_simdedup.index.heartbeats import Heartbeats
from scrapy_simdedup.index.mirrorchoice import agreed_copy
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.index.stores.redis import RedisStore
from scrapy_simdedup.judges.incrawl import in_crawl
from scrapy_simdedup.judges.verdict import Verdict
from scrapy_simdedup.scrapy_layer.state import leftover_parked
from scrapy_simdedup.url.actions import Reissue, Seen, Skip
from scrapy_simdedup.url.bets import Bet
from scrapy_simdedup.url.core import AWAIT_OTHERS_SECONDS, SAMPLE_WAIT_SECONDS, UrlCore
from scrapy_simdedup.url.judgewiring import judge_for_crawl
from tests.test_url_core import Clock, Lot, Tally, _reissued

A, B, C = "http://a.test/1", "http://a.test/2", "http://b.test/1"
D, E = "http://a.test/3", "http://b.test/3"


@pytest.fixture
def store(redis_url: str) -> Iterator[RedisStore]:
    opened = RedisStore(redis_url, "crawls")
    try:
        yield opened
    finally:
        opened.close()


def worker(store: RedisStore, name: str) -> Heartbeats:
    return Heartbeats(store, 10.0, worker=name)


def test_a_worker_alone_starts_a_crawl_and_the_next_ones_join_it(store: RedisStore) -> None:
    first = join_crawl(store, worker(store, "w1"))
    second = join_crawl(store, worker(store, "w2"))
    assert first.started and not second.started
    assert second.record.crawl_id == first.record.crawl_id
    assert second.workers == 1


def test_a_worker_after_every_worker_left_starts_a_new_crawl_without_the_old_marks(
    store: RedisStore,
) -> None:
    beats = worker(store, "w1")
    old = join_crawl(store, beats).record
    old.fetched(A)
    beats.leave()
    new = join_crawl(store, worker(store, "w2"))
    assert new.started and new.record.crawl_id != old.crawl_id
    assert not new.record.was_fetched(A)
    assert not old.was_fetched(A)  # the ended crawl's marks are gone


def test_a_crawl_id_given_is_the_crawl_whoever_runs(store: RedisStore) -> None:
    join_crawl(store, worker(store, "w1"))
    named = join_crawl(store, worker(store, "w2"), "nightly-7")
    assert named.record.crawl_id == "nightly-7"


def test_what_one_worker_fetched_settles_another_workers_bets(store: RedisStore) -> None:
    crawl = join_crawl(store, worker(store, "w1")).record
    other = join_crawl(store, worker(store, "w2")).record
    crawl.fetched(A)
    assert other.brought(A) and not other.was_judged(A)  # as on one worker: fetched, 2xx
    in_crawl(Verdict(A), crawl)
    assert other.brought(A) and other.was_kept(A) and other.was_judged(A)
    crawl.fetched(B)
    in_crawl(Verdict(B, original="http://elsewhere.test/x"), crawl)  # a copy of no kept page
    assert not other.brought(B)  # barren: its page is not in this crawl's feed


def test_every_worker_knows_which_page_another_found_a_copy_of(store: RedisStore) -> None:
    """A new page's verdict can reach its worker after another worker found its mirror's
    page a copy of it: the record tells that copy from a page judged new (issue 35), also
    when the copy was judged before the new page was recorded kept (barren then)."""
    crawl = join_crawl(store, worker(store, "w1")).record
    other = join_crawl(store, worker(store, "w2")).record
    for url in (A, B, C):
        crawl.fetched(url)
    in_crawl(Verdict(B, original=A), crawl)  # A stored, not yet recorded kept: barren
    assert other.judged_copy_of(B) == A and not other.brought(B)
    in_crawl(Verdict(A), crawl)
    assert not other.brought(B)  # still: it may have matched an earlier crawl's text of A
    in_crawl(Verdict(C, original=A), crawl)
    assert other.judged_copy_of(C) == A and other.brought(C)
    earlier, copy = "http://a.test/earlier", "http://b.test/copy"
    crawl.fetched(copy)
    in_crawl(Verdict(copy, original=earlier), crawl)  # an earlier crawl's page
    crawl.fetched(earlier)
    in_crawl(Verdict(earlier, revisit=True), crawl)  # fetched again: its text may differ
    assert other.was_kept(earlier) and not other.brought(copy)
    assert other.brought(A)
    crawl.released(A)  # a later pipeline dropped A's item: nothing of it is in the feed
    assert not other.brought(A) and not other.brought(C)
    assert other.judged_copy_of(A) is None and other.was_judged(A)
    assert other.judged_copy_of("http://never.test/") is None


def test_a_bet_relying_on_a_bet_settles_on_the_last_counterpart(store: RedisStore) -> None:
    crawl = join_crawl(store, worker(store, "w1")).record
    crawl.bet(C, B)
    crawl.bet(B, A)
    assert not crawl.brought(C)
    crawl.fetched(A)
    in_crawl(Verdict(A), crawl)
    assert crawl.brought(C)
    assert crawl.claim_reissue(B)  # re-issued: its own fetch decides now
    assert not crawl.brought(C)


def test_a_page_is_on_its_way_from_its_claim_until_it_is_answered_or_fails(
    store: RedisStore,
) -> None:
    crawl = join_crawl(store, worker(store, "w1")).record
    other = join_crawl(store, worker(store, "w2")).record
    assert not other.on_its_way(A)  # queued only: not on its way
    crawl.queued(A)
    assert not other.on_its_way(A)
    assert crawl.claim_fetch(A) and other.on_its_way(A)
    crawl.bet(C, B)
    crawl.bet(B, A)
    assert other.on_its_way(C)  # a bet relying on a bet: the last counterpart's
    crawl.fetched(A)
    assert not other.on_its_way(A) and not other.on_its_way(C)
    assert crawl.claim_reissue(B) and other.on_its_way(C)  # re-issued: on its way itself
    crawl.failed(B)
    assert not other.on_its_way(B) and not other.on_its_way(C)
    assert crawl.claim_fetch(D) and not other.awaits_verdict(D)  # not come yet
    crawl.bet(E, D)
    crawl.fetched(D)
    assert other.awaits_verdict(D) and other.awaits_verdict(E)  # come, not judged
    in_crawl(Verdict(D), crawl)
    assert not other.awaits_verdict(D) and not other.awaits_verdict(E)


def test_a_reissued_url_is_fetched_once_per_crawl(store: RedisStore) -> None:
    crawl = join_crawl(store, worker(store, "w1")).record
    other = join_crawl(store, worker(store, "w2")).record
    assert crawl.claim_reissue(A)
    assert not other.claim_reissue(A)  # a second re-issue, on any worker
    assert not other.claim_fetch(A)  # the same URL from the queue: the re-issue fetches it
    assert other.claim_fetch(B) and crawl.claim_fetch(B)  # two ordinary ones: the dupefilter's
    assert not crawl.claim_reissue(B)  # on its way to the downloader already
    crawl.fetched(C)
    assert not other.claim_reissue(C)  # fetched in this crawl


def test_a_page_another_worker_kept_is_a_repeated_key_not_a_revisit(store: RedisStore) -> None:
    crawl = join_crawl(store, worker(store, "w1")).record
    other = join_crawl(store, worker(store, "w2")).record
    assert in_crawl(Verdict(A), crawl) == Verdict(A)
    again = in_crawl(Verdict(A, original=A, revisit=True), other)
    assert again.repeated_key and again.copy
    text = Verdict("text:00ff", original="text:00ff", revisit=True)
    assert in_crawl(text, other) is text  # no URL: nothing to share


def test_the_first_worker_learns_of_requests_an_earlier_run_left_parked(store: RedisStore) -> None:
    store.write({keyspace.PARKED + A.encode(): json.dumps({"url": A}).encode()})
    assert leftover_parked(store, started=True) == 1
    assert leftover_parked(store, started=False) == 0


def test_urls_fetched_before_are_counted_when_the_crawl_starts(store: RedisStore) -> None:
    crawl = CrawlRecord(store, "c1")
    assert crawl.fetched_before(14) == 14
    assert CrawlRecord(store, "c1").fetched_before(30) == 14  # a later worker of the crawl


def test_the_first_worker_to_choose_a_mirror_pairs_copy_decides_for_all(store: RedisStore) -> None:
    assert agreed_copy(store, "m.test", "o.test", "m.test") == "m.test"
    assert agreed_copy(store, "o.test", "m.test", "o.test") == "m.test"  # the other way round
    assert agreed_copy(store, "x.test", "o.test", "o.test") == "o.test"  # another pair


def test_the_first_worker_with_evidence_in_a_section_takes_the_crawls_sample(
    store: RedisStore,
) -> None:
    crawl = join_crawl(store, worker(store, "w1")).record
    other = join_crawl(store, worker(store, "w2")).record
    pair = ("m.test", "o.test")
    assert crawl.claim_section(pair, "docs/")
    assert not other.claim_section(pair, "docs/")
    assert not crawl.claim_section(pair, "docs/")
    assert other.claim_section(pair, "about/")  # another section
    assert other.claim_section(("m.test", "x.test"), "docs/")  # another pair
    later = join_crawl(store, worker(store, "w3"), "another-crawl").record
    assert later.claim_section(pair, "docs/")  # one sample per crawl


def test_the_urls_every_worker_queued_on_a_host_are_read_back_for_it_alone(
    store: RedisStore,
) -> None:
    """One worker parsed the site's home page and queued its pages; another, which parsed
    only the partial mirror's, reads them back when it chooses the pair's copy."""
    one = join_crawl(store, worker(store, "w1")).record
    two = join_crawl(store, worker(store, "w2")).record
    site = [f"http://o.test/docs/{n}.html" for n in range(30)] + ["https://o.test/?sid=1"]
    for url in [*site, "http://o.test0/x", "http://o.testing/y", "http://p.test/docs/1.html"]:
        one.queued(url)
    assert sorted(two.queued_urls("o.test", 100)) == sorted(site)
    assert two.queued_urls("p.test", 100) == ["http://p.test/docs/1.html"]
    assert len(two.queued_urls("o.test", limit=7)) == 7
    assert CrawlRecord(store, "another crawl").queued_urls("o.test", 100) == []


def test_the_urls_every_worker_sent_to_the_downloader_are_read_back_per_host(
    store: RedisStore,
) -> None:
    """Which of a mirror pair was crawled less counts every worker's requests: a URL
    claimed on its way to the downloader or by a re-issue, on this crawl only."""
    one = join_crawl(store, worker(store, "w1")).record
    two = join_crawl(store, worker(store, "w2")).record
    sent = [f"http://o.test/docs/{n}.html" for n in range(12)]
    for url in sent:
        assert one.claim_fetch(url)
    assert two.claim_reissue("http://o.test/docs/re.html")
    one.queued("http://o.test/docs/queued-only.html")
    assert one.claim_fetch("http://m.test/docs/1.html")
    assert sorted(two.requested_urls("o.test", 100)) == sorted(
        [*sent, "http://o.test/docs/re.html"]
    )
    assert two.requested_urls("m.test", 100) == ["http://m.test/docs/1.html"]
    assert len(two.requested_urls("o.test", limit=5)) == 5
    assert CrawlRecord(store, "another crawl").requested_urls("o.test", 100) == []


def test_a_copy_another_worker_judged_first_weakens_no_rule_here(redis_url: str) -> None:
    """Two workers' URL judges on one Redis: the first learns the mirror, fetches the
    original's page and stores it; the second finds the mirror's page a copy of it; the
    first then hears of its own verdict (new). The mirror rule stands (it was weakened,
    and 229 requests re-issued, issue 35); a mirror page the second found new weakens it."""
    original, mirror = "http://a.test", "http://m.test"
    with (
        open_index(redis_url, prefix="race", expected_size=1_000) as first_index,
        open_index(redis_url, prefix="race", expected_size=1_000) as second_index,
    ):
        judges = []
        for index, name in ((first_index, "w1"), (second_index, "w2")):
            judge = judge_for_crawl(
                index, mode="adaptive", max_distance=3, expected_size=1_000,
                min_evidence=3, sample_every=1000,
            )  # fmt: skip
            judge.peers = join_crawl(index.store, worker(index.store, name)).record  # type: ignore[arg-type]
            judges.append(judge)
        first, second = judges
        for n in range(3):
            for judge, url in ((first, f"{original}/p/{n}"), (first, f"{mirror}/p/{n}")):
                judge.fetched(url_parts(url))
            first.observe(f"{original}/p/{n}", None)
            first.observe(f"{mirror}/p/{n}", f"{original}/p/{n}")
        (rule,) = first.learned_rules()
        for n, second_finds in ((7, f"{original}/p/7"), (8, None)):
            first.fetched(url_parts(f"{original}/p/{n}"))
            second.fetched(url_parts(f"{mirror}/p/{n}"))
            verdict = Verdict(f"{mirror}/p/{n}", original=second_finds)
            in_crawl(verdict, second.peers)  # type: ignore[arg-type]
            second.observe(f"{mirror}/p/{n}", second_finds)
            weakened = first.observe(f"{original}/p/{n}", None)
            if second_finds:
                assert weakened == [] and first.stands(rule)
            else:
                assert [r.identity for r in weakened] == [rule.identity]


def test_a_bet_on_a_page_another_worker_releases_is_reissued_at_idle(redis_url: str) -> None:
    """The first worker skips the mirror's page on the original's, which the second
    worker fetched and kept; then a later pipeline on the second worker drops that item
    (released). The first worker's bet must not stand on a page the feed lacks: the
    crawl's record forgets the page kept, and idle re-issues the bet (it stood, and the
    page was in no feed)."""
    original, mirror = "http://a.test", "http://m.test"
    with _two_workers(redis_url, "late", lambda name: Lot()) as (first, second):
        _learn_mirror(first, original, mirror)
        counterpart, copy = f"{original}/p/8", f"{mirror}/p/8"
        assert not isinstance(second.scheduled(Seen(counterpart, "counterpart")), Skip)
        second.fetched(counterpart, "counterpart", 200)
        assert second.peers.shared and first.peers.shared
        in_crawl(Verdict(counterpart), second.peers)  # type: ignore[arg-type]
        second.verdict(counterpart, None)
        skip = first.scheduled(Seen(copy, "copy"))
        assert isinstance(skip, Skip) and skip.counterpart == counterpart, skip
        assert first.judge.brought(counterpart)
        second.released(counterpart)
        assert not first.judge.brought(counterpart)
        assert _reissued(first.idle()) == {copy: "unsettled"}


def test_a_switcher_one_worker_found_reissues_the_others_bets_on_it(redis_url: str) -> None:
    """The second worker parsed the article linking ``?lang=fr`` and ``?lang=de``: ``lang``
    switches there, and it skips neither. The first worker, which learned ``lang`` changes
    nothing in /news/, takes ``?lang=de`` from the shared queue without having parsed the
    article and skips it. Once it hears of the switcher (the rule news of the next
    refresh), that bet is re-issued: a real translation among fallbacks is not lost."""
    site = "http://a.test"
    with _two_workers(redis_url, "switch", lambda name: Lot()) as (first, second):
        for n, lang in enumerate(("fr", "de", "es")):
            for url, copied in ((f"{site}/news/{n}", None), (f"{site}/news/{n}?lang={lang}", n)):
                assert not isinstance(first.scheduled(Seen(url, url)), Skip)
                first.fetched(url, url, 200)
                first.verdict(url, None if copied is None else f"{site}/news/{n}")
        article = f"{site}/news/9"
        assert not isinstance(second.scheduled(Seen(article, "article")), Skip)
        second.fetched(article, "article", 200)
        second.verdict(article, None)
        for lang in ("fr", "de"):
            linked = second.scheduled(Seen(f"{article}?lang={lang}", lang, source=article))
            assert lang == "fr" or not isinstance(linked, Skip)
        german = f"{article}?lang=de"
        skip = first.downloading(Seen(german, "de"))
        assert isinstance(skip, Skip) and skip.counterpart == article, skip
        deadline = time.monotonic() + 10
        reissued: dict[str, str] = {}
        while not reissued and time.monotonic() < deadline:
            time.sleep(0.3)  # past the news' refresh interval
            second.refresh()
            reissued = _reissued(first.refresh())
        assert reissued == {german: "switcher"}, "the first worker never heard of the switcher"
        assert first.judge.learner.switches(url_parts(german), ["lang"])


def _judged(core: UrlCore[str], url: str, original: str | None = None) -> None:
    """``url`` fetched on ``core``'s worker and judged a copy of ``original`` (or new), in
    the crawl's record as the pipeline records it."""
    assert not isinstance(core.scheduled(Seen(url, url)), Skip)
    _judged_on_its_way(core, url, original)


def _heard(first: UrlCore[str], second: UrlCore[str]) -> dict[str, str]:
    """What the first worker re-issues once it heard the second's news (10 s at most)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(0.3)  # past the news' refresh interval
        second.refresh()
        reissued = _reissued(first.refresh() + first.tick(force=True))
        if reissued:
            return reissued
    return {}


def test_a_soft_404_another_worker_found_settles_no_bet_here(redis_url: str) -> None:
    """The first worker skips the mirror's story on the original's, which the second worker
    fetches: "this story is no longer available", served with a 200, a copy of another
    story of the original (a soft 404). The mirror's story, still there, must be fetched:
    the first worker hears of the soft 404 and re-issues its bet; without that, the bet
    stood on a page kept in the feed (the notice) and the story was lost."""
    original, mirror = "http://a.test", "http://m.test"
    with _two_workers(redis_url, "soft404", lambda name: Lot()) as (first, second):
        _learn_mirror(first, original, mirror)
        _judged(second, f"{original}/story/1")  # the first notice: new, kept
        gone, copy = f"{original}/story/9", f"{mirror}/story/9"
        for url in (f"{original}/story/8", gone):
            assert not isinstance(second.scheduled(Seen(url, url)), Skip)
        sample = first.scheduled(Seen(f"{mirror}/story/8", "sample"))  # the section's first
        assert not isinstance(sample, Skip) and sample.sample == "mirror", sample
        skip = first.scheduled(Seen(copy, "copy"))
        assert isinstance(skip, Skip) and skip.counterpart == gone, skip
        second.fetched(gone, gone, 200)
        assert second.peers.shared
        in_crawl(Verdict(gone, f"{original}/story/1"), second.peers)  # type: ignore[arg-type]
        second.verdict(gone, f"{original}/story/1")
        assert first.judge.brought(gone)  # by the crawl's record alone it would stand
        assert _heard(first, second) == {copy: "counterpart_not_predicted"}
        later = first.scheduled(Seen(f"{mirror}/story/1", "another"))  # nor a new bet on it
        assert not isinstance(later, Skip), later


def test_a_rule_another_workers_probe_refuted_reissues_the_requests_waiting_on_it(
    redis_url: str,
) -> None:
    """Both workers gather ``?color=`` requests while the rule is learned, each sending its
    share to the downloader. One the second worker sent comes back new (a colour with a
    page of its own), and then three copies teach the rule: the first worker's waiting
    requests are re-issued once it hears of the refutation, as on one worker. Without it
    they stood on the rule the copies taught, and the colours' pages were lost."""
    site = "http://a.test"
    with _two_workers(redis_url, "refuted", lambda name: Lot()) as (first, second):
        for core, numbers in ((first, range(10)), (second, range(10, 20))):
            for n in numbers:
                _judged(core, f"{site}/shop/{n}")
        variants = [f"{site}/shop/{n}?color=c{n}" for n in range(10)]
        waiting = [variant for variant in variants if _skipped_on_its_way(first, variant)]
        assert waiting and all(first.bets.get(url).gathering for url in waiting), waiting  # type: ignore[union-attr]
        sent = []
        for n in range(10, 20):
            variant = f"{site}/shop/{n}?color=c{n}"
            answer = second.scheduled(Seen(variant, variant))
            if not isinstance(answer, Skip) and not isinstance(
                second.downloading(Seen(variant, variant)), Skip
            ):
                sent.append(variant)
        assert sent, "the second worker sent none of its share"
        second.fetched(sent[0], sent[0], 200)
        assert second.peers.shared
        in_crawl(Verdict(sent[0]), second.peers)  # type: ignore[arg-type]
        second.verdict(sent[0], None)  # a colour with a page of its own
        for n in range(20, 23):  # then copies teach the rule (the new page left no trace)
            _judged(second, f"{site}/shop/{n}")
            _judged(second, f"{site}/shop/{n}?color=x{n}", f"{site}/shop/{n}")
        assert _heard(first, second) == dict.fromkeys(waiting, "unconfirmed")


def test_idle_waits_for_a_counterpart_another_worker_has_on_its_way(redis_url: str) -> None:
    """The first worker holds the mirror's pages on bets relying on the original's, which
    the second worker took from the shared queue and has on its way to the downloader.
    The first goes idle (nothing left in the shared queue): re-issuing them then fetched
    copies the second was bringing. They wait, and the worker stays open; the page that
    comes and is judged settles its bet (come but not judged, its bet waits for the
    verdict, which may find it a copy of a page the crawl did not keep), the one that
    fails re-issues its bet at once, and one never answered (its worker killed) is
    re-issued after ``AWAIT_OTHERS_SECONDS``. A worker alone waits for nothing at idle."""
    original, mirror = "http://a.test", "http://m.test"
    clock = Clock()
    with _two_workers(redis_url, "onway", lambda name: Lot(), clock) as (first, second):
        _learn_mirror(first, original, mirror)
        first.crew.size = second.crew.size = 2
        for n in (4, 7, 8, 9):
            counterpart = f"{original}/p/{n}"
            assert not isinstance(second.scheduled(Seen(counterpart, "queued")), Skip)
            assert second.claim_fetch(counterpart)  # on its way to the second's downloader
            skip = first.scheduled(Seen(f"{mirror}/p/{n}", "copy"))
            assert isinstance(skip, Skip) and skip.counterpart == counterpart, skip
        assert _reissued(first.idle()) == {} and first.awaiting
        assert first.tally["simdedup/url/awaited_at_idle"] == 4  # type: ignore[attr-defined]
        _judged_on_its_way(second, f"{original}/p/8")
        second.fetched(f"{original}/p/9", "gone", 404)
        second.redirected([f"{original}/p/4"])  # a redirect elsewhere: no page of its own
        clock.now = 6.0
        expected = {f"{mirror}/p/9": "unsettled", f"{mirror}/p/4": "unsettled"}
        assert _reissued(first.idle()) == expected and first.awaiting
        clock.now = AWAIT_OTHERS_SECONDS + 1
        assert _reissued(first.idle()) == {f"{mirror}/p/7": "unsettled"}
        assert not first.awaiting
        # Come, but not judged yet: held until its verdict, here a copy of a page the crawl
        # did not keep (an earlier crawl's), so the mirror's page is fetched after all.
        counterpart = f"{original}/p/6"
        assert not isinstance(second.scheduled(Seen(counterpart, "queued")), Skip)
        assert second.claim_fetch(counterpart)
        assert isinstance(first.scheduled(Seen(f"{mirror}/p/6", "copy")), Skip)
        assert _reissued(first.idle()) == {} and first.awaiting
        second.fetched(counterpart, "p6", 200)
        assert first.judge.brought(counterpart)  # as far as is known: final, were it asked
        assert _reissued(first.idle()) == {} and first.awaiting, "final before its verdict"
        assert second.peers.shared
        in_crawl(Verdict(counterpart, "http://earlier.test/p/6"), second.peers)  # type: ignore[arg-type]
        assert _reissued(first.idle()) == {f"{mirror}/p/6": "unsettled"}
        assert not first.awaiting
        # Alone (the other worker left): what has not come is re-issued at idle at once.
        first.crew.size = 1
        skipped = []
        for n in (5, 50, 51):  # the first may be the rule's sample, fetched
            assert not isinstance(second.scheduled(Seen(f"{original}/p/{n}", "queued")), Skip)
            assert second.claim_fetch(f"{original}/p/{n}")
            if isinstance(first.scheduled(Seen(f"{mirror}/p/{n}", "copy")), Skip):
                skipped.append(f"{mirror}/p/{n}")
        assert skipped
        assert _reissued(first.idle()) == dict.fromkeys(skipped, "unsettled")
        assert not first.awaiting
        first.closed("finished")
        assert first.tally["simdedup/url/final"] == 1  # type: ignore[attr-defined]


def test_idle_waits_for_a_rule_another_worker_is_still_teaching(redis_url: str) -> None:
    """Both workers gather ``?sid=`` requests while the rule is learned; the first
    worker's probes came back copies and it goes idle while the second's are in the second's
    downloader. Its waiting requests are held, not re-issued (28 fetched for nothing in a
    crawl of the trap site), until it hears that the second's copies taught the rule:
    they stand then, as on one worker. Heard of nothing within ``SAMPLE_WAIT_SECONDS``,
    they are re-issued."""
    site = "http://a.test"
    clock = Clock()
    with _two_workers(redis_url, "teach", lambda name: Lot(), clock) as (first, second):
        first.crew.size = second.crew.size = 2
        for core, numbers in ((first, range(12)), (second, range(12, 24))):
            for n in numbers:
                _judged(core, f"{site}/docs/{n}")
        sent, waiting = [], []
        for variant in (f"{site}/docs/{n}?sid=s{n}" for n in range(12)):
            (waiting if _skipped_on_its_way(first, variant) else sent).append(variant)
        assert waiting and sent, (waiting, sent)
        for variant in sent:  # its share came back copies; the rule needs the second's
            _judged_on_its_way(first, variant, variant.split("?")[0])
        probe = _reissued(first.idle())  # its share of the one copy the rule still needs
        assert list(probe.values()) == ["probe"] and first.awaiting, probe
        waiting = [url for url in waiting if url not in probe]
        for n in range(12, 15):  # the second worker's copies teach the rule
            _judged(second, f"{site}/docs/{n}?sid=x{n}", f"{site}/docs/{n}")
        deadline = time.monotonic() + 10
        while first.awaiting and time.monotonic() < deadline:
            time.sleep(0.3)  # past the news' refresh interval
            second.refresh()
            assert "unsettled" not in _reissued(first.idle()).values()
        assert not first.awaiting, "the first worker never heard the rule was learned"
        first.closed("finished")
        assert first.tally["simdedup/url/final"] >= len(waiting) - 1  # type: ignore[attr-defined]
        # A rule nobody teaches: held SAMPLE_WAIT_SECONDS, then re-issued.
        tabs = [f"{site}/docs/{n}?tab=t{n}" for n in range(12)]
        held = [variant for variant in tabs if _skipped_on_its_way(second, variant)]
        assert held
        assert _reissued(second.idle()) == {} and second.awaiting
        clock.now += SAMPLE_WAIT_SECONDS + 1
        assert _reissued(second.idle()) == dict.fromkeys(held, "unsettled")


def _skipped_on_its_way(core: UrlCore[str], url: str) -> bool:
    """Whether ``url``'s request is skipped when scheduled or on its way to the downloader
    (a request that waits on a bet while its rule is learned)."""
    answer = core.scheduled(Seen(url, url))
    if not isinstance(answer, Skip):
        answer = core.downloading(Seen(url, url))
    return isinstance(answer, Skip)


def _judged_on_its_way(core: UrlCore[str], url: str, original: str | None = None) -> None:
    """``url``, already on its way on ``core``'s worker, answers 200 and is judged a copy
    of ``original`` (or new), in the crawl's record as the pipeline records it."""
    core.fetched(url, url, 200)
    assert core.peers.shared
    in_crawl(Verdict(url, original), core.peers)  # type: ignore[arg-type]
    core.verdict(url, original)


class SharedLot(Lot):
    """Parked requests every worker of the crawl sees, each marked with its worker (as
    the index's ``P`` records are)."""

    def __init__(self, owners: dict[str, str], owner: str) -> None:
        super().__init__()
        self.owners, self.owner = owners, owner

    def park(self, bet: Bet[str]) -> bool:
        self.owners[bet.url] = self.owner
        return super().park(bet)

    def forget(self, urls: list[str]) -> None:
        for url in urls:
            self.owners.pop(url, None)
        super().forget(urls)

    def held_elsewhere(self, url: str) -> bool:
        return self.owners.get(url, self.owner) != self.owner


def test_a_link_to_a_page_another_worker_holds_on_a_bet_is_that_bets(redis_url: str) -> None:
    """Two workers' URL cores on one Redis. The first learned the mirror and holds the
    mirror's page on a bet (so no dupefilter saw its request); the second fetched the
    counterpart. A link on the second worker found the page at hand in the crawl's record
    and was left to the dupefilter, which had never seen it: fetched (a mirror's ``?sid=``
    pages parked on one worker and linked from the other came by the dozen, each linking
    more, issue 35). While the first holds the bet, the link is the bet's. Once nothing
    holds it (settled and forgotten, its worker gone) or the second worker knows the
    counterpart brings nothing (released), the link is judged as a first link is (here,
    with no rule of its own yet: fetched)."""
    original, mirror = "http://a.test", "http://m.test"
    owners: dict[str, str] = {}
    with _two_workers(redis_url, "parked", lambda name: SharedLot(owners, name)) as (
        first,
        second,
    ):
        _learn_mirror(first, original, mirror)
        for n in (8, 9):
            assert not isinstance(first.scheduled(Seen(f"{original}/p/{n}", "queued")), Skip)
            skip = first.scheduled(Seen(f"{mirror}/p/{n}", "copy"))
            assert isinstance(skip, Skip) and skip.counterpart == f"{original}/p/{n}"
            # The second worker takes the original's page from the shared queue.
            assert not isinstance(second.scheduled(Seen(f"{original}/p/{n}", "again")), Skip)
            second.fetched(f"{original}/p/{n}", "original", 200)
            second.verdict(f"{original}/p/{n}", None)
        assert not second.met_again(f"{mirror}/p/9")  # at hand in the crawl: judged
        again = second.scheduled(Seen(f"{mirror}/p/9", "a link on the second worker"))
        assert isinstance(again, Skip) and again.already_parked, again
        # Released on the second worker: its link is judged here, and fetched.
        second.released(f"{original}/p/8")
        assert not isinstance(second.scheduled(Seen(f"{mirror}/p/8", "released")), Skip)
        # The first worker's bet settled and was forgotten: judged here, and fetched.
        first.parking.forget([f"{mirror}/p/9"])
        assert not isinstance(second.scheduled(Seen(f"{mirror}/p/9", "nobody's")), Skip)


def test_a_reissue_the_closing_engine_cannot_take_is_kept_only_on_a_crawl_of_its_own(
    redis_url: str,
) -> None:
    """A bet lost while Scrapy's engine closes the spider: on a store of one process its
    re-issue is kept and parked for the next crawl. On a crawl several workers share its
    URL is claimed for the crawl by then, so a worker still running would refuse to fetch
    it and a later take-over would find it claimed: kept back, it was lost. It is sent
    there (scrapy-redis's shared queue keeps it)."""
    with open_index(redis_url, prefix="unsent", expected_size=1_000) as index:
        judge = judge_for_crawl(
            index, mode="adaptive", max_distance=3, expected_size=1_000,
            min_evidence=3, sample_every=1000,
        )  # fmt: skip
        lot = Lot()
        core = UrlCore(judge, lot, Tally(), drop=True)
        reissue = Reissue(Bet("http://m.test/p/1", "rule", "http://a.test/p/1", "ticket"), "x")
        assert core.unsent(reissue)  # no crawl record: kept
        core.closed("shutdown")
        assert lot.kept == {"http://m.test/p/1": "ticket"}  # parked for the next crawl
        shared = UrlCore(judge, Lot(), Tally(), drop=True)
        shared.judge.peers = join_crawl(index.store, worker(index.store, "w1")).record  # type: ignore[arg-type]
        assert not shared.unsent(reissue)  # sent: the crawl's queue keeps it


@contextmanager
def _two_workers(
    redis_url: str, prefix: str, lot: Callable[[str], Lot], clock: Clock | None = None
) -> Iterator[tuple[UrlCore[str], UrlCore[str]]]:
    """Two workers' URL cores on one Redis index, each wired to the crawl's record as the
    middleware wires them."""
    with (
        open_index(redis_url, prefix=prefix, expected_size=1_000) as first_index,
        open_index(redis_url, prefix=prefix, expected_size=1_000) as second_index,
    ):
        cores: list[UrlCore[str]] = []
        for index, name in ((first_index, "w1"), (second_index, "w2")):
            judge = judge_for_crawl(
                index, mode="adaptive", max_distance=3, expected_size=1_000,
                min_evidence=3, sample_every=1000,
            )  # fmt: skip
            core = UrlCore(judge, lot(name), Tally(), drop=True, clock=clock or time.monotonic)
            record = join_crawl(index.store, worker(index.store, name)).record  # type: ignore[arg-type]
            judge.peers = record
            core.opened()
            cores.append(core)
        yield cores[0], cores[1]


def _learn_mirror(core: UrlCore[str], original: str, mirror: str) -> None:
    """``core`` learns that ``mirror`` copies ``original`` from three pairs of pages."""
    for n in range(3):
        for url, copied in ((f"{original}/p/{n}", None), (f"{mirror}/p/{n}", n)):
            assert not isinstance(core.scheduled(Seen(url, url)), Skip)
            core.fetched(url, url, 200)
            core.verdict(url, None if copied is None else f"{original}/p/{n}")


def test_a_url_risk_is_not_applied_where_workers_share_the_crawl(redis_url: str) -> None:
    """Workers do not share their samples yet: on a shared store a new page ends a URL rule
    on every worker, as at no risk (a rule standing on one worker's samples would keep the
    others' bets in the section where the page differed)."""
    with open_index(redis_url, prefix="risk", expected_size=1_000) as index:
        judge = judge_for_crawl(
            index, mode="adaptive", max_distance=3, expected_size=1_000,
            min_evidence=3, sample_every=1000, risk=0.3,
        )  # fmt: skip
        assert judge.learner.risk == 0.0
