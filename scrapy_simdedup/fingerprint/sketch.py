"""A second, independent signal that confirms a SimHash match before a page is dropped.

SimHash compares weighted word counts; two different pages can agree on them by chance
(short "hub" pages) or because they share a template (Henzinger, SIGIR 2006, found SimHash
weakest on pages of one site). The sketch looks at word order instead: a bottom-k MinHash
of the text's overlapping 3-token shingles (the ``SKETCH_SIZE`` smallest 32-bit shingle
hashes, so Jaccard similarity is estimated to about +-0.06) and the token count. A match is
confirmed only when the estimated Jaccard similarity is at least ``min_similarity`` and the
shorter text has at least ``MIN_LENGTH_RATIO`` of the longer one's tokens: a page that
contains another page and a third more (a chapter and one of its sections) is no copy.

Serialised as ``SKETCH_SIZE`` little-endian uint32 values (padded with 0xFFFFFFFF) and a
uint32 token count: 260 bytes, stored with the fingerprint.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.fingerprint.simhash import feature_hashes

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

SKETCH_SIZE = 64
MIN_LENGTH_RATIO = 0.8
SHINGLE_TOKENS = 3
SKETCH_BYTES = 4 * (SKETCH_SIZE + 1)
_SHINGLE_MULTIPLIER = 0x9E3779B97F4A7C15
_MIX = 0xBF58476D1CE4E5B9
EMPTY = 0xFFFFFFFF
_SERIALISED = struct.Struct(f"<{SKETCH_SIZE + 1}I")


@dataclass(frozen=True)
class Sketch:
    """The smallest hashes of a text's token shingles, and its token count."""

    minimums: tuple[int, ...]
    tokens: int

    def to_bytes(self) -> bytes:
        return _SERIALISED.pack(*self.minimums, self.tokens)

    @classmethod
    def from_bytes(cls, raw: bytes) -> Sketch | None:
        """The sketch in ``raw``; None when ``raw`` is not one (absent or malformed)."""
        if len(raw) != SKETCH_BYTES:
            return None
        *minimums, tokens = _SERIALISED.unpack(raw)
        return cls(tuple(minimums), tokens)

    def similarity(self, other: Sketch) -> float:
        """Estimated Jaccard similarity of the two shingle sets (bottom-k estimator)."""
        mine = set(self.minimums)
        mine.discard(EMPTY)
        theirs = set(other.minimums)
        theirs.discard(EMPTY)
        union = sorted(mine | theirs)[:SKETCH_SIZE]
        if not union:
            return 1.0
        return len(mine.intersection(union, theirs)) / len(union)

    def confirms(
        self, other: Sketch, min_similarity: float, similarity: float | None = None
    ) -> bool:
        """True when ``other`` looks like a copy: similar shingles and comparable length.
        ``similarity``: ``self.similarity(other)``, when the caller has it (a confirmation
        made it twice)."""
        longer, shorter = max(self.tokens, other.tokens), min(self.tokens, other.tokens)
        if shorter < MIN_LENGTH_RATIO * longer:
            return False
        if similarity is None:
            similarity = self.similarity(other)
        return similarity >= min_similarity


def sketch_tokens(tokens: Sequence[str], seed: int) -> Sketch:
    """The sketch of a token sequence; token hashes use the index's ``seed``."""
    distinct = list(dict.fromkeys(tokens))
    return sketch_token_hashes(tokens, distinct, feature_hashes(distinct, seed))


def sketch_token_hashes(
    tokens: Sequence[str], distinct: Sequence[str], hashes: npt.NDArray[np.uint64]
) -> Sketch:
    """The sketch from hashes already made for the distinct tokens (SimHash's features).

    A shingle's hash combines its tokens' hashes (``h0 * A + h1 * B + h2``, modulo 2**64),
    so no shingle string is built or hashed.
    """
    import numpy as np  # here, not above: see ``simhash.feature_hashes``

    if not tokens:
        return Sketch((EMPTY,) * SKETCH_SIZE, 0)
    position = dict(zip(distinct, range(len(distinct)), strict=True))
    at = np.fromiter(map(position.__getitem__, tokens), dtype=np.intp, count=len(tokens))
    per_token = hashes[at]
    width = min(SHINGLE_TOKENS, len(tokens))
    count = len(tokens) - width + 1
    shingles = np.zeros(count, dtype=np.uint64)
    multiplier = np.uint64(_SHINGLE_MULTIPLIER)
    for offset in range(width):
        shingles = shingles * multiplier + per_token[offset : offset + count]
    mixed = (shingles ^ (shingles >> np.uint64(29))) * np.uint64(_MIX)
    ordered = np.sort(mixed >> np.uint64(32))
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    values = ordered[first][:SKETCH_SIZE].tolist()  # the smallest distinct values
    padding = (EMPTY,) * (SKETCH_SIZE - len(values))
    return Sketch((*values, *padding), len(tokens))
