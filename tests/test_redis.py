"""The Redis store against real redis-server processes on 127.0.0.1."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from scrapy_simdedup import StoreError, open_index
from scrapy_simdedup.index.stores.atomic import GuardedWrite
from scrapy_simdedup.index.stores.redis import RedisStore
from scrapy_simdedup.judges.content import ContentJudge
from tests.support import processes, reprints
from tests.support.crashwriter import acknowledged_adds, assert_acknowledged_adds_kept, start_writer
from tests.support.crawls import (
    DEMO,
    Crawl,
    content_of,
    crawl_command,
    crawl_env,
    feed_lines,
    parse,
    run_crawl,
    serve_sites,
)
from tests.support.racers import judge_race, race
from tests.support.redisserver import RedisServer
from tests.support.waits import wait_until

# Real crawls (subprocesses with their own deadlines) take longer than the suite's
# default limit.
pytestmark = [pytest.mark.timeout(900), pytest.mark.redis]  # each test starts or asks for one

ROOT = Path(__file__).resolve().parent.parent
PAGES = 3000


@pytest.mark.parametrize("workers", [2, 4])
def test_racing_workers_keep_each_page_exactly_once(redis_url: str, workers: int) -> None:
    race(redis_url, workers, PAGES)


def test_look_ups_and_adds_take_no_lock(redis_url: str) -> None:
    # A lock held elsewhere (here, forever) would stall every step for 30 s if any took it.
    with open_index(redis_url, prefix="nolock") as index:
        redis.Redis.from_url(redis_url).set("{nolock}:open-lock", "someone else")
        started = time.monotonic()
        assert index.query_or_add(0xF0F0, "a").added
        assert not index.query_or_add(0xF0F1, "b").added
        index.add(0x0F0F << 32, "c")
        assert index.discard("c")
        assert index.exact_or_add(7, "a") is None
        assert index.exact_or_add(7, "b") == "a"
        assert index.discard_exact(7, "a")
        index.record_sentences([1, 2], "a")
        assert time.monotonic() - started < 10
        assert len(index) == 1
        assert index.verify().consistent


def test_a_worker_of_an_earlier_version_is_refused(redis_url: str) -> None:
    # Earlier versions took this lock around every look-up-and-add (redis-py's Lock).
    with open_index(redis_url, prefix="upgrade"):
        client = redis.Redis.from_url(redis_url)
        assert not client.lock("{upgrade}:lock", timeout=30, blocking_timeout=0.2).acquire()
        assert b"upgrade every worker" in client.get("{upgrade}:lock")  # type: ignore[operator]


def test_a_guarded_write_whose_expectation_fails_writes_nothing(redis_url: str) -> None:
    store = RedisStore(redis_url, "guard")
    try:
        store.write({b"k": b"1"})
        stale = GuardedWrite(
            {b"n": b"x"}, deletes=[b"k"], expect={b"k": b"0"}, counter=b"c", delta=1
        )
        assert not store.write_if(stale)
        assert (store.get(b"k"), store.get(b"n"), store.get(b"c")) == (b"1", None, None)
        fresh = GuardedWrite({b"n": b"x"}, deletes=[b"k"], expect={b"k": b"1", b"m": None},
                             counter=b"c", delta=1)  # fmt: skip
        assert store.write_if(fresh)
        assert (store.get(b"k"), store.get(b"n"), store.get(b"c")) == (
            None,
            b"x",
            bytes(7) + b"\x01",
        )
        assert store.keys([(b"a", b"z")]) == [b"c", b"n"]
        assert store.put_absent({b"n": b"y", b"o": b"z"}) == {b"n": b"x"}
        assert (store.get(b"n"), store.get(b"o")) == (b"x", b"z")
    finally:
        store.close()


REPRINT_SEED = 7  # the index's seed: SimHash puts most reprints of reprints.pairs far


def far_reprints(tmp_path: Path, count: int = 80) -> list[int]:
    """Pairs whose reprint SimHash puts more than k bits from its page, and that one worker
    judging them in either order finds copies of each other through their sentences."""
    chosen = []
    for n, (text, reprint) in enumerate(reprints.pairs(300)):
        verdicts = []
        for order, (first, second) in enumerate([(text, reprint), (reprint, text)]):
            with open_index(tmp_path / f"scratch-{n}-{order}", seed=REPRINT_SEED) as index:
                judge = ContentJudge(index)
                judge.judge(first, "https://first.example/")
                verdicts.append(judge.judge(second, "https://second.example/"))
        if all(v.copy and v.found_by == "sentences" for v in verdicts):
            chosen.append(n)
        if len(chosen) == count:
            return chosen
    raise AssertionError(f"only {len(chosen)} far reprints among 300 pairs")


def test_racing_judges_keep_one_of_a_page_and_its_far_reprint(
    redis_url: str, tmp_path: Path
) -> None:
    """Two workers meet a page and its reprint at once, SimHash too far apart to see it:
    the look-up that adds a page claims its sentences in the same step, so the later one
    is held back as a copy, never both kept (CI once kept one reprint twice this way)."""
    chosen = far_reprints(tmp_path)
    kept = judge_race(redis_url, chosen, REPRINT_SEED)
    wrong = {n: times for n, times in zip(chosen, kept, strict=True) if times != 1}
    assert not wrong, f"pairs kept other than once: {wrong}"


@pytest.mark.parametrize("workers", [2, 4])
def test_racing_workers_move_and_discard_one_key_consistently(redis_url: str, workers: int) -> None:
    # Every worker adds, moves and discards the same keys: guarded writes retry, so the
    # count and the tables always agree with the records left.
    code = textwrap.dedent(
        """
        import random, sys
        from scrapy_simdedup import open_index
        rng = random.Random(int(sys.argv[2]))
        with open_index(sys.argv[1], prefix="moves") as index:
            for n in range(400):
                key = f"page/{rng.randrange(20)}"
                if rng.random() < 0.3:
                    index.discard(key)
                else:
                    index.add(rng.getrandbits(64), key)
        """
    )
    racers = [
        processes.popen([sys.executable, "-c", code, redis_url, str(w)], cwd=ROOT)
        for w in range(workers)
    ]
    assert all(p.wait(timeout=300) == 0 for p in racers)
    with open_index(redis_url, prefix="moves") as index:
        verification = index.verify()
        assert verification.consistent
        assert len(index) == verification.documents


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_killed_redis_loses_no_acknowledged_add(own_server: RedisServer, tmp_path: Path) -> None:
    acknowledged = tmp_path / "acknowledged.txt"
    writer = start_writer(own_server.url, acknowledged)
    wait_until(lambda: len(acknowledged_adds(acknowledged)) >= 300, 60, "300 acknowledged adds")
    own_server.kill()
    writer.wait(timeout=120)  # it fails once its retries find no server
    assert writer.returncode != 0
    done = acknowledged_adds(acknowledged)
    assert len(done) >= 300
    own_server.start()  # same folder: replays the append-only file
    assert_acknowledged_adds_kept(own_server.url, done)


def test_unreachable_redis_is_a_clear_error() -> None:
    with pytest.raises(StoreError, match=r"cannot reach Redis at redis://u:\*\*\*@127\.0\.0\.1:1"):
        RedisStore("redis://u:secret@127.0.0.1:1/0", "p", timeout=0.5)


def test_a_flooded_bucket_is_cut_and_counted(redis_url: str) -> None:
    with open_index(redis_url, prefix="flood") as index:
        store = index.companion(b"u", 3).store
        assert isinstance(store, RedisStore)
        store.max_bucket = 100
        rng = random.Random(1)
        for n in range(300):  # one 16-bit prefix in every table: a crafted flood
            index.add((0xABCD << 48) | rng.getrandbits(20), f"flood/{n}")
        assert len(index.query(0xABCD << 48)) <= 4 * 100
        assert store.overflow >= 1


def test_malformed_entries_in_redis_are_skipped_and_counted(redis_url: str) -> None:
    with open_index(redis_url, prefix="junk") as index:
        index.add(0x1234_5678_9ABC_DEF0, "page")
        client = redis.Redis.from_url(redis_url)
        client.zadd("{junk}:keys", {b"t\x00\x12": 0, b"t\x01\x56\x78": 0, b"t\x00\x12\x34\x56": 0})
        assert [m.key for m in index.query(0x1234_5678_9ABC_DEF0)] == ["page"]
        assert index.skipped_entries == 1  # the one in the queried bucket, shown in the stats


def test_each_kind_of_key_is_kept_where_it_is_read(redis_url: str) -> None:
    # Table entries are found by range only, owners read by key only: one copy each.
    client = redis.Redis.from_url(redis_url)
    with open_index(redis_url, prefix="layout") as index:
        assert index.query_or_add(0x1234_5678_9ABC_DEF0, "page", b"sketch").added
        index.add(0x0F0F_0F0F_0F0F_0F0F, "other")
        index.record_sentences([11, 12], "page")
        assert index.exact_or_add(7, "page") is None
        sorted_keys = set(client.zrange("{layout}:keys", 0, -1))
        hashed = set(client.hkeys("{layout}:values"))
        entries = {k for k in sorted_keys if k.startswith(b"t")}
        owners = {k for k in hashed if k.startswith((b"s", b"x"))}
        assert len(entries) == 2 * 4 and len(owners) == 3
        assert not entries & hashed and not owners & sorted_keys
        assert {b"dpage", b"dother"} <= sorted_keys & hashed
        assert index.sentence_owners([12, 11]) == ["page"]
        assert index.exact_or_add(7, "copy") == "page"
        assert [m.key for m in index.query(0x1234_5678_9ABC_DEF1)] == ["page"]
        assert index.verify().consistent and index.verify().documents == 2
        assert index.discard("page") and index.verify().consistent


def test_a_scan_skips_a_key_nobody_gave_a_value_and_pages_past_it(redis_url: str) -> None:
    store = RedisStore(redis_url, "stray")
    try:
        store.write({b"La": b"1", b"Lc": b"3"})
        client = redis.Redis.from_url(redis_url)
        client.zadd("{stray}:keys", {b"Lb": 0, b"t\x00entry": 0})  # no value: only an entry
        assert list(store.scan(b"L", b"M")) == [(b"La", b"1"), (b"Lc", b"3")]
        assert list(store.scan(b"t", b"u")) == [(b"t\x00entry", b"")]
        stray = {f"Lb{n:05d}".encode(): 0 for n in range(2_500)}  # chunks of strays only
        client.zadd("{stray}:keys", stray)
        assert list(store.scan(b"L", b"M")) == [(b"La", b"1"), (b"Lc", b"3")]
    finally:
        store.close()


def test_a_store_written_with_every_key_in_both_places_still_reads(redis_url: str) -> None:
    # Earlier versions kept every key in the sorted set and in the hash.
    client = redis.Redis.from_url(redis_url)
    with open_index(redis_url, prefix="before") as index:
        index.add(0x1234_5678_9ABC_DEF0, "page", b"sketch")
        index.record_sentences([11], "page")
        for key in client.zrange("{before}:keys", 0, -1):
            if client.hget("{before}:values", key) is None:
                client.hset("{before}:values", key, b"")
        for key in client.hkeys("{before}:values"):
            client.zadd("{before}:keys", {key: 0})
        assert index.sentence_owners([11]) == ["page"]
        assert [m.key for m in index.query(0x1234_5678_9ABC_DEF1)] == ["page"]
        assert not index.query_or_add(0x1234_5678_9ABC_DEF3, "copy").added
        assert index.verify().consistent
        assert index.discard("page") and len(index) == 0
        left = set(client.zrange("{before}:keys", 0, -1)) | set(client.hkeys("{before}:values"))
        assert not {k for k in left if k.startswith((b"t", b"d"))}  # gone from both places


def test_two_crawls_share_one_redis_index(redis_url: str, tmp_path: Path) -> None:
    with serve_sites() as sites:
        redis_settings = [
            "-s", "SIMDEDUP_STORE=redis", "-s", f"SIMDEDUP_REDIS_URL={redis_url}",
            "-s", "SIMDEDUP_REDIS_PREFIX=shared", "-s", "SIMDEDUP_URL_MODE=off",
        ]  # fmt: skip
        # As with a shared scheduler, no URL is fetched by both; the copies are split
        # between them (the mirror's pages in one crawl, the original's in the other).
        halves = [
            [sites["original"], sites["partial"]],
            [sites["mirror"], sites["reprints"]],
        ]
        feeds = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
        crawls = [
            processes.popen(
                crawl_command(
                    starts, feed, *redis_settings, "-s", f"SIMDEDUP_VERDICT_LOG={feed}.verdicts"
                ),
                cwd=DEMO,
                env=crawl_env(),
                stderr=subprocess.PIPE,
                text=True,
            )
            for starts, feed in zip(halves, feeds, strict=True)
        ]
        logs = [c.communicate(timeout=300)[1] for c in crawls]
        results = [
            parse(c.returncode, log, feed) for c, log, feed in zip(crawls, logs, feeds, strict=True)
        ]
        contents = content_of(sites)
    for result in results:
        assert result.returncode == 0, result.log[-3000:]
    kept = [contents[str(item["url"])] for result in results for item in result.items]
    # each distinct page once, in total
    assert sorted(kept) == sorted(set(contents.values())), _race_report(contents, feeds, results)


def _race_report(contents: dict[str, str], feeds: list[Path], results: list[Crawl]) -> str:
    """What each crawl decided about the contents kept twice or never: a failure explains
    itself (it is a race between two processes, and rare)."""
    counts = Counter(contents[str(item["url"])] for result in results for item in result.items)
    odd = {content for content in contents.values() if counts[content] != 1}
    urls = {url for url, content in contents.items() if content in odd}
    lines = [f"kept: { ({content: counts[content] for content in sorted(odd)}) }"]
    for feed, result in zip(feeds, results, strict=True):
        lines.append(f"--- {feed.name}: stats {sorted(result.stats.items())}")
        verdicts = feed.with_name(feed.name + ".verdicts")
        if verdicts.exists():
            lines += [
                line for line in verdicts.read_text().splitlines() if any(u in line for u in urls)
            ]
        lines += [f"kept {item['url']}" for item in result.items if str(item["url"]) in urls]
    return "\n".join(lines)


def test_refused_connection_stops_the_crawl_before_fetching(tmp_path: Path) -> None:
    crawl = run_crawl(
        ["http://127.0.0.1:9/"], tmp_path / "feed.jsonl",
        "-s", "SIMDEDUP_STORE=redis", "-s", "SIMDEDUP_REDIS_URL=redis://127.0.0.1:1/0",
    )  # fmt: skip
    assert "cannot reach Redis at redis://127.0.0.1:1/0" in crawl.log
    assert crawl.stats.get("downloader/request_count", 0) == 0
    assert crawl.returncode != 0 or crawl.stats.get("finish_reason") != "finished"


def test_redis_lost_mid_crawl_closes_the_spider(own_server: RedisServer, tmp_path: Path) -> None:
    feed = tmp_path / "feed.jsonl"
    with serve_sites() as sites:
        crawl = processes.popen(
            crawl_command(
                list(sites.values()), feed,
                "-s", "SIMDEDUP_STORE=redis", "-s", f"SIMDEDUP_REDIS_URL={own_server.url}",
                "-s", "DOWNLOAD_DELAY=0.05", "-s", "CONCURRENT_REQUESTS=2",
            ),
            cwd=DEMO, env=crawl_env(), stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        wait_until(lambda: feed_lines(feed) >= 10, 120, "10 items in the feed")
        own_server.kill()
        log = crawl.communicate(timeout=240)[1]  # bounded retries: no hang
    result = parse(crawl.returncode, log, feed)
    assert result.stats.get("finish_reason") == "simdedup_store_error", log[-3000:]
    assert log.count("simdedup: the index failed") == 1
    assert "Traceback" not in log
