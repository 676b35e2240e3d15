"""Which shard of a sharded Redis store holds a key, so that the index grows with a cluster.

A Redis Cluster places a key by its hash tag. One tag for the whole index would put it in
one slot, on one node. A sharded store uses ``SHARDS`` tags, each a sorted set of keys and a
hash of values like the one-slot store, plus one tag for the small records (``META``). Each
key goes where the reads that need it look:

* a table entry, by its namespace, table and the top 6 bits of its permuted SimHash: every
  bucket a look-up reads (a prefix of at least 7 bits, ``tables.py``) lies in one shard;
* a page's record and its pending state (``keyspace.PENDING``), by the page's name, side by
  side, so one script can settle one against the other;
* a sentence's owners, by the sentence; an exact-text owner, a fetched-URL mark and a
  crawl's mark of a URL, by the whole key;
* everything else (counts, rules, parked requests, heartbeats, template counts), in
  ``META``, so a range over one of those kinds is read in one place.

A range that may span shards is read from every shard and merged in key order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from zlib import crc32

from scrapy_simdedup.index import keyspace

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

SHARDS = 64
"""Tags a sharded store spreads over: the most cluster nodes its index can grow onto."""
META = SHARDS
"""The shard number of the small records."""
_BY_NAME = (keyspace.DOCUMENT, keyspace.PENDING)
_BY_KEY = (keyspace.SENTENCE, keyspace.EXACT, keyspace.MARK, keyspace.CRAWL_MARKS)


def split(key: bytes) -> tuple[bytes, bytes]:
    """(namespace, the rest): a companion index's keys start with its namespace."""
    for namespace in keyspace.COMPANIONS:
        if key.startswith(namespace):
            return namespace, key[len(namespace) :]
    return b"", key


def shard_of(key: bytes) -> int:
    """The shard holding ``key``: ``0 .. SHARDS - 1``, or ``META``."""
    namespace, rest = split(key)
    kind = rest[:1]
    if kind == keyspace.TABLE and len(rest) >= 3:
        return crc32(namespace + rest[:2] + bytes([rest[2] >> 2])) % SHARDS
    if kind in _BY_NAME:
        return crc32(namespace + keyspace.DOCUMENT + rest[1:]) % SHARDS
    if kind == keyspace.SENTENCE:  # both owners of a sentence side by side
        return crc32(namespace + rest[:9]) % SHARDS
    if kind in _BY_KEY:
        return crc32(key) % SHARDS
    return META


def shards_of_range(start: bytes, stop: bytes) -> list[int]:
    """The shards that may hold a key in ``[start, stop)``: one for a table bucket or a range
    within one kind of small record, every shard otherwise."""
    namespace, rest = split(start)
    stop_namespace, stop_rest = split(stop)
    kind = rest[:1]
    if kind == keyspace.TABLE and namespace == stop_namespace and _one_bucket(rest, stop_rest):
        return [shard_of(start)]
    small = kind and kind != keyspace.TABLE and kind not in _BY_NAME + _BY_KEY
    if small and stop <= namespace + keyspace.end(kind):
        return [META]
    return [*range(SHARDS), META]


def _one_bucket(start: bytes, stop: bytes) -> bool:
    """Whether every table key in ``[start, stop)`` has ``start``'s table and top 6 bits."""
    return (
        len(start) >= 3
        and len(stop) >= 3
        and start[:2] == stop[:2]
        and (start[2] >> 2 == stop[2] >> 2)
    )


def grouped(
    puts: Mapping[bytes, bytes], deletes: Iterable[bytes]
) -> dict[int, tuple[dict[bytes, bytes], list[bytes]]]:
    """Puts and deletes by shard."""
    by_shard: dict[int, tuple[dict[bytes, bytes], list[bytes]]] = {}
    for key, value in puts.items():
        by_shard.setdefault(shard_of(key), ({}, []))[0][key] = value
    for key in deletes:
        by_shard.setdefault(shard_of(key), ({}, []))[1].append(key)
    return by_shard
