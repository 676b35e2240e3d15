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
from scrapy_simdedup.index.stores.redis import RedisStore
from scrapy_simdedup.index.stores.redis_sharded import ShardedRedisStore
from scrapy_simdedup.index.tables import TableDesign

pytestmark = [pytest.mark.timeout(120), pytest.mark.redis]  # each test starts or asks for one

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


def _begin_and_insert(
    store: ShardedRedisStore,
    fingerprint: int,
    name: bytes,
    claims: list[bytes] | None = None,
    sequence: bytes = b"",
) -> bytes:
    """A page stopped after its first two steps: pending, its entries in the tables and
    its ``claims`` taken."""
    _, probe = _probe(store, fingerprint)
    sequence = sequence or store._adding._next_number()
    record_key = keyspace.DOCUMENT + name
    pending = keyspace.PENDING + name
    assert store.runner.run(
        store._adding._begin, store.runner.of(record_key), [record_key, pending, sequence]
    )
    store._adding._insert_and_read(probe, name, claims or [])
    return sequence


class Adding(threading.Thread):
    """``near_or_add`` in a thread of its own: a page offered while the test holds another
    between its steps. ``result`` is the Probed, or the exception it raised."""

    def __init__(
        self,
        store: ShardedRedisStore,
        fingerprint: int,
        name: bytes,
        claims: list[bytes] | None = None,
    ) -> None:
        super().__init__(daemon=True)
        self.args_ = (store, fingerprint, name, claims or [])
        self.result: Probed | BaseException | None = None
        self.start()

    def run(self) -> None:
        store, fingerprint, name, claims = self.args_
        _, probe = _probe(store, fingerprint)
        try:
            record = _record(fingerprint)
            self.result = store.near_or_add(probe, name, record, keyspace.COUNT, claims)
        except BaseException as exc:  # reported by outcome()
            self.result = exc

    def outcome(self, timeout: float = 10) -> Probed:
        self.join(timeout)
        assert not self.is_alive(), f"{self.args_[2]!r} still waits after {timeout} s"
        assert isinstance(self.result, Probed), self.result
        return self.result


def test_a_page_pending_before_waits_out_the_later_one(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    slow, fast = stores
    sequence = _begin_and_insert(slow, 0xF0F0, b"first")
    racing = Adding(fast, 0xF0F1, b"second")
    time.sleep(0.3)
    assert racing.is_alive()  # it waits for 'first'
    outcome, _ = slow._adding._settled(keyspace.DOCUMENT, b"first", _record(0xF0F0), sequence)
    assert outcome == "stored"
    again, _ = slow._adding._settled(keyspace.DOCUMENT, b"first", _record(0xF0F0), sequence)
    assert again == "stored"  # a retried call (its reply lost) is not told to start again
    probed = racing.outcome()
    assert not probed.written and [name for name, _, _ in probed.near] == [b"first"]
    assert fast.get(keyspace.DOCUMENT + b"second") is None


def test_a_page_pending_after_is_made_to_wait_for_the_earlier_one(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    early, late = stores
    early_number = (
        early._adding._next_number()
    )  # 'early' numbered first, but it reaches the tables last
    late_number = _begin_and_insert(late, 0xF0F1, b"late")
    assert late_number > early_number
    _, probe = _probe(early, 0xF0F0)
    record_key, pending = keyspace.DOCUMENT + b"early", keyspace.PENDING + b"early"
    early.runner.run(
        early._adding._begin, early.runner.of(record_key), [record_key, pending, early_number]
    )
    found, _ = early._adding._insert_and_read(probe, b"early")
    assert found == {b"late": 1}
    assert (
        early._adding._resolved_all(found, keyspace.DOCUMENT, b"early", early_number).stored == []
    )
    outcome, _ = early._adding._settled(keyspace.DOCUMENT, b"early", _record(0xF0F0), early_number)
    assert outcome == "stored"
    # 'late' read nothing when it inserted; settling, it finds 'early' asked it to wait.
    outcome, stored = late._adding._settled(
        keyspace.DOCUMENT, b"late", _record(0xF0F1), late_number
    )
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
    outcome, _ = slow._adding._settled(keyspace.DOCUMENT, b"slow", _record(0xF0F0), sequence)
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


SENTENCE = keyspace.SENTENCE + b"\x11" * 8
FAR = (0xFFFF_FFFF_0000_0000, 0x0000_FFFF_FFFF_0000, 0x00FF_00FF_00FF_00FF)
"""Fingerprints far from each other and from 0xF0F0 (pages that share only a sentence)."""


def test_two_pages_waiting_on_a_withdrawn_claim_holder_meet_each_other(
    stores: tuple[ShardedRedisStore, ShardedRedisStore], redis_url: str
) -> None:
    holder, first = stores
    second = ShardedRedisStore(redis_url, "sharded", stale=1.0)
    try:
        sequence = _begin_and_insert(holder, 0xF0F0, b"holder", [SENTENCE])
        racing = [Adding(first, FAR[0], b"B", [SENTENCE]), Adding(second, FAR[1], b"C", [SENTENCE])]
        time.sleep(0.3)
        _, probe = _probe(holder, 0xF0F0)  # it found a stored page near it: it withdraws
        holder._adding._withdraw(
            probe, b"holder", [SENTENCE], keyspace.PENDING + b"holder", sequence, stored=[]
        )
        results = [adding.outcome() for adding in racing]
        kept = [r for r in results if r.written]
        assert len(kept) == 1, results  # both were kept, sharing the sentence, before
        refused = next(r for r in results if not r.written)
        owner = holder.get(SENTENCE)
        assert owner in (b"B", b"C") and [o for o, _ in refused.owners] == [owner]
    finally:
        second.close()


def test_a_stored_page_owns_the_claims_its_withdrawn_rival_held(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    rival_store, store = stores
    numbered_first = store._adding._next_number()  # B is numbered first, its rival claims first
    rival_number = _begin_and_insert(rival_store, FAR[0], b"rival", [SENTENCE])
    _begin_and_insert(store, FAR[1], b"B", [SENTENCE], sequence=numbered_first)
    found = {b"rival": -1}
    seen = store._adding._resolved_all(found, keyspace.DOCUMENT, b"B", numbered_first)
    assert seen.deferred_claims == {b"rival"}  # the rival must now wait for B
    outcome, _ = store._adding._settled(keyspace.DOCUMENT, b"B", _record(FAR[1]), numbered_first)
    assert outcome == "stored"
    outcome, stored = rival_store._adding._settled(
        keyspace.DOCUMENT, b"rival", _record(FAR[0]), rival_number
    )
    assert outcome == "copy" and [name for name, _, _ in stored] == [b"B"]
    _, probe = _probe(rival_store, FAR[0])
    rival_store._adding._withdraw(
        probe, b"rival", [SENTENCE], keyspace.PENDING + b"rival", rival_number, stored=stored
    )
    assert store.get(SENTENCE) == b"B"  # before: given back, so no page owned it
    _, later = _probe(store, FAR[2])  # a later reprint of B, alone, sharing the sentence
    probed = store.near_or_add(later, b"D", _record(FAR[2]), keyspace.COUNT, [SENTENCE])
    assert not probed.written and [o for o, _ in probed.owners] == [b"B"]


def test_a_page_stored_before_its_rival_withdrew_takes_the_claim_back(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    rival_store, store = stores
    rival_number = _begin_and_insert(rival_store, FAR[0], b"rival", [SENTENCE])
    racing = Adding(store, FAR[1], b"B", [SENTENCE])  # numbered after: it waits
    time.sleep(0.3)
    _, probe = _probe(rival_store, FAR[0])  # the rival found another page and withdraws
    rival_store._adding._withdraw(
        probe, b"rival", [SENTENCE], keyspace.PENDING + b"rival", rival_number, stored=[]
    )
    assert racing.outcome().written
    assert store.get(SENTENCE) == b"B"  # the claim given back was taken over


def test_a_page_added_past_its_judged_candidates_meets_a_page_stored_meanwhile(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    one, other = stores
    first, second = PermutedIndex(one, DESIGN), PermutedIndex(other, DESIGN)
    assert first.query_or_add(0xF0F0, "entry", b"e", [1]).added
    assert [m.key for m in first.query_or_add(0xF0F1, "index", b"p", [2]).matches] == ["entry"]
    assert second.query_or_add(0xF0F3, "copy", b"p", [2], judged=["entry"]).added
    again = first.query_or_add(0xF0F1, "index", b"p", [2], judged=["entry"])
    assert not again.added and [m.key for m in again.matches] == ["copy"]
    assert first.query_or_add(0xF0F1, "index", b"p", [2], judged=["entry", "copy"]).added
    assert len(first) == 3 and first.verify().consistent


def test_a_sentence_keeps_a_second_owner_on_shards(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    store, _ = stores
    index = PermutedIndex(store, DESIGN)
    assert index.query_or_add(0x0F0F_0F0F_0F0F_0F0F, "long", b"l", [1, 2, 3]).added
    first = index.query_or_add(0xF0F0_F0F0_F0F0_F0F0, "section", b"s", [1, 2])  # as the judge:
    assert [m.key for m in first.owners] == ["long"]  # first without, then with the judged
    assert index.query_or_add(0xF0F0_F0F0_F0F0_F0F0, "section", b"s", [1, 2], judged=["long"]).added
    assert index.sentence_owners([1, 2]) == ["long", "section"]
    mirror = index.query_or_add(0xFF00_FF00_FF00_FF00, "mirror/section", b"s", [1, 2])
    assert not mirror.added and sorted(m.key for m in mirror.owners) == ["long", "section"]


def test_a_changed_page_meets_the_owners_of_its_sentences_as_on_one_slot(redis_url: str) -> None:
    """A stored page fetched again with new text, far in SimHash from everything, still
    meets a page owning one of its sentences: what the one-slot script returns too."""
    for store in (ShardedRedisStore(redis_url, "changed"), RedisStore(redis_url, "one-slot")):
        try:
            index = PermutedIndex(store, DESIGN)
            assert index.query_or_add(0x0F0F_0F0F_0F0F_0F0F, "a", b"a", [1]).added
            assert index.query_or_add(0xF0F0_F0F0_F0F0_F0F0, "b", b"b", [2]).added
            changed = index.query_or_add(0xFF00_FF00_FF00_FF00, "b", b"b2", [1])
            assert not changed.added and changed.matches == []
            assert [m.key for m in changed.owners] == ["a"], store.location
        finally:
            store.close()


def test_get_many_reads_each_key_from_its_own_shard(
    stores: tuple[ShardedRedisStore, ShardedRedisStore],
) -> None:
    first, second = stores
    keys = [keyspace.DOCUMENT + f"http://a.example/{n}".encode() for n in range(39)]
    keys.append(keyspace.BLOCKS + b"\x00" * 16)  # a block count: in the shard of the rest
    first.write({key: bytes([n]) for n, key in enumerate(keys) if n % 3})
    asked = [*reversed(keys), b"missing"]
    assert second.get_many(asked) == [second.get(key) for key in asked]
    assert second.get_many(asked)[-2:] == [None, None]  # keys[0] was not written
    assert len({id(first.runner.of(key)) for key in keys}) > 1  # spread over shards
