"""Confirmation: is (almost) all of a page's content already in a stored candidate?

A SimHash or sentence match only proposes a candidate. The blocks (see
``fingerprint/blocks.py``) then say, as a reader would, what each page holds: its own
content, and apart from it its host's template (blocks on the host's other pages, volatile
tokens masked) and page chrome (source / time / views lines, notices, editor lines, share
and previous/next links). Content is compared both ways:

* ``novel_words``: the words of the page's content the candidate has neither as they are
  nor edited (characters or a word or two changed, two sentences joined);
* ``lacking_words``: the words of the candidate's content the page lacks, the same way;
* ``covers``: the share of the candidate's content words the page holds.

A page adds content (no copy, whatever its similarity) when it has ``NOVEL_MIN_WORDS``
novel words, however long it is: the full article after a cut reprint of it (one paragraph
of a long article is content), a merged article, a product with its own description beside
a shared block, two models of one product line. Chrome and template never count, an edited
sentence is no new one, and a new title in place of the old one is none either.

Otherwise the page is a copy when it holds at least ``MIN_COVERS`` of the candidate's
content from its start (a cut reprint after its full original, however much shorter), or
``MIN_COVERS_ANYWHERE`` of it from anywhere, or when the sketches agree (estimated Jaccard
similarity of at least ``min_similarity``, lengths within 20%). A page that is a small part
of a larger one (one product after the category page that lists twenty, one article after
a digest, a section of a long page) is kept. Pages stored before blocks were kept are
compared by similarity alone.

The confirmation also estimates, from the sketches, how much of each page the other holds
(``contained``, ``contains``), so that a verdict can say which way containment went.
"""

from __future__ import annotations

from collections import Counter
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

NOVEL_MIN_WORDS = 12
MIN_ANYWHERE_WORDS = 8
MAX_TITLE_WORDS = 30
MAX_JOIN_BITS = 48
MISSING_JOIN_BITS = 1
CLOSE_BITS = 8
SANDWICHED_BITS = 16
"""A long sentence between the same two sentences on both pages, with about as many words,
is one edited even this far in SimHash: one word changed in 34 moves 13-14 bits under some
seeds (no word sets beyond ``MAX_WORDSET_WORDS``), and two unrelated sentences come this
close about once in 26,000 pairs."""
"""Blocks this close are one sentence edited, whatever their word counts."""
MIN_COVERS = 0.4
"""A page holding at least this share of a candidate's content words from its start, and
adding none of its own, is its copy however much shorter (a cut reprint: 0.43-0.6 where
three long paragraphs went). One article of a digest of six, or one product of a category
page's twenty, holds far less."""
MIN_COVERS_ANYWHERE = 0.9
"""From anywhere in the candidate: a section that is most of its page, or the page in a
wrapper of another site's chrome."""


@dataclass(frozen=True)
class Confirmation:
    """The comparison of a page with one stored candidate.

    ``contained``: the estimated share of the page found in the stored page; ``contains``:
    the share of the stored page found in this one. ``novel_words``: the words of the page's
    own sentences the stored page lacks. ``length_ratio``: the shorter text's tokens over
    the longer one's (a copy needs ``MIN_LENGTH_RATIO``, whatever its similarity).
    ``lacking_words``: the words of the stored page's own sentences this page lacks.
    ``covers``: the share of the stored page's content words this page holds.
    ``content_words``, ``chrome_words``, ``template_words``: what the page's words were
    judged to be (its content; page chrome; its host's template). ``added``: the template
    hashes of the page's blocks the stored page lacks (a copy's chrome, counted towards its
    host's template).
    """

    similarity: float
    copy: bool
    contained: float = 0.0
    contains: float = 0.0
    novel_words: int = 0
    adds_content: bool = False
    length_ratio: float = 1.0
    lacking_words: int = 0
    covers: float = 0.0
    content_words: int = 0
    chrome_words: int = 0
    template_words: int = 0
    added: frozenset[int] = frozenset()

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
    longer = max(mine.tokens, theirs.tokens)
    ratio = min(mine.tokens, theirs.tokens) / longer if longer else 1.0
    similar = mine.confirms(theirs, min_similarity)
    stored_blocks = blocks_from_bytes(payload[SKETCH_BYTES:])
    if stored_blocks is None:  # stored before blocks were kept: similarity alone
        return Confirmation(similarity, similar, contained, contains, length_ratio=ratio)
    blocks = done.blocks.decoded()
    page = _compared(blocks, stored_blocks, template)
    stored = _compared(stored_blocks, blocks, template)
    novel, lacking = page.novel, stored.novel
    adds = novel >= NOVEL_MIN_WORDS
    covers = (stored.content - lacking) / stored.content if stored.content else 0.0
    contained_in_stored = covers >= MIN_COVERS and (
        covers >= MIN_COVERS_ANYWHERE or _starts_alike(blocks, stored_blocks, template)
    )
    copy = not adds and (similar or contained_in_stored)
    return Confirmation(
        similarity, copy, contained, contains, novel, adds, ratio, lacking, covers,
        page.content, page.chrome, page.template, page.added,
    )  # fmt: skip


def _containment(similarity: float, mine: int, theirs: int) -> float:
    """|A & B| / |A| from the Jaccard similarity of A and B and their sizes."""
    if mine <= 0:
        return 1.0
    shared = similarity * (mine + theirs) / (1 + similarity)
    return min(1.0, shared / mine)


@dataclass(frozen=True)
class _Compared:
    """Words of a page's blocks against another page's, each block counted once however
    often the page repeats it (a footer above and below)."""

    novel: int  # content the other page lacks
    content: int  # all content
    chrome: int
    template: int
    added: frozenset[int]  # template hashes of the blocks the other page lacks


def _compared(
    mine: tuple[Block, ...], theirs: tuple[Block, ...], template: frozenset[int]
) -> _Compared:
    places: dict[int, list[int]] = {}  # exact hash -> where the stored page has it
    for there, block in enumerate(theirs):
        places.setdefault(block.exact, []).append(there)
    novel = content = chrome = templated = 0
    added: set[int] = set()
    counted: set[int] = set()
    unmatched: list[Block] | None = None
    exacts = {block.exact for block in mine}
    retitled = _retitled(mine, theirs, template, exacts)
    # The other page's sentences this page has fewer times than it (each occurrence used
    # as it is can be no sentence this page edited): what an edited sentence may come from.
    spare = _spare(theirs, mine)
    for at, block in enumerate(mine):
        if block.exact in counted:
            continue
        counted.add(block.exact)
        if block.template_hash in template:
            templated += block.words
            continue
        matched = block.exact in places
        if not matched:
            added.add(block.template_hash)
        if block.chrome:
            chrome += block.words
            continue
        content += block.words
        if matched or at == retitled or _edited(mine, at, theirs, places, spare):
            continue
        if unmatched is None:
            unmatched = [b for b in theirs if b.exact in spare and not b.chrome]
        if not _edited_anywhere(block, unmatched) and not _joined(block, theirs, spare):
            novel += block.words
    return _Compared(novel, content, chrome, templated, frozenset(added))


def _joined(block: Block, theirs: tuple[Block, ...], spare: set[int]) -> bool:
    """Two consecutive sentences of ``theirs`` joined into ``block`` (a full stop edited
    away), edited or not: about as many words as the two, and nearly all the word bits of
    each among the block's. Only while the block's word set is not full (``MAX_JOIN_BITS``):
    a sentence's 17 word bits all fall among 30 of 64 by chance about once in 2**17."""
    bits = block.wordset.bit_count()
    if block.words < MIN_ANYWHERE_WORDS or bits > MAX_JOIN_BITS:
        return False
    slack = max(2, block.words // 5)
    for there in range(len(theirs) - 1):
        first, second = theirs[there], theirs[there + 1]
        if first.exact not in spare or second.exact not in spare:
            continue
        if abs(block.words - first.words - second.words) > slack:
            continue
        if all(
            (part.wordset & ~block.wordset).bit_count() <= MISSING_JOIN_BITS
            for part in (first, second)
        ):
            return True
    return False


def _starts_alike(
    mine: tuple[Block, ...], theirs: tuple[Block, ...], template: frozenset[int]
) -> bool:
    """Whether the page starts where the stored page starts: no more than a title's words
    (``MAX_TITLE_WORDS``) of the stored page's content come before the first of its blocks
    that the page has. A cut reprint keeps its original's lead; a section of a longer page,
    or the third article of a digest, starts in its middle."""
    exacts = {block.exact for block in mine}
    before = 0
    for block in theirs:
        if block.exact in exacts:
            return True
        if not block.chrome and block.template_hash not in template:
            before += block.words
            if before > MAX_TITLE_WORDS:
                return False
    return False


def _spare(theirs: tuple[Block, ...], mine: tuple[Block, ...]) -> set[int]:
    """The exact hashes ``theirs`` holds more often than ``mine``."""
    left = Counter(block.exact for block in theirs)
    left.subtract(block.exact for block in mine)
    return {exact for exact, count in left.items() if count > 0}


def _retitled(
    mine: tuple[Block, ...], theirs: tuple[Block, ...], template: frozenset[int], exacts: set[int]
) -> int | None:
    """Where ``mine`` has a new title: its first content block, short, in place of the other
    page's first (short, and not on this page). A reprint's new title is no content it
    adds; the old one is none it lacks."""

    def first(blocks: tuple[Block, ...]) -> int | None:
        return next(
            (at for at, b in enumerate(blocks) if not b.chrome and b.template_hash not in template),
            None,
        )

    at, there = first(mine), first(theirs)
    if at is None or there is None:
        return None
    title, old = mine[at], theirs[there]
    if max(title.words, old.words) > MAX_TITLE_WORDS or old.exact in exacts:
        return None
    return at if title.exact != old.exact else None


def _edited_anywhere(block: Block, others: list[Block]) -> bool:
    """A sentence edited in place of any of the other page's sentences that this page
    lacks (characters changed in a long Chinese sentence, words in an English one), about
    as many words: within ``SANDWICHED_BITS`` when long, most word bits in common when
    shorter. Sentences under ``MIN_ANYWHERE_WORDS`` words are left to ``_edited``, which
    needs them in the same place: short ones of one vocabulary meet by chance."""
    if block.words < MIN_ANYWHERE_WORDS:
        return False
    slack = max(2, block.words // 5)
    long = block.words > MAX_WORDSET_WORDS
    for other in others:
        if abs(block.words - other.words) > slack:
            continue
        if long and (block.simhash ^ other.simhash).bit_count() <= SANDWICHED_BITS:
            return True
        if not long and block.similar_words(other):
            return True
    return False


def _edited(
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
