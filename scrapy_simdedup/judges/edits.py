"""Edits: which of a page's sentences are another page's sentences, edited.

A reprint changes characters in a sentence, replaces a word, edits a full stop away (two
sentences joined) or puts a new title in place of the old. None of that is new content, so
the confirmation (``confirmation.py``) asks these functions before it counts a sentence's
words as novel. Sentences are compared by their hashes only (``fingerprint/blocks.py``):
SimHashes of their words, near for an edited long sentence; word sets of 64 bits, most in
common for an edited short one; and their place, since short sentences of one vocabulary
meet by chance. Each is a statistical test; its docstring says how often chance passes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import pairwise
from typing import TypeVar

from scrapy_simdedup.fingerprint.block import MAX_WORDSET_WORDS, NEAR_BITS, Block, similar_word_sets

MIN_ANYWHERE_WORDS = 8
MAX_TITLE_WORDS = 15
"""A first line of more words than this (as a reader counts them: 30 Chinese characters)
is no new title: a blog's own opening before a story it quotes (at 30 words, an opening of
26 and a closing of 11 around a stored story were taken for a new title and too little to
keep the post). Titles of the real and generated reprints have fewer
(``benchmarks/reprint_quality.py``: the same rows at 15 as at 30)."""
MAX_JOIN_BITS = 48
MISSING_JOIN_BITS = 1
CLOSE_BITS = 8
"""Blocks this close are one sentence edited, whatever their word counts."""
SANDWICHED_BITS = 16
"""A long sentence between the same two sentences on both pages, with about as many words,
is one edited even this far in SimHash: one word changed in 34 moves 13-14 bits under some
seeds (no word sets beyond ``MAX_WORDSET_WORDS``), and two unrelated sentences come this
close about once in 26,000 pairs. Not a shorter one: two unrelated sentences of 20 words
come this close far more often (a shop's item pages, one sentence each between the same
template lines, were dropped as each other's copies), and their word sets tell."""


T = TypeVar("T")

MAX_PAIR_TESTS = 4096
"""Sentences compared pairwise in one comparison of two pages, at most: past it, a sentence
neither page holds as it is counts as new (a page is kept, never dropped, for it)."""


class Unmatched:
    """The other page's sentences this page may have edited (those it has fewer times than
    the other page, ``spare``), and its pairs of consecutive ones, found by their word
    counts: a sentence is compared only with those of about its length, not with each of
    the other page's (``MAX_PAIR_TESTS`` at most in all)."""

    def __init__(self, theirs: tuple[Block, ...], spare: set[int]) -> None:
        self.theirs, self.spare = theirs, spare
        self.tests_left = MAX_PAIR_TESTS
        self._by_words: dict[int, list[Block]] | None = None
        self._pairs_by_words: dict[int, list[tuple[Block, Block]]] | None = None

    @property
    def by_words(self) -> dict[int, list[Block]]:
        if self._by_words is None:  # made when first asked: most pages hold every sentence
            self._by_words = {}
            for block in self.theirs:
                if block.exact in self.spare and not block.chrome:
                    self._by_words.setdefault(block.words, []).append(block)
        return self._by_words

    @property
    def pairs_by_words(self) -> dict[int, list[tuple[Block, Block]]]:
        if self._pairs_by_words is None:
            self._pairs_by_words = {}
            for first, second in pairwise(self.theirs):
                if first.exact in self.spare and second.exact in self.spare:
                    together = first.words + second.words
                    self._pairs_by_words.setdefault(together, []).append((first, second))
        return self._pairs_by_words

    def sentences(self, words: int, slack: int) -> Iterator[Block]:
        """Those of ``words`` words, give or take ``slack``, while the tests last."""
        return self._within(self.by_words, words, slack)

    def pairs(self, words: int, slack: int) -> Iterator[tuple[Block, Block]]:
        """Consecutive pairs of ``words`` words together, give or take ``slack``."""
        return self._within(self.pairs_by_words, words, slack)

    def _within(self, table: dict[int, list[T]], words: int, slack: int) -> Iterator[T]:
        for count in range(words - slack, words + slack + 1):
            for found in table.get(count, ()):
                if self.tests_left <= 0:
                    return
                self.tests_left -= 1
                yield found


def joined(block: Block, unmatched: Unmatched) -> bool:
    """Two consecutive sentences of the other page joined into ``block`` (a full stop edited
    away), edited or not: about as many words as the two, and nearly all the word bits of
    each among the block's. Only while the block's word set is not full (``MAX_JOIN_BITS``):
    a sentence's 17 word bits all fall among 30 of 64 by chance about once in 2**17."""
    bits = block.wordset.bit_count()
    if block.words < MIN_ANYWHERE_WORDS or bits > MAX_JOIN_BITS:
        return False
    missing = ~block.wordset
    for first, second in unmatched.pairs(block.words, max(2, block.words // 5)):
        if (first.wordset & missing).bit_count() <= MISSING_JOIN_BITS and (
            second.wordset & missing
        ).bit_count() <= MISSING_JOIN_BITS:
            return True
    return False


def spare_sentences(theirs: tuple[Block, ...], mine: tuple[Block, ...]) -> set[int]:
    """The exact hashes ``theirs`` holds more often than ``mine``."""
    exacts = [block.exact for block in theirs]
    distinct = set(exacts)
    if len(distinct) == len(exacts):  # most pages: each sentence once
        return distinct.difference(block.exact for block in mine)
    left = Counter(exacts)
    left.subtract(block.exact for block in mine)
    return {exact for exact, count in left.items() if count > 0}


def retitled(
    mine: tuple[Block, ...], theirs: tuple[Block, ...], template: frozenset[int], exacts: set[int]
) -> int | None:
    """Where ``mine`` has a new title: its first content block, short (``MAX_TITLE_WORDS``),
    in place of the other page's first (short, and not on this page). A reprint's new
    title is no content it adds; the old one is none it lacks."""

    def first(blocks: tuple[Block, ...]) -> int | None:
        return next(
            (at for at, b in enumerate(blocks) if not b.chrome and b.template_hash not in template),
            None,
        )

    at, there = first(mine), first(theirs)
    if at is None or there is None:
        return None
    title, old = mine[at], theirs[there]
    if max(title.read_words, old.read_words) > MAX_TITLE_WORDS or old.exact in exacts:
        return None
    return at if title.exact != old.exact else None


def edited_anywhere(block: Block, unmatched: Unmatched) -> bool:
    """A sentence edited in place of any of the other page's sentences that this page
    lacks (characters changed in a long Chinese sentence, words in an English one), about
    as many words: within ``SANDWICHED_BITS`` when long, most word bits in common when
    shorter. Sentences under ``MIN_ANYWHERE_WORDS`` words are left to ``edited``, which
    needs them in the same place: short ones of one vocabulary meet by chance."""
    if block.words < MIN_ANYWHERE_WORDS:
        return False
    long = block.words > MAX_WORDSET_WORDS
    for other in unmatched.sentences(block.words, max(2, block.words // 5)):
        if long and (block.simhash ^ other.simhash).bit_count() <= SANDWICHED_BITS:
            return True
        if not long and block.similar_words(other):
            return True
    return False


def edited(
    mine: tuple[Block, ...],
    at: int,
    theirs: tuple[Block, ...],
    places: dict[int, list[int]],
    spare: set[int],
) -> bool:
    """Whether ``mine[at]`` is a sentence of ``theirs`` with a word or two changed, or two of
    its sentences joined (a full stop edited away): near SimHashes and about as many words,
    or most words in common for short ones; and in the same place (a neighbour, or the
    page's start or end, in common), since short sentences of one vocabulary meet by
    chance. Only the places with a neighbour in common are compared (found in ``places``,
    where each exact hash is in ``theirs``): a page of 200 sentences is not compared with
    each of its candidate's 200. A sentence the page has as it is is no sentence it
    edited: where paragraphs were cut, the one after the cut is not an edit of the one
    before it."""
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
        if other.exact not in spare:
            continue
        distance = (simhash ^ other.simhash).bit_count()
        near = (
            distance <= NEAR_BITS
            and (abs(words - other.words) <= slack or distance <= CLOSE_BITS)
            and (not short or block.shares_words(other))
        )
        if not near and short:
            near = block.similar_words(other)
        if near and _aligned(mine, at, theirs, there, 1):
            return True
        if (
            not short  # a short one has word sets to tell: two at one place meet by chance
            and distance <= SANDWICHED_BITS
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
        if other.exact not in spare or following.exact not in spare:
            continue
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
