"""64-bit SimHash of weighted features, and how far apart two fingerprints are.

Charikar's SimHash as used by Manku, Jain & Das Sarma ("Detecting Near-Duplicates for Web
Crawling", WWW 2007): every feature is hashed to 64 bits; each bit of the fingerprint is the
sign of the weighted vote of all features (+weight where the feature's bit is 1, -weight where
it is 0). Similar texts share most features and so most votes: at f=64, pages within k=3 bits
are near-duplicates.

Feature hashes are ``mmh3.hash64`` of the feature's UTF-8 bytes with a 32-bit ``seed`` (never
Python's ``hash()``, which changes between processes, and never a ``str`` into mmh3, which
crashes on a lone surrogate). Fingerprints are comparable only under the same seed and
tokenizer; an index stores both and checks them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mmh3

from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.tokens import Tokenizer

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    import numpy as np
    import numpy.typing as npt

FINGERPRINT_BITS = 64
DEFAULT_SEED = 0
MIN_FEATURES = 16
"""Fewer distinct weighted features than this and ``simhash`` refuses: a handful of features
decide every bit, so two different short texts can agree by chance."""

DEFAULT_TOKENIZER = Tokenizer()


def feature_hash(feature: str, seed: int = DEFAULT_SEED) -> int:
    """The unsigned 64-bit hash of one feature (UTF-8 bytes; lone surrogates pass through)."""
    return mmh3.hash64(feature.encode("utf-8", "surrogatepass"), seed, signed=False)[0]


MAX_REMEMBERED_HASHES = 1 << 18
"""Feature hashes remembered per seed: a language's vocabulary, hashed once instead of once
per page (a page's words were most of its fingerprinting time). Beyond, they are forgotten
and hashed afresh; about 40 MB at most."""


class _Hashes(dict[str, int]):
    """``feature -> feature_hash(feature, seed)``, each worked out on first use."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed

    def __missing__(self, feature: str) -> int:
        if len(self) >= MAX_REMEMBERED_HASHES:
            self.clear()
        value = self[feature] = feature_hash(feature, self.seed)
        return value


_remembered: dict[int, _Hashes] = {}


def feature_hashes(features: Iterable[str], seed: int = DEFAULT_SEED) -> npt.NDArray[np.uint64]:
    """``feature_hash`` of many features at once.

    numpy is imported by the functions that make fingerprints, not by their modules: the
    crawl's process, whose helper makes them, only reads fingerprints, and never loads it
    (its import time and the objects the garbage collector would walk on every full
    collection of a crawl's process)."""
    import numpy as np

    known = _remembered.get(seed)
    if known is None:
        if len(_remembered) >= 4:  # a store's seed, and a test's or a command's
            _remembered.clear()
        known = _remembered[seed] = _Hashes(seed)
    return np.fromiter(map(known.__getitem__, features), dtype=np.uint64)


def simhash_weights(weights: Mapping[str, float], *, seed: int = DEFAULT_SEED) -> int:
    """SimHash of ``feature -> weight``; 0 for no features. The vote is one matrix product."""
    if not weights:
        return 0
    return simhash_of_hashes(feature_hashes(weights, seed), weights.values())


def simhash_of_hashes(hashes: npt.NDArray[np.uint64], weights: Iterable[float]) -> int:
    """SimHash of features already hashed (``feature_hashes``), with their weights in order."""
    import numpy as np  # see feature_hashes

    values = np.fromiter(weights, dtype=np.float64, count=len(hashes))
    # Row i holds feature i's 64 bits, least significant first.
    bits = np.unpackbits(
        hashes.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
    )
    # vote_j = sum_i w_i * (+1 if bit_ij else -1) = 2 * (w @ bits)_j - sum(w)
    votes = 2.0 * (values @ bits) - values.sum()
    packed = np.packbits(votes > 0, bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def simhash(
    text: str, *, tokenizer: Tokenizer = DEFAULT_TOKENIZER, seed: int = DEFAULT_SEED
) -> int:
    """64-bit SimHash of ``text``.

    Raises ``TextTooShortError`` when the text has fewer than ``MIN_FEATURES`` distinct
    weighted features; use ``fingerprint_text`` for a result that never raises.
    """
    weights = tokenizer.weights(text)
    if len(weights) < MIN_FEATURES:
        raise TextTooShortError(len(weights), MIN_FEATURES)
    return simhash_weights(weights, seed=seed)


def hamming_distance(a: int, b: int) -> int:
    """How many of the 64 bits differ."""
    return (a ^ b).bit_count()


def similarity(a: int, b: int) -> float:
    """Seed 000's likeness: 1.0 for equal fingerprints, 0.0 when every bit differs."""
    return 1.0 - hamming_distance(a, b) / FINGERPRINT_BITS
