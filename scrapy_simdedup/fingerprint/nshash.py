"""nshash (seed 004): hashes of the n longest sentences; sharing any one means "same story".

Reprinted news is copied almost whole, so at least one of its longest sentences survives a
new title, an editor line or a few changed characters. A document's fingerprint is the set of
64-bit hashes of its ``n`` longest sentences (default 5); ``SentenceGroups`` gives documents
that share any hash the same group id, first come first served.

Sentences end at 。！？.!? and newlines; whitespace inside a sentence is collapsed before
hashing. Sentences with fewer than ``MIN_SENTENCE_CHARS`` letters or digits are ignored:
"Home.", "更多。" or a table's border would otherwise group every page of a site.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import islice

import mmh3

from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.simhash import DEFAULT_SEED

MIN_SENTENCE_CHARS = 10
_SENTENCE_END = re.compile(r"[。！？.!?\n\r]+")
_INLINE_SPACE = re.compile(r"[^\S\n\r]+")


def split_sentences(text: str) -> list[str]:
    """``text``'s sentences in order, whitespace collapsed, as they are hashed."""
    # Sentence ends include every line break, so collapsing the other whitespace first, in
    # one pass over the text, gives each sentence what collapsing it alone would.
    return list(map(str.strip, _SENTENCE_END.split(_INLINE_SPACE.sub(" ", text))))


def longest_sentences(text: str, n: int = 5, *, split: list[str] | None = None) -> list[str]:
    """The ``n`` longest sentences of ``text``, longest first (earlier first on ties);
    ``split``: ``split_sentences(text)``, when the caller has it."""
    every = split_sentences(text) if split is None else split
    kept = [s for s in every if len(s) >= MIN_SENTENCE_CHARS]
    ranked = sorted(kept, key=len, reverse=True)  # stable: ties keep their order
    return list(islice(filter(_is_prose, ranked), n))


def _is_prose(sentence: str) -> bool:
    """At least ``MIN_SENTENCE_CHARS`` letters or digits: a table border ("+----+") or a
    rule of "=" is no sentence, and is the same on every page that has a table."""
    return sum(map(str.isalnum, sentence)) >= MIN_SENTENCE_CHARS


def sentence_hashes(
    text: str, *, n: int = 5, seed: int = DEFAULT_SEED, split: list[str] | None = None
) -> frozenset[int]:
    """nshash fingerprint: hashes of the ``n`` longest sentences; ``TextTooShortError`` if
    none. ``split``: ``split_sentences(text)``, when the caller has it."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n!r}")
    sentences = longest_sentences(text, n, split=split)
    if not sentences:
        raise TextTooShortError(0, 1, what="sentence hash (a sentence of 10+ characters)")
    return frozenset(
        mmh3.hash64(s.encode("utf-8", "surrogatepass"), seed, signed=False)[0] for s in sentences
    )


class SentenceGroups:
    """In-memory nshash grouping: documents sharing any sentence hash get one group id.

    >>> groups = SentenceGroups()
    >>> groups.group({1, 2}), groups.group({3}), groups.group({2, 9})
    (0, 1, 0)
    """

    def __init__(self) -> None:
        self._group_of: dict[int, int] = {}
        self._next_id = 0

    def group(self, hashes: Iterable[int]) -> int:
        """The group of the first earlier document sharing a hash, else a new group."""
        hashes = list(hashes)
        known = next((self._group_of[h] for h in hashes if h in self._group_of), None)
        if known is None:
            known = self._next_id
            self._next_id += 1
        for h in hashes:
            self._group_of.setdefault(h, known)
        return known

    def __len__(self) -> int:
        return self._next_id
