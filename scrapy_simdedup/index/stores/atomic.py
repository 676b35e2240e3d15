"""Look-up-and-write steps a shared store runs atomically itself, so the index needs no lock.

A store one process owns (LevelDB, memory) is made exclusive by a thread lock, and the index
reads, decides and writes in Python. A store many processes share (Redis) offers these steps
instead: each is one server-side unit (a Lua script on Redis) that reads, decides and writes
with no other writer in between, so two workers racing on near-duplicates are serialised by
the server, not by a lock they would both queue on (issue 18).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from scrapy_simdedup.index.stores.base import Store

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


@dataclass(frozen=True)
class NearProbe:
    """A permuted-table look-up: for range ``i``, the keys in ``ranges[i]`` whose 8 bytes
    at ``offset`` are within ``limit`` bits of ``queries[i]`` (the query's permuted SimHash
    for that table, 8 big-endian bytes); the rest of such a key names a document, whose
    record is at ``documents + name``."""

    ranges: Sequence[tuple[bytes, bytes]]
    queries: Sequence[bytes]
    offset: int
    limit: int
    documents: bytes


@dataclass(frozen=True)
class GuardedWrite:
    """Puts and deletes applied only while every key in ``expect`` still holds its value
    (None: absent); ``counter`` (an 8-byte big-endian count) moves by ``delta`` with them."""

    puts: Mapping[bytes, bytes]
    deletes: Sequence[bytes] = ()
    expect: Mapping[bytes, bytes | None] = field(default_factory=dict)
    counter: bytes = b""
    delta: int = 0


@dataclass(frozen=True)
class Probed:
    """What ``near_or_write`` found: (document name, distance, record) per near document,
    whether the write was applied (only when nothing was near and ``expect`` held), and how
    many table entries were too short to read (skipped). ``owners``: (document name,
    record) per stored document holding one of ``near_or_add``'s claims."""

    near: list[tuple[bytes, int, bytes]]
    written: bool
    malformed: int = 0
    owners: list[tuple[bytes, bytes]] = field(default_factory=list)


def shared_store(store: Store) -> AtomicStore | None:
    """``store`` when several workers share it (its look-up-and-write steps are atomic on
    the server: Redis), else None (LevelDB is locked by one process, memory is private).
    The one question code outside ``index/`` asks of a store's kind."""
    return store if isinstance(store, AtomicStore) else None


@runtime_checkable
class AtomicStore(Store, Protocol):
    """A shared store whose look-up-and-write steps are each atomic on the server."""

    def near_or_write(self, probe: NearProbe, write: GuardedWrite) -> Probed:
        """The documents ``probe`` finds; when there are none, ``write`` if it holds."""

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
        """``near_or_write`` of a document not stored yet, in short: when ``probe`` finds
        nothing, no key in ``claims`` holds the name of another stored document (those are
        ``owners``), and ``probe.documents + name`` is absent, put ``record`` there and, per
        table, the key of its range's start with the query in place of the last 8 bytes,
        followed by ``name``; ``counter`` goes up by one, and each absent claim gets
        ``name``. Absent or not, nothing near means an empty ``near``; ``written`` says
        which. Documents named in ``judged`` (the caller confirmed the page against them:
        not copies) count as neither near nor owners."""

    def write_if(self, write: GuardedWrite) -> bool:
        """Apply ``write`` if its expectations hold; False (nothing written) otherwise."""

    def put_absent(self, puts: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """Put each key that is absent; return the present ones with their values."""

    def append(self, counter: bytes, prefix: bytes, value: bytes, keep: int) -> int:
        """Number an entry: ``counter`` (an 8-byte big-endian count) goes up by one and
        ``value`` is put at ``prefix`` + that number (8 bytes); the entry ``keep`` numbers
        back is deleted, so at most ``keep`` stay. Returns the number."""
