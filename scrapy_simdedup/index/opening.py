"""``open_index``: the public way to a SimHash index, one shared handle per folder.

LevelDB allows a single open handle per folder, even within one process, so every caller
asking for the same folder shares one store; it is closed when the last ``SimHashIndex``
on it is closed.
"""

from __future__ import annotations

import json
import operator
import os
import secrets
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import StoreDamagedError, StoreError, StoreMismatchError
from scrapy_simdedup.fingerprint.simhash import DEFAULT_TOKENIZER
from scrapy_simdedup.fingerprint.textprint import TextFingerprint, fingerprint_text
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from scrapy_simdedup.index.params import PARAMS_KEY, IndexParams
from scrapy_simdedup.index.permuted import (
    Match,
    PermutedIndex,
    QueryOrAdd,
    Repaired,
    Verification,
)
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.leveldb import in_use as leveldb_in_use
from scrapy_simdedup.index.stores.leveldb import is_store
from scrapy_simdedup.index.stores.memory import DEFAULT_MAX_KEYS
from scrapy_simdedup.index.tables import TableDesign, choose_design

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from types import TracebackType

    from typing_extensions import Self

    from scrapy_simdedup.index.stores.base import Store

DEFAULT_EXPECTED_SIZE = 10_000_000
DEFAULT_REDIS_PREFIX = "simdedup"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
_RESERVED_HEADS = (b"t", b"d", b"s", b"x", b"\x00", b"L")  # content keys, learned rules


@dataclass
class _Shared:
    core: PermutedIndex
    params: IndexParams
    users: int


_shared: dict[str, _Shared] = {}
_shared_lock = threading.Lock()


def open_index(
    location: str | os.PathLike[str],
    *,
    max_distance: int = 3,
    expected_size: int = DEFAULT_EXPECTED_SIZE,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
    seed: int | None = None,
    sync: bool = False,
    memory_limit: int = DEFAULT_MAX_KEYS,
    prefix: str = DEFAULT_REDIS_PREFIX,
    blocks: int | None = None,
) -> SimHashIndex:
    """Open (or create) a SimHash index.

    ``location`` is a folder (LevelDB; created if missing, refused if it holds anything
    else), ``"memory"`` (private to this call), or a ``redis://``, ``rediss://`` or
    ``unix://`` URL (shared by every process using it, keys under ``prefix``).
    ``max_distance`` is k, 0 to 8; ``expected_size`` picks the table design (see
    ``choose_design``). ``seed`` is drawn at random for a new store and read back later;
    pass it only to insist on a value.
    ``sync=True`` flushes every add to disk (survives power loss, not just a crash).
    ``blocks`` overrides the design's block count (``open_stored_index`` passes the stored one).

    Raises ``StoreMismatchError`` when the store was made with other parameters,
    ``StoreLockedError``, ``ForeignFolderError`` or ``StoreDamagedError`` otherwise.
    """
    design = choose_design(max_distance, expected_size)
    if blocks is not None:
        design = TableDesign(max_distance, blocks)
    asked = IndexParams(
        max_distance, design.blocks, tokenizer.name, seed if seed is not None else 0
    )
    if seed is not None and not 0 <= seed < 2**32:
        raise ValueError(f"seed must be a 32-bit unsigned int, got {seed!r}")
    if str(location) == "memory":
        store = open_store("memory", max_keys=memory_limit)
        core = PermutedIndex(store, design)
        return SimHashIndex(core, _establish(store, asked, seed), tokenizer, store.close)
    if str(location).startswith(REDIS_SCHEMES):
        store = open_store("redis", url=str(location), prefix=prefix)
        try:
            params = _establish(store, asked, seed)
        except BaseException:
            store.close()
            raise
        return SimHashIndex(PermutedIndex(store, design), params, tokenizer, store.close)
    folder = _folder(location)
    with _shared_lock:
        shared = _shared.get(folder)
        if shared is None:
            store = open_store("leveldb", path=folder, sync=sync)
            try:
                params = _establish(store, asked, seed)
            except BaseException:
                store.close()
                raise
            shared = _shared[folder] = _Shared(PermutedIndex(store, design), params, 0)
        else:
            _check(folder, shared.params, asked, seed)
        shared.users += 1
    return SimHashIndex(shared.core, shared.params, tokenizer, lambda: _release(folder))


def open_stored_index(
    location: str | os.PathLike[str], *, prefix: str = DEFAULT_REDIS_PREFIX
) -> SimHashIndex:
    """Open an index that exists, with the parameters it was made with (for tools).

    Never creates a store: raises ``StoreError`` when there is none at ``location``.
    """
    params = stored_params(location, prefix=prefix)
    return open_index(
        location,
        max_distance=params.max_distance,
        blocks=params.blocks,
        tokenizer=Tokenizer.from_name(params.tokenizer),
        seed=params.seed,
        prefix=prefix,
    )


def stored_params(
    location: str | os.PathLike[str], *, prefix: str = DEFAULT_REDIS_PREFIX
) -> IndexParams:
    """The parameters an existing index was made with; ``StoreError`` when there is none."""
    text = os.fspath(location)
    if text.startswith(REDIS_SCHEMES):
        store = open_store("redis", url=text, prefix=prefix)
    else:
        folder = _folder(text)
        if not is_store(folder):
            raise StoreError(f"there is no scrapy-simdedup index at {folder}")
        with _shared_lock:
            shared = _shared.get(folder)
        if shared is not None:
            return shared.params
        store = open_store("leveldb", path=folder)
    try:
        raw = store.get(PARAMS_KEY)
    finally:
        store.close()
    if raw is None:
        raise StoreError(f"there is no scrapy-simdedup index at {store.location}")
    try:
        return IndexParams.from_json(raw)
    except (ValueError, TypeError) as exc:
        raise StoreDamagedError(f"{store.location} has unreadable parameters ({exc})") from None


def in_use(folder: str | os.PathLike[str]) -> bool:
    """True when a process (this one included) has the LevelDB index in ``folder`` open."""
    resolved = _folder(folder)
    with _shared_lock:
        if resolved in _shared:
            return True
    return leveldb_in_use(resolved)


def _folder(location: str | os.PathLike[str]) -> str:
    text = os.fspath(location)
    if not text.strip() or "\x00" in text:
        raise ValueError(
            f"an index folder must be a non-empty path without NUL bytes, got {text!r}"
        )
    return str(Path(text).expanduser().resolve())


def _establish(store: Store, asked: IndexParams, seed: int | None) -> IndexParams:
    with store.locked():  # two workers creating one shared store agree on one seed
        return _establish_locked(store, asked, seed)


def _establish_locked(store: Store, asked: IndexParams, seed: int | None) -> IndexParams:
    raw = store.get(PARAMS_KEY)
    if raw is None:
        params = replace(asked, seed=seed if seed is not None else secrets.randbits(32))
        store.write({PARAMS_KEY: params.to_json()})
        return params
    try:
        stored = IndexParams.from_json(raw)
    except (ValueError, TypeError) as exc:
        raise StoreDamagedError(f"{store.location} has unreadable parameters ({exc})") from None
    _check(store.location, stored, asked, seed)
    return stored


def _check(location: str, stored: IndexParams, asked: IndexParams, seed: int | None) -> None:
    differences = stored.differences(asked, check_seed=seed is not None)
    if differences:
        raise StoreMismatchError(location, differences)


def _release(folder: str) -> None:
    with _shared_lock:
        shared = _shared[folder]
        shared.users -= 1
        if shared.users == 0:
            del _shared[folder]
            shared.core.store.close()


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
    ) -> None:
        self._core: PermutedIndex | None = core
        self.params = params
        self.tokenizer = tokenizer
        self.location = core.store.location
        self._release = release

    @property
    def seed(self) -> int:
        return self.params.seed

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

    def query_or_add(self, fingerprint: int, key: str, payload: bytes = b"") -> QueryOrAdd:
        """Atomically: the matches, and the document added only when there were none."""
        return self._open().query_or_add(operator.index(fingerprint), key, payload)

    def document(self, key: str) -> Match | None:
        """What is stored for ``key`` (fingerprint and payload), or None."""
        return self._open().document(key)

    def discard(self, key: str) -> bool:
        """Forget ``key``'s fingerprint (e.g. its item was dropped later); False if absent."""
        return self._open().discard(key)

    def sentence_owner(self, hashes: Iterable[int]) -> str | None:
        """nshash look-up: the first document recorded under any of ``hashes``."""
        return self._open().sentence_owner(hashes)

    def record_sentences(self, hashes: Iterable[int], key: str) -> None:
        """nshash: record ``key`` under those of ``hashes`` that no document owns yet."""
        self._open().record_sentences(hashes, key)

    def exact_or_add(self, digest: int, key: str) -> str | None:
        """Exact look-up for texts too short to fingerprint: the first key, or None if new."""
        return self._open().exact_or_add(operator.index(digest), key)

    def exact_owner(self, digest: int) -> str | None:
        return self._open().exact_owner(digest)

    def discard_exact(self, digest: int, key: str) -> bool:
        """Undo ``exact_or_add`` (its item was dropped later); False if not ``key``'s."""
        return self._open().discard_exact(operator.index(digest), key)

    def verify(self) -> Verification:
        """Check that every document is in every table and no entry is orphaned."""
        return self._open().verify()

    def repair(self) -> Repaired:
        """Re-validate every content entry and fix the tables (see ``PermutedIndex.repair``)."""
        return self._open().repair()

    def stored_companion(self, namespace: bytes) -> PermutedIndex | None:
        """The companion index under ``namespace`` as it was recorded, or None if never used."""
        raw = self._open().store.get(namespace + b"\x00design")
        if raw is None:
            return None
        try:
            stored = json.loads(raw)
            design = TableDesign(stored["max_distance"], stored["blocks"])
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreDamagedError(
                f"{self.location} has an unreadable {namespace!r} design ({exc})"
            ) from None
        return PermutedIndex(self._open().store, design, namespace=namespace)

    def companion(
        self, namespace: bytes, max_distance: int, expected_size: int = DEFAULT_EXPECTED_SIZE
    ) -> PermutedIndex:
        """Another permuted index in this store under ``namespace`` (e.g. URL fingerprints).

        Its table design is recorded on first use; asking again with another
        ``max_distance`` raises ``StoreMismatchError``. It lives as long as this index.
        """
        if not namespace or namespace[:1] in _RESERVED_HEADS:
            raise ValueError(f"namespace {namespace!r} would overlap the content index's keys")
        core = self._open()
        design = choose_design(max_distance, expected_size)
        record_key = namespace + b"\x00design"
        asked = {"max_distance": design.max_distance, "blocks": design.blocks}
        with core.lock:
            raw = core.store.get(record_key)
            if raw is None:
                core.store.write({record_key: json.dumps(asked).encode()})
            else:
                stored = json.loads(raw)
                if stored != asked:
                    raise StoreMismatchError(
                        self.location,
                        {
                            f"{namespace.decode('latin-1')}.{name}": (stored.get(name), value)
                            for name, value in asked.items()
                            if stored.get(name) != value
                        },
                    )
                design = TableDesign(stored["max_distance"], stored["blocks"])
        return PermutedIndex(core.store, design, namespace=namespace)

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
