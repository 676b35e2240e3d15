"""Stores behind the index, one module each; ``open_store`` picks one by name."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from scrapy_simdedup.index.location import STORE_KINDS

if TYPE_CHECKING:
    from scrapy_simdedup.index.stores.base import Store


def open_store(
    name: str, *, path: str | os.PathLike[str] | None = None, **options: int | bool | str
) -> Store:
    """Open a store by name: ``leveldb`` (needs ``path``), ``memory``, or ``redis`` (needs
    ``url`` and ``prefix``; install ``scrapy-simdedup[redis]``)."""
    if name == "memory":
        from scrapy_simdedup.index.stores.memory import MemoryStore

        return MemoryStore(**options)  # type: ignore[arg-type]
    if name == "leveldb":
        if path is None:
            raise ValueError("the leveldb store needs a folder: open_store('leveldb', path=...)")
        from scrapy_simdedup.index.stores.leveldb import LevelDBStore

        return LevelDBStore(path, **options)  # type: ignore[arg-type]
    if name == "redis":
        try:
            from scrapy_simdedup.index.stores.redis_sharded import open_redis
        except ImportError:
            raise ValueError(
                "the redis store needs redis-py: pip install 'scrapy-simdedup[redis]'"
            ) from None
        return open_redis(**options)  # type: ignore[arg-type]
    raise ValueError(f"unknown store {name!r}; choose one of {', '.join(STORE_KINDS)}")
