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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.matches import Match, QueryOrAdd
from scrapy_simdedup.index.memtables import DEFAULT_TABLE_MEMORY, MemoryTables, memory_tables
from scrapy_simdedup.index.owned import OwnedWrites
from scrapy_simdedup.index.progress import Progress, Report
from scrapy_simdedup.index.shared import SharedWrites
from scrapy_simdedup.index.stores.atomic import AtomicStore, shared_store
from scrapy_simdedup.index.tables import BITS, TableDesign

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from scrapy_simdedup.index.stores.base import Store

__all__ = ["Match", "PermutedIndex", "QueryOrAdd", "Repaired", "Verification", "WritePath"]

_TOP = 1 << BITS
_unpack_from = struct.Struct(">Q").unpack_from


@dataclass(frozen=True)
class Repaired:
    """What ``PermutedIndex.repair`` found and fixed."""

    documents: int
    entries_added: int  # table entries a document lacked
    entries_removed: int  # table entries of no document, or unreadable
    records_removed: int  # document records too short to hold a fingerprint


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


class WritePath(Protocol):
    """How the index writes: under its lock on a store this process owns
    (``owned.OwnedWrites``), or as atomic steps on a shared one (``shared.SharedWrites``).
    Keys and values as stored: ``doc_key`` a document's name, ``record`` its fingerprint
    and payload, ``claims`` its sentences' keys."""

    def add(self, fingerprint: int, doc_key: bytes, record: bytes) -> None: ...

    def query_or_add(
        self, fingerprint: int, doc_key: bytes, record: bytes, claims: list[bytes],
        judged: set[str],
    ) -> QueryOrAdd: ...  # fmt: skip

    def discard(self, doc_key: bytes) -> bool: ...

    def record_sentences(self, claims: list[bytes], doc_key: bytes) -> None: ...

    def first_or_put(
        self, key: bytes, value: bytes, along: dict[bytes, bytes] | None
    ) -> bytes | None: ...

    def delete_if(self, key: bytes, value: bytes) -> bool: ...


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
        self._writes: WritePath
        if self._atomic is None:
            self.tables = memory_tables(store, namespace, design, table_memory)
            self._writes = OwnedWrites(self)
        else:
            self._writes = SharedWrites(self, self._atomic)

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
        record = fingerprint.to_bytes(8, "big") + payload
        self._writes.add(fingerprint, _name(key), record)

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
        _check_fingerprint(fingerprint)
        record = fingerprint.to_bytes(8, "big") + payload
        return self._writes.query_or_add(fingerprint, _name(key), record, claims, set(judged))

    def _sentence_key(self, digest: int) -> bytes:
        return self.namespace + keyspace.SENTENCE + digest.to_bytes(8, "big")

    def document(self, key: str) -> Match | None:
        """The stored fingerprint and payload of ``key`` (distance 0), or None."""
        record = self.store.get(self._doc + key.encode("utf-8", "surrogatepass"))
        if record is None:
            return None
        return Match(key, int.from_bytes(record[:8], "big"), 0, record[8:])

    def discard(self, key: str) -> bool:
        """Remove ``key`` from every table; False when it was not stored."""
        return self._writes.discard(_name(key))

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
        claims = [self._sentence_key(digest) for digest in hashes]
        self._writes.record_sentences(claims, _name(key))

    def exact_or_add(
        self, digest: int, key: str, *, along: dict[bytes, bytes] | None = None
    ) -> str | None:
        """The key first stored under a text's exact ``digest``, else add ``key``. The
        puts ``along`` are written first, or (on a store this process owns) in the same
        batch."""
        _check_fingerprint(digest)
        owner = self._writes.first_or_put(self._exact_key(digest), _name(key), along)
        return None if owner is None else _text(owner)

    def discard_exact(self, digest: int, key: str) -> bool:
        """Undo ``exact_or_add(digest, key)``; False when ``digest`` belongs to another key."""
        return self._writes.delete_if(self._exact_key(digest), _name(key))

    def _exact_key(self, digest: int) -> bytes:
        return self.namespace + keyspace.EXACT + digest.to_bytes(8, "big")

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

        with self.exclusive():
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
        first = self.store.get(self._exact_key(digest))
        return None if first is None else _text(first)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
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
        return self.keys_of(self.permuted(fingerprint), doc_key)

    def keys_of(self, permuted: list[int], doc_key: bytes) -> list[bytes]:
        """A document's entry in each table, from its permuted fingerprints."""
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


def _name(key: str) -> bytes:
    """A document's key as stored."""
    return key.encode("utf-8", "surrogatepass")
