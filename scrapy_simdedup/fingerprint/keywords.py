"""Keyword fingerprint (seed 002): a hash of a text's top-N keywords.

Two texts get the same value exactly when the same N features weigh most, so it tolerates
edits outside the keywords (a new editor line, a changed sentence) but, unlike SimHash, has
no notion of distance: compare for equality. Keywords are ranked by weight, ties broken by
the feature itself so the result never depends on dict order, then sorted alphabetically
(``ordered=False``, the default) or kept in rank order before hashing.
"""

from __future__ import annotations

import mmh3

from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.simhash import DEFAULT_SEED
from scrapy_simdedup.fingerprint.tokens import Tokenizer

DEFAULT_KEYWORD_TOKENIZER = Tokenizer(weighting="idf")
_SEPARATOR = "\x1f"  # ASCII unit separator: cannot occur inside a feature


def top_keywords(
    text: str, n: int = 10, *, tokenizer: Tokenizer = DEFAULT_KEYWORD_TOKENIZER
) -> list[str]:
    """The ``n`` heaviest features of ``text``, heaviest first."""
    weights = tokenizer.weights(text)
    ranked = sorted(weights.items(), key=lambda item: (-item[1], item[0]))
    return [feature for feature, _ in ranked[:n]]


def keyword_fingerprint(
    text: str,
    *,
    top_n: int = 10,
    ordered: bool = False,
    tokenizer: Tokenizer = DEFAULT_KEYWORD_TOKENIZER,
    seed: int = DEFAULT_SEED,
) -> int:
    """64-bit hash of the top ``top_n`` keywords; ``TextTooShortError`` below ``2 * top_n``."""
    if top_n < 1:
        raise ValueError(f"top_n must be at least 1, got {top_n!r}")
    keywords = top_keywords(text, top_n * 2, tokenizer=tokenizer)
    if len(keywords) < top_n * 2:
        # With fewer candidates than twice N, "top N" is most of the text: not a summary.
        raise TextTooShortError(len(keywords), top_n * 2, what="keyword fingerprint")
    chosen = keywords[:top_n] if ordered else sorted(keywords[:top_n])
    joined = _SEPARATOR.join(chosen).encode("utf-8", "surrogatepass")
    return mmh3.hash64(joined, seed, signed=False)[0]
