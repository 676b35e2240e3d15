"""How a page is looked up and added on a sharded Redis store, without a lock.

On a sharded store (``redis_sharded.py``) a page's table entries, record and sentence
claims lie in different slots, so a look-up and the add it decides cannot be one script.
So a page is added in steps (``redis_settling`` has the scripts), each
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

A sentence claim is a bucket of one key: the later of two pages to take it reads the
earlier holder. A holder that withdraws or dies is passed over, and the next page to look
takes its claims over, so two pages that waited on it meet each other there; a withdrawn
page's claims pass to the stored page that shares its sentence.

Not covered, each with "a copy kept twice" as its worst case: a stored page moved to a
new fingerprint (its content changed) is checked against stored pages only, not pending
ones (``ShardedRedisStore.near_or_write``); two workers offering the same key at once
restart each other's attempt (at most ``MAX_RESTARTS`` times, then a store error); and the
order of sequence numbers follows the workers' clocks, so one far behind makes others wait
on its pages more often (never for good: waits only go to lower numbers).
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.stores import redis_settling
from scrapy_simdedup.index.stores.atomic import Probed
from scrapy_simdedup.index.stores.redis_routing import grouped, shard_of
from scrapy_simdedup.index.stores.redis_settling import NUMBER

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from redis.commands.core import Script

    from scrapy_simdedup.index.stores.atomic import NearProbe
    from scrapy_simdedup.index.stores.redis import RedisStore
    from scrapy_simdedup.index.stores.redis_shards import ShardRunner

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


class ShardedAdding:
    """The steps of a look-up-and-add on ``store``, each one script on one shard."""

    def __init__(self, shards: ShardRunner, max_bucket: int, stale: float) -> None:
        self.shards = shards
        self.max_bucket = max_bucket
        self.stalled = 0
        self._stale_ms = int(stale * 1000)
        register = shards.register
        self._begin = register(redis_settling.BEGIN)
        self._tables = register(redis_settling.TABLES)
        self._claim = register(redis_settling.CLAIM)
        self._unclaim = register(redis_settling.UNCLAIM)
        self._resolve = register(redis_settling.RESOLVE)
        self._settle = register(redis_settling.SETTLE)
        self._abandon = register(redis_settling.ABANDON)
        self._remove = register(redis_settling.REMOVE)

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
        """The steps of the module docstring; their outcome as one script's on one slot.
        Pages in ``judged`` (confirmed not to be this one's originals) are passed by."""
        passed_by = frozenset(judged)
        record_key = probe.documents + name
        pending_key = _pending_key(probe.documents, name)
        home = self.shards.of(record_key)
        for _ in range(MAX_RESTARTS):
            sequence = self._next_number()
            if not self.shards.run(self._begin, home, [record_key, pending_key, sequence]):
                near, malformed = self.stored_near(probe, name)  # a revisit, or a move
                near = [each for each in near if each[0] not in passed_by]
                owners = [] if near else self._owners(probe.documents, name, claims, passed_by)
                return Probed(near, written=False, malformed=malformed, owners=owners)
            found, malformed = self._insert_and_read(probe, name, claims)
            found = {other: d for other, d in found.items() if other not in passed_by}
            seen = self._resolved_all(found, probe.documents, name, sequence)
            if claims and not seen.stored:
                seen = self._claims_passed_on(
                    seen, claims, probe.documents, name, sequence, judged=passed_by
                )
            stored = seen.stored
            if not stored:
                outcome, stored = self._settled(
                    probe.documents, name, record, sequence, judged=passed_by
                )
                if outcome == "restart":
                    continue
                if outcome == "stored":
                    self.shards.count(counter, 1)
                    if seen.deferred_claims:
                        self._own_claims(claims, probe.documents, name)
                    return Probed([], written=True, malformed=malformed)
            self._withdraw(probe, name, claims, pending_key, sequence, stored=stored)
            near = [each for each in stored if each[1] >= 0]
            owners = [] if near else [(owner, owned) for owner, _, owned in stored]
            return Probed(near, written=False, malformed=malformed, owners=owners)
        raise StoreError(
            f"{name!r} in {self.shards.location} was passed over as a dead worker's page "
            f"{MAX_RESTARTS} times in a row; is this worker stalling for seconds at a time?"
        )

    def _owners(
        self, documents: bytes, name: bytes, claims: Sequence[bytes], judged: frozenset[bytes]
    ) -> list[tuple[bytes, bytes]]:
        """The stored pages holding one of ``claims`` (either owner), read only: what one
        script on one slot returns for a stored page with nothing near it."""
        owners: dict[bytes, bytes] = {}
        for claim in claims:
            for tier in (claim, claim + keyspace.SECOND_OWNER):
                holder = self.shards.of(tier).get(tier)
                if holder is None or holder == name or holder in judged or holder in owners:
                    continue
                record = self.shards.of(documents + holder).get(documents + holder)
                if record is not None:
                    owners[holder] = record
        return list(owners.items())

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
            calls.append((self._tables, self.shards.shards[n], [*head, len(ranges) // 3, *ranges]))
        for n, (shard_claims, _) in grouped(dict.fromkeys(claims, b""), ()).items():
            calls.append((self._claim, self.shards.shards[n], [name, 0, *shard_claims]))
        replies = self.shards.run_all(calls)
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

    def stored_near(
        self, probe: NearProbe, name: bytes
    ) -> tuple[list[tuple[bytes, int, bytes]], int]:
        """The stored pages near ``probe``, the page itself among them; nothing written."""
        found, malformed = self._buckets(probe, name, insert=False)
        near = []
        for other, distance in found.items():
            record = self.shards.of(probe.documents + other).get(probe.documents + other)
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
        self,
        seen: Seen,
        claims: Sequence[bytes],
        documents: bytes,
        name: bytes,
        sequence: bytes,
        *,
        judged: frozenset[bytes] = frozenset(),
    ) -> Seen:
        """A claim whose holder was passed (it withdrew or died) is taken over, and its new
        holder, if another page took it first, is resolved in turn: of two pages sharing the
        sentence, the later to take it sees the earlier, as with a claim never held."""
        passed = set(seen.passed_claims)
        for _ in range(MAX_CLAIM_ROUNDS):
            if not seen.passed_claims or seen.stored:
                break
            holders = self._claim_all(name, claims, passed)
            fresh = {h: -1 for h in holders if h not in seen.deferred_claims | judged}
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
            (self._claim, self.shards.shards[n], [name, len(passed), *passed, *shard_claims])
            for n, (shard_claims, _) in grouped(dict.fromkeys(claims, b""), ()).items()
        ]
        holders: list[bytes] = []
        for reply in self.shards.run_all(calls):
            holders += [holder for holder in reply if holder not in holders]
        return holders

    def _resolved(
        self, documents: bytes, other: bytes, sequence: bytes, asker: bytes, *, wait: bool = True
    ) -> tuple[int, bytes | None]:
        """``other``'s status (``_GONE``, ``_LATER``, or ``_STORED`` with its record) once it
        is not pending before this page (``wait``)."""
        record_key = documents + other
        shard = self.shards.of(record_key)
        args: list[bytes | int] = [
            record_key, _pending_key(documents, other), sequence, asker, self._stale_ms
        ]  # fmt: skip
        deadline = time.monotonic() + self._stale_ms / 1000 + 5.0
        delay = 0.001
        while True:
            reply = self.shards.run(self._resolve, shard, args)
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
        self,
        documents: bytes,
        name: bytes,
        record: bytes,
        sequence: bytes,
        *,
        judged: frozenset[bytes] = frozenset(),
    ) -> tuple[str, list[tuple[bytes, int, bytes]]]:
        """("stored", []); ("copy", the stored pages among those that asked this one to
        wait); or ("restart", []) when its pending state was passed over meanwhile."""
        record_key = documents + name
        home = self.shards.of(record_key)
        handled = 0
        for _ in range(MAX_WAIT_ROUNDS):
            args: list[bytes | int] = [
                record_key, _pending_key(documents, name), sequence, record, handled
            ]  # fmt: skip
            reply = self.shards.run(self._settle, home, args)
            assert isinstance(reply, list)
            if reply[0] == 1:
                return "stored", []
            if reply[0] == 0:
                return "restart", []
            waiting = bytes(reply[1])
            handled += len(waiting)
            askers = {o: d for o, d in _askers(waiting).items() if o not in judged}
            stored = self._resolved_all(askers, documents, name, sequence).stored
            if stored:
                return "copy", stored
        raise StoreError(f"{name!r} in {self.shards.location}: pages kept asking it to wait")

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
        home = self.shards.of(probe.documents + name)
        waiting = self.shards.run(self._abandon, home, [pending_key, sequence])
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
            (self._remove, self.shards.shards[n], list(shard_entries))
            for n, (_, shard_entries) in grouped({}, entries).items()
        ]
        for n, (shard_claims, _) in grouped(dict.fromkeys(claims, b""), ()).items():
            calls.append((self._unclaim, self.shards.shards[n], [name, successor, *shard_claims]))
        self.shards.run_all(calls)


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
