"""Every kind of record has its own first byte, so no kind can read another's keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy import Request, Spider

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.scrapy_layer.parking import ParkingLot


def test_every_kind_has_its_own_first_byte() -> None:
    heads = [prefix[:1] for prefix in (*keyspace.RESERVED, *keyspace.COMPANIONS)]
    assert len(heads) == len(set(heads))
    for record in (keyspace.COUNT, keyspace.DESIGN, keyspace.PARAMS):
        assert record[:1] == keyspace.RECORD


@pytest.mark.parametrize("prefix", [b"a", b"L", b"a\xff", b"\x00params"])
def test_a_scan_bound_holds_every_key_of_its_prefix_and_nothing_after(prefix: bytes) -> None:
    bound = keyspace.end(prefix)
    assert prefix < prefix + b"\xff" * 8 < bound
    assert not bound.startswith(prefix)


def test_a_prefix_of_only_ff_bytes_has_no_bound() -> None:
    with pytest.raises(ValueError, match="no upper bound"):
        keyspace.end(b"\xff\xff")


def test_every_key_a_used_store_holds_starts_with_a_declared_prefix(tmp_path: Path) -> None:
    """The content index, template blocks, the URL index and parked requests side by side."""
    with open_index(tmp_path / "index", max_distance=3) as index:
        for number in range(5):
            text = f"page {number} " + " ".join(f"word{number}{i}" for i in range(60))
            done = index.fingerprint_text(text, with_sketch=True)
            assert done.simhash is not None
            index.add(done.simhash, f"https://example.test/{number}")
            index.exact_or_add(done.exact, f"https://example.test/{number}")
            index.record_sentences([number + 1], f"https://example.test/{number}")
        index.blocks.count_page("example.test", [1, 2, 3])
        urls = index.companion(keyspace.URL_INDEX, max_distance=3)
        urls.add(12345, "https://example.test/a")
        lot = ParkingLot(urls.store, Spider("keys"))
        assert lot.park("https://example.test/b", Request("https://example.test/b?s=1"))
        keys = [key for key, _ in urls.store.scan(b"", b"\xff")]
    assert {key[:1] for key in keys} >= {b"t", b"d", b"x", b"s", b"b", b"u", b"P", b"\x00"}
    declared = (*keyspace.RESERVED, *keyspace.COMPANIONS)
    for key in keys:
        assert key.startswith(declared), key
