"""The in-memory store: a sorted dict, bounded so a long crawl cannot exhaust RAM."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from sortedcontainers import SortedDict

from scrapy_simdedup.errors import StoreError, StoreFullError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

DEFAULT_MAX_KEYS = 20_000_000
"""About 5 million fingerprints with the default 4 tables; roughly 2 GB of RAM."""


class MemoryStore:
    """Keys in a ``SortedDict``; ``StoreFullError`` once ``max_keys`` keys are held."""

    location = "memory"

    def __init__(self, max_keys: int = DEFAULT_MAX_KEYS) -> None:
        if max_keys < 1:
            raise ValueError(f"max_keys must be at least 1, got {max_keys!r}")
        self.max_keys = max_keys
        self._data: SortedDict | None = SortedDict()

    def _open(self) -> SortedDict:
        if self._data is None:
            raise StoreError("the memory store is closed")
        return self._data

    def get(self, key: bytes) -> bytes | None:
        value: bytes | None = self._open().get(key)
        return value

    def get_many(self, keys: Sequence[bytes]) -> list[bytes | None]:
        get = self._open().get
        return [get(key) for key in keys]

    def scan(self, start: bytes, stop: bytes) -> Iterator[tuple[bytes, bytes]]:
        data = self._open()
        for key in self.keys([(start, stop)]):
            yield key, data[key]

    def keys(self, ranges: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
        data = self._open()
        ordered = data.keys()
        found: list[bytes] = []
        for start, stop in ranges:
            found += ordered[data.bisect_left(start) : data.bisect_left(stop)]
        return found

    def write(self, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> None:
        data = self._open()
        deletes = [key for key in deletes if key in data]
        growth = sum(1 for key in puts if key not in data) - len(deletes)
        if len(data) + growth > self.max_keys:
            raise StoreFullError(
                f"the memory store holds its limit of {self.max_keys:,} keys; raise the limit "
                "or keep the index in a folder (LevelDB), which has none"
            )
        for key in deletes:
            del data[key]
        data.update(puts)

    def locked(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()  # one process owns this store

    def close(self) -> None:
        self._data = None
