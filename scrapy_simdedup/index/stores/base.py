"""The storage protocol the index needs: sorted bytes keys, bytes values, atomic batches.

Modelled on plyvel's API so that LevelDB maps onto it directly; every other store (memory,
Redis) provides the same operations and passes the same contract tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from contextlib import AbstractContextManager


class Store(Protocol):
    """Sorted key-value storage; keys compare as bytes."""

    location: str
    """Where the data lives, for messages: a folder, ``memory``, a URL without password."""

    def get(self, key: bytes) -> bytes | None:
        """The value of ``key``, or None."""

    def get_many(self, keys: Sequence[bytes]) -> list[bytes | None]:
        """The values of ``keys`` (None where absent), in their order: one step for what a
        page reads together (its blocks' counts), one round trip on Redis."""

    def scan(self, start: bytes, stop: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Items with ``start <= key < stop`` in key order."""

    def keys(self, ranges: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
        """The keys in any of the half-open ``(start, stop)`` ranges, range by range.

        The index's hot path: one call per query, values skipped.
        """

    def write(self, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> None:
        """Apply all puts and deletes at once: after a crash, either all or none are there."""

    def locked(self) -> AbstractContextManager[None]:
        """Held while a look-up and the write it decides on run: a no-op for stores one
        process owns (LevelDB, memory), a cross-process lock for a shared one (Redis), which
        takes it only for rare whole-store steps (creating the index, repair): its look-ups
        and adds are atomic steps of their own (``stores/atomic.py``)."""

    def close(self) -> None:
        """Release the storage; further calls are errors."""
