"""The store contract: every store behaves alike."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from scrapy_simdedup.errors import StoreError, StoreFullError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.marks import FetchedMarks
from scrapy_simdedup.index.permuted import PermutedIndex
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.base import Store
from scrapy_simdedup.index.stores.leveldb import LevelDBStore
from scrapy_simdedup.index.stores.leveldb_binding import plyvel
from scrapy_simdedup.index.tables import choose_design
from tests.support.stores import opened_store


@pytest.fixture
def store(kind: str, tmp_path: Path) -> Iterator[Store]:
    with opened_store(kind, tmp_path) as opened:
        yield opened


def test_get_put_delete(store: Store) -> None:
    assert store.get(b"a") is None
    store.write({b"a": b"1", b"b": b"2"})
    assert (store.get(b"a"), store.get(b"b")) == (b"1", b"2")
    store.write({b"a": b"3"}, deletes=[b"b", b"missing"])
    assert (store.get(b"a"), store.get(b"b")) == (b"3", None)


def test_get_many_reads_what_get_reads_in_order(store: Store) -> None:
    """Values (block counts) and table entries (some stored without a value) alike."""
    design = choose_design(3, 1000)
    entry = PermutedIndex(store, design).table_keys(0x0123456789ABCDEF, b"k")[0]
    store.write({b"b\x01": b"\x02", b"b\x02": b"\x05", entry: b""})
    keys = [b"b\x02", b"missing", b"b\x01", entry, b"b\x02"]
    assert store.get_many(keys) == [store.get(key) for key in keys]
    assert store.get_many(keys[:3]) == [b"\x05", None, b"\x02"]
    assert store.get_many([]) == []


def test_scan_is_a_half_open_range_in_byte_order(store: Store) -> None:
    keys = [b"t\x00\x00", b"t\x00\xff", b"t\x01", b"t\x01\x00", b"u", b"\x00meta"]
    store.write(dict.fromkeys(keys, b"v"))
    assert [k for k, _ in store.scan(b"t\x00", b"t\x01")] == [b"t\x00\x00", b"t\x00\xff"]
    assert [k for k, _ in store.scan(b"t", b"u")] == [
        b"t\x00\x00",
        b"t\x00\xff",
        b"t\x01",
        b"t\x01\x00",
    ]
    assert list(store.scan(b"x", b"y")) == []
    assert store.keys([(b"t\x00", b"t\x01\x00")]) == [b"t\x00\x00", b"t\x00\xff", b"t\x01"]
    assert store.keys([(b"t\x01", b"u"), (b"x", b"y"), (b"\x00", b"\x01")]) == [
        b"t\x01",
        b"t\x01\x00",
        b"\x00meta",
    ]


def test_keys_see_every_write(store: Store) -> None:
    store.write({b"a1": b""})
    assert store.keys([(b"a", b"b")]) == [b"a1"]
    store.write({b"a2": b""}, deletes=[b"a1"])
    assert store.keys([(b"a", b"b")]) == [b"a2"]


def test_put_wins_over_delete_of_the_same_key(store: Store) -> None:
    store.write({b"k": b"new"}, deletes=[b"k"])
    assert store.get(b"k") == b"new"


def test_values_are_bytes_as_given(store: Store) -> None:
    value = bytes(range(256))
    store.write({b"k": value, b"empty": b""})
    assert store.get(b"k") == value
    assert store.get(b"empty") == b""


def test_a_long_scan_pages_through_every_key_once(store: Store) -> None:
    keys = [b"t" + n.to_bytes(2, "big") for n in range(2_500)]  # more than a chunk of Redis's
    store.write(dict.fromkeys(keys[::2], b""))
    store.write(dict.fromkeys(keys[1::2], b"v"))
    scanned = list(store.scan(b"t", b"u"))
    assert [key for key, _ in scanned] == keys
    assert [value for _, value in scanned] == [b"", b"v"] * 1_250
    assert (store.get(keys[0]), store.get(keys[1])) == (b"", b"v")
    store.write({keys[1]: b""}, deletes=[keys[0]])  # a value taken away is not left behind
    assert (store.get(keys[0]), store.get(keys[1])) == (None, b"")
    assert store.keys([(b"t", b"t\x00\x02")]) == [keys[1]]


def test_closed_store_refuses(store: Store) -> None:
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.get(b"a")


def test_memory_store_is_bounded() -> None:
    store = open_store("memory", max_keys=3)
    store.write({b"a": b"", b"b": b"", b"c": b""})
    with pytest.raises(StoreFullError, match="limit of 3 keys"):
        store.write({b"d": b""})
    store.write({b"d": b""}, deletes=[b"a"])  # a swap stays within the bound
    assert store.get(b"d") == b""


def test_unknown_store_name() -> None:
    with pytest.raises(ValueError, match="unknown store 'sqlite'; choose one of leveldb, memory"):
        open_store("sqlite")


def test_fetched_marks_count_each_url_once_and_forget_it(store: Store) -> None:
    """Adaptive mode's record of a fetch (``index/marks.py``), on every store alike."""
    marks = FetchedMarks(PermutedIndex(store, choose_design(3, 1000), keyspace.URL_INDEX))
    for url in ("http://a.example/1", "http://a.example/2", "http://a.example/1"):
        marks.add(url)
    assert len(marks) == 2 and "http://a.example/1" in marks and "http://a.example/3" not in marks
    assert marks.discard("http://a.example/1") and not marks.discard("http://a.example/1")
    assert len(marks) == 1 and "http://a.example/1" not in marks
    assert [key for key, _ in store.scan(b"", b"\xff")] == [
        keyspace.URL_INDEX + keyspace.MARK_COUNT,
        keyspace.URL_INDEX + keyspace.MARK + b"http://a.example/2",
    ]


def test_leveldb_folders_with_and_without_bloom_filters_read_the_same(tmp_path: Path) -> None:
    """A folder written before the store's tables carried Bloom filters opens as it is and
    gets filtered tables as it is compacted; a filtered folder opens without filters (an
    earlier version of the plugin). Tables of both kinds answer every key, present or not."""
    folder = tmp_path / "index"
    LevelDBStore(folder).close()  # the marker, as every version writes it
    rng = random.Random(3)
    before = {b"k" + rng.getrandbits(64).to_bytes(8, "big"): b"old" for _ in range(20_000)}
    after = {b"k" + rng.getrandbits(64).to_bytes(8, "big"): b"new" for _ in range(20_000)}
    absent = [b"j" + rng.getrandbits(64).to_bytes(8, "big") for _ in range(2_000)]
    absent += [key[:-1] + b"\x00" for key in list(before)[:2_000]]  # beside stored keys
    absent = [key for key in absent if key not in before and key not in after]

    unfiltered = plyvel.DB(str(folder), compression=None)  # as the store was opened before
    with unfiltered.write_batch() as batch:
        for key, value in before.items():
            batch.put(key, value)
    unfiltered.compact_range(start=b"", stop=b"\xff")
    unfiltered.close()
    assert _filtered_tables(folder) == [False]

    store = LevelDBStore(folder)
    try:
        assert store.get_many(list(before)) == list(before.values())
        assert store.get_many(absent) == [None] * len(absent)
        store.write(after)
        store._open().compact_range(start=b"", stop=b"\xff")  # every table rewritten
        assert _filtered_tables(folder) == [True]
        every = before | after
        assert store.get_many(list(every)) == list(every.values())
        assert store.get_many(absent) == [None] * len(absent)
    finally:
        store.close()

    unfiltered = plyvel.DB(str(folder), compression=None)
    try:
        assert [unfiltered.get(key) for key in every] == list(every.values())
        assert [unfiltered.get(key) for key in absent] == [None] * len(absent)
    finally:
        unfiltered.close()


def _filtered_tables(folder: Path) -> list[bool]:
    """Per LevelDB table file in ``folder``, whether it carries a Bloom filter."""
    return [b"BuiltinBloomFilter" in table.read_bytes() for table in sorted(folder.glob("*.ldb"))]
