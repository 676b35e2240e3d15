"""Stores behind the index, one module each; ``open_store`` picks one by name."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy_simdedup.index.stores.base import Store

STORE_NAMES = ("leveldb", "memory")


def open_store(
    name: str, *, path: str | os.PathLike[str] | None = None, **options: int | bool
) -> Store:
    """Open a store by name: ``leveldb`` (needs ``path``) or ``memory``."""
    if name == "memory":
        from scrapy_simdedup.index.stores.memory import MemoryStore

        return MemoryStore(**options)
    if name == "leveldb":
        if path is None:
            raise ValueError("the leveldb store needs a folder: open_store('leveldb', path=...)")
        from scrapy_simdedup.index.stores.leveldb import LevelDBStore

        return LevelDBStore(path, **options)  # type: ignore[arg-type]
    raise ValueError(f"unknown store {name!r}; choose one of {', '.join(STORE_NAMES)}")
