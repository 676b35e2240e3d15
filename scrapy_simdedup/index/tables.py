"""Which permuted tables a SimHash index keeps, and how a fingerprint is permuted for each.

Manku, Jain & Das Sarma (WWW 2007): split the f=64 bits into B blocks. Two fingerprints at
most k bits apart differ in at most k blocks, so at least B-k blocks agree exactly. Keep one
sorted table per choice of B-k blocks, with those blocks moved to the front of every
fingerprint; a query then looks up its own permuted prefix exactly in each table and checks
only the candidates found there.

With B = k+1 (seed 001's design for k=3: 4 tables, 16-bit prefixes) a query probes about
N / 2**16 candidates per table. More blocks give longer prefixes but more tables:
``choose_design`` takes the fewest tables whose expected candidates per table stay under
``CANDIDATES_PER_TABLE`` for the expected number of fingerprints.

Bits are numbered from the most significant; a permuted fingerprint is again a 64-bit int,
stored as 8 big-endian bytes so that byte order is numeric order and a prefix is a range.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from math import comb

BITS = 64
MAX_DISTANCE = 8
MAX_TABLES = 64
CANDIDATES_PER_TABLE = 256


@dataclass(frozen=True)
class TableDesign:
    """``blocks`` blocks over 64 bits, tables for every choice of ``blocks - max_distance``."""

    max_distance: int
    blocks: int

    def __post_init__(self) -> None:
        if not 0 <= self.max_distance <= MAX_DISTANCE:
            raise ValueError(
                f"max_distance must be between 0 and {MAX_DISTANCE}, got {self.max_distance!r}"
            )
        if not self.max_distance < self.blocks <= BITS:
            raise ValueError(
                f"blocks must be between max_distance + 1 ({self.max_distance + 1}) and {BITS}, "
                f"got {self.blocks!r}"
            )

    @cached_property
    def block_spans(self) -> tuple[tuple[int, int], ...]:
        """(first bit from the top, width) of each block; wider blocks first."""
        base, extra = divmod(BITS, self.blocks)
        spans, start = [], 0
        for i in range(self.blocks):
            width = base + (1 if i < extra else 0)
            spans.append((start, width))
            start += width
        return tuple(spans)

    @cached_property
    def tables(self) -> tuple[Permutation, ...]:
        leading = self.blocks - self.max_distance
        return tuple(
            Permutation.of(self.block_spans, front)
            for front in combinations(range(self.blocks), leading)
        )

    @property
    def min_prefix_bits(self) -> int:
        return min(table.prefix_bits for table in self.tables)

    def describe(self) -> str:
        widths = sorted({table.prefix_bits for table in self.tables})
        return f"{len(self.tables)} tables, {'/'.join(map(str, widths))}-bit prefixes"


def choose_design(max_distance: int, expected_size: int) -> TableDesign:
    """The design with the fewest tables that keeps each table's candidates per query small.

    >>> choose_design(3, 10_000_000).describe()
    '4 tables, 16-bit prefixes'
    >>> choose_design(3, 8_000_000_000).describe()
    '10 tables, 25/26-bit prefixes'
    """
    if expected_size < 1:
        raise ValueError(f"expected_size must be at least 1, got {expected_size!r}")
    best = TableDesign(max_distance, max_distance + 1)
    for blocks in range(max_distance + 1, BITS + 1):
        leading = blocks - max_distance
        if comb(blocks, leading) > MAX_TABLES:
            break
        best = TableDesign(max_distance, blocks)
        if expected_size / 2**best.min_prefix_bits <= CANDIDATES_PER_TABLE:
            break
    return best


@dataclass(frozen=True)
class Permutation:
    """Moves chosen blocks to the front; ``apply`` works on ints and numpy uint64 arrays."""

    prefix_bits: int
    moves: tuple[tuple[int, int, int], ...]  # (source shift, mask, target shift), per block

    @classmethod
    def of(cls, spans: tuple[tuple[int, int], ...], front: tuple[int, ...]) -> Permutation:
        order = list(front) + [i for i in range(len(spans)) if i not in front]
        moves, target = [], 0
        for i in order:
            start, width = spans[i]
            moves.append((BITS - start - width, (1 << width) - 1, BITS - target - width))
            target += width
        return cls(sum(spans[i][1] for i in front), tuple(moves))

    def apply(self, fingerprint: int) -> int:
        out = 0
        for source, mask, target in self.moves:
            out |= ((fingerprint >> source) & mask) << target
        return out

    def invert(self, permuted: int) -> int:
        """The fingerprint ``apply`` permuted into ``permuted``."""
        out = 0
        for source, mask, target in self.moves:
            out |= ((permuted >> target) & mask) << source
        return out

    def prefix(self, permuted: int) -> int:
        return permuted >> (BITS - self.prefix_bits)
