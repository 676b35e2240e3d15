"""``SimHashIndex``: an open index, as ``open_index`` returns it.

It binds a ``PermutedIndex`` to the parameters the store was made with (k, table design,
tokenizer, seed), so fingerprints made through it are comparable with what is stored. It
also opens companion indexes (e.g. the URL middleware's) in the same store.
"""

from __future__ import annotations

import json
import operator
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import StoreDamagedError, StoreError, StoreMismatchError
from scrapy_simdedup.fingerprint.textprint import TextFingerprint, fingerprint_text
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.blockcounts import BlockCounts
from scrapy_simdedup.index.permuted import (
    Match,
    PermutedIndex,
    QueryOrAdd,
    Repaired,
    Verification,
)
from scrapy_simdedup.index.stores.atomic import AtomicStore, shared_store
from scrapy_simdedup.index.tables import TableDesign, choose_design

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from types import TracebackType

    from typing_extensions import Self

    from scrapy_simdedup.fingerprint.tokens import Tokenizer
    from scrapy_simdedup.index.blockcache import BlockCache
    from scrapy_simdedup.index.params import IndexParams
    from scrapy_simdedup.index.progress import Report
    from scrapy_simdedup.index.stores.base import Store

DEFAULT_EXPECTED_SIZE = 10_000_000


MARKS_FIELD = "fetched_marks"
"""In a companion index's design record: fetches may be recorded as marks there."""


class SimHashIndex:
    """An open index: ``query``, ``add``, ``query_or_add``; a context manager.

    Fingerprints must be made with this index's ``seed`` and tokenizer: ``fingerprint_text``
    does that.
    """

    def __init__(
        self,
        core: PermutedIndex,
        params: IndexParams,
        tokenizer: Tokenizer,
        release: Callable[[], None],
        block_cache: BlockCache | None = None,
    ) -> None:
        """``block_cache``: the copy of the block counts every handle on ``core`` shares
        (``open_index`` makes one for a store this process owns)."""
        self._core: PermutedIndex | None = core
        self.params = params
        self.tokenizer = tokenizer
        self.location = core.store.location
        self._release = release
        self._blocks = BlockCounts(core, params.seed, block_cache)

    @property
    def seed(self) -> int:
        return self.params.seed

    @property
    def store(self) -> Store:
        """The store the index is on (its own records beside the other kinds of keyspace.py)."""
        return self._open().store

    @property
    def shared(self) -> AtomicStore | None:
        """The store, when several workers share it (``shared_store``); else None."""
        return shared_store(self.store)

    @property
    def design(self) -> TableDesign:
        return self._open().design

    def _open(self) -> PermutedIndex:
        if self._core is None:
            raise StoreError(f"the index at {self.location} is closed")
        return self._core

    def fingerprint_text(self, text: str, *, with_sketch: bool = False) -> TextFingerprint:
        """``fingerprint_text`` with this index's tokenizer and seed."""
        return fingerprint_text(
            text, tokenizer=self.tokenizer, seed=self.seed, with_sketch=with_sketch
        )

    def query(self, fingerprint: int) -> list[Match]:
        """Stored documents within ``max_distance`` bits, nearest first."""
        return self._open().near(operator.index(fingerprint))

    def add(self, fingerprint: int, key: str, payload: bytes = b"") -> None:
        """Store ``key`` (e.g. a URL) under ``fingerprint``, with optional ``payload`` bytes."""
        self._open().add(operator.index(fingerprint), key, payload)

    def query_or_add(
        self,
        fingerprint: int,
        key: str,
        payload: bytes = b"",
        sentences: Iterable[int] = (),
        *,
        judged: Iterable[str] = (),
    ) -> QueryOrAdd:
        """Atomically: the matches, and the document added only when there were none.
        With ``sentences`` (hashes, nshash), the stored pages owning one of them are
        ``owners`` when nothing is near, and the page owns the rest when it is added.
        ``judged``: stored pages already confirmed not to be this page's originals; they
        neither hold it back nor come back (its add after a look-up found only those)."""
        return self._open().query_or_add(
            operator.index(fingerprint), key, payload, sentences, judged=judged
        )

    def document(self, key: str) -> Match | None:
        """What is stored for ``key`` (fingerprint and payload), or None."""
        return self._open().document(key)

    def discard(self, key: str) -> bool:
        """Forget ``key``'s fingerprint (e.g. its item was dropped later); False if absent."""
        return self._open().discard(key)

    def sentence_owner(self, hashes: Iterable[int]) -> str | None:
        """nshash look-up: the first document recorded under any of ``hashes``."""
        return self._open().sentence_owner(hashes)

    def sentence_owners(self, hashes: Iterable[int]) -> list[str]:
        """nshash look-up: every document recorded under one of ``hashes``, once each."""
        return self._open().sentence_owners(hashes)

    def record_sentences(self, hashes: Iterable[int], key: str) -> None:
        """nshash: record ``key`` under those of ``hashes`` that no document owns yet."""
        self._open().record_sentences(hashes, key)

    def exact_or_add(
        self, digest: int, key: str, *, along: dict[bytes, bytes] | None = None
    ) -> str | None:
        """Exact look-up by the text's ``exact_hash``: the first key, or None if new (and now
        stored). The only look-up for texts too short to fingerprint; a shortcut for others.
        ``along``: store puts (``BlockCounts.counting``) written first or in the same batch."""
        return self._open().exact_or_add(operator.index(digest), key, along=along)

    def exact_owner(self, digest: int) -> str | None:
        """The key stored under ``digest`` by ``exact_or_add``, or None; adds nothing."""
        return self._open().exact_owner(operator.index(digest))

    def discard_exact(self, digest: int, key: str) -> bool:
        """Undo ``exact_or_add`` (its item was dropped later); False if not ``key``'s."""
        return self._open().discard_exact(operator.index(digest), key)

    @property
    def blocks(self) -> BlockCounts:
        """How many stored pages of each host carry each block (its learned template)."""
        self._open()
        return self._blocks

    def verify(self, progress: Report | None = None) -> Verification:
        """Check that every document is in every table and no entry is orphaned;
        ``progress`` is handed a line now and then on a big store."""
        return self._open().verify(progress)

    def repair(self, progress: Report | None = None) -> Repaired:
        """Re-validate every content entry and fix the tables (see ``PermutedIndex.repair``)."""
        return self._open().repair(progress=progress)

    def stored_companion(self, namespace: bytes) -> PermutedIndex | None:
        """The companion index under ``namespace`` as it was recorded, or None if never used."""
        raw = self._open().store.get(namespace + keyspace.DESIGN)
        if raw is None:
            return None
        try:
            stored = json.loads(raw)
            design = TableDesign(stored["max_distance"], stored["blocks"])
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreDamagedError(
                f"{self.location} has an unreadable {namespace!r} design ({exc})"
            ) from None
        core = self._open()
        return PermutedIndex(core.store, design, namespace, table_memory=core.table_memory)

    def companion(
        self, namespace: bytes, max_distance: int, expected_size: int = DEFAULT_EXPECTED_SIZE
    ) -> PermutedIndex:
        """Another permuted index in this store under ``namespace`` (e.g. URL fingerprints).

        Its table design is recorded on first use; asking again with another
        ``max_distance`` raises ``StoreMismatchError``. It lives as long as this index.
        """
        if namespace not in keyspace.COMPANIONS:
            raise ValueError(
                f"namespace {namespace!r} is not a companion index's; declare it in keyspace.py"
            )
        core = self._open()
        design = choose_design(max_distance, expected_size)
        record_key = namespace + keyspace.DESIGN
        asked = {"max_distance": design.max_distance, "blocks": design.blocks}
        # Fetches may be recorded as marks (index/marks.py): earlier versions, which compare
        # this record whole, refuse it rather than miss those fetches.
        recorded = json.dumps({**asked, MARKS_FIELD: True}).encode()
        with core.lock:
            raw = core.store.get(record_key)
            if raw is None:
                core.store.write({record_key: recorded})
            else:
                stored = json.loads(raw)
                differing: dict[str, tuple[object, object]] = {
                    f"{namespace.decode('latin-1')}.{name}": (stored.get(name), value)
                    for name, value in asked.items()
                    if stored.get(name) != value
                }
                if differing:
                    raise StoreMismatchError(self.location, differing)
                if not stored.get(MARKS_FIELD):
                    core.store.write({record_key: recorded})
                design = TableDesign(stored["max_distance"], stored["blocks"])
        return PermutedIndex(core.store, design, namespace, table_memory=core.table_memory)

    def __len__(self) -> int:
        return len(self._open())

    @property
    def skipped_entries(self) -> int:
        """Entries skipped since opening: table entries too broken to read (a shared store
        may hold keys nobody wrote), plus keys a bounded Redis bucket had no room for."""
        core = self._open()
        return core.malformed + int(getattr(core.store, "overflow", 0))

    def close(self) -> None:
        if self._core is not None:
            self._core = None
            self._release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
