"""Workers on one real Redis: who is alive, and what a dead worker parked is re-issued once."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from scrapy import Request

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.heartbeats import Heartbeats
from scrapy_simdedup.index.stores.redis import RedisStore
from scrapy_simdedup.scrapy_layer.parking import ParkingLot
from scrapy_simdedup.scrapy_layer.reissue import (
    REISSUED,
    Adopted,
    Adoption,
    RequestParking,
    send_again,
)
from scrapy_simdedup.url.actions import Reissue
from scrapy_simdedup.url.bets import Bet
from tests.support.components import memory_crawler

TIMEOUT = 10.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Engine:
    def __init__(self) -> None:
        self.crawled: list[Request] = []

    def crawl(self, request: Request) -> None:
        self.crawled.append(request)


@pytest.fixture
def store(redis_url: str) -> Iterator[RedisStore]:
    opened = RedisStore(redis_url, "workers")
    try:
        yield opened
    finally:
        opened.close()


def _failed(exc: StoreError) -> None:
    raise exc


class Worker:
    """A worker's parking and adoption, sending what it adopts as the middleware does."""

    def __init__(self, store: RedisStore, name: str) -> None:
        crawler = memory_crawler()
        assert crawler.spider is not None
        self.engine = Engine()
        self.lot = ParkingLot(store, crawler.spider, owner=name)
        self.parking = RequestParking(self.lot)
        self.held: set[str] = set()
        self.adoption = Adoption(self.lot, self._send, _failed)

    def _send(self, request: Request) -> bool:
        self.engine.crawl(send_again(Reissue(Bet(request.url, "", None, request), "abandoned")))
        return True

    def park(self, url: str, counterpart: str | None) -> bool:
        self.held.add(url)
        return self.parking.park(Bet(url, "rule", counterpart, Request(url)))

    def adopt(self, heartbeats: Heartbeats) -> Adopted:
        return self.adoption.adopt(self.held, heartbeats.alive, heartbeats.unsure)


def _worker(store: RedisStore, name: str, clock: Clock) -> tuple[Heartbeats, Worker, Engine]:
    heartbeats = Heartbeats(store, TIMEOUT, worker=name, clock=clock)
    heartbeats.beat()
    worker = Worker(store, name)
    return heartbeats, worker, worker.engine


def test_a_worker_is_dead_once_its_count_stood_still_for_the_timeout(store: RedisStore) -> None:
    clock = Clock()
    mine = Heartbeats(store, TIMEOUT, worker="mine", clock=clock)
    other = Heartbeats(store, TIMEOUT, worker="other", clock=Clock())
    assert not mine.alive("other")  # never beat: nothing parked by it can wait for it
    other.beat()
    assert mine.alive("other") and mine.unsure("other")  # first seen: not known yet
    clock.now = TIMEOUT - 1
    assert mine.alive("other")
    other.beat()  # it moved: alive, and known to be
    assert mine.alive("other") and not mine.unsure("other")
    clock.now += TIMEOUT / 2
    assert mine.alive("other") and not mine.unsure("other")
    clock.now += TIMEOUT / 2 - 1  # overdue: it beats every quarter of its timeout
    assert mine.alive("other") and mine.unsure("other")
    clock.now += 1  # still for the whole timeout, on this worker's own clock
    assert not mine.alive("other")
    other.beat()  # it was only stalled: alive again
    assert mine.alive("other")
    other.leave()
    assert not mine.alive("other")
    assert mine.alive("mine") and not mine.alive("")
    other.beat()
    assert mine.alive("other")
    clock.now += TIMEOUT
    assert not mine.alive("other")  # stood still: dead
    other.beat()  # only stalled: it beats again before it is buried, and stays
    mine.bury("other")
    assert store.get(keyspace.WORKERS + b"other") is not None
    assert mine.alive("other")
    clock.now += TIMEOUT
    assert not mine.alive("other")
    mine.bury("other")
    assert store.get(keyspace.WORKERS + b"other") is None
    # A worker with a longer timeout beats less often: it is waited for as long.
    patient = Heartbeats(store, 10 * TIMEOUT, worker="patient", clock=Clock())
    patient.beat()
    assert mine.alive("patient")
    clock.now += 5 * TIMEOUT
    assert mine.alive("patient")
    clock.now += 5 * TIMEOUT
    assert not mine.alive("patient")


def test_a_worker_idle_since_a_moment_waits_for_a_beat_after_it(store: RedisStore) -> None:
    """A worker that beat just before another went idle, then died, must not pass for
    alive: only a beat between two reads after the idle began says it still runs."""
    clock = Clock()
    mine = Heartbeats(store, TIMEOUT, worker="mine", clock=clock)
    other = Heartbeats(store, TIMEOUT, worker="other", clock=Clock())
    other.beat()
    assert mine.alive("other")
    clock.now = 1
    other.beat()
    assert mine.alive("other") and not mine.unsure("other")  # moved a moment ago
    idle = clock.now = 2  # goes idle now; the other may have died since it beat
    assert mine.alive("other") and mine.unsure("other", since=idle)
    clock.now = 3
    assert mine.alive("other") and mine.unsure("other", since=idle)  # no beat since
    other.beat()
    clock.now = 4
    assert mine.alive("other") and not mine.unsure("other", since=idle)  # beat after idle
    # One with a far longer timeout (it beats rarely) is waited for a timeout of ours.
    patient = Heartbeats(store, 100 * TIMEOUT, worker="patient", clock=Clock())
    patient.beat()
    assert mine.alive("patient") and mine.unsure("patient", since=idle)
    clock.now = idle + TIMEOUT
    assert mine.alive("patient") and not mine.unsure("patient", since=idle)
    clock.now = 4 + TIMEOUT - 0.001
    assert mine.alive("other")  # standing still for not quite a timeout
    clock.now = 4 + TIMEOUT  # and dead an instant later, before it was asked about
    assert mine.unsure("other", since=idle) and mine.unsure("other")  # so: one more look
    assert not mine.alive("other")  # which finds it dead and takes what it parked


def test_what_a_dead_worker_parked_is_reissued_by_one_running_worker(store: RedisStore) -> None:
    clock = Clock()
    _, dead_bets, _ = _worker(store, "dead", Clock())
    live, live_bets, _ = _worker(store, "live", Clock())
    urls = [f"http://m.example/p/{n}" for n in range(3)]
    for url in urls:
        assert dead_bets.park(url, url.replace("m.", "o."))
    live_bets.park("http://m.example/q", None)
    first, first_bets, first_engine = _worker(store, "first", clock)
    second, second_bets, second_engine = _worker(store, "second", clock)

    adopted = first_bets.adopt(first)
    assert adopted.reissued == 0 and adopted.waiting  # not known dead yet: wait
    clock.now = TIMEOUT / 2
    live.beat()  # the live worker moves; the dead one does not
    assert first_bets.adopt(first).reissued == 0  # a look: the dead one stood still
    assert second_bets.adopt(second).reissued == 0
    clock.now = TIMEOUT
    adopted = first_bets.adopt(first)
    assert adopted.dead == ["dead"] and adopted.reissued == 3 and not adopted.waiting
    assert sorted(r.url for r in first_engine.crawled) == urls
    assert {r.meta[REISSUED] for r in first_engine.crawled} == {"abandoned"}
    assert all(r.priority == 0 and not r.dont_filter for r in first_engine.crawled)
    # Another worker finds the same dead worker: nothing left to take, nothing twice.
    assert second_bets.adopt(second).reissued == 0
    assert second_engine.crawled == []
    # The live worker's parked request stays with it.
    left = list(store.scan(keyspace.PARKED, keyspace.end(keyspace.PARKED)))
    assert [key for key, _ in left] == [keyspace.PARKED + b"http://m.example/q"]
    assert dead_bets.lot.malformed == 0 and live.worker == "live"


def test_a_request_the_running_worker_cannot_rebuild_is_left_for_one_that_can(
    store: RedisStore,
) -> None:
    clock = Clock()
    record = {"url": "http://m.example/x", "callback": "no_such_method", "simdedup_owner": "gone"}
    store.write({keyspace.PARKED + b"http://m.example/x": json.dumps(record).encode()})
    heartbeats, bets, engine = _worker(store, "running", clock)
    adopted = bets.adopt(heartbeats)  # "gone" never beat: dead
    assert adopted.dead == ["gone"] and adopted.reissued == 0 and engine.crawled == []
    assert bets.lot.malformed == 1
    assert store.get(keyspace.PARKED + b"http://m.example/x") == json.dumps(record).encode()


def test_a_worker_killed_without_parked_requests_is_buried_too(store: RedisStore) -> None:
    clock = Clock()
    mine = Heartbeats(store, TIMEOUT, worker="mine", clock=clock)
    killed = Heartbeats(store, TIMEOUT, worker="killed", clock=Clock())
    mine.beat()
    killed.beat()
    assert mine.sweep() == []  # first seen: alive for a timeout
    clock.now += TIMEOUT
    assert mine.sweep() == ["killed"]
    assert mine.others() == []


def test_a_worker_joining_a_crawl_takes_only_what_stopped_workers_parked(
    store: RedisStore,
) -> None:
    """A worker that joins a running crawl takes as an interrupted crawl's leftovers only
    what no running worker holds: taking a running worker's bets re-issued them all at its
    first moment (copies that worker was right to skip, fetched by the hundred when a
    second worker joins a long crawl). A link to a request a running worker holds is that
    worker's bet; to one a stopped worker left (Ctrl-C, or dead), it is judged here: that
    request would otherwise wait for an adoption at idle that a crawl ending on a budget
    never reaches, and plain scrapy-redis would fetch it."""
    clock = Clock()
    running = Heartbeats(store, TIMEOUT, worker="running", clock=Clock())
    stopped = Heartbeats(store, TIMEOUT, worker="stopped", clock=Clock())
    killed = Heartbeats(store, TIMEOUT, worker="killed", clock=Clock())
    for heartbeats in (running, stopped, killed):
        heartbeats.beat()
        bets = Worker(store, heartbeats.worker)
        assert bets.park(f"http://m.example/{heartbeats.worker}", "http://o.example/")
    stopped.leave()  # Ctrl-C: its bets stay in the index, for whoever runs on
    # A record of no named worker (an index written before records named one).
    plain = ParkingLot(store, memory_crawler().spider)  # type: ignore[arg-type]
    assert plain.park("http://m.example/nobody", Request("http://m.example/nobody"))

    joining = Heartbeats(store, TIMEOUT, worker="joining", clock=clock)
    joining.beat()
    lot = ParkingLot(store, memory_crawler().spider, owner="joining")  # type: ignore[arg-type]
    parking = RequestParking(lot, joining.alive)
    left = sorted(bet.url for bet in parking.leftovers())
    assert left == ["http://m.example/nobody", "http://m.example/stopped"]
    assert parking.held_elsewhere("http://m.example/running")
    assert parking.held_elsewhere("http://m.example/killed")  # not known dead yet
    assert not parking.held_elsewhere("http://m.example/stopped")
    assert not parking.held_elsewhere("http://m.example/nobody")
    assert not parking.held_elsewhere("http://m.example/none")
    clock.now = TIMEOUT / 2
    running.beat()
    clock.now = TIMEOUT  # the killed worker's count stood still for a whole timeout
    assert parking.held_elsewhere("http://m.example/running")
    assert not parking.held_elsewhere("http://m.example/killed")
    # Without heartbeats (a store of one process) every record is a leftover.
    alone = RequestParking(ParkingLot(store, memory_crawler().spider))  # type: ignore[arg-type]
    assert len(alone.leftovers()) == 4
    assert not alone.held_elsewhere("http://m.example/running")
