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

Serialised after the sketch in a stored page's payload: ``packedblocks.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain

import mmh3

from scrapy_simdedup.fingerprint.block import CJK_CHARS_PER_WORD, Block, BlockFields
from scrapy_simdedup.fingerprint.chrome import chrome_lines
from scrapy_simdedup.fingerprint.linklines import MARKS, is_link_line
from scrapy_simdedup.fingerprint.nshash import split_sentences
from scrapy_simdedup.fingerprint.packedblocks import PackedBlocks, pack_fields
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
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD = re.compile(f"[{_CJK_RANGES}]|[^\\W_{_CJK_RANGES}]+")  # a CJK character is a word
_CJK_CHAR = re.compile(f"[{_CJK_RANGES}]")


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
    return PackedBlocks(pack_fields(_block_fields(text, seed, chrome)))


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


def _block_fields(text: str, seed: int, chrome: list[bool] | None) -> list[BlockFields]:
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
    fields: list[BlockFields] = []
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
