"""The Redis store: one index shared by every process of a crawl spread over many machines.

Keys live in one sorted set (all scores 0, so ``ZRANGEBYLEX`` gives byte order and a prefix
is a range) and values in one hash; both names share the hash tag ``{prefix}``, so on a
Redis Cluster they sit in one slot and a write stays one ``MULTI``/``EXEC`` transaction.
A look-up and the add it decides on run under a Redis lock (redis-py's ``Lock``, Lua
scripts with an expiry), so when two workers meet copies of one page at once, exactly one
keeps it. Each range read returns at most ``max_bucket`` keys: a flooded bucket costs a
bounded amount of Redis time, and the keys left out are counted in ``overflow``.

Only bytes go in and out (no pickle). Timeouts are bounded (``timeout`` seconds, three
retries with backoff); a Redis that stays away raises ``StoreError``.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from scrapy_simdedup.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

DEFAULT_MAX_BUCKET = 10_000
LOCK_SECONDS = 30.0  # a holder that died frees the lock after this long
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
    ) -> None:
        if not prefix or "{" in prefix or "}" in prefix:
            raise ValueError(f"a Redis prefix must be non-empty and without braces, got {prefix!r}")
        self.location = f"{_redacted(url)} prefix {prefix}"
        self.max_bucket = max_bucket
        self.overflow = 0
        tag = "{" + prefix + "}"
        self._keys = f"{tag}:keys"
        self._values = f"{tag}:values"
        self._lock_name = f"{tag}:lock"
        try:
            self._client: redis.Redis | None = redis.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), 3),
                retry_on_error=[redis.ConnectionError, redis.TimeoutError],
            )
            self._client.ping()
        except (redis.RedisError, ValueError) as exc:
            raise StoreError(
                f"cannot reach Redis at {_redacted(url)} ({exc}); is redis-server running "
                "and SIMDEDUP_REDIS_URL right (host, port, password)?"
            ) from None

    def _open(self) -> redis.Redis:
        if self._client is None:
            raise StoreError(f"{self.location} is closed")
        return self._client

    def get(self, key: bytes) -> bytes | None:
        try:
            value: bytes | None = self._open().hget(self._values, key)  # type: ignore[assignment]
        except redis.RedisError as exc:
            raise StoreError(f"reading {self.location} failed: {exc}") from exc
        return value

    def scan(self, start: bytes, stop: bytes) -> Iterator[tuple[bytes, bytes]]:
        low = b"[" + start
        while True:
            try:
                client = self._open()
                keys: list[bytes] = client.zrangebylex(  # type: ignore[assignment]
                    self._keys, low, b"(" + stop, start=0, num=_SCAN_CHUNK
                )
                values: list[bytes | None] = (
                    client.hmget(self._values, keys) if keys else []  # type: ignore[assignment]
                )
            except redis.RedisError as exc:
                raise StoreError(f"reading {self.location} failed: {exc}") from exc
            for key, value in zip(keys, values, strict=True):
                if value is not None:  # removed between the two reads
                    yield key, value
            if len(keys) < _SCAN_CHUNK:
                return
            low = b"(" + keys[-1]

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
            if puts:
                pipe.zadd(self._keys, dict.fromkeys(puts, 0))
                pipe.hset(self._values, mapping=dict(puts))  # type: ignore[arg-type]
            pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"writing {self.location} failed: {exc}") from exc

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Held across processes: one worker at a time looks up and adds."""
        lock = self._open().lock(
            self._lock_name, timeout=LOCK_SECONDS, blocking_timeout=LOCK_SECONDS
        )
        try:
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
        """Delete this store's keys (and only those); True when there were any.

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
        if self._client is not None:
            self._client.close()
            self._client = None


def _redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")
    user = netloc[0].partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[2]}"))
