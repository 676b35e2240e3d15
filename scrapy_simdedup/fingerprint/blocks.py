"""A page's blocks (its sentences), hashed: what tells a site's template from a copy.

A page that shares a long block with every page of its host (delivery terms, a licence, a
forum's rules) is not a copy of those pages; it is one when (almost) every block of its own
is already stored. Runs of lines under ``MIN_BLOCK_WORDS`` words (table cells, list items)
are cut into blocks of a few lines where the lines' own hashes say (``RUN_ENDS``): a
timetable or a spec table counts as content, and an edited line changes one block. Each
block carries three hashes: ``exact`` (the same as nshash's sentence hash, so a template
sentence can be left out of the nshash look-up), ``simhash``, a 64-bit SimHash of its
words, and ``wordset``, its words as one bit each of 64 bits. A sentence with a word or two
edited keeps a near SimHash when it is long, and most of its word bits when it is short
(``similar_words``). A page keeps at most ``MAX_BLOCKS`` blocks of ``MIN_BLOCK_WORDS``
words or more, in text order, from its first ``MAX_BLOCK_CHARS`` characters, and past them
a sample of the rest chosen by the sentences' own hashes (``TAIL_LEVELS``).

Each block also carries ``masked``, the exact hash of its text with its figures masked
(``volatile.py``), ``volatile`` when those figures change by themselves (a banner's
timestamp or visit counter: the block is then counted in its host's template by its masked
text), and ``chrome``, set for the lines of page chrome (``chrome.py``: a source / time /
views line, a copyright notice, an editor line), which a page never "adds".

Serialised after the sketch in a stored page's payload: a uint16 count, then per block its
exact hash, SimHash and word set (uint64) and its word count (uint16), little-endian. Since
the chrome work the count has its top bit set, and each block holds its masked hash
(uint64) after the word set, and its chrome and volatile flags as the top two bits of the
word count; pages stored before are read with no masked hash and no flags.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import chain
from typing import NamedTuple, overload

import mmh3

from scrapy_simdedup.fingerprint.chrome import chrome_lines
from scrapy_simdedup.fingerprint.linklines import MARKS, is_link_line
from scrapy_simdedup.fingerprint.nshash import split_sentences
from scrapy_simdedup.fingerprint.simhash import feature_hashes
from scrapy_simdedup.fingerprint.volatile import is_volatile, masked

MAX_BLOCKS = 512
MAX_BLOCK_CHARS = 100_000
"""Blocks are taken in full from the text's start: a page's first 512 sentences are enough
to tell it apart from another. Where this window ends depends on what comes before the
article, so two pages of one long article in different chrome see different parts of it
in full (past the window, only a sample): at 256, a Chinese chapter reprinted in a lighter
page than its original's seemed to add the sentences its original kept only a sample of
(one Chinese page in seven has more than 256 blocks, one English page in two hundred;
``benchmarks/reprint_quality.py --sets``)."""
TAIL_LEVELS = ((8, 24), (32, 24), (128, 16))
"""Past them, per level (one sentence in ``every``, by its hash), the first ``blocks`` such
sentences in text order: what a long page adds after its cut version is seen (``_tail``).
The sparser levels reach further: about 190, 770 and 2,000 sentences on."""
TAIL_BLOCKS = sum(blocks for _, blocks in TAIL_LEVELS)
MIN_BLOCK_WORDS = 4
RUN_ENDS = 3
"""Short lines are taken together until one whose hash is a multiple of this (and the
block holds ``MIN_BLOCK_WORDS`` words): a block of a few lines, cut where its own lines say,
so that a line edited or added changes its own block and not every block after it (two
timetables share their hours and differ in stops and minutes, which one block for the
whole table would take for an edit of one sentence)."""
NEAR_BITS = 12
"""Blocks whose SimHashes are this close are one sentence, edited (a word in ten changed)."""
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD = re.compile(f"[{_CJK_RANGES}]|[^\\W_{_CJK_RANGES}]+")  # a CJK character is a word
_CJK_CHAR = re.compile(f"[{_CJK_RANGES}]")
CJK_CHARS_PER_WORD = 2

_COUNT = struct.Struct("<H")
_OLD_BLOCK = struct.Struct("<QQQH")  # pages stored before masked hashes and chrome
_BLOCK = struct.Struct("<QQQQH")
_MARKED = 0x8000  # in the count: blocks of the current layout; in a block's words: chrome
_VOLATILE = 0x4000  # in a block's words: it holds volatile tokens
_LINKED = 0x2000  # in a block's words: its lines are links (``linklines.py``)
_CJK = 0x1000  # in a block's words: most of its words are CJK characters
_MAX_WORDS = 0x0FFF  # a sentence of 4,096 words stored before these flags reads as flagged
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


def read_words(text: str) -> int:
    """The words of ``text`` as a reader counts them (``Block.read_words``): a CJK
    character is a word of its own in a block, half a word to a reader."""
    cjk = len(_CJK_CHAR.findall(text))
    return len(_WORD.findall(text)) - cjk + cjk // CJK_CHARS_PER_WORD


def text_blocks(
    text: str, seed: int, *, split: list[str] | None = None, chrome: list[bool] | None = None
) -> tuple[Block, ...]:
    """The page's blocks of ``MIN_BLOCK_WORDS`` words or more (at most ``MAX_BLOCKS``): its
    sentences, and runs of shorter lines between them, a few lines to a block (``RUN_ENDS``:
    a table's cells, a list of ingredients, a timetable: what tells such pages apart).
    Chrome is told line by line (a disclaimer is one line of several sentences); ``chrome``:
    ``chrome_lines(text.splitlines())``, when the caller has it. ``split`` is accepted for
    callers that have ``split_sentences(text)``, and not needed."""
    return tuple(Block(*fields) for fields in _block_fields(text, seed, chrome))


def packed_text_blocks(text: str, seed: int, *, chrome: list[bool] | None = None) -> PackedBlocks:
    """``PackedBlocks.pack(text_blocks(text, seed))``, packed straight from the hashes: the
    fingerprint helper sends the bytes, and a ``Block`` object per sentence was 2% of its
    work."""
    return PackedBlocks(_packed(_block_fields(text, seed, chrome)))


_Fields = tuple[int, int, int, int, int, bool, bool, bool, bool]  # a Block's, in its order


class _Sentences:
    """The sentences a page's blocks are made of, with their words and line flags."""

    def __init__(self) -> None:
        self.sentences: list[str] = []
        self.words: list[list[str]] = []
        self.chrome: list[bool] = []
        self.linked: list[bool] = []

    def add(self, sentence: str, found: list[str], chrome: bool, linked: bool) -> None:
        self.sentences.append(sentence)
        self.words.append(found)
        self.chrome.append(chrome)
        self.linked.append(linked)

    def __len__(self) -> int:
        return len(self.sentences)


def _block_fields(text: str, seed: int, chrome: list[bool] | None) -> list[_Fields]:
    lines = text[:MAX_BLOCK_CHARS].splitlines()
    if chrome is None or len(text) > MAX_BLOCK_CHARS or len(chrome) != len(lines):
        chrome = chrome_lines(lines)  # the lines of the text's start, as they are cut
    found, taken = _head(lines, chrome, seed)
    if len(found) >= MAX_BLOCKS or len(text) > MAX_BLOCK_CHARS:
        for sentence, words, line in _tail(text, taken, seed):
            found.add(sentence, words, chrome_lines([line])[0], is_link_line(line))
    if not found:
        return []
    prints = _word_prints(found.words, seed)
    fields: list[_Fields] = []
    for sentence, (simhash, wordset), words, is_line_chrome, links in zip(
        found.sentences, prints, found.words, found.chrome, found.linked, strict=True
    ):
        exact = _sentence_hash(sentence, seed)
        mask = masked(sentence)
        masked_hash = _sentence_hash(mask, seed) if mask != sentence else 0
        volatile = bool(masked_hash) and is_volatile(sentence)
        cjk = not sentence.isascii() and 2 * len(_CJK_CHAR.findall(sentence)) > len(words)
        fields.append(
            (exact, simhash, wordset, len(words), masked_hash, is_line_chrome, volatile, links,
             cjk)
        )  # fmt: skip
    return fields


def _head(lines: list[str], chrome: list[bool], seed: int) -> tuple[_Sentences, int]:
    """The first ``MAX_BLOCKS`` sentences and runs of short lines, and how many lines were
    read for them."""
    found = _Sentences()
    run: list[str] = []
    run_words: list[str] = []
    run_chrome = run_linked = True

    def close_run() -> None:
        nonlocal run_chrome, run_linked
        if len(run_words) >= MIN_BLOCK_WORDS:
            found.add(" ".join(run), list(run_words), run_chrome, run_linked)
        run.clear()
        run_words.clear()
        run_chrome = run_linked = True

    taken = 0  # lines read
    for line, line_is_chrome in zip(lines, chrome, strict=True):
        taken += 1
        line_is_links = is_link_line(line)
        for sentence in split_sentences(line.lstrip(MARKS) if line_is_links else line):
            words = _WORD.findall(sentence.lower())
            if len(words) >= MIN_BLOCK_WORDS:
                close_run()
                found.add(sentence, words, line_is_chrome, line_is_links)
            elif words:
                run.append(sentence)
                run_words.extend(words)
                run_chrome = run_chrome and line_is_chrome
                run_linked = run_linked and line_is_links
                if len(run_words) >= MIN_BLOCK_WORDS and _ends_run(sentence, seed):
                    close_run()
            if len(found) >= MAX_BLOCKS:
                break
        if len(found) >= MAX_BLOCKS:
            break
    else:
        close_run()
    for kept in (found.sentences, found.words, found.chrome, found.linked):
        del kept[MAX_BLOCKS:]
    return found, taken


def _tail(text: str, taken: int, seed: int) -> Iterator[tuple[str, list[str], str]]:
    """Sentences of a long text past its first ``MAX_BLOCKS`` blocks or ``MAX_BLOCK_CHARS``
    characters (from the line after the last one read), as (sentence, words, line): per
    level of ``TAIL_LEVELS``, the first sentences whose hash is a multiple of its ``every``.
    Chosen by content and in text order, a cut version's sample is part of its full page's
    at every level (nothing is seen added where the two agree), the full page's sparser
    levels reach past the cut (what it adds after its cut version is seen), and two pages
    that end differently show their own endings wherever a level reaches them. (A sample
    of the smallest hashes, compared up to the other page's largest, lost a page's own
    comments beside a stored page with thousands of others.)"""
    left = [blocks for _, blocks in TAIL_LEVELS]
    for line in text.splitlines()[taken:]:
        for sentence in split_sentences(line.lstrip(MARKS)):
            if not sentence:
                continue
            hashed = _sentence_hash(sentence, seed)
            taking = [
                n for n, (every, _) in enumerate(TAIL_LEVELS) if left[n] and not hashed % every
            ]
            if not taking:
                continue
            sentence_words = _WORD.findall(sentence.lower())
            if len(sentence_words) < MIN_BLOCK_WORDS:
                continue
            for n in taking:
                left[n] -= 1
            yield sentence, sentence_words, line
            if not any(left):
                return


def _ends_run(line: str, seed: int) -> bool:
    return mmh3.hash(line.encode("utf-8", "surrogatepass"), seed, signed=False) % RUN_ENDS == 0


def sentence_exacts(
    text: str, seed: int, *, most: int, leave_out: frozenset[int] = frozenset()
) -> list[int]:
    """The exact hashes of the blocks ``text`` would be cut into (sentences, runs of short
    lines), but those in ``leave_out``: the ``most`` with the most words, the longest first
    (in text order among equals), without their other hashes. What a stored page showed
    beside the text it was judged by (``fingerprint/payload.py``)."""
    lines = text[:MAX_BLOCK_CHARS].splitlines()
    found, _ = _head(lines, [False] * len(lines), seed)
    hashes = [_sentence_hash(sentence, seed) for sentence in found.sentences]
    wanted = [at for at, hashed in enumerate(hashes) if hashed not in leave_out]
    ranked = sorted(wanted, key=lambda at: -len(found.words[at]))[:most]
    return [hashes[at] for at in ranked]


def packed_size(raw: bytes) -> int | None:
    """The bytes of the blocks record ``raw`` starts with; None when it holds none."""
    if len(raw) < _COUNT.size:
        return None
    (count,) = _COUNT.unpack_from(raw)
    size = _BLOCK.size if count & _MARKED else _OLD_BLOCK.size
    end = _COUNT.size + (count & ~_MARKED) * size
    return end if end <= len(raw) else None


def _sentence_hash(sentence: str, seed: int) -> int:
    return mmh3.hash64(sentence.encode("utf-8", "surrogatepass"), seed, signed=False)[0]


def _word_prints(blocks: list[list[str]], seed: int) -> list[tuple[int, int]]:
    """(SimHash, word set) per block (each word one vote, one bit), in one vectorised pass:
    pages hold a few hundred words, so the number of numpy calls is what costs."""
    import numpy as np  # see ``simhash.feature_hashes``

    hashes = feature_hashes(chain.from_iterable(blocks), seed)
    bits = np.unpackbits(
        hashes.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
    )
    sizes = np.fromiter(map(len, blocks), dtype=np.int64, count=len(blocks))
    starts = np.zeros(len(blocks), dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    ones = np.add.reduceat(bits, starts, axis=0, dtype=np.int32)
    packed = np.packbits(2 * ones > sizes[:, None], axis=1, bitorder="little")
    word_bits = np.left_shift(np.uint64(1), hashes >> np.uint64(58))
    wordsets = np.bitwise_or.reduceat(word_bits, starts).tolist()
    simhashes = packed.view("<u8").ravel().tolist()  # 8 packed bytes: one block's 64 bits
    return list(zip(simhashes, wordsets, strict=True))


def blocks_to_bytes(blocks: tuple[Block, ...]) -> bytes:
    return _packed(
        [
            (
                b.exact,
                b.simhash,
                b.wordset,
                b.words,
                b.masked,
                b.chrome,
                b.volatile,
                b.linked,
                b.cjk,
            )
            for b in blocks
        ]
    )


def _packed(found: list[_Fields]) -> bytes:
    """The one writer of the layout ``PackedBlocks`` reads: the count (marked: current
    blocks), then each block's hashes and its word count with its chrome and volatile
    flags."""
    flat: list[int] = []
    for exact, simhash, wordset, words, masked_hash, chrome_block, volatile, links, cjk in found:
        flags = (_MARKED if chrome_block else 0) | (_VOLATILE if volatile else 0)
        flags |= (_LINKED if links else 0) | (_CJK if cjk else 0)
        flat += (exact, simhash, wordset, masked_hash, min(words, _MAX_WORDS) | flags)
    return _packing(len(found)).pack(len(found) | _MARKED, *flat)


def _block_of(exact: int, simhash: int, wordset: int, masked: int, words: int) -> Block:
    chrome, volatile, links = bool(words & _MARKED), bool(words & _VOLATILE), bool(words & _LINKED)
    cjk = bool(words & _CJK)
    return Block(exact, simhash, wordset, words & _MAX_WORDS, masked, chrome, volatile, links, cjk)


def blocks_from_bytes(raw: bytes) -> tuple[Block, ...] | None:
    """The blocks in ``raw``; None when ``raw`` holds none (a page stored before blocks
    were recorded) or is malformed."""
    packed = PackedBlocks.of(raw)
    return None if packed is None else tuple(packed)


class PackedBlocks(Sequence[Block]):
    """A page's blocks as ``blocks_to_bytes`` wrote them, read when asked: ``exacts`` (all
    a new page's look-ups need) in one step, the ``Block`` objects only for a comparison.

    A page's reply from the fingerprint helper holds some fifty blocks: making an object of
    each was most of the 24 us that reading a reply cost the crawl's process (4 us now),
    and most pages are never compared with another (issue 15).
    """

    __slots__ = ("_decoded", "_exacts", "_templates", "raw")

    def __init__(self, raw: bytes, decoded: tuple[Block, ...] | None = None) -> None:
        self.raw = raw  # as ``blocks_to_bytes`` wrote it: bytes from elsewhere go by ``of``
        self._decoded = decoded
        self._exacts: tuple[int, ...] | None = None
        self._templates: tuple[int, ...] | None = None

    @property
    def _current(self) -> bool:
        """Written in the current layout (masked hashes and chrome flags)."""
        return bool(_COUNT.unpack_from(self.raw)[0] & _MARKED)

    @property
    def _size(self) -> int:
        return _BLOCK.size if self._current else _OLD_BLOCK.size

    @classmethod
    def of(cls, raw: bytes) -> PackedBlocks | None:
        """The blocks in ``raw``; None when it holds no record of them (a page stored
        before blocks were recorded) or is malformed."""
        if len(raw) < _COUNT.size:
            return None
        (count,) = _COUNT.unpack_from(raw)
        size = _BLOCK.size if count & _MARKED else _OLD_BLOCK.size
        if len(raw) != _COUNT.size + (count & ~_MARKED) * size:
            return None
        return cls(raw)

    @classmethod
    def pack(cls, blocks: tuple[Block, ...]) -> PackedBlocks:
        return cls(blocks_to_bytes(blocks), blocks)

    @property
    def exacts(self) -> tuple[int, ...]:
        """Each block's exact hash, in order."""
        if self._exacts is None:
            if self._decoded is not None:
                self._exacts = tuple(block.exact for block in self._decoded)
            else:
                layout = _field_layout(len(self), self._size, 0)
                self._exacts = layout.unpack_from(self.raw, _COUNT.size)
        return self._exacts

    @property
    def templates(self) -> tuple[int, ...]:
        """Each block's ``template_hash``, in order: what its host's template counts."""
        if self._templates is None:
            if self._decoded is not None:
                self._templates = tuple(block.template_hash for block in self._decoded)
            elif not self._current:
                self._templates = self.exacts
            else:
                layout = _field_layout(len(self), self._size, 24)
                masks = layout.unpack_from(self.raw, _COUNT.size)
                flags = _words_layout(len(self)).unpack_from(self.raw, _COUNT.size)
                self._templates = tuple(
                    m if m and w & _VOLATILE else e
                    for m, w, e in zip(masks, flags, self.exacts, strict=True)
                )
        return self._templates

    @property
    def chrome(self) -> tuple[bool, ...]:
        """Whether each block is a line of page chrome, in order."""
        if self._decoded is not None:
            return tuple(block.chrome for block in self._decoded)
        if not self._current:
            return (False,) * len(self)
        words = _words_layout(len(self)).unpack_from(self.raw, _COUNT.size)
        return tuple(bool(w & _MARKED) for w in words)

    def decoded(self) -> tuple[Block, ...]:
        """The ``Block`` objects (made once)."""
        if self._decoded is None:
            body = memoryview(self.raw)[_COUNT.size :]
            if self._current:
                self._decoded = tuple(_block_of(*each) for each in _BLOCK.iter_unpack(body))
            else:
                self._decoded = tuple(Block(*each) for each in _OLD_BLOCK.iter_unpack(body))
        return self._decoded

    def __len__(self) -> int:
        return (len(self.raw) - _COUNT.size) // self._size

    @overload
    def __getitem__(self, index: int) -> Block: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Block, ...]: ...
    def __getitem__(self, index: int | slice) -> Block | tuple[Block, ...]:
        return self.decoded()[index]

    def at(self, index: int) -> Block:
        """The block at ``index`` alone, read without making the others."""
        if self._decoded is not None:
            return self._decoded[index]
        if not 0 <= index < len(self):
            raise IndexError(index)
        start = _COUNT.size + index * self._size
        if self._current:
            return _block_of(*_BLOCK.unpack_from(self.raw, start))
        return Block(*_OLD_BLOCK.unpack_from(self.raw, start))

    def __iter__(self) -> Iterator[Block]:
        return iter(self.decoded())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedBlocks):
            return self.raw == other.raw
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.raw)

    def __repr__(self) -> str:
        return f"PackedBlocks({len(self)} blocks)"


CACHED_LAYOUTS = 320
"""Pages of up to this many blocks have their layouts cached (most pages: a few dozen). A
layout of ``n`` blocks is a ``struct.Struct`` of some 165 bytes a block: cached for every
count up to ``MAX_BLOCKS + TAIL_BLOCKS`` they took 27 MB a process; a longer page's are
made when it is read (55 us for 576 blocks)."""


def _packing(count: int) -> struct.Struct:
    """Packs the count and ``count`` current blocks (``blocks_to_bytes``' layout)."""
    return _cached_packing(count) if count <= CACHED_LAYOUTS else _packing_of(count)


def _packing_of(count: int) -> struct.Struct:
    return struct.Struct("<H" + "QQQQH" * count)


def _words_layout(count: int) -> struct.Struct:
    """Reads the word count (and chrome flag) of each of ``count`` current blocks."""
    return _cached_words(count) if count <= CACHED_LAYOUTS else _words_of(count)


def _words_of(count: int) -> struct.Struct:
    return struct.Struct("<" + f"{_BLOCK.size - 2}xH" * count)


def _field_layout(count: int, size: int, offset: int) -> struct.Struct:
    """Reads the uint64 at ``offset`` of each of ``count`` packed blocks of ``size`` bytes."""
    if count <= CACHED_LAYOUTS:
        return _cached_field(count, size, offset)
    return _field_of(count, size, offset)


def _field_of(count: int, size: int, offset: int) -> struct.Struct:
    skip = f"{offset}x" if offset else ""
    return struct.Struct("<" + f"{skip}Q{size - offset - 8}x" * count)


_cached_packing = lru_cache(maxsize=CACHED_LAYOUTS + 1)(_packing_of)
_cached_words = lru_cache(maxsize=CACHED_LAYOUTS + 1)(_words_of)
_cached_field = lru_cache(maxsize=4 * (CACHED_LAYOUTS + 1))(_field_of)
