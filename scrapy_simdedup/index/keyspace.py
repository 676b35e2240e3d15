"""Every key prefix of a store, in one place.

One store holds several kinds of records side by side, each found by the first byte of its
key. A permuted index writes under its namespace (the content index's is empty, the URL
index's is ``URL_INDEX``); everything else is a top-level kind. A new kind takes a free byte
here, so no two kinds can ever read each other's keys.
"""

from __future__ import annotations

# -- inside a permuted index's namespace ---------------------------------------------------
TABLE = b"t"
"""Permuted table ``i``: ``TABLE + bytes([i]) + permuted SimHash + key``."""
DOCUMENT = b"d"
"""A page by key: its SimHash and payload (the sketch)."""
SENTENCE = b"s"
"""A sentence hash: the key of the first page that had it. The same key followed by
``SECOND_OWNER``: the first page that had it beside another (a page whose sentences a
longer page owns already still owns them there, so its own far reprint meets it)."""
SECOND_OWNER = b"\x01"
EXACT = b"x"
"""An exact-text hash: the key of the first page with that text."""
MARK = b"f"
"""A URL recorded as fetched without a fingerprint (``FetchedMarks``, adaptive mode)."""
PENDING = b"p"
"""A page being added to a sharded Redis store, not settled yet: its sequence number, when
it began and the pages that must be settled before it (``stores/redis_sharded.py``)."""
RECORD = b"\x00"
"""Bookkeeping records below."""
COUNT = RECORD + b"count"
MARK_COUNT = RECORD + b"marks"
DESIGN = RECORD + b"design"
"""A companion index's table design, recorded at its first use."""

# -- top level -------------------------------------------------------------------------------
PARAMS = RECORD + b"params"
"""What the store was created with (``IndexParams``), checked on every open."""
BLOCKS = b"b"
"""Template block counts per host (``BlockCounts``)."""
RULES = b"L"
"""The URL rules learned from verdicts (``UrlLearner``)."""
RULE_NEWS = b"N"
"""Rules in force or weakened on a running worker, numbered: ``RULE_NEWS + number:8``
(``RuleNews``; only on a store several workers share)."""
RULE_NEWS_COUNT = RECORD + b"rule-news"
"""The number of the latest ``RULE_NEWS`` entry."""
PARKED = b"P"
"""Requests the URL middleware skipped and has not settled (``ParkingLot``)."""
WORKERS = b"W"
"""A running worker's heartbeat on a shared store: ``WORKERS + worker id`` -> a count it
raises every few seconds (``Heartbeats``)."""
MIRROR_CHOICE = b"M"
"""Which host of a mirror pair is the copy, chosen once for every worker:
``MIRROR_CHOICE + host + 0x00 + host`` (sorted) -> the copy (``mirrorchoice.py``)."""
CRAWL = RECORD + b"crawl"
"""The crawl the workers running on a shared store belong to now: its id (``CrawlRecord``)."""
CRAWL_MARKS = b"c"
"""What happened in one crawl on a shared store: ``CRAWL_MARKS + crawl id + 0x00 + what
(one byte) + URL`` (``CrawlRecord``)."""
URL_INDEX = b"u"
"""The namespace of the URL middleware's permuted index of fetched URLs."""

COMPANIONS = (URL_INDEX,)
"""The namespaces a store may hold companion indexes under."""
RESERVED = (
    TABLE, DOCUMENT, SENTENCE, EXACT, MARK, PENDING, RECORD,
    BLOCKS, RULES, RULE_NEWS, PARKED, WORKERS, CRAWL_MARKS, MIRROR_CHOICE,
)  # fmt: skip
"""The first bytes taken by the content index and the top-level kinds."""


def end(prefix: bytes) -> bytes:
    """The first key after every key starting with ``prefix``: a scan's upper bound."""
    trimmed = prefix.rstrip(b"\xff")
    if not trimmed:
        raise ValueError(f"{prefix!r} has no upper bound")
    return trimmed[:-1] + bytes([trimmed[-1] + 1])
