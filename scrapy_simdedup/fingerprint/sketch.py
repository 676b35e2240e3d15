"""A second, independent signal that confirms a SimHash match before a page is dropped.

SimHash compares weighted word counts; two different pages can agree on them by chance
(short "hub" pages) or because they share a template (Henzinger, SIGIR 2006, found SimHash
weakest on pages of one site). The sketch looks at word order instead: a MinHash of the
text's overlapping 3-token shingles (``PERMUTATIONS`` 32-bit minimums, so Jaccard
similarity is estimated to about +-0.06) and the token count. A match is confirmed only when
the estimated shingle Jaccard similarity is at least ``min_similarity`` and the shorter text
has at least ``MIN_LENGTH_RATIO`` of the longer one's tokens: a page that contains another
page and a third more (a chapter and one of its sections) is not its copy.

Serialised as ``PERMUTATIONS`` little-endian uint32 minimums followed by a uint32 token
count: 260 bytes, stored with the fingerprint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scrapy_simdedup.fingerprint.simhash import feature_hashes

PERMUTATIONS = 64
MIN_LENGTH_RATIO = 0.8
SHINGLE_TOKENS = 3
SKETCH_BYTES = 4 * (PERMUTATIONS + 1)
_MULTIPLIERS = np.random.default_rng(20070508).integers(1, 2**63, PERMUTATIONS, dtype=np.uint64) | 1
_OFFSETS = np.random.default_rng(20061215).integers(0, 2**63, PERMUTATIONS, dtype=np.uint64)


@dataclass(frozen=True)
class Sketch:
    """MinHash minimums of a text's token shingles, and its token count."""

    minimums: tuple[int, ...]
    tokens: int

    def to_bytes(self) -> bytes:
        return np.array([*self.minimums, self.tokens], dtype="<u4").tobytes()

    @classmethod
    def from_bytes(cls, raw: bytes) -> Sketch | None:
        """The sketch in ``raw``; None when ``raw`` is not one (absent or malformed)."""
        if len(raw) != SKETCH_BYTES:
            return None
        values = np.frombuffer(raw, dtype="<u4").tolist()
        return cls(tuple(values[:-1]), values[-1])

    def similarity(self, other: Sketch) -> float:
        """Estimated Jaccard similarity of the two shingle sets."""
        same = sum(a == b for a, b in zip(self.minimums, other.minimums, strict=True))
        return same / PERMUTATIONS

    def confirms(self, other: Sketch, min_similarity: float) -> bool:
        """True when ``other`` looks like a copy: similar shingles and comparable length."""
        longer, shorter = max(self.tokens, other.tokens), min(self.tokens, other.tokens)
        return shorter >= MIN_LENGTH_RATIO * longer and self.similarity(other) >= min_similarity


def sketch_tokens(tokens: Sequence[str], seed: int) -> Sketch:
    """The sketch of a token sequence; feature hashes use the index's ``seed``."""
    width = min(SHINGLE_TOKENS, len(tokens))
    shingles = {" ".join(tokens[i : i + width]) for i in range(len(tokens) - width + 1)}
    if not shingles:
        return Sketch((0xFFFFFFFF,) * PERMUTATIONS, 0)
    hashes = feature_hashes(shingles, seed)
    # Universal hashing modulo 2**64 (numpy's uint64 wraps); the top 32 bits are the value.
    permuted = hashes[:, None] * _MULTIPLIERS[None, :] + _OFFSETS[None, :]
    minimums = (permuted >> np.uint64(32)).min(axis=0)
    return Sketch(tuple(int(m) for m in minimums), len(tokens))
