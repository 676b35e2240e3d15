"""Rules shared while crawling: two learners on one real Redis, as two workers would be."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scrapy_simdedup import url_parts
from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.stores.redis import RedisStore
from scrapy_simdedup.url.learner import UrlLearner
from scrapy_simdedup.url.news import KEEP, RuleNews

SITE = "http://a.example"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Fetched(set[str]):
    def __call__(self, url: str) -> bool:
        return url in self


@pytest.fixture
def store(redis_url: str) -> Iterator[RedisStore]:
    opened = RedisStore(redis_url, "news")
    try:
        yield opened
    finally:
        opened.close()


def _worker(store: RedisStore, clock: Clock) -> tuple[UrlLearner, Fetched]:
    fetched = Fetched()
    news = RuleNews(store, every=2.0, clock=clock)
    return UrlLearner(store, fetched, min_evidence=3, news=news), fetched


def _copies(learner: UrlLearner, fetched: Fetched, numbers: range) -> None:
    for n in numbers:
        copy, original = f"{SITE}/p/{n}?sid=s{n}", f"{SITE}/p/{n}"
        fetched.update({copy, original})
        learner.observe(url_parts(copy), url_parts(original))


def test_a_rule_learned_by_one_worker_is_in_force_on_the_other_at_its_next_refresh(
    store: RedisStore,
) -> None:
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    two, _ = _worker(store, clock)
    asked = url_parts(f"{SITE}/p/99?sid=x")
    at_hand = {f"{SITE}/p/99"}
    _copies(one, fetched_one, range(3))
    assert one.decide(asked, at_hand, tally=False).skip
    assert not two.decide(asked, at_hand, tally=False).skip
    assert one.refresh() == []  # announces
    assert two.refresh() == []  # reads
    assert two.decide(asked, at_hand, tally=False).skip
    # Not before its time: a refresh reads nothing until ``every`` seconds have passed.
    assert two.news is not None and not two.news.due()


def test_a_failure_seen_by_one_worker_weakens_the_rule_on_the_other(store: RedisStore) -> None:
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    two, fetched_two = _worker(store, clock)
    _copies(one, fetched_one, range(3))
    one.refresh()
    two.refresh()
    asked, at_hand = url_parts(f"{SITE}/p/99?sid=x"), {f"{SITE}/p/99"}
    assert two.decide(asked, at_hand, tally=False).skip
    # Worker two fetched a sid URL that turned out new: announced at once.
    fetched_two.update({f"{SITE}/p/7?sid=s7", f"{SITE}/p/7"})
    assert [rule.describe() for rule in two.observe(url_parts(f"{SITE}/p/7?sid=s7"), None)] == [
        "a.example: parameters sid change nothing on /p/"
    ]
    clock.now += 2.0
    weakened = one.refresh()
    assert [rule.describe() for rule in weakened] == [
        "a.example: parameters sid change nothing on /p/"
    ]
    assert not one.decide(asked, at_hand, tally=False).skip
    # One's announcement, written before it read the failure, does not revive the rule.
    two.refresh()
    assert not two.decide(asked, at_hand, tally=False).skip


def test_a_mirror_that_stopped_waiting_on_one_worker_stops_on_the_other(store: RedisStore) -> None:
    """One worker's bet waited in vain for an original that never came, and its page came
    back new: the mirror has pages of its own, and no worker bets on unqueued originals."""
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    two, fetched_two = _worker(store, clock)
    mirror = "http://m.example"
    for learner, fetched in ((one, fetched_one), (two, fetched_two)):
        for n in range(3):
            fetched.update({f"{mirror}/p/{n}", f"{SITE}/p/{n}"})
            learner.observe(url_parts(f"{mirror}/p/{n}"), url_parts(f"{SITE}/p/{n}"))
    ahead = url_parts(f"{mirror}/own/1")
    awaited = {f"{SITE}/own/1"}
    assert two.decide(ahead, set(), tally=False, awaited=awaited).pending
    (rule,) = one.learned_rules()
    assert [r.describe() for r in one.contradicted(rule.identity)] == [rule.describe()]
    clock.now += 2.0
    two.refresh()
    assert not two.decide(ahead, set(), tally=False, awaited=awaited).skip
    for n in range(3, 12):  # back in force on two with copies of its own (90% copies)
        fetched_two.update({f"{mirror}/p/{n}", f"{SITE}/p/{n}"})
        two.observe(url_parts(f"{mirror}/p/{n}"), url_parts(f"{SITE}/p/{n}"))
    assert two.decide(url_parts(f"{mirror}/p/9"), {f"{SITE}/p/9"}, tally=False).skip
    assert not two.decide(ahead, set(), tally=False, awaited=awaited).skip  # waits no more


def test_announcements_from_before_a_worker_started_are_not_read(store: RedisStore) -> None:
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    _copies(one, fetched_one, range(3))
    one.refresh()
    late, _ = _worker(store, clock)  # the stored rule is on probation, nothing announced since
    late.refresh()
    assert not late.decide(url_parts(f"{SITE}/p/99?sid=x"), {f"{SITE}/p/99"}).skip
    clock.now += 2.0
    one.refresh()  # still in force on one: announced again, now fresh for ``late``
    clock.now += 2.0
    late.refresh()
    assert late.decide(url_parts(f"{SITE}/p/99?sid=x"), {f"{SITE}/p/99"}, tally=False).skip


def test_a_switcher_is_heard_once_by_the_others_and_by_a_worker_that_joins_late(
    store: RedisStore,
) -> None:
    """One worker parsed a page linking ``?lang=fr`` and ``?lang=de``: the other hears of the
    switcher at its next refresh (once: its bets on it are re-issued once), and a worker
    that joins later with the next announcement of every learned rule."""
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    two, _ = _worker(store, clock)
    _copies(one, fetched_one, range(3))  # a learned rule: announced in full every 2 s
    article = url_parts(f"{SITE}/p/9")
    for lang in ("fr", "de"):
        one.linked(url_parts(f"{SITE}/p/9?lang={lang}"), article)
    german = url_parts(f"{SITE}/p/9?lang=de")
    assert one.switches(german, ["lang"]) and not two.switches(german, ["lang"])
    one.refresh()
    two.refresh()
    assert two.switches(german, ["lang"]) and not two.switches(german, ["sid"])
    heard = two.heard().switchers
    assert [name for _, name in heard] == ["lang"] and not two.heard()
    late, _ = _worker(store, clock)
    clock.now += 2.0
    one.refresh()
    two.refresh()
    assert not two.heard()  # known already: nothing more to re-issue
    clock.now += 2.0
    late.refresh()
    assert late.switches(german, ["lang"])


def test_the_store_keeps_only_the_latest_announcements(store: RedisStore) -> None:
    for n in range(1, 4):
        assert store.append(keyspace.RULE_NEWS_COUNT, keyspace.RULE_NEWS, b"x", keep=2) == n
    kept = [key for key, _ in store.scan(keyspace.RULE_NEWS, keyspace.end(keyspace.RULE_NEWS))]
    assert kept == [keyspace.RULE_NEWS + n.to_bytes(8, "big") for n in (2, 3)]
    assert KEEP >= 1000


def test_copies_split_between_two_workers_count_once_each_for_both(store: RedisStore) -> None:
    """Three copies seen two and one by two workers teach both (min_evidence 3), as one
    worker seeing all three would learn; announcing and reading again adds nothing."""
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    two, fetched_two = _worker(store, clock)
    asked, at_hand = url_parts(f"{SITE}/p/99?sid=x"), {f"{SITE}/p/99"}
    _copies(one, fetched_one, range(2))
    _copies(two, fetched_two, range(2, 3))
    assert not one.decide(asked, at_hand, tally=False).skip
    assert not two.decide(asked, at_hand, tally=False).skip
    one.refresh()
    two.refresh()  # two reads one's two copies: three in all
    assert two.decide(asked, at_hand, tally=False).skip
    clock.now += 2.0
    one.refresh()  # one reads two's copy
    assert one.decide(asked, at_hand, tally=False).skip
    for _ in range(4):  # the same totals, announced and read again, count once
        clock.now += 2.0
        one.refresh()
        two.refresh()
    for learner in (one, two):
        (rule,) = learner.rules()
        assert (rule.duplicates, rule.streak) == (3, 3), rule


def test_two_copies_on_two_workers_are_not_three(store: RedisStore) -> None:
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    two, fetched_two = _worker(store, clock)
    _copies(one, fetched_one, range(1))
    _copies(two, fetched_two, range(1, 2))
    asked, at_hand = url_parts(f"{SITE}/p/99?sid=x"), {f"{SITE}/p/99"}
    for _ in range(5):
        clock.now += 2.0
        one.refresh()
        two.refresh()
    assert not one.decide(asked, at_hand, tally=False).skip
    assert not two.decide(asked, at_hand, tally=False).skip


def test_a_worker_that_joins_late_counts_the_others_copies_at_their_next_announcement(
    store: RedisStore,
) -> None:
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    _copies(one, fetched_one, range(2))
    one.refresh()  # before three started: not read by it
    three, fetched_three = _worker(store, clock)
    _copies(three, fetched_three, range(2, 3))
    asked, at_hand = url_parts(f"{SITE}/p/99?sid=x"), {f"{SITE}/p/99"}
    three.refresh()
    assert not three.decide(asked, at_hand, tally=False).skip
    clock.now += 2.0
    _copies(one, fetched_one, range(3, 4))  # one announces its totals again: three in all
    one.refresh()
    three.refresh()
    assert three.decide(asked, at_hand, tally=False).skip


def test_copies_announced_before_a_new_page_was_heard_of_do_not_revive_the_rule(
    store: RedisStore,
) -> None:
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    two, fetched_two = _worker(store, clock)
    _copies(one, fetched_one, range(10))
    one.refresh()
    two.refresh()
    # After a new page the rule covers only values its copies showed (``specific``).
    asked, at_hand = url_parts(f"{SITE}/p/99?sid=1"), {f"{SITE}/p/99"}
    assert two.decide(asked, at_hand, tally=False).skip
    _copies(two, fetched_two, range(20, 23))  # not announced yet
    fetched_one.update({f"{SITE}/p/7?sid=s7", f"{SITE}/p/7"})
    one.observe(url_parts(f"{SITE}/p/7?sid=s7"), None)  # a new page: announced at once
    assert not one.decide(asked, at_hand, tally=False).skip
    clock.now += 2.0
    two.refresh()  # announces its three copies, then reads one's new page
    assert not two.decide(asked, at_hand, tally=False).skip
    one.refresh()  # reads two's three copies: made before two heard of the new page
    assert not one.decide(asked, at_hand, tally=False).skip


def test_a_new_page_where_a_rule_is_not_in_force_yet_reaches_the_others_at_once(
    store: RedisStore,
) -> None:
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    two, fetched_two = _worker(store, clock)
    # After a new page the rule covers only the values its copies showed (``specific``).
    asked, at_hand = url_parts(f"{SITE}/p/99?sid=s5"), {f"{SITE}/p/99"}
    _copies(one, fetched_one, range(3))
    fetched_one.update({f"{SITE}/p/7?sid=s7", f"{SITE}/p/7"})
    one.observe(url_parts(f"{SITE}/p/7?sid=s7"), None)  # a new page: announced at once
    _copies(one, fetched_one, range(20, 22))  # learning again on one: not in force
    assert not one.decide(asked, at_hand, tally=False).skip
    two.refresh()
    _copies(two, fetched_two, range(3, 13))  # in force on two
    assert two.decide(asked, at_hand, tally=False).skip
    fetched_one.update({f"{SITE}/p/8?sid=s21", f"{SITE}/p/8"})  # a value one's copies showed
    one.observe(url_parts(f"{SITE}/p/8?sid=s21"), None)  # no refresh on one meanwhile
    clock.now += 2.0
    two.refresh()
    assert not two.decide(asked, at_hand, tally=False).skip


def test_a_late_worker_does_not_count_twice_the_copies_it_read_from_the_store(
    store: RedisStore,
) -> None:
    """Worker one saved four copies of the mirror (two of content pages: not enough for a
    mirror rule). Worker two, started later, read them from the store; one's announcement
    of its totals must not count them again there."""
    clock = Clock()
    one, fetched_one = _worker(store, clock)
    mirror = "http://m.example"
    for path in ("p/1", "p/2", "terms", "about", "privacy"):
        copy, original = f"{mirror}/{path}", f"{SITE}/{path}"
        fetched_one.update({copy, original})
        one.observe(url_parts(copy), url_parts(original))
        if path == "about":
            one.save()
            two, _ = _worker(store, clock)  # reads four copies from the store
    one.refresh()
    two.refresh()
    (rule,) = [rule for rule in two.rules() if rule.kind == "mirror"]
    assert (rule.duplicates, rule.content_duplicates) == (4, 2)
    asked, at_hand = url_parts(f"{mirror}/p/99"), {f"{SITE}/p/99"}
    assert not two.decide(asked, at_hand, tally=False).skip


def test_rules_one_entry_cannot_hold_are_announced_next_time(store: RedisStore) -> None:
    from scrapy_simdedup.url.evidence import Tally
    from scrapy_simdedup.url.news import MAX_RULES_PER_ENTRY
    from scrapy_simdedup.url.rules import Rule

    news = RuleNews(store)
    rules = [
        Rule("trap", SITE, template=f"a.example/t{n}/{{n}}") for n in range(MAX_RULES_PER_ENTRY + 2)
    ]
    left = news.announce(rules, learned=True, tally=lambda identity: Tally())
    assert left == rules[MAX_RULES_PER_ENTRY:]


def test_findings_one_entry_cannot_hold_are_announced_next_time(store: RedisStore) -> None:
    from scrapy_simdedup.url.evidence import Tally
    from scrapy_simdedup.url.findings import MAX_FINDINGS_PER_ENTRY, Findings

    news, reader = RuleNews(store), RuleNews(store)
    urls = [f"{SITE}/gone/{n}" for n in range(MAX_FINDINGS_PER_ENTRY + 3)]
    found = Findings(unpredicted=list(urls), refuted=["pattern\x00a"])
    for _ in range(3):  # the third has nothing left to announce: no entry
        assert (
            news.announce([], learned=False, tally=lambda identity: Tally(), findings=found) == []
        )
    heard = [announcement.findings for announcement in reader.read()]
    assert [len(findings.unpredicted) for findings in heard] == [MAX_FINDINGS_PER_ENTRY, 3]
    assert [finding.refuted for finding in heard] == [["pattern\x00a"], []]
    assert [url for findings in heard for url in findings.unpredicted] == urls and not found


class _FailingOnce:
    """The store, but its next ``append`` fails (Redis unreachable for a moment)."""

    def __init__(self, store: RedisStore) -> None:
        self.store, self.failed = store, False

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)

    def append(self, *args: object) -> int:
        if not self.failed:
            self.failed = True
            raise StoreError("Redis is unreachable")
        return self.store.append(*args)  # type: ignore[arg-type]


def test_findings_a_failed_write_did_not_announce_go_next_time(store: RedisStore) -> None:
    from scrapy_simdedup.url.evidence import Tally
    from scrapy_simdedup.url.findings import Findings

    news, reader = RuleNews(_FailingOnce(store)), RuleNews(store)  # type: ignore[arg-type]
    found = Findings(unpredicted=[f"{SITE}/gone/1"], refuted=["pattern\x00a"])
    with pytest.raises(StoreError):
        news.announce([], learned=False, tally=lambda identity: Tally(), findings=found)
    assert found.unpredicted == [f"{SITE}/gone/1"]  # kept for the next announcement
    news.announce([], learned=False, tally=lambda identity: Tally(), findings=found)
    (heard,) = [announcement.findings for announcement in reader.read()]
    assert heard.unpredicted == [f"{SITE}/gone/1"] and heard.refuted == ["pattern\x00a"]
    assert not found
