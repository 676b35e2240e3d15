"""The Redis store spread over a Redis Cluster's slots, so that the index grows with it.

Keys are spread over ``SHARDS`` hash tags (``redis_routing``), each shard laid out like the
one-slot store (``RedisStore``), whose scripts it runs. A look-up and the add it decides
cannot be one script any more: the page's table entries, record and sentence claims lie in
different slots. So a page is added in steps (``redis_settling`` has the scripts), each
atomic on its own shard, and no lock anywhere:

1. it takes a sequence number (its worker's clock and random bytes: any total order of the
   pending pages will do) and marks itself pending beside its record's place;
2. per table, one script reads the bucket of its permuted prefix and inserts its own entry
   there; one script per shard takes its sentence claims and returns their other holders
   (these scripts go out together, in one pipeline);
3. it resolves each page found: stored (a near page: not added), gone (passed over), pending
   with a lower number (it waits for that page to settle), or pending with a higher number
   (that page now waits for it: the asker's name is appended to its pending state);
4. with nothing stored near it, it settles: one script stores its record if no page has
   asked it to wait since it last looked; otherwise it waits for those pages and resolves
   them as in 3. A page that will not be stored takes its entries and claims out again.

Why two near pages racing on different workers are never both stored: A and B within
``max_distance`` bits share the bucket of their permuted prefix in some table (Manku et al.,
WWW 2007), and that bucket's entries share a shard. Both insert there by one script each, so
the later one, say B, reads A's entry (a shared sentence: the later claim reads the earlier
holder). B then resolves A, atomically on A's record shard:

* A is stored: B is not added (A is its near page);
* A is gone: it found a stored page near it and was not added;
* A is pending with a lower number: B waits until A is stored (B is not added) or gone;
* A is pending with a higher number: B's name is appended to A's state. A's settling reads
  that state on the same shard, so it cannot store A without first waiting for B: if B is
  stored, A is not added. (Had A settled first, B would have found A stored.)

A page only ever waits for pages with lower numbers, so no two wait for each other, and the
lowest pending page waits for none. A page is refused only because a page near it was found
stored, as with one slot. The failure side is "a copy kept twice", never "a page lost":

* a worker that dies leaves its page pending: after ``stale`` seconds a page meeting it
  passes it over (counted in ``stalled``) and removes the state; the dead page's entries
  stay, pointing at no record, and are skipped (``scrapy simdedup repair`` removes them). A
  live page passed over like this finds its state gone when it settles and starts again;
* a bucket cut at ``max_bucket`` keys can hide A from B, as on one slot;
* a reply lost on the network is retried by redis-py: each step can run twice (a second
  ``SETTLE`` finds the page stored and reads it as a revisit).

Other writes that span shards (moving or discarding a page: its record and its entries)
apply their guarded part on the record's shard first, then the rest shard by shard: a crash
in between leaves entries with no record or a stale one, which look-ups skip or the judge's
confirmation rejects.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import redis
from redis.cluster import RedisCluster

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.location import redacted
from scrapy_simdedup.index.stores import redis_settling
from scrapy_simdedup.index.stores.atomic import GuardedWrite, Probed
from scrapy_simdedup.index.stores.redis import DEFAULT_MAX_BUCKET, RETIRED, RedisStore, connect
from scrapy_simdedup.index.stores.redis_routing import META, SHARDS, shard_of, shards_of_range
from scrapy_simdedup.index.stores.redis_settling import NUMBER

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

    from redis.commands.core import Script

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


MAX_RESTARTS = 32  # a page whose pending state keeps being taken for a dead worker's
MAX_WAIT_ROUNDS = 10_000  # pages asking one page to wait for them, batch by batch
MAX_CLAIM_ROUNDS = 8  # claims passed on from page to page while it looks
_GONE, _STORED, _EARLIER, _LATER = 0, 1, 2, 3  # what RESOLVE finds (redis_settling)


@dataclass
class Seen:
    """What step 3 found: the stored pages (name, distance, record), and the holders of
    claims that were pending after this page (asked to wait for it) or gone."""

    stored: list[tuple[bytes, int, bytes]] = field(default_factory=list)
    deferred_claims: set[bytes] = field(default_factory=set)
    passed_claims: set[bytes] = field(default_factory=set)


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
        self.stalled = 0
        self._stale_ms = int(stale * 1000)
        self._owns_client = client is None if owns_client is None else owns_client
        self._client: redis.Redis | RedisCluster | None = client or connect(url, timeout)
        names = [f"{prefix}:{n:02x}" for n in range(SHARDS)] + [f"{prefix}:m"]
        self._shards = [
            RedisStore(url, name, max_bucket=max_bucket, client=self._client) for name in names
        ]
        self._retired_lock = "{" + prefix + "}:lock"
        register = self._client.register_script
        self._begin = register(redis_settling.BEGIN)
        self._tables = register(redis_settling.TABLES)
        self._claim = register(redis_settling.CLAIM)
        self._unclaim = register(redis_settling.UNCLAIM)
        self._resolve = register(redis_settling.RESOLVE)
        self._settle = register(redis_settling.SETTLE)
        self._abandon = register(redis_settling.ABANDON)
        self._remove = register(redis_settling.REMOVE)

    @property
    def overflow(self) -> int:
        return sum(shard.overflow for shard in self._shards)

    def _of(self, key: bytes) -> RedisStore:
        return self._shards[shard_of(key)]

    def _run(self, script: Script, shard: RedisStore, args: Sequence[bytes | int]) -> object:
        if self._client is None:
            raise StoreError(f"{self.location} is closed")
        try:
            return script(keys=[shard._keys, shard._values], args=args)
        except redis.RedisError as exc:
            raise StoreError(f"looking up and adding in {self.location} failed: {exc}") from exc

    def _run_all(self, calls: Sequence[tuple[Script, RedisStore, list[bytes | int]]]) -> list:  # type: ignore[type-arg]
        """Scripts on several shards in one pipeline (each still atomic on its shard); only
        for steps that may run twice, since a script the server lost is loaded and all of
        them are sent again."""
        if len(calls) <= 1:
            return [self._run(*call) for call in calls]
        client = self._open()
        for attempt in range(2):
            commands = [
                (shard, ("EVALSHA", script.sha, 2, shard._keys, shard._values, *args))
                for script, shard, args in calls
            ]  # EVALSHA's own method is refused in a cluster pipeline
            try:
                return self._pipelined(commands)
            except redis.ResponseError as exc:
                if attempt:  # else most likely a script this server has not loaded yet
                    raise StoreError(
                        f"looking up and adding in {self.location} failed: {exc}"
                    ) from exc
                for script in {call[0] for call in calls}:
                    client.script_load(script.script)
            except redis.RedisError as exc:
                raise StoreError(f"looking up and adding in {self.location} failed: {exc}") from exc
        raise AssertionError("unreachable")

    def _pipelined(self, commands: Sequence[tuple[RedisStore, tuple[object, ...]]]) -> list:  # type: ignore[type-arg]
        """Commands on several shards in one pipeline, each sent to its shard's node (else
        redis-py asks the server for each command's keys first)."""
        client = self._open()
        pipe = client.pipeline(transaction=False)
        for shard, command in commands:
            if isinstance(client, RedisCluster):
                node = client.get_node_from_key(shard._keys)  # type: ignore[no-untyped-call]
                pipe.execute_command(*command, target_nodes=node)
            else:
                pipe.execute_command(*command)
        return pipe.execute()

    # -- the Store protocol ---------------------------------------------------------------

    def get(self, key: bytes) -> bytes | None:
        return self._of(key).get(key)

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
            (self._shards[n[0]], ("ZRANGEBYLEX", self._shards[n[0]]._keys, b"[" + start,
                                  b"(" + stop, "LIMIT", 0, self.max_bucket + 1))
            for (start, stop), n in zip(ranges, shards, strict=True)
            if len(n) == 1
        ]  # fmt: skip
        try:
            buckets = iter(self._pipelined(single) if single else [])
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
        by_shard = _grouped(puts, deletes)
        for n in sorted(by_shard, key=lambda n: n == META):
            shard_puts, shard_deletes = by_shard[n]
            self._shards[n].write(shard_puts, shard_deletes)

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """The small records' lock; an earlier version's one-slot lock is retired too."""
        try:
            self._open().set(self._retired_lock, RETIRED)
        except redis.RedisError as exc:
            raise StoreError(f"locking {self.location} failed: {exc}") from exc
        return self._shards[META].locked()

    def close(self) -> None:
        if self._client is not None and self._owns_client:
            self._client.close()
        self._client = None
        for shard in self._shards:
            shard.close()

    def _open(self) -> redis.Redis | RedisCluster:
        if self._client is None:
            raise StoreError(f"{self.location} is closed")
        return self._client

    def destroy(self, progress: Callable[[str], None] | None = None) -> bool:
        """Delete this store's keys in every shard (``RedisStore.destroy``)."""
        if progress is not None:
            try:
                entries = sum(int(self._open().zcard(shard._keys)) for shard in self._shards)
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
        by_shard = _grouped(write.puts, write.deletes)
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
            self._count(write.counter, write.delta)
        return True

    def put_absent(self, puts: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        present: dict[bytes, bytes] = {}
        for n, (shard_puts, _) in _grouped(puts, ()).items():
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
        near, malformed = self._stored_near(probe, b"")
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
    ) -> Probed:
        """The steps of the module docstring; their outcome as one script's on one slot."""
        record_key = probe.documents + name
        pending_key = _pending_key(probe.documents, name)
        home = self._of(record_key)
        for _ in range(MAX_RESTARTS):
            sequence = self._next_number()
            if not self._run(self._begin, home, [record_key, pending_key, sequence]):
                near, malformed = self._stored_near(probe, name)  # a revisit, or a move
                return Probed(near, written=False, malformed=malformed)
            found, malformed = self._insert_and_read(probe, name, claims)
            seen = self._resolved_all(found, probe.documents, name, sequence)
            if claims and not seen.stored:
                seen = self._claims_passed_on(seen, claims, probe.documents, name, sequence)
            stored = seen.stored
            if not stored:
                outcome, stored = self._settled(probe.documents, name, record, sequence)
                if outcome == "restart":
                    continue
                if outcome == "stored":
                    self._count(counter, 1)
                    if seen.deferred_claims:
                        self._own_claims(claims, probe.documents, name)
                    return Probed([], written=True, malformed=malformed)
            self._withdraw(probe, name, claims, pending_key, sequence, stored=stored)
            near = [each for each in stored if each[1] >= 0]
            owners = [] if near else [(owner, owned) for owner, _, owned in stored]
            return Probed(near, written=False, malformed=malformed, owners=owners)
        raise StoreError(
            f"{name!r} in {self.location} was passed over as a dead worker's page "
            f"{MAX_RESTARTS} times in a row; is this worker stalling for seconds at a time?"
        )

    # -- the steps ------------------------------------------------------------------------

    def _next_number(self) -> bytes:
        """A sequence number (``redis_settling.NUMBER``): unique, and later for later pages
        of one worker (which the proof does not need, but which keeps waits short)."""
        return time.time_ns().to_bytes(8, "big") + os.urandom(4)

    def _insert_and_read(
        self, probe: NearProbe, name: bytes, claims: Sequence[bytes] = ()
    ) -> tuple[dict[bytes, int], int]:
        """Step 2: the pages in the buckets (their distances) and the holders of the claims
        (-1), the page's own entries and claims put in; and the malformed keys."""
        return self._buckets(probe, name, insert=True, claims=claims)

    def _buckets(
        self, probe: NearProbe, name: bytes, *, insert: bool, claims: Sequence[bytes] = ()
    ) -> tuple[dict[bytes, int], int]:
        """Names within the limit in each bucket of ``probe`` (the page's own entry put
        there first when ``insert``), with their distances; and the malformed keys."""
        by_shard: dict[int, list[bytes]] = defaultdict(list)
        for (start, stop), query in zip(probe.ranges, probe.queries, strict=True):
            by_shard[shard_of(start[: probe.offset] + query)] += (start, stop, query)
        calls: list[tuple[Script, RedisStore, list[bytes | int]]] = []
        for n, ranges in by_shard.items():
            head: list[bytes | int] = [
                probe.limit, self.max_bucket, probe.offset + 1, name, int(insert)
            ]  # fmt: skip
            calls.append((self._tables, self._shards[n], [*head, len(ranges) // 3, *ranges]))
        for n, (shard_claims, _) in _grouped(dict.fromkeys(claims, b""), ()).items():
            calls.append((self._claim, self._shards[n], [name, 0, *shard_claims]))
        replies = self._run_all(calls)
        found: dict[bytes, int] = {}
        malformed = 0
        for (script, shard, _), reply in zip(calls, replies, strict=True):
            if script is self._claim:
                for holder in reply:
                    found.setdefault(holder, -1)
                continue
            shard.overflow += reply[0]
            malformed += reply[1]
            for other, distance in zip(reply[2::2], reply[3::2], strict=True):
                found[other] = min(distance, found.get(other, distance))
        return found, malformed

    def _stored_near(
        self, probe: NearProbe, name: bytes
    ) -> tuple[list[tuple[bytes, int, bytes]], int]:
        """The stored pages near ``probe``, the page itself among them; nothing written."""
        found, malformed = self._buckets(probe, name, insert=False)
        near = []
        for other, distance in found.items():
            record = self.get(probe.documents + other)
            if record is not None:
                near.append((other, distance, record))
        return near, malformed

    def _resolved_all(
        self,
        found: Mapping[bytes, int],
        documents: bytes,
        name: bytes,
        sequence: bytes,
        *,
        ask: bool = True,
    ) -> Seen:
        """Step 3 for the pages in ``found``: which are stored, once those pending before
        this one have settled; those pending after it are asked (``ask``) to wait for it."""
        seen = Seen()
        for other, distance in found.items():
            asker = bytes([distance + 1]) + len(name).to_bytes(4, "big") + name if ask else b""
            status, record = self._resolved(documents, other, sequence, asker)
            if record is not None:
                seen.stored.append((other, distance, record))
            elif status == _LATER and distance < 0:
                seen.deferred_claims.add(other)
            elif status == _GONE and distance < 0:
                seen.passed_claims.add(other)
        return seen

    def _claims_passed_on(
        self, seen: Seen, claims: Sequence[bytes], documents: bytes, name: bytes, sequence: bytes
    ) -> Seen:
        """A claim whose holder was passed (it withdrew or died) is taken over, and its new
        holder, if another page took it first, is resolved in turn: of two pages sharing the
        sentence, the later to take it sees the earlier, as with a claim never held."""
        passed = set(seen.passed_claims)
        for _ in range(MAX_CLAIM_ROUNDS):
            if not seen.passed_claims or seen.stored:
                break
            holders = self._claim_all(name, claims, passed)
            fresh = {h: -1 for h in holders if h not in seen.deferred_claims}
            more = self._resolved_all(fresh, documents, name, sequence)
            seen.stored += more.stored
            seen.deferred_claims |= more.deferred_claims
            seen.passed_claims = more.passed_claims - passed
            passed |= more.passed_claims
        return seen

    def _own_claims(self, claims: Sequence[bytes], documents: bytes, name: bytes) -> None:
        """After storing a page that asked a claim's holder to wait for it: take over the
        claims that holder gave back before this page was stored (else the sentence would
        have no owner, and a later reprint of this page nothing to meet it by)."""
        passed: set[bytes] = set()
        for _ in range(MAX_CLAIM_ROUNDS):
            holders = self._claim_all(name, claims, passed)
            gone = {
                holder
                for holder in holders
                if self._resolved(documents, holder, bytes(NUMBER), b"", wait=False)[0] == _GONE
            }
            if not gone - passed:
                return
            passed |= gone

    def _claim_all(self, name: bytes, claims: Sequence[bytes], passed: set[bytes]) -> list[bytes]:
        calls: list[tuple[Script, RedisStore, list[bytes | int]]] = [
            (self._claim, self._shards[n], [name, len(passed), *passed, *shard_claims])
            for n, (shard_claims, _) in _grouped(dict.fromkeys(claims, b""), ()).items()
        ]
        holders: list[bytes] = []
        for reply in self._run_all(calls):
            holders += [holder for holder in reply if holder not in holders]
        return holders

    def _resolved(
        self, documents: bytes, other: bytes, sequence: bytes, asker: bytes, *, wait: bool = True
    ) -> tuple[int, bytes | None]:
        """``other``'s status (``_GONE``, ``_LATER``, or ``_STORED`` with its record) once it
        is not pending before this page (``wait``)."""
        record_key = documents + other
        shard = self._of(record_key)
        args: list[bytes | int] = [
            record_key, _pending_key(documents, other), sequence, asker, self._stale_ms
        ]  # fmt: skip
        deadline = time.monotonic() + self._stale_ms / 1000 + 5.0
        delay = 0.001
        while True:
            reply = self._run(self._resolve, shard, args)
            assert isinstance(reply, list)
            if reply[0] == _STORED:
                return _STORED, bytes(reply[1])
            if reply[0] != _EARLIER or not wait:
                return int(reply[0]), None
            if time.monotonic() > deadline:  # the server's clock stood still: pass it over
                self.stalled += 1
                return _GONE, None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def _settled(
        self, documents: bytes, name: bytes, record: bytes, sequence: bytes
    ) -> tuple[str, list[tuple[bytes, int, bytes]]]:
        """("stored", []); ("copy", the stored pages among those that asked this one to
        wait); or ("restart", []) when its pending state was passed over meanwhile."""
        record_key = documents + name
        home = self._of(record_key)
        handled = 0
        for _ in range(MAX_WAIT_ROUNDS):
            args: list[bytes | int] = [
                record_key, _pending_key(documents, name), sequence, record, handled
            ]  # fmt: skip
            reply = self._run(self._settle, home, args)
            assert isinstance(reply, list)
            if reply[0] == 1:
                return "stored", []
            if reply[0] == 0:
                return "restart", []
            waiting = bytes(reply[1])
            handled += len(waiting)
            stored = self._resolved_all(_askers(waiting), documents, name, sequence).stored
            if stored:
                return "copy", stored
        raise StoreError(f"{name!r} in {self.location}: pages kept asking it to wait")

    def _withdraw(
        self,
        probe: NearProbe,
        name: bytes,
        claims: Sequence[bytes],
        pending_key: bytes,
        sequence: bytes,
        *,
        stored: Sequence[tuple[bytes, int, bytes]],
    ) -> None:
        """A page that will not be stored: its pending state and entries go. Its claims pass
        to a stored page that shares one of its sentences (found by a claim, or asking it to
        wait over one), so that page owns them; with none, they are given back."""
        home = self._of(probe.documents + name)
        waiting = self._run(self._abandon, home, [pending_key, sequence])
        assert isinstance(waiting, bytes)
        successor = next((other for other, distance, _ in stored if distance < 0), b"")
        if claims and not successor and waiting:
            sharing = {o: d for o, d in _askers(waiting).items() if d < 0}
            for other in sharing:
                if self._resolved(probe.documents, other, sequence, b"", wait=False)[0] == _STORED:
                    successor = other
                    break
        entries = [
            start[: probe.offset] + query + name
            for (start, _), query in zip(probe.ranges, probe.queries, strict=True)
        ]
        calls: list[tuple[Script, RedisStore, list[bytes | int]]] = [
            (self._remove, self._shards[n], list(shard_entries))
            for n, (_, shard_entries) in _grouped({}, entries).items()
        ]
        for n, (shard_claims, _) in _grouped(dict.fromkeys(claims, b""), ()).items():
            calls.append((self._unclaim, self._shards[n], [name, successor, *shard_claims]))
        self._run_all(calls)

    def _count(self, counter: bytes, delta: int) -> None:
        self._of(counter).write_if(GuardedWrite({}, counter=counter, delta=delta))


def _pending_key(documents: bytes, name: bytes) -> bytes:
    return documents[: -len(keyspace.DOCUMENT)] + keyspace.PENDING + name


def _askers(raw: bytes) -> dict[bytes, int]:
    """The pages in a pending state's waiter entries, with their distances (-1: a claim)."""
    askers: dict[bytes, int] = {}
    at = 0
    while at + 5 <= len(raw):
        length = int.from_bytes(raw[at + 1 : at + 5], "big")
        askers[raw[at + 5 : at + 5 + length]] = raw[at] - 1
        at += 5 + length
    return askers


def _grouped(
    puts: Mapping[bytes, bytes], deletes: Iterable[bytes]
) -> dict[int, tuple[dict[bytes, bytes], list[bytes]]]:
    by_shard: dict[int, tuple[dict[bytes, bytes], list[bytes]]] = {}
    for key, value in puts.items():
        by_shard.setdefault(shard_of(key), ({}, []))[0][key] = value
    for key in deletes:
        by_shard.setdefault(shard_of(key), ({}, []))[1].append(key)
    return by_shard


def _first(item: tuple[bytes, bytes]) -> bytes:
    return item[0]
