"""The Redis store: one index shared by every process of a crawl spread over many machines.

Keys live in one sorted set (all scores 0, so ``ZRANGEBYLEX`` gives byte order and a prefix
is a range) and values in one hash, each kind where it is read from (``redis_layout``: a
table entry in the sorted set alone, a sentence owner in the hash alone); both names share
the hash tag ``{prefix}``, so on a
Redis Cluster they sit in one slot and a write stays one ``MULTI``/``EXEC`` transaction.
A look-up and the add it decides are one Lua script (``redis_scripts.py``), which Redis runs
with no other command in between: workers never queue on a lock, and when two meet copies
of one page at once, exactly one keeps it (``index/shared.py``). Each range read returns
at most ``max_bucket`` keys: a flooded bucket costs a bounded amount of Redis time, and the
keys left out are counted in ``overflow``.

Only bytes go in and out (no pickle). Timeouts are bounded (``timeout`` seconds, three
retries with backoff); a Redis that stays away raises ``StoreError``.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index.location import redacted
from scrapy_simdedup.index.stores import redis_layout, redis_scripts
from scrapy_simdedup.index.stores.atomic import Probed

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

    from redis.commands.core import Script

    from scrapy_simdedup.index.stores.atomic import GuardedWrite, NearProbe

DEFAULT_MAX_BUCKET = 10_000
LOCK_SECONDS = 30.0  # a holder that died frees the lock after this long
RETIRED = (
    b"retired: scrapy-simdedup looks up and adds with Lua scripts now, without this lock; "
    b"a worker waiting here runs an older version: upgrade every worker of this store"
)
"""Kept in the lock key earlier versions took around every look-up-and-add: a worker of such
a version waits on it for 30 s and stops with a store error, so it never adds unguarded
beside workers that run the scripts."""
_SCAN_CHUNK = 1_000


class RedisStore:
    """Keys under ``{prefix}`` in the Redis at ``url`` (redis://, rediss://, unix://)."""

    def __init__(
        self,
        url: str,
        prefix: str,
        *,
        timeout: float = 5.0,
        max_bucket: int = DEFAULT_MAX_BUCKET,
        client: redis.Redis | RedisCluster | None = None,
        owns_client: bool | None = None,
    ) -> None:
        """``client``: an open connection to use (a sharded store's shards share one);
        ``close`` closes it only if ``owns_client`` (by default, when none was given)."""
        if not prefix or "{" in prefix or "}" in prefix:
            raise ValueError(f"a Redis prefix must be non-empty and without braces, got {prefix!r}")
        self.location = f"{redacted(url)} prefix {prefix}"
        self.max_bucket = max_bucket
        self.overflow = 0
        tag = "{" + prefix + "}"
        self._keys = f"{tag}:keys"
        self._values = f"{tag}:values"
        self._lock_name = f"{tag}:open-lock"
        self._retired_lock = f"{tag}:lock"
        self._owns_client = client is None if owns_client is None else owns_client
        self._client: redis.Redis | RedisCluster | None = client or connect(url, timeout)
        if isinstance(self._client, RedisCluster):
            self.location += " (Redis Cluster, one slot)"  # every key shares the hash tag
        register = self._client.register_script
        self._near_or_write = register(redis_scripts.NEAR_OR_WRITE)
        self._near_or_add = register(redis_scripts.NEAR_OR_ADD)
        self._write_if = register(redis_scripts.WRITE_IF)
        self._put_absent = register(redis_scripts.PUT_ABSENT)
        self._append = register(redis_scripts.APPEND)
        self._scan = register(redis_scripts.SCAN)

    @property
    def key_set(self) -> str:
        """The sorted set of this store's keys: its scripts' first key."""
        return self._keys

    @property
    def value_hash(self) -> str:
        """The hash of its values: its scripts' second key."""
        return self._values

    def holds_keys(self) -> bool:
        """Whether anything is stored under this prefix."""
        try:
            return bool(self._open().exists(self._keys, self._values))
        except redis.RedisError as exc:
            raise StoreError(f"reading {self.location} failed: {exc}") from exc

    def _open(self) -> redis.Redis | RedisCluster:
        if self._client is None:
            raise StoreError(f"{self.location} is closed")
        return self._client

    def get(self, key: bytes) -> bytes | None:
        try:
            client = self._open()
            if not key.startswith(redis_layout.ENTRY_PREFIXES):
                value: bytes | None = client.hget(self._values, key)  # type: ignore[assignment]
                return value
            pipe = client.pipeline(transaction=True)  # a table entry: maybe without value
            pipe.hget(self._values, key)
            pipe.zscore(self._keys, key)
            value, score = pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"reading {self.location} failed: {exc}") from exc
        return value if value is not None or score is None else b""

    def get_many(self, keys: Sequence[bytes]) -> list[bytes | None]:
        """Values kept in the values hash in one ``HMGET``; table entries one by one."""
        if not keys:
            return []
        if any(key.startswith(redis_layout.ENTRY_PREFIXES) for key in keys):
            return [self.get(key) for key in keys]
        try:
            values: list[bytes | None] = self._open().hmget(self._values, list(keys))  # type: ignore[assignment]
        except redis.RedisError as exc:
            raise StoreError(f"reading {self.location} failed: {exc}") from exc
        return values

    def scan(self, start: bytes, stop: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Every key found by range: not sentence and exact-text owners (``redis_layout``)."""
        low = b"[" + start
        while True:
            self._open()
            try:
                chunk = self._scan(
                    keys=[self._keys, self._values], args=[low, b"(" + stop, _SCAN_CHUNK]
                )
            except redis.RedisError as exc:
                raise StoreError(f"reading {self.location} failed: {exc}") from exc
            read, last, found = chunk[0], chunk[1], chunk[2:]
            yield from zip(found[::2], found[1::2], strict=True)
            if read < _SCAN_CHUNK:
                return
            low = b"(" + last

    def keys(self, ranges: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
        try:
            pipe = self._open().pipeline(transaction=False)
            for start, stop in ranges:
                pipe.zrangebylex(
                    self._keys, b"[" + start, b"(" + stop, start=0, num=self.max_bucket + 1
                )
            buckets: list[list[bytes]] = pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"reading {self.location} failed: {exc}") from exc
        found: list[bytes] = []
        for bucket in buckets:
            if len(bucket) > self.max_bucket:
                self.overflow += 1
            found += bucket[: self.max_bucket]
        return found

    def write(self, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> None:
        deleted = list(deletes)
        try:
            pipe = self._open().pipeline(transaction=True)
            if deleted:
                pipe.zrem(self._keys, *deleted)
                pipe.hdel(self._values, *deleted)
            ranged = [key for key, value in puts.items() if not redis_layout.hashed_only(key)]
            valued = {k: v for k, v in puts.items() if not redis_layout.sorted_only(k, v)}
            if ranged:
                pipe.zadd(self._keys, dict.fromkeys(ranged, 0))
            if valued:
                pipe.hset(self._values, mapping=valued)  # type: ignore[arg-type]
            if len(valued) < len(puts):  # empty table entries: no value left behind
                pipe.hdel(self._values, *(key for key in puts if key not in valued))
            pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"writing {self.location} failed: {exc}") from exc

    def near_or_write(self, probe: NearProbe, write: GuardedWrite) -> Probed:
        return self._probed(self._near_or_write, probe, _flat(write))

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
        tail: list[bytes | int] = [name, record, counter, len(judged), *judged, *claims]
        return self._probed(self._near_or_add, probe, tail)

    def _probed(self, script: Script, probe: NearProbe, tail: list[bytes | int]) -> Probed:
        self._open()
        args: list[bytes | int] = [
            probe.limit, self.max_bucket, probe.offset + 1, probe.documents, len(probe.ranges)
        ]  # fmt: skip
        for (start, stop), query in zip(probe.ranges, probe.queries, strict=True):
            args += (start, stop, query)
        try:
            reply = script(keys=[self._keys, self._values], args=args + tail)
        except redis.RedisError as exc:
            raise StoreError(f"looking up and adding in {self.location} failed: {exc}") from exc
        self.overflow += reply[0]
        found = [(reply[i], reply[i + 1], reply[i + 2]) for i in range(3, len(reply), 3)]
        near = [each for each in found if each[1] >= 0]
        owners = [(name, record) for name, distance, record in found if distance < 0]
        return Probed(near, written=bool(reply[2]), malformed=reply[1], owners=owners)

    def write_if(self, write: GuardedWrite) -> bool:
        self._open()
        try:
            return bool(self._write_if(keys=[self._keys, self._values], args=_flat(write)))
        except redis.RedisError as exc:
            raise StoreError(f"writing {self.location} failed: {exc}") from exc

    def put_absent(self, puts: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        self._open()
        args = [part for pair in puts.items() for part in pair]
        try:
            reply = self._put_absent(keys=[self._keys, self._values], args=args) if args else []
        except redis.RedisError as exc:
            raise StoreError(f"writing {self.location} failed: {exc}") from exc
        return dict(zip(reply[::2], reply[1::2], strict=True))

    def append(self, counter: bytes, prefix: bytes, value: bytes, keep: int) -> int:
        self._open()
        try:
            number = self._append(
                keys=[self._keys, self._values], args=[counter, prefix, value, keep]
            )
        except redis.RedisError as exc:
            raise StoreError(f"writing {self.location} failed: {exc}") from exc
        return int(number)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Held across processes for rare whole-store steps (creating the store, repair);
        look-ups and adds never take it: they are the atomic scripts above."""
        client = self._open()
        lock = client.lock(self._lock_name, timeout=LOCK_SECONDS, blocking_timeout=LOCK_SECONDS)
        try:
            client.set(self._retired_lock, RETIRED)  # opening an index for writing comes here
            acquired = lock.acquire()
        except redis.RedisError as exc:
            raise StoreError(f"locking {self.location} failed: {exc}") from exc
        if not acquired:
            raise StoreError(f"{self.location} stayed locked for {LOCK_SECONDS:.0f} s")
        try:
            yield
        finally:
            with contextlib.suppress(redis.RedisError):  # expired: another holder may run
                lock.release()

    def destroy(self, progress: Callable[[str], None] | None = None) -> bool:
        """Delete this store's keys (and only those); True when there were any. The retired
        lock stays: a worker of an earlier version must still be refused.

        ``UNLINK`` takes the names away at once and Redis frees the memory in the
        background; ``DEL`` (Redis before 4.0) frees it first, blocking Redis about 0.7 s
        per million entries, and outlasting the client's timeout on a big index."""
        names = (self._keys, self._values, self._lock_name)
        try:
            client = self._open()
            if progress is not None:
                entries: int = client.zcard(self._keys)
                progress(f"reset: removing {entries:,} entries of {self.location}")
            try:
                removed = client.unlink(*names)
            except redis.ResponseError:  # unknown command: Redis before 4.0
                removed = client.delete(*names)
            return bool(removed)
        except redis.RedisError as exc:
            raise StoreError(f"resetting {self.location} failed: {exc}") from exc

    def close(self) -> None:
        if self._client is not None and self._owns_client:
            self._client.close()
        self._client = None


def connect(url: str, timeout: float) -> redis.Redis | RedisCluster:
    """A client for the Redis at ``url``: redis-py's cluster client when it is a node of a
    Redis Cluster (``INFO cluster``). Timeouts are bounded, with three retries."""
    options = {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(ExponentialBackoff(cap=1.0, base=0.05), 3),
    }
    try:
        client: redis.Redis | RedisCluster = redis.Redis.from_url(
            url, retry_on_error=[redis.ConnectionError, redis.TimeoutError], **options
        )
        client.ping()
        if client.info("cluster").get("cluster_enabled"):
            client.close()
            client = RedisCluster.from_url(url, **options)
    except (redis.RedisError, ValueError) as exc:
        raise StoreError(
            f"cannot reach Redis at {redacted(url)} ({exc}); is redis-server running "
            "and SIMDEDUP_REDIS_URL right (host, port, password)?"
        ) from None
    return client


def _flat(write: GuardedWrite) -> list[bytes | int]:
    """A guarded write as the scripts' flat arguments (see ``redis_scripts``)."""
    args: list[bytes | int] = [len(write.expect)]
    for key, value in write.expect.items():
        args += (key, b"0", b"") if value is None else (key, b"1", value)
    args.append(len(write.puts))
    for pair in write.puts.items():
        args += pair
    args.append(len(write.deletes))
    args += write.deletes
    args += (write.counter, write.delta)
    return args
