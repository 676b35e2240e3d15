"""Parked requests in a real LevelDB folder: stored as Scrapy's own ``to_dict`` would have
them, read back into the same requests, and refused (fetched instead) when they cannot be."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scrapy import FormRequest, Request, Spider

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.base import Store
from scrapy_simdedup.scrapy_layer.parking import ParkingLot


class Shop(Spider):
    name = "shop"

    def parse_product(self, response: Any) -> None:
        pass

    def failed(self, failure: Any) -> None:
        pass


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store("leveldb", path=tmp_path / "index")
    try:
        yield opened
    finally:
        opened.close()


def _round_trip(lot: ParkingLot, request: Request) -> tuple[dict[str, Any], Request]:
    assert lot.park(request.url, request)
    (parked,) = [each for each in lot.leftovers() if each[0] == request.url]
    stored = next(p for p in lot._read() if p.url == request.url)
    return stored.data, parked[1]


def test_a_parked_request_is_stored_as_scrapy_serialises_it_and_read_back(store: Store) -> None:
    spider = Shop()
    lot = ParkingLot(store, spider)
    requests = [
        Request("http://127.0.0.1/a", callback=spider.parse_product, errback=spider.failed),
        Request("http://127.0.0.1/b", meta={"depth": 2}, priority=-3, cb_kwargs={"n": 1}),
        FormRequest("http://127.0.0.1/c", formdata={"q": "shoes"}, callback=spider.parse),
        Request("http://127.0.0.1/d", callback=spider.parse_product),  # names found once
    ]
    for request in requests:
        data, back = _round_trip(lot, request)
        expected = request.to_dict(spider=spider)
        assert data == {**expected, "headers": data["headers"]}
        assert back.to_dict(spider=spider) == expected
        assert type(back) is type(request)


def _parse_review(self: Shop, response: Any) -> None:
    pass


def test_a_method_set_on_the_spider_after_the_first_park_is_found(store: Store) -> None:
    spider = Shop()
    lot = ParkingLot(store, spider)
    assert lot.park("http://127.0.0.1/a", Request("http://127.0.0.1/a", callback=spider.parse))
    Shop.parse_review = _parse_review  # type: ignore[attr-defined]
    try:
        late = Request("http://127.0.0.1/b", callback=spider.parse_review)  # type: ignore[attr-defined]
        data, back = _round_trip(lot, late)
        assert data["callback"] == "parse_review"
        assert back.callback == spider.parse_review  # type: ignore[attr-defined]
    finally:
        del Shop.parse_review  # type: ignore[attr-defined]


def test_a_request_that_cannot_be_rebuilt_is_not_parked(store: Store) -> None:
    spider, other = Shop(), Shop()
    lot = ParkingLot(store, spider)
    refused = [
        Request("http://127.0.0.1/a", callback=lambda response: None),
        Request("http://127.0.0.1/b", callback=print),
        Request("http://127.0.0.1/c", meta={"thing": object()}),
    ]
    for request in refused:
        assert not lot.park(request.url, request)
    # Another spider object's method: rebuilt by its name, it would be this spider's.
    borrowed = Request("http://127.0.0.1/d", callback=other.parse_product)
    assert not lot.park(borrowed.url, borrowed)
    assert lot.leftovers() == []


class Tagged(Request):
    """A request class whose ``__init__`` must run once per request (it adds a flag)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.flags.append("tagged")


def test_a_request_class_is_stored_without_running_its_init_again(store: Store) -> None:
    spider = Shop()
    lot = ParkingLot(store, spider)
    request = Tagged("http://127.0.0.1/t", callback=spider.parse_product)
    data, back = _round_trip(lot, request)
    assert data["flags"] == request.to_dict(spider=spider)["flags"] == ["tagged"]
    assert data["_class"] == f"{__name__}.Tagged"
    assert type(back) is Tagged


def test_a_method_rebound_on_the_spider_is_never_stored_under_its_new_meaning(
    store: Store,
) -> None:
    """A spider that rebinds ``parse_product`` after a login: a request made before with
    the old method has no name left on the spider; it is fetched, not parked as a request
    that would come back with the other callback. A method of another object set on the
    spider never names the spider's own (Scrapy's search would take it)."""
    spider, helper = Shop(), Shop()
    lot = ParkingLot(store, spider)
    before = Request("http://127.0.0.1/a", callback=spider.parse_product)
    assert lot.park("http://127.0.0.1/0", Request("http://127.0.0.1/0", callback=spider.parse))
    assert lot.park("http://127.0.0.1/1", Request("http://127.0.0.1/1", callback=before.callback))
    spider.aaa_borrowed = helper.parse_product  # type: ignore[attr-defined]
    spider.parse_product = spider.failed  # type: ignore[method-assign]
    assert not lot.park(before.url, before)
    after = Request("http://127.0.0.1/b", callback=spider.parse_product)
    data, back = _round_trip(lot, after)
    assert data["callback"] == "failed"
    assert back.callback == spider.failed


def test_a_records_holder_is_the_worker_that_parked_it(store: Store) -> None:
    """A link to a request another worker of the crawl holds parked is that worker's bet;
    none, or an unreadable record, is nobody's."""
    spider = Shop()
    one, two = ParkingLot(store, spider, owner="w1"), ParkingLot(store, spider, owner="w2")
    assert one.park("http://127.0.0.1/a", Request("http://127.0.0.1/a"))
    assert two.holder("http://127.0.0.1/a") == one.holder("http://127.0.0.1/a") == "w1"
    assert two.holder("http://127.0.0.1/none") is None
    one.forget(["http://127.0.0.1/a"])
    assert two.holder("http://127.0.0.1/a") is None
    store.write({keyspace.PARKED + b"http://127.0.0.1/b": b"not json"})
    assert two.holder("http://127.0.0.1/b") is None
    # Leftovers leave a running worker's records out.
    assert two.park("http://127.0.0.1/c", Request("http://127.0.0.1/c"))
    assert one.park("http://127.0.0.1/d", Request("http://127.0.0.1/d"))
    assert [url for url, _ in one.leftovers(lambda owner: owner == "w2")] == ["http://127.0.0.1/d"]
    assert len(one.leftovers()) == 2
