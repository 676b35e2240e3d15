"""A page's blocks (its sentences), hashed: what tells a site's template from a copy.

A page that shares a long block with every page of its host (delivery terms, a licence, a
forum's rules) is not a copy of those pages; it is one when (almost) every block of its own
is already stored. Each block carries two hashes: ``exact`` (the same as nshash's sentence
hash, so a template sentence can be left out of the nshash look-up) and ``simhash``, a
64-bit SimHash of its words, near for a sentence with a word or two edited. A page keeps at
most ``MAX_BLOCKS`` blocks of ``MIN_BLOCK_WORDS`` words or more, in text order, from its
first ``MAX_BLOCK_CHARS`` characters.

Serialised after the sketch in a stored page's payload: a uint16 count, then per block its
exact hash and SimHash (uint64) and its word count (uint16), little-endian.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

import mmh3
import numpy as np

from scrapy_simdedup.fingerprint.nshash import split_sentences
from scrapy_simdedup.fingerprint.simhash import feature_hashes

MAX_BLOCKS = 128
MAX_BLOCK_CHARS = 20_000
"""Blocks are taken from the text's start: a long page's first 128 sentences are enough to
tell it apart, and its fingerprints cover the rest."""
MIN_BLOCK_WORDS = 4
NEAR_BITS = 12
"""Blocks whose SimHashes are this close are one sentence, edited (a word in ten changed)."""
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]|[^\W_]+")
_COUNT = struct.Struct("<H")
_BLOCK = struct.Struct("<QQH")


@dataclass(frozen=True)
class Block:
    """One sentence of a page: its exact hash, the SimHash of its words, its word count."""

    exact: int
    simhash: int
    words: int


def text_blocks(text: str, seed: int) -> tuple[Block, ...]:
    """The page's blocks of ``MIN_BLOCK_WORDS`` words or more (at most ``MAX_BLOCKS``)."""
    sentences: list[str] = []
    words: list[list[str]] = []
    for sentence in split_sentences(text[:MAX_BLOCK_CHARS]):
        found = _WORD.findall(sentence.lower())
        if len(found) >= MIN_BLOCK_WORDS:
            sentences.append(sentence)
            words.append(found)
            if len(sentences) == MAX_BLOCKS:
                break
    if not sentences:
        return ()
    simhashes = _word_simhashes(words, seed)
    return tuple(
        Block(mmh3.hash64(s.encode("utf-8", "surrogatepass"), seed, signed=False)[0], h, len(w))
        for s, h, w in zip(sentences, simhashes, words, strict=True)
    )


def _word_simhashes(blocks: list[list[str]], seed: int) -> list[int]:
    """One SimHash per block (each word one vote), in one vectorised pass; each distinct
    word of the page is hashed once."""
    vocabulary: dict[str, int] = {}
    at = [vocabulary.setdefault(word, len(vocabulary)) for words in blocks for word in words]
    hashes = feature_hashes(vocabulary, seed).astype("<u8").view(np.uint8).reshape(-1, 8)
    bits = np.unpackbits(hashes, axis=1, bitorder="little").astype(np.int32)
    sizes = np.fromiter(map(len, blocks), dtype=np.int64, count=len(blocks))
    starts = np.concatenate(([0], np.cumsum(sizes[:-1])))
    ones = np.add.reduceat(bits[np.array(at)], starts, axis=0)
    packed = np.packbits(2 * ones > sizes[:, None], axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def blocks_to_bytes(blocks: tuple[Block, ...]) -> bytes:
    body = b"".join(_BLOCK.pack(b.exact, b.simhash, min(b.words, 0xFFFF)) for b in blocks)
    return _COUNT.pack(len(blocks)) + body


def blocks_from_bytes(raw: bytes) -> tuple[Block, ...] | None:
    """The blocks in ``raw``; None when ``raw`` holds none (a page stored before blocks
    were recorded) or is malformed."""
    if len(raw) < _COUNT.size:
        return None
    (count,) = _COUNT.unpack_from(raw)
    if len(raw) != _COUNT.size + count * _BLOCK.size:
        return None
    return tuple(Block(*fields) for fields in _BLOCK.iter_unpack(raw[_COUNT.size :]))
