"""A page's blocks in bytes: how they are stored, and read back only as far as asked.

Serialised after the sketch in a stored page's payload: a uint16 count, then per block its
exact hash, SimHash and word set (uint64) and its word count (uint16), little-endian. Since
the chrome work the count has its top bit set, and each block holds its masked hash
(uint64) after the word set, and its chrome and volatile flags as the top two bits of the
word count; pages stored before are read with no masked hash and no flags.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import overload

from scrapy_simdedup.fingerprint.block import Block, BlockFields

_COUNT = struct.Struct("<H")
_OLD_BLOCK = struct.Struct("<QQQH")  # pages stored before masked hashes and chrome
_BLOCK = struct.Struct("<QQQQH")
_MARKED = 0x8000  # in the count: blocks of the current layout; in a block's words: chrome
_VOLATILE = 0x4000  # in a block's words: it holds volatile tokens
_LINKED = 0x2000  # in a block's words: its lines are links (``linklines.py``)
_CJK = 0x1000  # in a block's words: most of its words are CJK characters
_MAX_WORDS = 0x0FFF  # a sentence of 4,096 words stored before these flags reads as flagged


def packed_size(raw: bytes) -> int | None:
    """The bytes of the blocks record ``raw`` starts with; None when it holds none."""
    if len(raw) < _COUNT.size:
        return None
    (count,) = _COUNT.unpack_from(raw)
    size = _BLOCK.size if count & _MARKED else _OLD_BLOCK.size
    end = _COUNT.size + (count & ~_MARKED) * size
    return end if end <= len(raw) else None


def blocks_to_bytes(blocks: tuple[Block, ...]) -> bytes:
    return pack_fields(
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


def pack_fields(found: list[BlockFields]) -> bytes:
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
    return None if packed is None else packed.decoded()


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
            if self._current:  # ``_block_of``, inlined: a few hundred blocks a comparison
                self._decoded = tuple(
                    Block(
                        exact, simhash, wordset, words & _MAX_WORDS, masked,
                        bool(words & _MARKED), bool(words & _VOLATILE), bool(words & _LINKED),
                        bool(words & _CJK),
                    )
                    for exact, simhash, wordset, masked, words in _BLOCK.iter_unpack(body)
                )  # fmt: skip
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
