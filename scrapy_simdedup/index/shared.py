"""The permuted index's writing steps on a shared store (Redis), without a lock.

Each step is one atomic unit on the server (``stores/atomic.py``; a Lua script on Redis), so
many workers look up and add at once instead of queueing on one lock (issue 18).

Why near-duplicates racing on different workers still yield exactly one kept page: let A
and B be within ``max_distance`` bits, offered by ``query_or_add`` at the same moment. Their
two steps cannot interleave: the server runs one, then the other; say A's first. A's step
either finds a stored near document (A is not added, and that document stays), or writes
A's record and every table entry of A together. B's step then reads, in every table, the
bucket of B's own permuted prefix. A and B differ in at most ``max_distance`` blocks, so in
at least one table their leading blocks agree (Manku et al., WWW 2007): A's entry is in that
bucket, its distance is checked exactly, and B is not added. So at most one of them is
kept, and a page is refused only because a document near it is stored at that moment.

A reprint can lie more than ``max_distance`` bits from its page and still share its longest
sentences (nshash). The same step covers it: when nothing is near, it reads the owners of
the page's sentences, and adds the page only when no other stored document owns one, the
page then owning every sentence not owned yet. If A's step runs first and adds A, A owns
each sentence it shares with B, so B's step returns A and B is not added: the judge
confirms B against A. A judge that later finds A a copy takes A out again (``discard``),
and an owner without a stored document is no reason to hold a page back.

A page whose candidates the judge did not confirm (it adds content to each) is added by the
same step, given those candidates as ``judged``: they neither hold it back nor come back, so
a page near it stored since the judge looked (a racing copy on another worker) is found and
confirmed against, exactly as above, instead of being kept beside it.

The failure side is "a copy kept twice", never "a page lost":

* a bucket cut at ``max_bucket`` keys (a crafted flood) may hide A from B: both are kept;
* a reply lost on the network makes redis-py run the step again; the second run finds the
  page itself at distance 0, which the content judge reads as a revisit of the same key,
  not as a copy of another page;
* a write whose expectation failed (another worker changed the same key in between) wrote
  nothing and is looked up and tried again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.matches import Match, QueryOrAdd
from scrapy_simdedup.index.stores.atomic import GuardedWrite, NearProbe

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from scrapy_simdedup.index.permuted import PermutedIndex
    from scrapy_simdedup.index.stores.atomic import AtomicStore, Probed

MAX_ATTEMPTS = 32  # guarded writes retried while other workers keep changing the same key


class SharedWrites:
    """``PermutedIndex``'s writes on a store several workers share (``shared_store``):
    each step one atomic unit on the server, no lock (``owned.OwnedWrites`` on a store
    this process owns)."""

    def __init__(self, index: PermutedIndex, store: AtomicStore) -> None:
        self.index = index
        self.store = store

    def add(self, fingerprint: int, doc_key: bytes, record: bytes) -> None:
        add(self.index, self.store, fingerprint, doc_key, record)

    def query_or_add(
        self, fingerprint: int, doc_key: bytes, record: bytes, claims: list[bytes],
        judged: set[str],
    ) -> QueryOrAdd:  # fmt: skip
        names = [each.encode("utf-8", "surrogatepass") for each in sorted(judged)]
        probed = near_or_add(
            self.index, self.store, fingerprint, doc_key, record, claims=claims, judged=names
        )
        self.index.malformed += probed.malformed
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

    def discard(self, doc_key: bytes) -> bool:
        return discard(self.index, self.store, doc_key)

    def record_sentences(self, claims: list[bytes], doc_key: bytes) -> None:
        held = self.store.put_absent(dict.fromkeys(claims, doc_key))
        seconds = [k + keyspace.SECOND_OWNER for k, owner in held.items() if owner != doc_key]
        put_each_absent(self.store, seconds, doc_key)

    def first_or_put(
        self, key: bytes, value: bytes, along: dict[bytes, bytes] | None
    ) -> bytes | None:
        if along:  # first: never an exact entry without what it goes with
            self.index.store.write(along)
        return first_or_put(self.store, key, value)

    def delete_if(self, key: bytes, value: bytes) -> bool:
        return delete_if(self.store, key, value)


def near_or_add(
    index: PermutedIndex,
    store: AtomicStore,
    fingerprint: int,
    doc_key: bytes,
    record: bytes,
    *,
    claims: Sequence[bytes] = (),
    judged: Sequence[bytes] = (),
) -> Probed:
    """One atomic look-up that adds the document when nothing is near it and no other
    stored document holds one of its ``claims`` (sentence owners), which it then holds;
    documents in ``judged`` (confirmed not to be its originals) do not count."""
    permuted, ranges = index.probe_ranges(fingerprint)
    probe = NearProbe(
        ranges=ranges,
        queries=[value.to_bytes(8, "big") for value in permuted],
        offset=index.namespace_length + 2,
        limit=index.design.max_distance,
        documents=index.namespace + keyspace.DOCUMENT,
    )
    probed = store.near_or_add(probe, doc_key, record, index.count_key, claims, judged=judged)
    if probed.near or probed.written or probed.owners:
        return probed
    for _ in range(MAX_ATTEMPTS):  # the key has a record, far from here: move it
        old = store.get(index.document_key(doc_key))
        probed = store.near_or_write(probe, _move(index, fingerprint, doc_key, record, old))
        if probed.near or probed.written:
            return probed
    raise _busy(store, doc_key)


def add(
    index: PermutedIndex, store: AtomicStore, fingerprint: int, doc_key: bytes, record: bytes
) -> None:
    """Store (or move) a document: its record and table entries in one guarded write."""
    for _ in range(MAX_ATTEMPTS):
        old = store.get(index.document_key(doc_key))
        if old == record or store.write_if(_move(index, fingerprint, doc_key, record, old)):
            return
    raise _busy(store, doc_key)


def discard(index: PermutedIndex, store: AtomicStore, doc_key: bytes) -> bool:
    """Remove a document and its table entries; False when it is not stored."""
    record_key = index.document_key(doc_key)
    for _ in range(MAX_ATTEMPTS):
        old = store.get(record_key)
        if old is None:
            return False
        entries = index.table_keys(int.from_bytes(old[:8], "big"), doc_key)
        write = GuardedWrite(
            {},
            deletes=[record_key, *entries],
            expect={record_key: old},
            counter=index.count_key,
            delta=-1,
        )
        if store.write_if(write):
            return True
    raise _busy(store, doc_key)


def first_or_put(store: AtomicStore, key: bytes, value: bytes) -> bytes | None:
    """The value already at ``key``, else None after putting ``value`` there."""
    return store.put_absent({key: value}).get(key)


def put_each_absent(store: AtomicStore, keys: Iterable[bytes], value: bytes) -> None:
    store.put_absent(dict.fromkeys(keys, value))


def delete_if(store: AtomicStore, key: bytes, value: bytes) -> bool:
    """Delete ``key`` if it still holds ``value``."""
    return store.write_if(GuardedWrite({}, deletes=[key], expect={key: value}))


def _move(
    index: PermutedIndex, fingerprint: int, doc_key: bytes, record: bytes, old: bytes | None
) -> GuardedWrite:
    """Put the record and its table entries, taking the old ones out, if ``old`` still holds."""
    record_key = index.document_key(doc_key)
    puts = {record_key: record}
    puts.update(dict.fromkeys(index.table_keys(fingerprint, doc_key), b""))
    deletes = [] if old is None else index.table_keys(int.from_bytes(old[:8], "big"), doc_key)
    return GuardedWrite(
        puts,
        deletes=[key for key in deletes if key not in puts],
        expect={record_key: old},
        counter=index.count_key,
        delta=1 if old is None else 0,
    )


def _busy(store: AtomicStore, doc_key: bytes) -> StoreError:
    return StoreError(
        f"{doc_key!r} in {store.location} changed under {MAX_ATTEMPTS} attempts in a row; "
        "is something rewriting it in a loop? Check which workers write that key."
    )


def _text(doc_key: bytes) -> str:
    return doc_key.decode("utf-8", "surrogatepass")
