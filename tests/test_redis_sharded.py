"""The sharded store's look-up-and-add, step by step, on a real redis-server.

The steps are each atomic on one shard (``stores/redis_sharded.py``); these tests stop a
page between its steps, as a slow or dead worker would, and check each case of the proof:
a page pending before another makes it wait, a page pending after another is made to wait
for it, and a dead worker's page is passed over, never waited on for good.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from scrapy_simdedup.index import keyspace, shared
from scrapy_simdedup.index.permuted import PermutedIndex
from scrapy_simdedup.index.stores.atomic import NearProbe, Probed
from scrapy_simdedup.index.stores.redis_sharded import ShardedRedisStore
from scrapy_simdedup.index.tables import TableDesign

pytestmark = pytest.mark.timeout(120)

DESIGN = TableDesign(max_distance=3, blocks=4)


@pytest.fixture
def stores(redis_url: str) -> Iterator[tuple[ShardedRedisStore, ShardedRedisStore]]:
    """Two workers' stores on one index; pending pages go stale after 1 s."""
    first = ShardedRedisStore(redis_url, "sharded", stale=1.0)
    second = ShardedRedisStore(redis_url, "sharded", stale=1.0)
    try:
        yield first, second
    finally:
        first.close()
        second.close()


def _probe(store: ShardedRedisStore, fingerprint: int) -> tuple[PermutedIndex, NearProbe]:
    index = PermutedIndex(store, DESIGN)
    permuted, ranges = index.probe_ranges(fingerprint)
    probe = NearProbe(
        ranges=ranges,
        queries=[value.to_bytes(8, "big") for value in permuted],
        offset=index.namespace_length + 2,
        limit=DESIGN.max_distance,
        documents=keyspace.DOCUMENT,
    )
    return index, probe


def _record(fingerprint: int) -> bytes:
    return fingerprint.to_bytes(8, "big") + b"sketch"


def _begin_and_insert(store: ShardedRedisStore, fingerprint: int, name: bytes) -> bytes:
    """A page stopped after its first two steps: pending, its entries in the tables."""
    _, probe = _probe(store, fingerprint)
    sequence = store._next_number()
    record_key = keyspace.DOCUMENT + name
    pending = keyspace.PENDING + name
    assert store._run(store._begin, store._of(record_key), [record_key, pending, sequence])
    store._insert_and_read(probe, name)
    return sequence


def _add_in_thread(store: ShardedRedisStore, fingerprint: int, name: bytes) -> list[object]:
    result: list[object] = []
    _, probe = _probe(store, fingerprint)

    def add() -> None:
        result.append(store.near_or_add(probe, name, _record(fingerprint), keyspace.COUNT))

    thread = threading.Thread(target=add, daemon=True)
    thread.start()
    result.append(thread)
    return result


def test_a_page_pending_before_waits_out_the_later_one(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    slow, fast = stores
    sequence = _begin_and_insert(slow, 0xF0F0, b"first")
    racing = _add_in_thread(fast, 0xF0F1, b"second")
    time.sleep(0.3)
    thread = racing[0]
    assert isinstance(thread, threading.Thread) and thread.is_alive()  # it waits for 'first'
    outcome, _ = slow._settled(keyspace.DOCUMENT, b"first", _record(0xF0F0), sequence)
    assert outcome == "stored"
    thread.join(timeout=10)
    assert not thread.is_alive(), "the second page still waits after the first settled"
    probed = racing[1]
    assert isinstance(probed, Probed)
    assert not probed.written and [name for name, _, _ in probed.near] == [b"first"]
    assert fast.get(keyspace.DOCUMENT + b"second") is None


def test_a_page_pending_after_is_made_to_wait_for_the_earlier_one(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    early, late = stores
    early_number = early._next_number()  # 'early' numbered first, but it reaches the tables last
    late_number = _begin_and_insert(late, 0xF0F1, b"late")
    assert late_number > early_number
    _, probe = _probe(early, 0xF0F0)
    record_key, pending = keyspace.DOCUMENT + b"early", keyspace.PENDING + b"early"
    early._run(early._begin, early._of(record_key), [record_key, pending, early_number])
    found, _ = early._insert_and_read(probe, b"early")
    assert found == {b"late": 1}
    assert early._stored_among(found, keyspace.DOCUMENT, b"early", early_number) == []
    outcome, _ = early._settled(keyspace.DOCUMENT, b"early", _record(0xF0F0), early_number)
    assert outcome == "stored"
    # 'late' read nothing when it inserted; settling, it finds 'early' asked it to wait.
    outcome, stored = late._settled(keyspace.DOCUMENT, b"late", _record(0xF0F1), late_number)
    assert outcome == "copy" and [name for name, _, _ in stored] == [b"early"]


def test_a_dead_workers_pending_page_is_passed_over(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    dead, alive = stores
    _begin_and_insert(dead, 0xF0F0, b"orphan")  # its worker never settles it
    _, probe = _probe(alive, 0xF0F1)
    started = time.monotonic()
    probed = alive.near_or_add(probe, b"page", _record(0xF0F1), keyspace.COUNT)
    assert probed.written and probed.near == []  # a copy kept twice at worst, never lost
    assert time.monotonic() - started < 8  # stale after 1 s, plus the poll's margin
    assert alive.get(keyspace.PENDING + b"orphan") is None


def test_a_page_passed_over_while_alive_starts_again(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    slow, fast = stores
    sequence = _begin_and_insert(slow, 0xF0F0, b"slow")
    time.sleep(1.2)
    index, probe = _probe(fast, 0xF0F1)
    assert fast.near_or_add(probe, b"fast", _record(0xF0F1), keyspace.COUNT).written
    outcome, _ = slow._settled(keyspace.DOCUMENT, b"slow", _record(0xF0F0), sequence)
    assert outcome == "restart"
    _, again = _probe(slow, 0xF0F0)
    probed = slow.near_or_add(again, b"slow", _record(0xF0F0), keyspace.COUNT)
    assert not probed.written and [name for name, _, _ in probed.near] == [b"fast"]
    assert index.verify().missing_entries == 0


def test_a_page_not_stored_takes_its_entries_and_claims_out(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    store, _ = stores
    index, probe = _probe(store, 0xF0F0)
    claims = [keyspace.SENTENCE + bytes([n]) * 8 for n in range(5)]
    assert store.near_or_add(probe, b"a", _record(0xF0F0), keyspace.COUNT, claims).written
    _, near = _probe(store, 0xF0F1)
    other = [keyspace.SENTENCE + b"\xee" * 8]
    probed = store.near_or_add(near, b"b", _record(0xF0F1), keyspace.COUNT, other)
    assert not probed.written and probed.near[0][:2] == (b"a", 1)
    assert store.get(other[0]) is None  # the claim it took while pending is given back
    assert all(store.get(claim) == b"a" for claim in claims)
    assert index.verify().consistent and len(index) == 1
    assert shared.discard(index, store, b"a")
    assert index.verify().consistent and len(index) == 0
