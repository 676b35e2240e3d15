"""The permuted index's writing steps on a store this process owns (LevelDB, memory).

Each step looks up and writes under the index's lock (``PermutedIndex.exclusive``: this
thread alone, and for a store other processes may open, this process alone), and writes
in one batch, so after a crash a document is in every table or in none, and a page's
sentences are claimed with it. The tables held in memory (``memtables.py``) are updated
before the store is written, so they are never one entry short. On a store several
workers share, ``shared.SharedWrites`` takes these steps instead, each atomic on the
server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.matches import Match, QueryOrAdd

if TYPE_CHECKING:
    from scrapy_simdedup.index.permuted import PermutedIndex

Holders = dict[bytes, tuple[bytes | None, bytes | None]]
"""Each sentence claim's first and second owner (None: none)."""


class OwnedWrites:
    """``PermutedIndex``'s writes on a store only this process writes."""

    def __init__(self, index: PermutedIndex) -> None:
        self.index = index
        self.store = index.store

    def add(self, fingerprint: int, doc_key: bytes, record: bytes) -> None:
        with self.index.exclusive():
            self._write_added(fingerprint, doc_key, record)

    def query_or_add(
        self, fingerprint: int, doc_key: bytes, record: bytes, claims: list[bytes],
        judged: set[str],
    ) -> QueryOrAdd:  # fmt: skip
        index, key = self.index, _text(doc_key)
        with index.exclusive():
            matches = [m for m in index.near(fingerprint) if m.key not in judged]
            if matches:
                return QueryOrAdd(matches, added=False, owners=[])
            held = self._holders(claims)
            owners = self._owners(held, key, judged)
            if not owners:  # the page and its sentences in one batch
                self._write_added(fingerprint, doc_key, record, along=_claims(held, doc_key))
            return QueryOrAdd(matches, not owners, owners, claimed=not owners)

    def discard(self, doc_key: bytes) -> bool:
        index = self.index
        with index.exclusive():
            old = self.store.get(index.document_key(doc_key))
            if old is None:
                return False
            permuted = index.permuted(int.from_bytes(old[:8], "big"))
            deletes = [index.document_key(doc_key), *index.keys_of(permuted, doc_key)]
            count = (len(index) - 1).to_bytes(8, "big")
            self.store.write({index.count_key: count}, deletes)
            if index.tables is not None:
                index.tables.remove(permuted)
            return True

    def record_sentences(self, claims: list[bytes], doc_key: bytes) -> None:
        with self.index.exclusive():
            fresh = _claims(self._holders(claims), doc_key)
            if fresh:
                self.store.write(fresh)

    def first_or_put(
        self, key: bytes, value: bytes, along: dict[bytes, bytes] | None
    ) -> bytes | None:
        with self.index.exclusive():
            first = self.store.get(key)
            puts = dict(along or {})
            if first is None:
                puts[key] = value
            if puts:
                self.store.write(puts)
            return first

    def delete_if(self, key: bytes, value: bytes) -> bool:
        with self.index.exclusive():
            if self.store.get(key) != value:
                return False
            self.store.write({}, [key])
            return True

    def _write_added(
        self,
        fingerprint: int,
        doc_key: bytes,
        record: bytes,
        along: dict[bytes, bytes] | None = None,
    ) -> None:
        """``add`` under the lock, with the puts ``along`` in the same batch: all of them
        are there after a crash, or none."""
        index = self.index
        document_key = index.document_key(doc_key)
        old, count = self.store.get_many([document_key, index.count_key])
        puts = dict(along or {})
        deletes: list[bytes] = []
        moved: list[int] = []
        if old != record:
            puts[document_key] = record
            if old is None:
                puts[index.count_key] = (_number(count) + 1).to_bytes(8, "big")
            else:
                moved = index.permuted(int.from_bytes(old[:8], "big"))
                deletes = index.keys_of(moved, doc_key)
            permuted = index.permuted(fingerprint)
            puts.update(dict.fromkeys(index.keys_of(permuted, doc_key), b""))
            if index.tables is not None:  # in memory before the store: never one short
                index.tables.add(permuted)
        if puts or deletes:
            self.store.write(puts, deletes)
        if moved and index.tables is not None:
            index.tables.remove(moved)

    def _holders(self, claims: list[bytes]) -> Holders:
        """Each claim's first and second owner, read once for ``_owners`` and ``_claims``
        (a second owner is only ever written beside a first, and claims are never
        deleted: an unheld claim has no second owner to read)."""
        firsts = dict(zip(claims, self.store.get_many(claims), strict=True))
        owned = [claim for claim, first in firsts.items() if first is not None]
        seconds = self.store.get_many([claim + keyspace.SECOND_OWNER for claim in owned])
        second_of = dict(zip(owned, seconds, strict=True))
        return {claim: (first, second_of.get(claim)) for claim, first in firsts.items()}

    def _owners(self, held: Holders, key: str, judged: set[str]) -> list[Match]:
        """The stored documents other than ``key`` and the ``judged`` holding a claim
        (``_holders``), once each."""
        owners: dict[str, None] = {}
        for tiers in held.values():
            for owner in tiers:
                if owner is not None and _text(owner) != key and _text(owner) not in judged:
                    owners[_text(owner)] = None
        return [doc for owner in owners if (doc := self.index.document(owner)) is not None]


def _claims(held: Holders, value: bytes) -> dict[bytes, bytes]:
    """The puts that make ``value`` (a document key) each claim's first owner, or its
    second when another page owns it first (``held``: their owners as ``_holders`` read
    them, under the same lock)."""
    fresh = {}
    for claim, (first, second) in held.items():
        if first is None:
            fresh[claim] = value
        elif first != value and second is None:
            fresh[claim + keyspace.SECOND_OWNER] = value
    return fresh


def _number(raw: bytes | None) -> int:
    return int.from_bytes(raw, "big") if raw else 0


def _text(doc_key: bytes) -> str:
    return doc_key.decode("utf-8", "surrogatepass")
