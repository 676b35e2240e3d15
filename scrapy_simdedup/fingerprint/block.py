"""``Block``: one sentence of a page, as its hashes (``blocks.py`` cuts a text into them).

Two blocks are one sentence edited when their SimHashes are near (``NEAR_BITS``), or, for
short sentences, when their word sets share most of their bits (``similar_words``).
"""

from __future__ import annotations

from typing import NamedTuple

NEAR_BITS = 12
"""Blocks whose SimHashes are this close are one sentence, edited (a word in ten changed)."""
CJK_CHARS_PER_WORD = 2
MAX_WORDSET_WORDS = 32
"""Up to this many words, word sets tell an edited sentence (most bits in common) from
another sentence; beyond, their 64 bits fill up, and the SimHash decides."""
MIN_WORDSET_SHARE = 0.6
WORDSET_MAX_BITS = 24
"""Short sentences with similar word sets must also be this close in SimHash. Word sets of
64 bits alone are a weak test: two unrelated 20-word sentences share 60% of their bits
about once in a million pairs, and a shop of item pages, one such sentence each in the
same place, lost an item to its sibling. One or two words replaced in a sentence of 5-32
words moved its SimHash 24 bits at most in 10,000 tests; unrelated sentences come this
close one time in 30."""


class Block(NamedTuple):
    """One sentence of a page: its exact hash, the SimHash and set of its words, its word
    count; the exact hash of its masked text (0: the same as ``exact``), and whether it is
    a line of page chrome. A tuple: a stored page's blocks are made at each comparison, a
    few hundred of them, and a tuple is made four times faster than a frozen dataclass."""

    exact: int
    simhash: int
    wordset: int
    words: int
    masked: int = 0
    chrome: bool = False
    volatile: bool = False  # it holds a date, a time, a long count or an id
    linked: bool = False  # its lines were mostly links (``linklines.py``)
    cjk: bool = False  # most of its words are CJK characters, a word each

    @property
    def read_words(self) -> int:
        """Its words as a reader counts them: a Chinese word is about two characters."""
        return (self.words + 1) // CJK_CHARS_PER_WORD if self.cjk else self.words

    @property
    def template_hash(self) -> int:
        """What the block is counted by in its host's template: its masked text when it
        holds tokens that change by themselves (a banner's timestamp), else itself."""
        return self.masked if self.volatile and self.masked else self.exact

    def shares_words(self, other: Block) -> bool:
        """Whether a short sentence shares a third of its word bits with ``other`` (random
        ones share a sixth): what a short sentence's near SimHash must show as well, since
        two unrelated 20-word sentences come within ``NEAR_BITS`` about once in three
        million pairs. An edit of two or three words in 5-32 failed it 6 times in 1,100."""
        union = (self.wordset | other.wordset).bit_count()
        return (self.wordset & other.wordset).bit_count() * 3 >= union

    def similar_words(self, other: Block) -> bool:
        """Short sentences sharing most of their words (a Jaccard share of their bits),
        with SimHashes not far apart (``WORDSET_MAX_BITS``)."""
        return (self.simhash ^ other.simhash).bit_count() <= WORDSET_MAX_BITS and (
            similar_word_sets(self.wordset, self.words, other.wordset, other.words)
        )


def similar_word_sets(wordset: int, words: int, other_set: int, other_words: int) -> bool:
    """Whether two short sentences, given as word sets and counts, share most of their
    words (one of them may be two sentences joined, whose SimHash says nothing: the test
    is then this alone)."""
    if words > MAX_WORDSET_WORDS or other_words > MAX_WORDSET_WORDS:
        return False
    union = (wordset | other_set).bit_count()
    return (wordset & other_set).bit_count() >= MIN_WORDSET_SHARE * union


BlockFields = tuple[int, int, int, int, int, bool, bool, bool, bool]  # a Block's, in its order
