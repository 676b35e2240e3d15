"""The permuted-table index over a store: near-duplicate look-up and insertion.

Store layout (all keys bytes, fingerprints as 8 big-endian bytes):

    t <table:1> <permuted fingerprint:8> <document key>  ->  b""
    d <document key>                                      ->  <fingerprint:8> <payload>
    \\x00params                                            ->  IndexParams as JSON
    \\x00count                                             ->  number of documents, 8 bytes
    s <sentence hash:8> / x <text hash:8>                ->  <document key> (nshash, exact)

An index made with a ``namespace`` puts it before each of these keys (the URL index uses
``u``), so several indexes share one store and one atomic write path.

A document is added with one atomic write of its ``d`` record and one entry per table, so
after a crash it is in every table or in none. Re-adding a key with a new fingerprint moves
it (old table entries are deleted in the same write). The permutation preserves Hamming
distance, so candidates are checked on their permuted bits without being restored.

On a store one process owns, a look-up and the write it decides run under a thread lock. A
shared store (Redis) runs each such step atomically itself (``shared.py`` proves why racing
workers still keep exactly one of two near-duplicates), so workers never queue on a lock.
"""

from __future__ import annotations

import contextlib
import struct
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace, shared
from scrapy_simdedup.index.memtables import DEFAULT_TABLE_MEMORY, MemoryTables, memory_tables
from scrapy_simdedup.index.progress import Progress, Report
from scrapy_simdedup.index.stores.atomic import AtomicStore, shared_store
from scrapy_simdedup.index.tables import BITS, TableDesign

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from scrapy_simdedup.index.stores.base import Store

_TOP = 1 << BITS
_unpack_from = struct.Struct(">Q").unpack_from


@dataclass(frozen=True, slots=True)
class Match:
    """A stored document within the distance bound: its key, fingerprint, distance, payload."""

    key: str
    fingerprint: int
    distance: int
    payload: bytes = b""


@dataclass(frozen=True)
class Repaired:
    """What ``PermutedIndex.repair`` found and fixed."""

    documents: int
    entries_added: int  # table entries a document lacked
    entries_removed: int  # table entries of no document, or unreadable
    records_removed: int  # document records too short to hold a fingerprint


@dataclass(frozen=True)
class QueryOrAdd:
    """The outcome of ``query_or_add``: the matches found, and whether the document was
    added; ``owners``, when nothing was near: the stored documents owning one of the given
    sentences (distance 0: the caller measures it); ``claimed``: the added document took
    its sentences in the same step (else ``record_sentences`` still has to)."""

    matches: list[Match]
    added: bool
    owners: list[Match] = field(default_factory=list)
    claimed: bool = False


@dataclass(frozen=True)
class Verification:
    """Counts from ``PermutedIndex.verify``; consistent when nothing is missing or orphaned."""

    documents: int
    entries: int
    missing_entries: int
    orphan_entries: int

    @property
    def consistent(self) -> bool:
        return self.missing_entries == 0 and self.orphan_entries == 0


class PermutedIndex:
    """Near look-up (``near``) and insertion (``add``) of 64-bit fingerprints in a store."""

    def __init__(
        self,
        store: Store,
        design: TableDesign,
        namespace: bytes = b"",
        *,
        table_memory: int = DEFAULT_TABLE_MEMORY,
    ) -> None:
        """``namespace`` prefixes every key, so several indexes can share one store.
        ``table_memory``: bytes the tables may take in memory on a store this process
        owns (``memtables.py``; read from the store here, at open), 0 for none."""
        self.store = store
        self.design = design
        self.namespace = namespace
        self.lock = threading.RLock()
        self._held = False
        self._atomic = shared_store(store)
        self.malformed = 0  # table entries too broken to read, skipped
        self._count_key = namespace + keyspace.COUNT
        self._doc = namespace + keyspace.DOCUMENT
        self._at = len(namespace)
        self._ranges = [
            (namespace + keyspace.TABLE + bytes([i]), BITS - table.prefix_bits)
            for i, table in enumerate(design.tables)
        ]
        self.table_memory = table_memory
        self.tables: MemoryTables | None = None
        if self._atomic is None:
            self.tables = memory_tables(store, namespace, design, table_memory)

    def __len__(self) -> int:
        return _number(self.store.get(self._count_key))

    def near(self, fingerprint: int) -> list[Match]:
        """Every stored document within ``design.max_distance`` bits, nearest first."""
        _check_fingerprint(fingerprint)
        limit = self.design.max_distance
        permuted = self.permuted(fingerprint)
        hits = None if self.tables is None else self.tables.hits(permuted, limit)
        if hits is None:
            keys = self.store.keys(self._bucket_ranges(permuted))
        elif hits:
            keys = self._hit_keys(hits)
        else:
            return []
        at = self._at
        try:
            found = {
                key[at + 10 :]: distance
                for key in keys
                if (distance := (_unpack_from(key, at + 2)[0] ^ permuted[key[at + 1]]).bit_count())
                <= limit
            }
        except (struct.error, IndexError):  # a shared store may hold entries nobody wrote
            found = self._checked_slowly(keys, permuted)
        records = self.store.get_many([self._doc + doc_key for doc_key in found]) if found else []
        matches = [
            Match(_text(doc_key), int.from_bytes(record[:8], "big"), distance, record[8:])
            for (doc_key, distance), record in zip(found.items(), records, strict=True)
            if record is not None
        ]
        matches.sort(key=lambda m: (m.distance, m.key))
        return matches

    def probe_ranges(self, fingerprint: int) -> tuple[list[int], list[tuple[bytes, bytes]]]:
        """Per table: the permuted fingerprint, and the key range of its prefix's bucket."""
        permuted = self.permuted(fingerprint)
        return permuted, self._bucket_ranges(permuted)

    def permuted(self, fingerprint: int) -> list[int]:
        """The fingerprint as each table permutes it, in table order."""
        return [table.apply(fingerprint) for table in self.design.tables]

    def _bucket_ranges(self, permuted: list[int]) -> list[tuple[bytes, bytes]]:
        ranges = []
        for value, (head, shift) in zip(permuted, self._ranges, strict=True):
            low = value >> shift << shift
            high = low + (1 << shift)
            stop = head + high.to_bytes(8, "big") if high < _TOP else _next_head(head)
            ranges.append((head + low.to_bytes(8, "big"), stop))
        return ranges

    def _hit_keys(self, hits: list[tuple[int, int]]) -> list[bytes]:
        """The table entries of the values the memory tables found, one range read per
        fingerprint: a stored page's near copy is in the buckets of most of the four
        tables, and every table holds each of its documents, so one range finds them all
        (a hit read up to four ranges). A fingerprint whose first range holds nothing (an
        entry missing from one table) has its other tables read, as before."""
        tables = self.design.tables
        by_fingerprint: dict[int, list[tuple[int, int]]] = {}
        for table, value in hits:
            by_fingerprint.setdefault(tables[table].invert(value), []).append((table, value))
        first = [pairs[0] for pairs in by_fingerprint.values()]
        keys = self.store.keys(self._value_ranges(first))
        if len(first) == len(hits):
            return keys
        at = self._at
        answered = {
            tables[key[at + 1]].invert(_unpack_from(key, at + 2)[0])
            for key in keys
            if len(key) >= at + 10 and key[at + 1] < len(tables)
        }
        rest = [
            pair
            for fingerprint, pairs in by_fingerprint.items()
            if fingerprint not in answered
            for pair in pairs[1:]
        ]
        return keys + self.store.keys(self._value_ranges(rest)) if rest else keys

    def _value_ranges(self, hits: list[tuple[int, int]]) -> list[tuple[bytes, bytes]]:
        """The key range of each (table, permuted value) the memory tables found: the
        entries of the documents holding it."""
        ranges = []
        for table, value in hits:
            head = self._ranges[table][0]
            after = value + 1
            stop = head + after.to_bytes(8, "big") if after < _TOP else _next_head(head)
            ranges.append((head + value.to_bytes(8, "big"), stop))
        return ranges

    @property
    def shared(self) -> AtomicStore | None:
        """The store, when several workers share it (``shared_store``); else None."""
        return self._atomic

    @property
    def namespace_length(self) -> int:
        return self._at

    @property
    def count_key(self) -> bytes:
        return self._count_key

    def document_key(self, doc_key: bytes) -> bytes:
        """Where the record of the document named ``doc_key`` is stored."""
        return self._doc + doc_key

    def _checked_slowly(self, keys: list[bytes], permuted: list[int]) -> dict[bytes, int]:
        """The candidate check, skipping (and counting in ``malformed``) broken entries."""
        at, found = self._at, {}
        for key in keys:
            if len(key) < at + 10 or key[at + 1] >= len(permuted):
                self.malformed += 1
                continue
            distance = (_unpack_from(key, at + 2)[0] ^ permuted[key[at + 1]]).bit_count()
            if distance <= self.design.max_distance:
                found[key[at + 10 :]] = distance
        return found

    def add(self, fingerprint: int, key: str, payload: bytes = b"") -> None:
        """Store ``key`` under ``fingerprint`` (replacing its earlier fingerprint, if any)."""
        _check_fingerprint(fingerprint)
        doc_key = key.encode("utf-8", "surrogatepass")
        record = fingerprint.to_bytes(8, "big") + payload
        if self._atomic is not None:
            shared.add(self, self._atomic, fingerprint, doc_key, record)
            return
        with self._exclusive():
            self._write_added(fingerprint, doc_key, record)

    def _write_added(
        self,
        fingerprint: int,
        doc_key: bytes,
        record: bytes,
        along: dict[bytes, bytes] | None = None,
    ) -> None:
        """``add`` on a store this process owns (under ``_exclusive``), with the puts
        ``along`` in the same batch: all of them are there after a crash, or none."""
        old, count = self.store.get_many([self._doc + doc_key, self._count_key])
        puts = dict(along or {})
        deletes: list[bytes] = []
        moved: list[int] = []
        if old != record:
            puts[self._doc + doc_key] = record
            if old is None:
                puts[self._count_key] = (_number(count) + 1).to_bytes(8, "big")
            else:
                moved = self.permuted(int.from_bytes(old[:8], "big"))
                deletes = self._keys_of(moved, doc_key)
            permuted = self.permuted(fingerprint)
            puts.update(dict.fromkeys(self._keys_of(permuted, doc_key), b""))
            if self.tables is not None:  # in memory before the store: never one short
                self.tables.add(permuted)
        if puts or deletes:
            self.store.write(puts, deletes)
        if moved and self.tables is not None:
            self.tables.remove(moved)

    def query_or_add(
        self,
        fingerprint: int,
        key: str,
        payload: bytes = b"",
        sentences: Iterable[int] = (),
        *,
        judged: Iterable[str] = (),
    ) -> QueryOrAdd:
        """Look up, and add only if nothing (not even ``key`` itself) is near and no other
        stored document owns one of ``sentences``: one atomic step. An added document owns
        its sentences not owned yet, so of two racing pages sharing one, the later sees the
        earlier (``shared.py``). Documents in ``judged`` (confirmed not to be this page's
        originals) count as neither near nor owners."""
        claims = [self._sentence_key(digest) for digest in sorted(set(sentences))]
        passed_by = set(judged)
        if self._atomic is not None:
            names = [each.encode("utf-8", "surrogatepass") for each in sorted(passed_by)]
            return self._query_or_add_atomically(
                self._atomic, fingerprint, key, payload, claims, judged=names
            )
        with self._exclusive():
            matches = [m for m in self.near(fingerprint) if m.key not in passed_by]
            if matches:
                return QueryOrAdd(matches, added=False, owners=[])
            held = self._holders(claims)
            owners = self._owners(held, key, passed_by)
            if not owners:  # the page and its sentences in one batch
                _check_fingerprint(fingerprint)
                doc_key = key.encode("utf-8", "surrogatepass")
                record = fingerprint.to_bytes(8, "big") + payload
                self._write_added(fingerprint, doc_key, record, along=self._claims(held, key))
            return QueryOrAdd(matches, not owners, owners, claimed=not owners)

    def _query_or_add_atomically(
        self,
        store: AtomicStore,
        fingerprint: int,
        key: str,
        payload: bytes,
        claims: list[bytes],
        *,
        judged: list[bytes],
    ) -> QueryOrAdd:
        _check_fingerprint(fingerprint)
        doc_key = key.encode("utf-8", "surrogatepass")
        record = fingerprint.to_bytes(8, "big") + payload
        probed = shared.near_or_add(
            self, store, fingerprint, doc_key, record, claims=claims, judged=judged
        )
        self.malformed += probed.malformed
        matches = [
            Match(_text(name), int.from_bytes(found[:8], "big"), distance, found[8:])
            for name, distance, found in probed.near
        ]
        matches.sort(key=lambda m: (m.distance, m.key))
        owners = [
            Match(_text(name), int.from_bytes(found[:8], "big"), 0, found[8:])
            for name, found in probed.owners
        ]
        return QueryOrAdd(matches, added=probed.written, owners=owners)

    def _sentence_key(self, digest: int) -> bytes:
        return self.namespace + keyspace.SENTENCE + digest.to_bytes(8, "big")

    def _holders(self, claims: list[bytes]) -> dict[bytes, tuple[bytes | None, bytes | None]]:
        """Each claim's first and second owner, read once for ``_owners`` and ``_claim``
        (a second owner is only ever written beside a first, and claims are never
        deleted: an unheld claim has no second owner to read)."""
        firsts = dict(zip(claims, self.store.get_many(claims), strict=True))
        owned = [claim for claim, first in firsts.items() if first is not None]
        seconds = self.store.get_many([claim + keyspace.SECOND_OWNER for claim in owned])
        second_of = dict(zip(owned, seconds, strict=True))
        return {claim: (first, second_of.get(claim)) for claim, first in firsts.items()}

    def _owners(
        self, held: dict[bytes, tuple[bytes | None, bytes | None]], key: str, judged: set[str]
    ) -> list[Match]:
        """The stored documents other than ``key`` and the ``judged`` holding a claim
        (``_holders``), once each."""
        owners: dict[str, None] = {}
        for tiers in held.values():
            for owner in tiers:
                if owner is not None and _text(owner) != key and _text(owner) not in judged:
                    owners[_text(owner)] = None
        return [doc for owner in owners if (doc := self.document(owner)) is not None]

    def _claims(
        self, held: dict[bytes, tuple[bytes | None, bytes | None]], key: str
    ) -> dict[bytes, bytes]:
        """The puts that make ``key`` each claim's first owner, or its second when another
        page owns it first (``held``: their owners as ``_holders`` read them, under the
        same lock)."""
        value = key.encode("utf-8", "surrogatepass")
        fresh = {}
        for claim, (first, second) in held.items():
            if first is None:
                fresh[claim] = value
            elif first != value and second is None:
                fresh[claim + keyspace.SECOND_OWNER] = value
        return fresh

    def document(self, key: str) -> Match | None:
        """The stored fingerprint and payload of ``key`` (distance 0), or None."""
        record = self.store.get(self._doc + key.encode("utf-8", "surrogatepass"))
        if record is None:
            return None
        return Match(key, int.from_bytes(record[:8], "big"), 0, record[8:])

    def discard(self, key: str) -> bool:
        """Remove ``key`` from every table; False when it was not stored."""
        doc_key = key.encode("utf-8", "surrogatepass")
        if self._atomic is not None:
            return shared.discard(self, self._atomic, doc_key)
        with self._exclusive():
            old = self.store.get(self._doc + doc_key)
            if old is None:
                return False
            permuted = self.permuted(int.from_bytes(old[:8], "big"))
            deletes = [self._doc + doc_key, *self._keys_of(permuted, doc_key)]
            self.store.write({self._count_key: (len(self) - 1).to_bytes(8, "big")}, deletes)
            if self.tables is not None:
                self.tables.remove(permuted)
            return True

    def sentence_owner(self, hashes: Iterable[int]) -> str | None:
        """The key recorded first under any of these sentence hashes (nshash), or None."""
        owners = self.sentence_owners(hashes)
        return owners[0] if owners else None

    def sentence_owners(self, hashes: Iterable[int]) -> list[str]:
        """Every key recorded under one of these sentence hashes (first and second owners),
        once each, in hash order: a page can share one long sentence (a table border, a
        licence line) with another page and the rest with the page it copies."""
        owners: dict[str, None] = {}
        for digest in sorted(hashes):
            key = self.namespace + keyspace.SENTENCE + digest.to_bytes(8, "big")
            for tier in (key, key + keyspace.SECOND_OWNER):
                owner = self.store.get(tier)
                if owner is not None:
                    owners[_text(owner)] = None
        return list(owners)

    def record_sentences(self, hashes: Iterable[int], key: str) -> None:
        """Record ``key`` under each sentence hash not yet owned by another document, or as
        its second owner when another owns it first."""
        value = key.encode("utf-8", "surrogatepass")
        claims = [self._sentence_key(digest) for digest in hashes]
        if self._atomic is not None:
            held = self._atomic.put_absent(dict.fromkeys(claims, value))
            seconds = [k + keyspace.SECOND_OWNER for k, owner in held.items() if owner != value]
            shared.put_each_absent(self._atomic, seconds, value)
            return
        with self._exclusive():
            fresh = self._claims(self._holders(claims), key)
            if fresh:
                self.store.write(fresh)

    def exact_or_add(
        self, digest: int, key: str, *, along: dict[bytes, bytes] | None = None
    ) -> str | None:
        """The key first stored under a text's exact ``digest``, else add ``key``. The
        puts ``along`` are written first, or (on a store this process owns) in the same
        batch."""
        _check_fingerprint(digest)
        exact_key = self.namespace + keyspace.EXACT + digest.to_bytes(8, "big")
        if self._atomic is not None:
            if along:
                self.store.write(along)
            owner = shared.first_or_put(
                self._atomic, exact_key, key.encode("utf-8", "surrogatepass")
            )
            return None if owner is None else _text(owner)
        with self._exclusive():
            first = self.store.get(exact_key)
            puts = dict(along or {})
            if first is None:
                puts[exact_key] = key.encode("utf-8", "surrogatepass")
            if puts:
                self.store.write(puts)
            return None if first is None else _text(first)

    def discard_exact(self, digest: int, key: str) -> bool:
        """Undo ``exact_or_add(digest, key)``; False when ``digest`` belongs to another key."""
        exact_key = self.namespace + keyspace.EXACT + digest.to_bytes(8, "big")
        if self._atomic is not None:
            return shared.delete_if(self._atomic, exact_key, key.encode("utf-8", "surrogatepass"))
        with self._exclusive():
            if self.store.get(exact_key) != key.encode("utf-8", "surrogatepass"):
                return False
            self.store.write({}, [exact_key])
            return True

    def verify(self, progress: Report | None = None) -> Verification:
        """Check every document against every table: the all-or-none promise, counted.
        ``progress`` is handed a line now and then (see ``Progress``)."""
        expected: set[bytes] = set()
        documents = 0
        ns = self.namespace
        read = Progress(progress, "documents read", len(self))
        for key, record in self.store.scan(
            ns + keyspace.DOCUMENT, ns + keyspace.end(keyspace.DOCUMENT)
        ):
            documents += 1
            read.step()
            fingerprint = int.from_bytes(record[:8], "big")
            expected.update(self.table_keys(fingerprint, key[self._at + 1 :]))
        read.done()
        entries = 0
        orphans = 0
        checked = Progress(progress, "table entries checked", len(expected))
        for key, _ in self.store.scan(ns + keyspace.TABLE, ns + keyspace.end(keyspace.TABLE)):
            entries += 1
            checked.step()
            if key in expected:
                expected.discard(key)
            else:
                orphans += 1
        checked.done()
        return Verification(
            documents, entries, missing_entries=len(expected), orphan_entries=orphans
        )

    def repair(self, batch: int = 10_000, progress: Report | None = None) -> Repaired:
        """Re-validate every entry: each document gets all its table entries, entries of no
        document go, and the count is set to the documents found. Streams the store, so
        memory stays flat; writes in batches of ``batch`` keys. ``progress`` is handed a
        line now and then (see ``Progress``)."""
        ns, at = self.namespace, self._at
        puts: dict[bytes, bytes] = {}
        deletes: list[bytes] = []

        def flush(force: bool = False) -> None:
            if force or len(puts) + len(deletes) >= batch:
                self.store.write(dict(puts), list(deletes))
                puts.clear()
                deletes.clear()

        with self._exclusive():
            documents = added = removed = bad_records = 0
            read = Progress(progress, "documents re-validated", len(self))
            for key, record in self.store.scan(
                ns + keyspace.DOCUMENT, ns + keyspace.end(keyspace.DOCUMENT)
            ):
                read.step()
                if len(record) < 8:
                    bad_records += 1
                    deletes.append(key)
                else:
                    documents += 1
                    fingerprint = int.from_bytes(record[:8], "big")
                    for entry in self.table_keys(fingerprint, key[at + 1 :]):
                        if self.store.get(entry) is None:
                            added += 1
                            puts[entry] = b""
                flush()
            flush(force=True)
            read.done()
            tables = len(self.design.tables)
            checked = Progress(progress, "table entries checked", documents * tables)
            for key, _ in self.store.scan(ns + keyspace.TABLE, ns + keyspace.end(keyspace.TABLE)):
                checked.step()
                if not self._entry_has_document(key):
                    removed += 1
                    deletes.append(key)
                    flush()
            checked.done()
            puts[self._count_key] = documents.to_bytes(8, "big")
            flush(force=True)
            if self.tables is not None:  # its writes bypassed them: read them again
                self.tables.read(self.store, self.namespace)
        return Repaired(documents, added, removed, bad_records)

    def _entry_has_document(self, key: bytes) -> bool:
        at = self._at
        if len(key) < at + 10 or key[at + 1] >= len(self._ranges):
            return False
        record = self.store.get(self._doc + key[at + 10 :])
        if record is None or len(record) < 8:
            return False
        expected = self.table_keys(int.from_bytes(record[:8], "big"), key[at + 10 :])
        return key == expected[key[at + 1]]

    def exact_owner(self, digest: int) -> str | None:
        """The key stored by ``exact_or_add`` under ``digest``, without adding anything."""
        _check_fingerprint(digest)
        first = self.store.get(self.namespace + keyspace.EXACT + digest.to_bytes(8, "big"))
        return None if first is None else _text(first)

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """This thread alone, and (for a shared store) this process alone; re-entrant."""
        with self.lock:
            if self._held:
                yield
                return
            with self.store.locked():
                self._held = True
                try:
                    yield
                finally:
                    self._held = False

    def table_keys(self, fingerprint: int, doc_key: bytes) -> list[bytes]:
        """The document's entry in each table, in table order."""
        return self._keys_of(self.permuted(fingerprint), doc_key)

    def _keys_of(self, permuted: list[int], doc_key: bytes) -> list[bytes]:
        return [
            head + value.to_bytes(8, "big") + doc_key
            for value, (head, _) in zip(permuted, self._ranges, strict=True)
        ]


def _number(raw: bytes | None) -> int:
    return int.from_bytes(raw, "big") if raw else 0


def _next_head(head: bytes) -> bytes:
    return head[:-1] + bytes([head[-1] + 1])


def _check_fingerprint(fingerprint: int) -> None:
    if not 0 <= fingerprint < _TOP:
        raise ValueError(f"a fingerprint is an unsigned 64-bit int, got {fingerprint!r}")


def _text(doc_key: bytes) -> str:
    return doc_key.decode("utf-8", "surrogatepass")
