"""Which workers sharing a store are alive, without comparing machines' clocks.

Each worker on a shared store (Redis) raises its own count (``keyspace.WORKERS`` + its id,
with its timeout) every few seconds. Another worker takes it for dead once that count has
stood still for ``timeout`` seconds of its *own* clock (the longer of the two workers'
timeouts), or once the count is gone (the worker closed, or a worker found it dead and
removed it). Two machines' clocks are never compared, so skew between them cannot make a
live worker look dead.

A worker stalled for longer than ``timeout`` (swapping, a debugger) looks dead too: what it
parked is re-issued by another worker, which costs a second fetch, never a page.
"""

from __future__ import annotations

import math
import struct
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.shared import delete_if

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.index.stores.atomic import AtomicStore

DEFAULT_TIMEOUT = 60.0
MAX_WATCHED = 10_000
"""Other workers' counts remembered; beyond, they are forgotten and watched afresh (a
worker then looks alive for one more ``timeout``: later, never wrongly, dead)."""


class Heartbeats:
    """This worker's heartbeat (``beat``, ``leave``) and the others' (``alive``)."""

    def __init__(
        self,
        store: AtomicStore,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        worker: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        self.store = store
        self.timeout = timeout
        self.worker = worker or uuid.uuid4().hex
        self.clock = clock
        self._beats = 0
        self._seen: dict[str, _Seen] = {}

    def beat(self) -> None:
        """Tell the others this worker is alive (every ``timeout / 4`` seconds or so), and
        its timeout: a watcher with a shorter one waits as long as this worker's."""
        self._beats += 1
        self.store.write({_key(self.worker): _BEAT.pack(self._beats, self.timeout)})

    def first_beat(self) -> tuple[bytes, bytes]:
        """This worker's first heartbeat as a key and value, for a caller that writes it
        together with other keys in one atomic step (joining a crawl: ``crawls.py``)."""
        self._beats += 1
        return _key(self.worker), _BEAT.pack(self._beats, self.timeout)

    def others(self) -> list[str]:
        """The other workers whose heartbeat is in the store (alive, or killed unseen)."""
        found = self.store.scan(keyspace.WORKERS, keyspace.end(keyspace.WORKERS))
        names = (key[len(keyspace.WORKERS) :].decode("ascii", "replace") for key, _ in found)
        return [name for name in names if name != self.worker]

    def leave(self) -> None:
        """This worker is closing: what it leaves parked is for the others to take."""
        self.store.write({}, [_key(self.worker)])

    def alive(self, worker: str) -> bool:
        """Whether ``worker`` may still be running. A worker first asked about looks alive
        for a timeout; "" (a request parked by no known worker) never does."""
        if worker == self.worker:
            return True
        if not worker:
            return False
        beat = self.store.get(_key(worker))
        if beat is None:
            return False
        now = self.clock()
        seen = self._seen.get(worker)
        if seen is None or seen.beat != beat:
            if len(self._seen) >= MAX_WATCHED:
                self._seen.clear()
            before = -math.inf if seen is None else seen.last
            self._seen[worker] = _Seen(beat, now, now, before)
            return True
        self._seen[worker] = _Seen(beat, seen.since, now, seen.before)
        return now - seen.since < self._timeout_of(beat)

    def unsure(self, worker: str, since: float | None = None) -> bool:
        """Whether ``worker``, alive by ``alive``, may have died: it has not been seen to
        beat after ``since`` (on ``clock``; a count read unchanged at ``since`` or later,
        then changed), or, without ``since``, its count has not moved since it was first
        seen, or not for longer than it should have (half a timeout), or it died since
        ``alive`` was asked. Known within one timeout either way."""
        seen = self._seen.get(worker)
        if seen is None:
            return False
        now = self.clock()
        still = now - seen.since
        timeout = self._timeout_of(seen.beat)
        if still >= timeout:
            return True  # dead since ``alive`` was asked: the next look takes what it parked
        if since is not None:
            # Waited a whole timeout of this worker's: one that beats more rarely (a longer
            # timeout of its own) is left to settle its parked requests itself.
            return seen.before < since and now - since < self.timeout
        return seen.before == -math.inf or still > timeout / 2

    def _timeout_of(self, beat: bytes) -> float:
        """This worker's timeout, or the watched one's when longer (it beats less often)."""
        try:
            _, theirs = _BEAT.unpack(beat)
        except struct.error:
            return self.timeout
        return max(self.timeout, theirs) if 0 < theirs < 1e6 else self.timeout

    def sweep(self) -> list[str]:
        """Bury every other worker found dead (not only those that parked requests): a
        worker killed with ``kill -9`` must not keep later workers in its crawl for ever
        (``crawls.py``). Called every few seconds; the buried workers."""
        buried = [worker for worker in self.others() if not self.alive(worker)]
        for worker in buried:
            self.bury(worker)
        return buried

    def bury(self, worker: str) -> None:
        """Remove a dead worker's count once what it parked is taken; only the count seen
        standing still: a worker that was stalled, not dead, and beats again stays."""
        seen = self._seen.pop(worker, None)
        if worker and worker != self.worker and seen is not None:
            delete_if(self.store, _key(worker), seen.beat)


@dataclass(frozen=True, slots=True)
class _Seen:
    """Another worker's heartbeat as last read: since when (first read) and until when
    (last read) it stood, and when the count before it was last read (-inf: none was)."""

    beat: bytes
    since: float
    last: float
    before: float


_BEAT = struct.Struct(">Qd")  # the count, and the worker's timeout


def _key(worker: str) -> bytes:
    return keyspace.WORKERS + worker.encode("ascii", "replace")
