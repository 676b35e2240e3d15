"""The Redis store on a real 3-master Redis Cluster on 127.0.0.1: sharded over its slots,
or in one slot for an index written before sharding."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from scrapy_simdedup import open_index
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.atomic import AtomicStore, GuardedWrite
from scrapy_simdedup.index.stores.redis import RedisStore
from scrapy_simdedup.index.stores.redis_sharded import ShardedRedisStore
from tests import test_crawl_record as crawls
from tests import test_redis as single
from tests.crawl import test_shared_rules as shared_rules
from tests.support import processes
from tests.support.crashwriter import acknowledged_adds, assert_acknowledged_adds_kept, start_writer
from tests.support.crawls import DEMO, crawl_command, crawl_env, feed_lines, parse, serve_sites
from tests.support.racers import race
from tests.support.rediscluster import RedisCluster
from tests.support.waits import wait_until

pytestmark = [pytest.mark.timeout(900), pytest.mark.redis]  # each test starts or asks for one


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisCluster]:
    started = RedisCluster(tmp_path_factory.mktemp("cluster"))
    try:
        started.start()
        yield started
    finally:
        started.stop()


@pytest.fixture
def cluster_url(cluster: RedisCluster) -> str:
    cluster.flush()
    return cluster.url


@pytest.fixture(params=["sharded", "one slot"])
def store(cluster_url: str, request: pytest.FixtureRequest) -> Iterator[AtomicStore]:
    if request.param == "sharded":
        opened = open_store("redis", url=cluster_url, prefix="contract")
        assert isinstance(opened, AtomicStore)
    else:
        opened = RedisStore(cluster_url, "contract")  # how an earlier version laid it out
    try:
        yield opened
    finally:
        opened.close()


def test_a_cluster_url_opens_a_store_sharded_over_the_cluster(cluster_url: str) -> None:
    store = open_store("redis", url=cluster_url, prefix="new")
    try:
        assert isinstance(store, ShardedRedisStore)
        assert store.location.endswith("(Redis Cluster, 64 shards)")
        assert isinstance(store.runner.open(), redis.cluster.RedisCluster)
    finally:
        store.close()


def test_an_index_written_in_one_slot_opens_as_it_was(cluster_url: str) -> None:
    earlier = RedisStore(cluster_url, "earlier")  # keys as an earlier version laid them out
    earlier.write({keyspace.RECORD + b"written-before-sharding": b""})
    with open_index(cluster_url, prefix="earlier") as index:
        assert index.location.endswith("(Redis Cluster, one slot)")
        assert index.query_or_add(0xF0F0, "a").added
    with open_index(cluster_url, prefix="earlier") as index:
        assert [m.key for m in index.query_or_add(0xF0F1, "b").matches] == ["a"]
    assert earlier.get(keyspace.DOCUMENT + b"a") is not None  # in the one slot
    earlier.close()


def test_the_index_spreads_over_every_master(cluster: RedisCluster, cluster_url: str) -> None:
    with open_index(cluster_url, prefix="spread") as index:
        for n in range(300):
            index.query_or_add(random.Random(n).getrandbits(64), f"page/{n}", b"sketch", [n])
        assert len(index) == 300 and index.verify().consistent
    held = [redis.Redis(port=port).dbsize() for port in cluster.ports]
    assert all(keys >= 20 for keys in held), held  # 64 shards and the small records: 130 keys


def test_the_store_contract_holds_on_the_cluster(store: AtomicStore) -> None:
    keys = [b"t\x00\x00", b"t\x00\xff", b"t\x01", b"t\x01\x00", b"u", b"\x00meta"]
    store.write(dict.fromkeys(keys, b"v"))
    assert [k for k, _ in store.scan(b"t\x00", b"t\x01")] == [b"t\x00\x00", b"t\x00\xff"]
    found = store.keys([(b"t\x01", b"u"), (b"\x00", b"\x01")])
    assert found == [b"t\x01", b"t\x01\x00", b"\x00meta"]
    store.write({b"u": b"new"}, deletes=[b"t\x01"])
    assert (store.get(b"u"), store.get(b"t\x01")) == (b"new", None)
    assert not store.write_if(GuardedWrite({b"n": b"x"}, expect={b"u": b"old"}))
    assert store.write_if(GuardedWrite({b"n": b"x"}, expect={b"u": b"new"}))
    assert store.put_absent({b"n": b"y", b"o": b"z"}) == {b"n": b"x"}
    assert store.append(keyspace.RULE_NEWS_COUNT, keyspace.RULE_NEWS, b"r", keep=10) == 1


def test_look_up_and_add_on_the_cluster(cluster_url: str) -> None:
    with open_index(cluster_url, prefix="index") as index:
        assert index.query_or_add(0xF0F0, "a").added
        assert [m.key for m in index.query_or_add(0xF0F1, "b").matches] == ["a"]
        assert index.exact_or_add(7, "a") is None
        assert index.exact_or_add(7, "b") == "a"
        assert len(index) == 1
        assert index.verify().consistent


@pytest.mark.parametrize("workers", [2, 4])
def test_racing_workers_keep_each_page_exactly_once_on_the_cluster(
    cluster_url: str, workers: int
) -> None:
    race(cluster_url, workers, single.PAGES)


def test_racing_judges_keep_one_of_a_page_and_its_far_reprint_on_the_cluster(
    cluster_url: str, tmp_path: Path
) -> None:
    single.test_racing_judges_keep_one_of_a_page_and_its_far_reprint(cluster_url, tmp_path)


def test_two_crawls_share_one_index_on_the_cluster(cluster_url: str, tmp_path: Path) -> None:
    single.test_two_crawls_share_one_redis_index(cluster_url, tmp_path)


def test_a_rule_learned_by_one_crawl_skips_in_the_other_on_the_cluster(
    cluster_url: str, tmp_path: Path
) -> None:
    shared_rules.test_a_rule_learned_by_one_crawl_skips_requests_in_the_other_while_both_run(
        cluster_url, tmp_path
    )


def test_what_a_killed_crawl_parked_is_fetched_by_the_other_on_the_cluster(
    cluster_url: str, tmp_path: Path
) -> None:
    shared_rules.test_what_a_killed_crawl_parked_is_fetched_by_the_crawl_still_running(
        cluster_url, tmp_path
    )


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    started = RedisCluster(tmp_path / "cluster")
    try:
        started.start()
        yield started
    finally:
        started.stop()


def test_a_killed_master_loses_no_acknowledged_add(
    own_cluster: RedisCluster, tmp_path: Path
) -> None:
    acknowledged = tmp_path / "acknowledged.txt"
    writer = start_writer(own_cluster.url, acknowledged)
    wait_until(lambda: len(acknowledged_adds(acknowledged)) >= 300, 60, "300 acknowledged adds")
    node = own_cluster.master_of("{crash:m}:keys")  # the small records' master
    own_cluster.kill(node)
    writer.wait(timeout=180)  # it fails once its retries find no master for the slot
    assert writer.returncode != 0
    done = acknowledged_adds(acknowledged)
    own_cluster.restart(node)
    assert_acknowledged_adds_kept(own_cluster.url, done, sharded=True)


def test_a_master_killed_mid_crawl_closes_the_spider(
    own_cluster: RedisCluster, tmp_path: Path
) -> None:
    feed = tmp_path / "feed.jsonl"
    with serve_sites() as sites:
        crawl = processes.popen(
            crawl_command(
                list(sites.values()), feed,
                "-s", "SIMDEDUP_STORE=redis", "-s", f"SIMDEDUP_REDIS_URL={own_cluster.url}",
                "-s", "SIMDEDUP_REDIS_PREFIX=killed",
                "-s", "DOWNLOAD_DELAY=0.05", "-s", "CONCURRENT_REQUESTS=2",
            ),
            cwd=DEMO, env=crawl_env(), stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        wait_until(lambda: feed_lines(feed) >= 10, 120, "10 items in the feed")
        own_cluster.kill(own_cluster.master_of("{killed:m}:keys"))
        log = crawl.communicate(timeout=300)[1]  # bounded retries: no hang
    result = parse(crawl.returncode, log, feed)
    assert result.stats.get("finish_reason") == "simdedup_store_error", log[-3000:]
    assert log.count("simdedup: the index failed") == 1
    assert "Traceback" not in log


@pytest.mark.parametrize(
    "check",
    [
        crawls.test_a_worker_alone_starts_a_crawl_and_the_next_ones_join_it,
        crawls.test_a_worker_after_every_worker_left_starts_a_new_crawl_without_the_old_marks,
        crawls.test_what_one_worker_fetched_settles_another_workers_bets,
        crawls.test_a_bet_relying_on_a_bet_settles_on_the_last_counterpart,
        crawls.test_a_reissued_url_is_fetched_once_per_crawl,
    ],
)
def test_a_crawls_record_holds_on_the_cluster(store: AtomicStore, check: Any) -> None:
    check(store)
