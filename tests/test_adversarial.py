"""A page crafted to collide with a target under a public hash seed, against a store that
draws its own seed."""

from __future__ import annotations

import random
import string

from benchmarks.corpora import english_articles
from scrapy_simdedup.fingerprint.simhash import (
    DEFAULT_SEED,
    feature_hash,
    hamming_distance,
    simhash,
)
from scrapy_simdedup.index.opening import open_index

CLOSE_FEATURE_BITS = 22  # a feature this close to the target votes for most of its bits


def craft_collision(target: int, seed: int, words: int = 120) -> str:
    """Random words, none from the target page, each chosen because its hash under ``seed``
    agrees with ``target`` on most bits: together they vote ``target``'s fingerprint."""
    rng = random.Random(2007)
    chosen: list[str] = []
    while len(chosen) < words:
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(10))
        if hamming_distance(feature_hash(word, seed), target) <= CLOSE_FEATURE_BITS:
            chosen.append(word)
    return " ".join(chosen)


def test_a_crafted_collision_works_only_under_the_seed_it_was_crafted_for() -> None:
    target = english_articles()[0]
    forged = craft_collision(simhash(target, seed=DEFAULT_SEED), DEFAULT_SEED)
    assert not set(forged.split()) & set(target.lower().split())  # nothing in common
    # The attack is real: under the public seed the forgery is a near-duplicate.
    assert (
        hamming_distance(simhash(forged, seed=DEFAULT_SEED), simhash(target, seed=DEFAULT_SEED))
        <= 3
    )

    with open_index("memory") as index:  # a new store draws its own 32-bit seed
        assert index.seed != DEFAULT_SEED
        kept = index.fingerprint_text(target).simhash
        assert kept is not None
        index.add(kept, "https://target.example/page")
        fake = index.fingerprint_text(forged).simhash
        assert fake is not None
        assert hamming_distance(fake, kept) > 3
        assert index.query(fake) == []  # the forged page is new, the target is not hidden
