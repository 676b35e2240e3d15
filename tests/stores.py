"""Fixtures shared by the store contract and index tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.base import Store

STORE_KINDS = ["memory", "leveldb"]


@contextmanager
def opened_store(kind: str, tmp_path: Path) -> Iterator[Store]:
    store = open_store(kind, path=tmp_path / "db") if kind == "leveldb" else open_store(kind)
    try:
        yield store
    finally:
        store.close()


def index_location(kind: str, tmp_path: Path) -> str:
    return str(tmp_path / "index") if kind == "leveldb" else "memory"
