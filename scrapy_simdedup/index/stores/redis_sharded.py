"""The Redis store spread over a Redis Cluster's slots, so that the index grows with it.

Keys are spread over ``SHARDS`` hash tags (``redis_routing``), each shard laid out like the
one-slot store (``RedisStore``), whose scripts it runs. A look-up and the add it decides
are several steps, each one script on one shard, with no lock (``redis_adding.py``, which
has the proof that two near pages racing on different workers are never both stored).

Other writes that span shards (moving or discarding a page: its record and its entries)
apply their guarded part on the record's shard first, then the rest shard by shard: a crash
in between leaves entries with no record or a stale one, which look-ups skip or the judge's
confirmation rejects.
"""

from __future__ import annotations

import contextlib
import heapq
from typing import TYPE_CHECKING

import redis
from redis.cluster import RedisCluster

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index.location import redacted
from scrapy_simdedup.index.stores.atomic import GuardedWrite, Probed
from scrapy_simdedup.index.stores.redis import DEFAULT_MAX_BUCKET, RETIRED, RedisStore, connect
from scrapy_simdedup.index.stores.redis_adding import ShardedAdding
from scrapy_simdedup.index.stores.redis_routing import (
    META,
    SHARDS,
    grouped,
    shard_of,
    shards_of_range,
)
from scrapy_simdedup.index.stores.redis_shards import ShardRunner

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

    from scrapy_simdedup.index.stores.atomic import NearProbe


def open_redis(
    url: str, prefix: str, *, timeout: float = 5.0, max_bucket: int = DEFAULT_MAX_BUCKET
) -> RedisStore | ShardedRedisStore:
    """The store at ``url``: sharded on a Redis Cluster, unless an index written before
    sharding is there (it opens as it was, in one slot); one slot on a single Redis."""
    client = connect(url, timeout)
    one_slot = RedisStore(url, prefix, max_bucket=max_bucket, client=client, owns_client=True)
    if not isinstance(client, RedisCluster) or one_slot.holds_keys():
        return one_slot
    return ShardedRedisStore(url, prefix, max_bucket=max_bucket, client=client, owns_client=True)


class ShardedRedisStore:
    """Keys under ``{prefix:NN}`` (``NN`` a shard) and ``{prefix:m}`` at ``url``."""

    def __init__(
        self,
        url: str,
        prefix: str,
        *,
        timeout: float = 5.0,
        max_bucket: int = DEFAULT_MAX_BUCKET,
        stale: float = 10.0,
        client: redis.Redis | RedisCluster | None = None,
        owns_client: bool | None = None,
    ) -> None:
        self.location = f"{redacted(url)} prefix {prefix} (Redis Cluster, {SHARDS} shards)"
        self.max_bucket = max_bucket
        self._owns_client = client is None if owns_client is None else owns_client
        self._client: redis.Redis | RedisCluster | None = client or connect(url, timeout)
        names = [f"{prefix}:{n:02x}" for n in range(SHARDS)] + [f"{prefix}:m"]
        self._shards = [
            RedisStore(url, name, max_bucket=max_bucket, client=self._client) for name in names
        ]
        self.runner = ShardRunner(self._shards, self._client, self.location)
        self._retired_lock = "{" + prefix + "}:lock"
        self._adding = ShardedAdding(self.runner, max_bucket, stale)

    @property
    def stalled(self) -> int:
        """Pending pages passed over as a dead worker's (``redis_adding``)."""
        return self._adding.stalled

    @property
    def overflow(self) -> int:
        return sum(shard.overflow for shard in self._shards)

    # -- the Store protocol ---------------------------------------------------------------

    def get(self, key: bytes) -> bytes | None:
        return self.runner.of(key).get(key)

    def get_many(self, keys: Sequence[bytes]) -> list[bytes | None]:
        """One ``get_many`` per shard holding some of ``keys``."""
        by_shard: dict[int, list[int]] = {}
        shards: dict[int, RedisStore] = {}
        for position, key in enumerate(keys):
            shard = self.runner.of(key)
            shards[id(shard)] = shard
            by_shard.setdefault(id(shard), []).append(position)
        values: list[bytes | None] = [None] * len(keys)
        for name, positions in by_shard.items():
            found = shards[name].get_many([keys[p] for p in positions])
            for position, value in zip(positions, found, strict=True):
                values[position] = value
        return values

    def scan(self, start: bytes, stop: bytes) -> Iterator[tuple[bytes, bytes]]:
        shards = [self._shards[n] for n in shards_of_range(start, stop)]
        if len(shards) == 1:
            return shards[0].scan(start, stop)
        return heapq.merge(*(shard.scan(start, stop) for shard in shards), key=_first)

    def keys(self, ranges: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
        """Range by range; the ranges within one shard (a look-up's buckets) in one
        pipeline."""
        ranges = list(ranges)
        shards = [shards_of_range(start, stop) for start, stop in ranges]
        single = [
            (self._shards[n[0]], ("ZRANGEBYLEX", self._shards[n[0]].key_set, b"[" + start,
                                  b"(" + stop, "LIMIT", 0, self.max_bucket + 1))
            for (start, stop), n in zip(ranges, shards, strict=True)
            if len(n) == 1
        ]  # fmt: skip
        try:
            buckets = iter(self.runner.pipelined(single) if single else [])
        except redis.RedisError as exc:
            raise StoreError(f"reading {self.location} failed: {exc}") from exc
        found: list[bytes] = []
        for (start, stop), spread in zip(ranges, shards, strict=True):
            if len(spread) == 1:
                bucket = next(buckets)
                shard = self._shards[spread[0]]
            else:
                bucket = sorted(k for n in spread for k in self._shards[n].keys([(start, stop)]))
                shard = self._shards[META]
            if len(bucket) > self.max_bucket:
                shard.overflow += 1
            found += bucket[: self.max_bucket]
        return found

    def write(self, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> None:
        """Shard by shard, the small records last: all or none within each shard."""
        by_shard = grouped(puts, deletes)
        for n in sorted(by_shard, key=lambda n: n == META):
            shard_puts, shard_deletes = by_shard[n]
            self._shards[n].write(shard_puts, shard_deletes)

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """The small records' lock; an earlier version's one-slot lock is retired too."""
        try:
            self.runner.open().set(self._retired_lock, RETIRED)
        except redis.RedisError as exc:
            raise StoreError(f"locking {self.location} failed: {exc}") from exc
        return self._shards[META].locked()

    def close(self) -> None:
        if self._client is not None and self._owns_client:
            self._client.close()
        self._client = None
        self.runner.close()
        for shard in self._shards:
            shard.close()

    def destroy(self, progress: Callable[[str], None] | None = None) -> bool:
        """Delete this store's keys in every shard (``RedisStore.destroy``)."""
        if progress is not None:
            try:
                entries = sum(
                    int(self.runner.open().zcard(shard.key_set)) for shard in self._shards
                )
            except redis.RedisError as exc:
                raise StoreError(f"resetting {self.location} failed: {exc}") from exc
            progress(f"reset: removing {entries:,} entries of {self.location}")
        removed = [shard.destroy() for shard in self._shards]  # every one, not up to a first
        return any(removed)

    # -- the AtomicStore protocol ---------------------------------------------------------

    def write_if(self, write: GuardedWrite) -> bool:
        """The guarded part on the shard of the expected keys, then the rest shard by shard."""
        homes = {shard_of(key) for key in write.expect}
        if len(homes) > 1:
            raise ValueError("a guarded write on a sharded store expects keys of one shard")
        home = homes.pop() if homes else shard_of(write.counter or next(iter(write.puts), b""))
        by_shard = grouped(write.puts, write.deletes)
        here_puts, here_deletes = by_shard.pop(home, ({}, []))
        counted_here = bool(write.counter) and shard_of(write.counter) == home
        guarded = GuardedWrite(
            here_puts,
            deletes=here_deletes,
            expect=write.expect,
            counter=write.counter if counted_here else b"",
            delta=write.delta if counted_here else 0,
        )
        if not self._shards[home].write_if(guarded):
            return False
        for n, (shard_puts, shard_deletes) in by_shard.items():
            self._shards[n].write(shard_puts, shard_deletes)
        if write.counter and write.delta and not counted_here:
            self.runner.count(write.counter, write.delta)
        return True

    def put_absent(self, puts: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        present: dict[bytes, bytes] = {}
        for n, (shard_puts, _) in grouped(puts, ()).items():
            present.update(self._shards[n].put_absent(shard_puts))
        return present

    def append(self, counter: bytes, prefix: bytes, value: bytes, keep: int) -> int:
        home = shard_of(counter)
        if shard_of(prefix + bytes(8)) != home:
            raise ValueError("a numbered entry and its counter must share a shard")
        return self._shards[home].append(counter, prefix, value, keep)

    def near_or_write(self, probe: NearProbe, write: GuardedWrite) -> Probed:
        """The stored pages near ``probe``; when there are none, ``write`` if it holds. Not
        one atomic step here: used to move a page stored far from its new fingerprint."""
        near, malformed = self._adding.stored_near(probe, b"")
        if near:
            return Probed(near, written=False, malformed=malformed)
        return Probed([], written=self.write_if(write), malformed=malformed)

    def near_or_add(
        self,
        probe: NearProbe,
        name: bytes,
        record: bytes,
        counter: bytes,
        claims: Sequence[bytes] = (),
        *,
        judged: Sequence[bytes] = (),
    ) -> Probed:
        """The steps of ``redis_adding``; their outcome as one script's on one slot."""
        return self._adding.near_or_add(probe, name, record, counter, claims, judged=judged)


def _first(item: tuple[bytes, bytes]) -> bytes:
    return item[0]
