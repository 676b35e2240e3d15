"""Which workers sharing a store are alive, without comparing machines' clocks.

Each worker on a shared store (Redis) raises its own count (``keyspace.WORKERS`` + its id)
every few seconds. Another worker takes it for dead once that count has stood still for
``timeout`` seconds of its *own* clock, or once the count is gone (the worker closed, or a
worker found it dead and removed it). Two machines' clocks are never compared, so skew
between them cannot make a live worker look dead.

A worker stalled for longer than ``timeout`` (swapping, a debugger) looks dead too: what it
parked is re-issued by another worker, which costs a second fetch, never a page.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.index.stores.base import Store

DEFAULT_TIMEOUT = 60.0
MAX_WATCHED = 10_000
"""Other workers' counts remembered; beyond, they are forgotten and watched afresh (a
worker then looks alive for one more ``timeout``: later, never wrongly, dead)."""


class Heartbeats:
    """This worker's heartbeat (``beat``, ``leave``) and the others' (``alive``)."""

    def __init__(
        self,
        store: Store,
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
        self._seen: dict[str, tuple[bytes, float, bool]] = {}  # (count, since, moved)

    def beat(self) -> None:
        """Tell the others this worker is alive (every ``timeout / 4`` seconds or so)."""
        self._beats += 1
        self.store.write({_key(self.worker): self._beats.to_bytes(8, "big")})

    def leave(self) -> None:
        """This worker is closing: what it leaves parked is for the others to take."""
        self.store.write({}, [_key(self.worker)])

    def alive(self, worker: str) -> bool:
        """Whether ``worker`` may still be running. A worker first asked about looks alive
        for ``timeout`` seconds; "" (a request parked by no known worker) never does."""
        if worker == self.worker:
            return True
        if not worker:
            return False
        count = self.store.get(_key(worker))
        if count is None:
            return False
        now = self.clock()
        seen = self._seen.get(worker)
        if seen is None:
            if len(self._seen) >= MAX_WATCHED:
                self._seen.clear()
            self._seen[worker] = (count, now, False)
            return True
        if seen[0] != count:
            self._seen[worker] = (count, now, True)
            return True
        return now - seen[1] < self.timeout

    def unsure(self, worker: str) -> bool:
        """Whether ``worker``'s fate is unknown yet: first seen less than ``timeout`` ago,
        and its count has not moved since (a live worker's moves within ``timeout / 4``)."""
        seen = self._seen.get(worker)
        return seen is not None and not seen[2] and self.clock() - seen[1] < self.timeout

    def bury(self, worker: str) -> None:
        """Remove a dead worker's count once what it parked is taken."""
        if worker and worker != self.worker:
            self.store.write({}, [_key(worker)])
            self._seen.pop(worker, None)


def _key(worker: str) -> bytes:
    return keyspace.WORKERS + worker.encode("ascii", "replace")
