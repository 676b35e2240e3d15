"""Skipped requests written to the index, so that an interrupted crawl re-issues them.

A request skipped on a bet is gone from Scrapy: its link was extracted from a page that a
resumed crawl (``JOBDIR``) will not fetch again. So each parked request is stored under a
``P`` key (JSON of ``Request.to_dict``, bytes as base64; never pickle) until its bet is
settled; the next crawl on the index re-issues what it finds there. A crash then costs a
re-fetch, never a page.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

from scrapy.utils.request import request_from_dict

from scrapy_simdedup.index import keyspace

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.http import Request

    from scrapy_simdedup.index.stores.base import Store

_BYTES = "__bytes__"


class ParkingLot:
    """Stores parked requests by canonical URL; ``leftovers`` reads back an earlier crawl's."""

    def __init__(self, store: Store, spider: Spider) -> None:
        self.store = store
        self.spider = spider
        self.malformed = 0  # stored records that could not be read back

    def park(self, url: str, request: Request) -> bool:
        """Store ``request``; False when it cannot be serialised (it is then fetched)."""
        data = request.to_dict(spider=self.spider)
        data["headers"] = {name.decode("latin-1"): list(v) for name, v in request.headers.items()}
        try:
            raw = json.dumps(data, default=_encode)
        except (TypeError, ValueError):
            return False
        self.store.write({_key(url): raw.encode()})
        return True

    def forget(self, urls: list[str]) -> None:
        if urls:
            self.store.write({}, deletes=[_key(url) for url in urls])

    def leftovers(self) -> list[tuple[str, Request]]:
        """What an earlier crawl parked and never settled."""
        found = []
        for key, raw in self.store.scan(keyspace.PARKED, keyspace.end(keyspace.PARKED)):
            try:
                data = json.loads(raw, object_hook=_decode)
                request = request_from_dict(data, spider=self.spider)
            except (ValueError, TypeError, KeyError, AttributeError):
                self.malformed += 1
                continue
            found.append((key[len(keyspace.PARKED) :].decode("utf-8", "surrogatepass"), request))
        return found


def _key(url: str) -> bytes:
    return keyspace.PARKED + url.encode("utf-8", "surrogatepass")


def _encode(value: object) -> Any:
    if isinstance(value, bytes):
        return {_BYTES: base64.b64encode(value).decode("ascii")}
    raise TypeError(f"cannot store a {type(value).__name__} in a parked request")


def _decode(data: dict[str, Any]) -> Any:
    if set(data) == {_BYTES}:
        return base64.b64decode(data[_BYTES])
    return data
