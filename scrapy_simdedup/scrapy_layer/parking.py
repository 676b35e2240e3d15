"""Skipped requests written to the index, so that an interrupted crawl re-issues them.

A request skipped on a bet is gone from Scrapy: its link was extracted from a page that a
resumed crawl (``JOBDIR``) will not fetch again. So each parked request is stored under a
``P`` key (JSON of ``Request.to_dict``, bytes as base64; never pickle) until its bet is
settled; the next crawl on the index re-issues what it finds there. On a store several
workers share, a record names the worker that parked it: a running worker re-issues what
a dead one parked (``others``, ``claim``, ``release``; see ``index/heartbeats.py``). A crash then
costs a re-fetch, never a page.
"""

from __future__ import annotations

import base64
import inspect
import json
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.utils.request import request_from_dict

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.shared import delete_if
from scrapy_simdedup.index.stores.atomic import GuardedWrite, shared_store

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterator

    from scrapy import Spider

    from scrapy_simdedup.index.stores.base import Store

_BYTES = "__bytes__"
OWNER = "simdedup_owner"
"""The worker that parked a request, in its record (on a shared store; "" elsewhere)."""
MAX_ADOPTED = 10_000
"""Dead workers' requests re-issued per look; the rest wait for the next look (at idle)."""
MAX_SCANNED = 100_000
"""Other workers' records read per look."""


def _nobody(owner: str) -> bool:
    return False


@dataclass(frozen=True)
class Parked:
    """A stored parked request: its canonical URL, who parked it, its record as stored (a
    worker claims it by rewriting exactly that record), and the record read."""

    url: str
    owner: str
    key: bytes
    raw: bytes
    data: dict[str, Any]


class ParkingLot:
    """Stores parked requests by canonical URL; ``leftovers`` reads back an earlier crawl's,
    ``others`` the other workers', one of which ``claim`` takes for this worker."""

    def __init__(self, store: Store, spider: Spider, owner: str = "") -> None:
        self.store = store
        self.spider = spider
        self.owner = owner
        self.malformed = 0  # stored records that could not be read back
        self._methods: dict[Any, str] = {}  # the spider's methods' functions -> their names

    def park(self, url: str, request: Request) -> bool:
        """Store ``request``; False when it cannot be serialised (it is then fetched: a
        callback that is no method of the spider, a value JSON cannot hold)."""
        try:
            data = self._as_dict(request)
            data["headers"] = {
                name.decode("latin-1"): list(v) for name, v in request.headers.items()
            }
            data[OWNER] = self.owner
            raw = json.dumps(data, default=_encode)
        except (TypeError, ValueError):
            return False
        self.store.write({_key(url): raw.encode()})
        return True

    def _as_dict(self, request: Request) -> dict[str, Any]:
        """``request.to_dict(spider=...)`` as Scrapy builds it (a test compares the two),
        without running the request class's ``__init__`` again, and with the callbacks'
        names found once per method: Scrapy lists every method of the spider for each
        request (about 0.1 ms). A callback that is not the spider's own method now (a
        lambda, another object's method, one the spider rebound since) raises ValueError:
        rebuilt by its name, it would be another callback."""
        data = {
            "url": request.url,
            "callback": self._method_name(request.callback),
            "errback": self._method_name(request.errback),
            "headers": dict(request.headers),
        }
        for attribute in request.attributes:
            data.setdefault(attribute, getattr(request, attribute))
        if type(request) is not Request:
            data["_class"] = f"{type(request).__module__}.{type(request).__name__}"
        return data

    def _method_name(self, function: Any) -> str | None:
        """The name under which the spider has ``function`` now (None stays None)."""
        if function is None:
            return None
        target = getattr(function, "__func__", None)
        if target is None or not self._owns(function):
            raise ValueError(f"{function!r} is not a method of the spider")
        name = self._methods.get(target)
        if name is None or not self._still(name, target):  # new, or set on the spider since
            self._methods = {}
            for each, method in inspect.getmembers(self.spider, inspect.ismethod):
                if self._owns(method):
                    self._methods.setdefault(method.__func__, each)  # the first, as Scrapy
            name = self._methods.get(target)
        if name is None:
            raise ValueError(f"{function!r} is no longer an attribute of the spider")
        return name

    def _owns(self, method: Any) -> bool:
        """A method bound to the spider, or to its class (a classmethod)."""
        bound = getattr(method, "__self__", None)
        return bound is self.spider or bound is type(self.spider)

    def _still(self, name: str, target: Any) -> bool:
        """Whether the spider's attribute ``name`` is still its method ``target``."""
        bound = getattr(self.spider, name, None)
        return getattr(bound, "__func__", None) is target and self._owns(bound)

    def holder(self, url: str) -> str | None:
        """The worker whose record of ``url`` is stored ("" for none named), or None when
        there is none; an unreadable record is nobody's."""
        raw = self.store.get(_key(url))
        if raw is None:
            return None
        try:
            owner = json.loads(raw).get(OWNER, "")
        except (ValueError, TypeError, AttributeError):
            return None
        return owner if isinstance(owner, str) else None

    def forget(self, urls: list[str]) -> None:
        if urls:
            self.store.write({}, deletes=[_key(url) for url in urls])

    def leftovers(self, running: Callable[[str], bool] = _nobody) -> list[tuple[str, Request]]:
        """What an earlier crawl parked and never settled: every record but those of a
        worker that may be ``running`` (joining a crawl, the others' bets are theirs)."""
        found = []
        fates: dict[str, bool] = {}  # owner -> running, asked once
        for parked in self._read():
            owner = parked.owner
            if owner and owner not in fates:
                fates[owner] = running(owner)
            if owner and fates[owner]:
                continue
            request = self.request(parked)
            if request is not None:
                found.append((parked.url, request))
        return found

    def others(self, skip: Container[str] = ()) -> Iterator[Parked]:
        """What other workers parked (URLs in ``skip`` left out), reading at most
        ``MAX_SCANNED`` records of theirs."""
        others = (parked for parked in self._read(skip) if parked.owner != self.owner)
        return islice(others, MAX_SCANNED)

    def claim(self, parked: Parked) -> bytes | None:
        """Rewrite ``parked`` as this worker's, if it still is as read (one compare-and-set:
        of workers racing for it, one wins); the record as now stored, or None."""
        shared = shared_store(self.store)
        if shared is None:
            raise TypeError("only a store several workers share has requests to claim")
        mine = json.dumps({**parked.data, OWNER: self.owner}, default=_encode).encode()
        taken = shared.write_if(GuardedWrite({parked.key: mine}, expect={parked.key: parked.raw}))
        return mine if taken else None

    def release(self, key: bytes, claimed: bytes) -> None:
        """Remove a claimed record once its request is with the engine (unless it changed)."""
        if (shared := shared_store(self.store)) is not None:
            delete_if(shared, key, claimed)

    def request(self, parked: Parked) -> Request | None:
        """The request in ``parked``; None, counted in ``malformed``, when this spider
        cannot rebuild it (broken, or a callback or class it lacks)."""
        try:
            return request_from_dict(dict(parked.data), spider=self.spider)
        except Exception:
            self.malformed += 1
            return None

    def _read(self, skip: Container[str] = ()) -> Iterator[Parked]:
        """Stored records, those whose URL is in ``skip`` left out before they are decoded
        (a worker's own parked requests, read every few seconds on a shared store)."""
        stored = self.store.scan(keyspace.PARKED, keyspace.end(keyspace.PARKED))
        for key, raw in stored:
            try:
                url = key[len(keyspace.PARKED) :].decode("utf-8", "surrogatepass")
            except UnicodeDecodeError:
                self.malformed += 1
                continue
            if url in skip:
                continue
            try:
                data = json.loads(raw, object_hook=_decode)
                owner = data.pop(OWNER, "")
            except (ValueError, TypeError, AttributeError):
                self.malformed += 1
                continue
            yield Parked(url, owner if isinstance(owner, str) else "", key, raw, data)


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
