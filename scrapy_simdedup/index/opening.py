"""``open_index``: the public way to a SimHash index, one shared handle per folder.

LevelDB allows a single open handle per folder, even within one process, so every caller
asking for the same folder shares one store; it is closed when the last ``SimHashIndex``
on it is closed.
"""

from __future__ import annotations

import functools
import os
import secrets
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import StoreDamagedError, StoreError, StoreMismatchError
from scrapy_simdedup.fingerprint.simhash import DEFAULT_TOKENIZER
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.blockcache import BlockCache
from scrapy_simdedup.index.handle import DEFAULT_EXPECTED_SIZE, SimHashIndex
from scrapy_simdedup.index.location import DEFAULT_REDIS_PREFIX, StoreLocation
from scrapy_simdedup.index.memtables import DEFAULT_TABLE_MEMORY
from scrapy_simdedup.index.params import IndexParams
from scrapy_simdedup.index.permuted import (
    PermutedIndex,
)
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.leveldb import in_use as leveldb_in_use
from scrapy_simdedup.index.stores.leveldb import is_store
from scrapy_simdedup.index.stores.memory import DEFAULT_MAX_KEYS
from scrapy_simdedup.index.tables import TableDesign, choose_design

if TYPE_CHECKING:
    from scrapy_simdedup.index.stores.base import Store


@dataclass
class _Shared:
    core: PermutedIndex
    params: IndexParams
    users: int
    block_cache: BlockCache


_shared: dict[str, _Shared] = {}
_shared_lock = threading.Lock()


def open_index(
    location: StoreLocation | str | os.PathLike[str],
    *,
    max_distance: int = 3,
    expected_size: int = DEFAULT_EXPECTED_SIZE,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
    seed: int | None = None,
    sync: bool = False,
    memory_limit: int = DEFAULT_MAX_KEYS,
    prefix: str = DEFAULT_REDIS_PREFIX,
    blocks: int | None = None,
    table_memory: int = DEFAULT_TABLE_MEMORY,
) -> SimHashIndex:
    """Open (or create) a SimHash index.

    ``location`` is a ``StoreLocation``, or a string parsed into one: a folder (LevelDB;
    created if missing, refused if it holds anything else), ``"memory"`` (private to this
    call), or a ``redis://``, ``rediss://`` or ``unix://`` URL (shared by every process
    using it, keys under ``prefix``).
    ``max_distance`` is k, 0 to 8; ``expected_size`` picks the table design (see
    ``choose_design``). ``seed`` is drawn at random for a new store and read back later;
    pass it only to insist on a value.
    ``sync=True`` flushes every add to disk (survives power loss, not just a crash).
    ``blocks`` overrides the design's block count (``open_stored_index`` passes the stored one).
    ``table_memory``: bytes the permuted tables of a LevelDB or memory index may take in
    memory, read from the store now (``memtables.py``), 0 for none.

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
    where = StoreLocation.parse(location, prefix=prefix)
    if where.kind == "memory":
        store = open_store("memory", max_keys=memory_limit)
        core = PermutedIndex(store, design, table_memory=table_memory)
        params = _establish(store, asked, seed)
        return SimHashIndex(core, params, tokenizer, store.close, BlockCache(store))
    if where.kind == "redis":
        store = open_store("redis", url=where.address, prefix=where.prefix)
        try:
            params = _establish(store, asked, seed)
        except BaseException:
            store.close()
            raise
        return SimHashIndex(PermutedIndex(store, design), params, tokenizer, store.close)
    folder = where.address
    with _shared_lock:
        shared = _shared.get(folder)
        if shared is None:
            store = open_store("leveldb", path=folder, sync=sync)
            try:
                params = _establish(store, asked, seed)
                core = PermutedIndex(store, design, table_memory=table_memory)  # reads tables
            except BaseException:
                store.close()
                raise
            shared = _shared[folder] = _Shared(core, params, 0, BlockCache(store))
        else:
            _check(folder, shared.params, asked, seed)
        shared.users += 1
    release = functools.partial(_release, folder)
    return SimHashIndex(shared.core, shared.params, tokenizer, release, shared.block_cache)


def open_stored_index(
    location: StoreLocation | str | os.PathLike[str], *, prefix: str = DEFAULT_REDIS_PREFIX
) -> SimHashIndex:
    """Open an index that exists, with the parameters it was made with (for tools).

    Never creates a store: raises ``StoreError`` when there is none at ``location``.
    """
    where = StoreLocation.parse(location, prefix=prefix)
    params = stored_params(where)
    return open_index(
        where,
        max_distance=params.max_distance,
        blocks=params.blocks,
        tokenizer=Tokenizer.from_name(params.tokenizer),
        seed=params.seed,
    )


def stored_params(
    location: StoreLocation | str | os.PathLike[str], *, prefix: str = DEFAULT_REDIS_PREFIX
) -> IndexParams:
    """The parameters an existing index was made with; ``StoreError`` when there is none."""
    where = StoreLocation.parse(location, prefix=prefix)
    if where.kind == "memory":
        raise StoreError("a memory index lives only in the process that opened it")
    if where.kind == "redis":
        store = open_store("redis", url=where.address, prefix=where.prefix)
    else:
        folder = where.address
        if not is_store(folder):
            raise StoreError(f"there is no scrapy-simdedup index at {folder}")
        with _shared_lock:
            shared = _shared.get(folder)
        if shared is not None:
            return shared.params
        store = open_store("leveldb", path=folder)
    try:
        raw = store.get(keyspace.PARAMS)
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
    resolved = StoreLocation.folder(folder).address
    with _shared_lock:
        if resolved in _shared:
            return True
    return leveldb_in_use(resolved)


def _establish(store: Store, asked: IndexParams, seed: int | None) -> IndexParams:
    with store.locked():  # two workers creating one shared store agree on one seed
        return _establish_locked(store, asked, seed)


def _establish_locked(store: Store, asked: IndexParams, seed: int | None) -> IndexParams:
    raw = store.get(keyspace.PARAMS)
    if raw is None:
        params = replace(asked, seed=seed if seed is not None else secrets.randbits(32))
        store.write({keyspace.PARAMS: params.to_json()})
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
