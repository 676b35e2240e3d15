"""A text's fingerprints in one call that never raises: SimHash when reliable, else exact."""

from __future__ import annotations

from dataclasses import dataclass

import mmh3

from scrapy_simdedup.fingerprint.simhash import (
    DEFAULT_SEED,
    DEFAULT_TOKENIZER,
    MIN_FEATURES,
    feature_hashes,
    simhash_of_hashes,
    simhash_weights,
)
from scrapy_simdedup.fingerprint.sketch import Sketch, sketch_token_hashes
from scrapy_simdedup.fingerprint.tokens import Tokenizer


@dataclass(frozen=True)
class TextFingerprint:
    """What a caller needs to decide whether a text was seen before.

    ``simhash`` is None when the text has fewer than ``MIN_FEATURES`` features; compare such
    texts by ``exact`` (a 64-bit hash of the whitespace-normalised text) only, so two
    different tiny pages are never near-duplicates. ``sketch`` (when asked for) confirms a
    SimHash match with an independent signal.
    """

    simhash: int | None
    exact: int
    features: int
    sketch: Sketch | None = None

    @property
    def too_short(self) -> bool:
        return self.simhash is None


def exact_hash(text: str, seed: int = DEFAULT_SEED) -> int:
    """64-bit hash of ``text`` with its whitespace runs made single spaces, ends stripped."""
    normalised = " ".join(text.split())  # str.split() and re's \s agree on whitespace
    return mmh3.hash64(normalised.encode("utf-8", "surrogatepass"), seed, signed=False)[0]


def fingerprint_text(
    text: str,
    *,
    tokenizer: Tokenizer = DEFAULT_TOKENIZER,
    seed: int = DEFAULT_SEED,
    with_sketch: bool = False,
    exact: int | None = None,
) -> TextFingerprint:
    """Fingerprint any ``str`` (empty, NULs, lone surrogates included) without raising.

    ``exact``: the text's ``exact_hash`` under ``seed``, when the caller already made it.
    """
    if exact is None:
        exact = exact_hash(text, seed)
    if not with_sketch:
        weights = tokenizer.weights(text)
        fingerprint = simhash_weights(weights, seed=seed) if len(weights) >= MIN_FEATURES else None
        return TextFingerprint(fingerprint, exact, len(weights))
    # Tokens are cut and hashed once, for both the SimHash and the sketch.
    tokens = tokenizer.tokens(text)
    weights = tokenizer.weigh(tokens)
    features = list(weights)
    hashes = feature_hashes(features, seed)
    sketch = sketch_token_hashes(tokens, features, hashes)
    fingerprint = (
        simhash_of_hashes(hashes, weights.values()) if len(weights) >= MIN_FEATURES else None
    )
    return TextFingerprint(fingerprint, exact, len(weights), sketch)
