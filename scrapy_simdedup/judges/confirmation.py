"""Confirmation: is (almost) all of a page's content already in a stored candidate?

A SimHash or sentence match only proposes a candidate. Two signals must then agree:

* similarity, from the sketches (see ``fingerprint/sketch.py``): estimated Jaccard
  similarity of their shingles of at least ``min_similarity``, lengths within 20%;
* containment, from the blocks (see ``fingerprint/blocks.py``), which is asymmetric: the
  words of the page's own sentences (its site's template left out) that the candidate has
  neither as they are nor edited (a word or two changed, two sentences joined). A page
  that adds ``NOVEL_MIN_WORDS`` words and ``NOVEL_SHARE`` of its own words is no copy: the
  full article crawled after a cut reprint of it, a product page that shares a long
  delivery block with its neighbours but has its own description. Nor are two pages that
  each have ``NOVEL_MIN_WORDS`` words the other lacks (``lacking_words``): siblings, such
  as two models of one product line whose own name, pitch and details sit beside a long
  description of the series, before enough pages have shown that description to be the
  site's template. A retitled reprint, or one with an editor line, adds a few words only
  and lacks fewer still (the old title). Pages stored before blocks were kept are
  compared by similarity alone.

The confirmation also estimates, from the sketches, how much of each page the other holds
(``contained``, ``contains``), so that a verdict can say which way containment went.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.fingerprint.blocks import (
    MAX_WORDSET_WORDS,
    NEAR_BITS,
    Block,
    blocks_from_bytes,
    similar_word_sets,
)
from scrapy_simdedup.fingerprint.sketch import SKETCH_BYTES, Sketch

if TYPE_CHECKING:
    from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted

NOVEL_MIN_WORDS = 20
CLOSE_BITS = 8
SANDWICHED_BITS = 16
"""A long sentence between the same two sentences on both pages, with about as many words,
is one edited even this far in SimHash: one word changed in 34 moves 13-14 bits under some
seeds (no word sets beyond ``MAX_WORDSET_WORDS``), and two unrelated sentences come this
close about once in 26,000 pairs."""
"""Blocks this close are one sentence edited, whatever their word counts."""
NOVEL_SHARE = 0.05


@dataclass(frozen=True)
class Confirmation:
    """The comparison of a page with one stored candidate.

    ``contained``: the estimated share of the page found in the stored page; ``contains``:
    the share of the stored page found in this one. ``novel_words``: the words of the page's
    own sentences the stored page lacks. ``length_ratio``: the shorter text's tokens over
    the longer one's (a copy needs ``MIN_LENGTH_RATIO``, whatever its similarity).
    ``lacking_words``: the words of the stored page's own sentences this page lacks.
    """

    similarity: float
    copy: bool
    contained: float = 0.0
    contains: float = 0.0
    novel_words: int = 0
    adds_content: bool = False
    length_ratio: float = 1.0
    lacking_words: int = 0

    @property
    def direction(self) -> str:
        """Which way the containment went: "page_in_stored" (a copy: it adds nothing),
        "stored_in_page" (it carries the stored page and more), or "partial"."""
        if self.copy:
            return "page_in_stored"
        if self.contains > self.contained:
            return "stored_in_page"
        return "partial"


NO_SKETCH = Confirmation(0.0, copy=False)


def confirm(
    done: Fingerprinted,
    payload: bytes,
    min_similarity: float,
    template: frozenset[int] = frozenset(),
) -> Confirmation:
    """Compare a page with a stored candidate's payload; ``template``: the exact hashes of
    the blocks its host shares across pages."""
    mine, theirs = done.fingerprint.sketch, Sketch.from_bytes(payload[:SKETCH_BYTES])
    if mine is None or theirs is None:
        return NO_SKETCH
    similarity = mine.similarity(theirs)
    contained = _containment(similarity, mine.tokens, theirs.tokens)
    contains = _containment(similarity, theirs.tokens, mine.tokens)
    stored_blocks = blocks_from_bytes(payload[SKETCH_BYTES:])
    blocks = done.blocks.decoded()
    novel, own = _novel_words(blocks, stored_blocks or (), template)
    lacking = 0
    if stored_blocks is not None and novel >= NOVEL_MIN_WORDS:
        lacking, _ = _novel_words(stored_blocks, blocks, template)
    adds = stored_blocks is not None and (
        novel >= max(NOVEL_MIN_WORDS, NOVEL_SHARE * own) or lacking >= NOVEL_MIN_WORDS
    )
    copy = mine.confirms(theirs, min_similarity) and not adds
    longer = max(mine.tokens, theirs.tokens)
    ratio = min(mine.tokens, theirs.tokens) / longer if longer else 1.0
    return Confirmation(similarity, copy, contained, contains, novel, adds, ratio, lacking)


def _containment(similarity: float, mine: int, theirs: int) -> float:
    """|A & B| / |A| from the Jaccard similarity of A and B and their sizes."""
    if mine <= 0:
        return 1.0
    shared = similarity * (mine + theirs) / (1 + similarity)
    return min(1.0, shared / mine)


def _novel_words(
    mine: tuple[Block, ...], theirs: tuple[Block, ...], template: frozenset[int]
) -> tuple[int, int]:
    """(words of the page's own blocks the stored page lacks, words of its own blocks),
    each block counted once however often the page repeats it."""
    places: dict[int, list[int]] = {}  # exact hash -> where the stored page has it
    for there, block in enumerate(theirs):
        places.setdefault(block.exact, []).append(there)
    novel = own = 0
    counted: set[int] = set()  # a block the page repeats (a footer above and below) once
    for at, block in enumerate(mine):
        if block.exact in template or block.exact in counted:
            continue
        counted.add(block.exact)
        own += block.words
        if block.exact not in places and not _edited(mine, at, theirs, places):
            novel += block.words
    return novel, own


def _edited(
    mine: tuple[Block, ...], at: int, theirs: tuple[Block, ...], places: dict[int, list[int]]
) -> bool:
    """Whether ``mine[at]`` is a sentence of ``theirs`` with a word or two changed, or two of
    its sentences joined (a full stop edited away): near SimHashes and about as many words,
    or most words in common for short ones; and in the same place (a neighbour, or the
    page's start or end, in common), since short sentences of one vocabulary meet by
    chance. Only the places with a neighbour in common are compared (found in ``places``,
    where each exact hash is in ``theirs``): a page of 200 sentences is not compared with
    each of its candidate's 200."""
    if not theirs:
        return False
    block, last = mine[at], len(theirs) - 1
    words, wordset, simhash = block.words, block.wordset, block.simhash
    slack = max(2, words // 5)
    short = words <= MAX_WORDSET_WORDS  # else no word sets are similar
    before = places.get(mine[at - 1].exact, ()) if at > 0 else ()
    after = places.get(mine[at + 1].exact, ()) if at < len(mine) - 1 else ()
    at_start, at_end = at == 0, at == len(mine) - 1

    # One of theirs, edited: after a common neighbour, before one, or both at an end.
    ones = {p + 1 for p in before} | {p - 1 for p in after}
    ones |= {0} if at_start else set()
    ones |= {last} if at_end else set()
    for there in sorted(ones):
        if not 0 <= there <= last:
            continue
        other = theirs[there]
        distance = (simhash ^ other.simhash).bit_count()
        near = distance <= NEAR_BITS and (
            abs(words - other.words) <= slack or distance <= CLOSE_BITS
        )
        if not near and short:
            near = similar_word_sets(wordset, words, other.wordset, other.words)
        if near and _aligned(mine, at, theirs, there, 1):
            return True
        if (
            distance <= SANDWICHED_BITS
            and abs(words - other.words) <= slack
            and _sandwiched(mine, at, theirs, there)
        ):
            return True

    # Two of theirs joined, placed the same way.
    twos = {p + 1 for p in before} | {p - 2 for p in after}
    twos |= {0} if at_start else set()
    twos |= {last - 1} if at_end else set()
    for there in sorted(twos):
        if not 0 <= there < last:
            continue
        other, following = theirs[there], theirs[there + 1]
        joined = other.words + following.words  # the two sentences as one
        if abs(words - joined) > slack:
            continue
        close = (
            min((simhash ^ other.simhash).bit_count(), (simhash ^ following.simhash).bit_count())
            <= NEAR_BITS
        )
        if not close and short:
            close = similar_word_sets(wordset, words, other.wordset | following.wordset, joined)
        if close and _aligned(mine, at, theirs, there, 2):
            return True
    return False


def _sandwiched(mine: tuple[Block, ...], at: int, theirs: tuple[Block, ...], there: int) -> bool:
    """The same block in the same place on both sides: before and after (or an end)."""
    return all(_neighbours(mine, at, theirs, there, 1))


def _aligned(
    mine: tuple[Block, ...], at: int, theirs: tuple[Block, ...], there: int, span: int
) -> bool:
    """A neighbour in common: the blocks before, or those after ``theirs[there:there+span]``."""
    return any(_neighbours(mine, at, theirs, there, span))


def _neighbours(
    mine: tuple[Block, ...], at: int, theirs: tuple[Block, ...], there: int, span: int
) -> tuple[bool, bool]:
    """(the blocks before are one, the blocks after are one), an end matching an end."""
    end = there + span - 1
    before = at == there == 0 or (
        at > 0 and there > 0 and mine[at - 1].exact == theirs[there - 1].exact
    )
    last, their_last = at == len(mine) - 1, end == len(theirs) - 1
    after = (last and their_last) or (
        not last and not their_last and mine[at + 1].exact == theirs[end + 1].exact
    )
    return before, after
