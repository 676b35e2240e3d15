"""What is stored with a page's SimHash: its sketch, its blocks, and what its page showed
outside the text it was judged by.

A page's HTML is judged by its main content (``maincontent.py``); the extractor leaves out
captions, embedded posts and pull quotes, which a reprint lays out as paragraphs of its own
and its extractor keeps. The stored page still showed them: the exact hashes of the longest
``MAX_OUTSIDE`` blocks of the rest of its text (``outside``) let a comparison tell a line
the original showed from a line the reprint adds (``judges/confirmation.py``).

Layout: the sketch (``SKETCH_BYTES``), the blocks (``blocks.PackedBlocks``), then, when
the page had text outside its content, a uint16 count and that many uint64 hashes,
little-endian, the longest blocks first (a page's host counts its first
``templates.SHOWN_COUNTED``). Payloads stored before the outside hashes end with the
blocks; a payload read by a version before them is taken as one stored before blocks were
kept (compared by similarity alone), never misread.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from scrapy_simdedup.fingerprint.packedblocks import PackedBlocks, packed_size
from scrapy_simdedup.fingerprint.sketch import SKETCH_BYTES, Sketch

MAX_OUTSIDE = 128
"""Hashes kept of a page's text outside its content: 1 KiB at most, beside its blocks."""
_COUNT = struct.Struct("<H")
_HASH = struct.Struct("<Q")


def payload_of(sketch: Sketch | None, blocks: PackedBlocks, outside: tuple[int, ...] = ()) -> bytes:
    """The stored payload; none without a sketch (a text too short for one)."""
    if sketch is None:
        return b""
    trailer = b""
    if outside:
        kept = outside[:MAX_OUTSIDE]
        trailer = _COUNT.pack(len(kept)) + b"".join(_HASH.pack(h) for h in kept)
    return sketch.to_bytes() + blocks.raw + trailer


class StoredPayload(NamedTuple):
    """A payload's parts, as bytes for the sketch and the blocks (read when needed)."""

    sketch: bytes
    blocks: bytes
    outside: frozenset[int]


def split_payload(raw: bytes) -> StoredPayload:
    """The parts of a stored payload; a malformed one gives its bytes as blocks (which
    ``PackedBlocks.of`` then refuses) and no outside hashes."""
    sketch, rest = raw[:SKETCH_BYTES], raw[SKETCH_BYTES:]
    end, hashes = _outside(rest)
    return StoredPayload(sketch, rest[:end], frozenset(hashes))


def outside_of(raw: bytes) -> tuple[int, ...]:
    """A payload's outside hashes in the order they were given (``payload_of``): the
    longest blocks first."""
    return _outside(raw[SKETCH_BYTES:])[1]


def _outside(rest: bytes) -> tuple[int, tuple[int, ...]]:
    """Where the blocks of a payload's ``rest`` (all but its sketch) end, and the outside
    hashes after them (none when malformed: then the blocks run to the end)."""
    end = packed_size(rest)
    if end is None or end == len(rest):
        return len(rest), ()
    trailer = rest[end:]
    if len(trailer) < _COUNT.size:
        return len(rest), ()
    (count,) = _COUNT.unpack_from(trailer)
    if len(trailer) != _COUNT.size + count * _HASH.size:
        return len(rest), ()
    return end, tuple(h for (h,) in _HASH.iter_unpack(trailer[_COUNT.size :]))
