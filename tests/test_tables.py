from __future__ import annotations

import random

import pytest

from scrapy_simdedup.index.tables import MAX_TABLES, TableDesign, choose_design


@pytest.mark.parametrize(
    ("max_distance", "expected_size", "described"),
    [
        (3, 10_000_000, "4 tables, 16-bit prefixes"),  # seed 001's design
        (3, 1_000_000_000, "10 tables, 25/26-bit prefixes"),
        (0, 10_000_000, "1 tables, 64-bit prefixes"),
        (1, 1_000, "2 tables, 32-bit prefixes"),
    ],
)
def test_design_choice(max_distance: int, expected_size: int, described: str) -> None:
    assert choose_design(max_distance, expected_size).describe() == described


@pytest.mark.parametrize("max_distance", range(9))
@pytest.mark.parametrize("expected_size", [1_000, 10_000_000, 10**10])
def test_every_design_finds_every_neighbour(max_distance: int, expected_size: int) -> None:
    design = choose_design(max_distance, expected_size)
    assert len(design.tables) <= MAX_TABLES
    rng = random.Random(max_distance * 31 + expected_size)
    for _ in range(200):
        a = rng.getrandbits(64)
        b = a
        for bit in rng.sample(range(64), rng.randint(0, max_distance)):
            b ^= 1 << bit
        # Pigeonhole: some table sees the two with equal prefixes.
        assert any(t.prefix(t.apply(a)) == t.prefix(t.apply(b)) for t in design.tables)
        # Permutations keep the distance.
        for t in design.tables:
            assert (t.apply(a) ^ t.apply(b)).bit_count() == (a ^ b).bit_count()


def test_permutation_is_a_bijection_on_bits() -> None:
    for table in choose_design(3, 10**7).tables:
        assert sorted(table.apply(1 << bit).bit_length() for bit in range(64)) == list(range(1, 65))


@pytest.mark.parametrize(
    ("max_distance", "blocks", "message"),
    [
        (9, 10, "max_distance must be between 0 and 8"),
        (3, 3, r"blocks must be between max_distance \+ 1 \(4\) and 64"),
    ],
)
def test_bad_designs_are_refused(max_distance: int, blocks: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TableDesign(max_distance, blocks)


@pytest.mark.parametrize("max_distance", [0, 1, 3, 4, 6])
def test_invert_takes_every_table_back_to_the_fingerprint(max_distance: int) -> None:
    """The index reads one table per fingerprint the memory tables found (issue 37): it
    tells the tables' hits of one fingerprint apart by inverting their permutations."""
    design = choose_design(max_distance, 1_000_000)
    rng = random.Random(max_distance)
    for fingerprint in [0, 2**64 - 1, *(rng.getrandbits(64) for _ in range(300))]:
        for table in design.tables:
            assert table.invert(table.apply(fingerprint)) == fingerprint
