"""Fixtures shared by the store contract and index tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.base import Store
from tests.support.redisserver import RedisServer

STORE_KINDS = ["memory", "leveldb", "redis"]
REDIS: list[RedisServer] = []  # the session's server, once a test asked for it


@contextmanager
def opened_store(kind: str, tmp_path: Path) -> Iterator[Store]:
    if kind == "leveldb":
        store = open_store(kind, path=tmp_path / "db")
    elif kind == "redis":
        REDIS[0].flush()
        store = open_store(kind, url=REDIS[0].url, prefix="contract")
    else:
        store = open_store(kind)
    try:
        yield store
    finally:
        store.close()


def index_location(kind: str, tmp_path: Path) -> str:
    """Where an index of this kind lives; a Redis is emptied first."""
    if kind == "redis":
        REDIS[0].flush()
        return REDIS[0].url
    return str(tmp_path / "index") if kind == "leveldb" else "memory"
