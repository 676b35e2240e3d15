from __future__ import annotations

import itertools
import os
import random
import statistics
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.corpora import chinese_articles, english_articles
from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.simhash import (
    MIN_FEATURES,
    feature_hash,
    hamming_distance,
    simhash,
    simhash_weights,
    similarity,
)
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from tests.support import processes
from tests.support.edits import chinese_copies, english_copies

EN = (
    "Ferries cross the harbour every twenty minutes while the old bridge carries buses, "
    "bicycles and delivery vans between the fish market and the northern business district, "
    "and the council argues about subsidies."
)
ZH = (
    "记者从省农业科学院获悉，由该院培育的耐高温水稻新品种近日在南方五个县完成试种，"
    "试验田数据显示新品种的结实率比常规品种高出百分之十五，每亩平均增产约六十公斤。"
)


# Stored indexes depend on these values: a change here invalidates every user's store.
@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        (EN, {}, 0x73851EB339F1A68A),
        (EN, {"seed": 12345}, 0x69DE460FCAC02C75),
        (ZH, {}, 0xB732A83AD52031B4),
        (ZH, {"seed": 12345}, 0x2BAFECEEC46E5393),
        (ZH, {"tokenizer": Tokenizer(cjk="bigrams")}, 0xBC1A0E3FCD2002BD),
    ],
)
def test_golden_fingerprints(text: str, kwargs: dict[str, object], expected: int) -> None:
    assert simhash(text, **kwargs) == expected  # type: ignore[arg-type]


def test_fingerprints_identical_in_another_process() -> None:
    code = "from scrapy_simdedup import simhash; import sys; print(simhash(sys.argv[1]))"
    for text in (EN, ZH):
        run = processes.run(
            [sys.executable, "-c", code, text],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "123"},
            timeout=60,
        )
        assert int(run.stdout) == simhash(text)


def test_vote_matches_the_definition_bit_by_bit() -> None:
    rng = random.Random(5)
    weights = {f"feature{i}": rng.uniform(0.5, 5.0) for i in range(200)}
    expected = 0
    for bit in range(64):
        vote = sum(w if feature_hash(f) >> bit & 1 else -w for f, w in weights.items())
        expected |= (vote > 0) << bit
    assert simhash_weights(weights) == expected


def test_seed_changes_every_fingerprint() -> None:
    assert simhash(EN, seed=1) != simhash(EN, seed=2)


@pytest.mark.parametrize("text", ["", "hello", "the of and", "一二三四五六七八九十", "a b c d e f"])
def test_short_texts_are_refused(text: str) -> None:
    with pytest.raises(TextTooShortError, match="exact hash"):
        simhash(text)


def _distances(docs: tuple[str, ...], copies, seed: int = 7) -> dict[str, list[int]]:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    found: dict[str, list[int]] = {}
    for text in docs:
        original = simhash(text)
        for kind, copy in copies(text, rng):
            found.setdefault(kind, []).append(hamming_distance(original, simhash(copy)))
    return found


@pytest.mark.parametrize(
    ("language", "docs", "copies", "within_3"),
    [
        ("english", english_articles(2000), english_copies, 0.9),
        ("chinese", chinese_articles(2000, limit=400), chinese_copies, 0.9),
    ],
)
def test_edited_copies_stay_within_three_bits(language, docs, copies, within_3) -> None:  # type: ignore[no-untyped-def]
    assert len(docs) >= 30, f"too few {language} articles to measure"
    for kind, distances in _distances(docs, copies).items():
        share = sum(d <= 3 for d in distances) / len(distances)
        assert share >= within_3, (language, kind, sorted(distances))
        assert statistics.median(distances) <= 1, (language, kind)


@pytest.mark.parametrize(
    "docs", [english_articles(2000), chinese_articles(2000, limit=400)[::2]], ids=["en", "zh"]
)
def test_unrelated_articles_are_far_apart(docs: tuple[str, ...]) -> None:
    # Every second Chinese document: neighbours can be two halves of one long article.
    fingerprints = [simhash(text) for text in docs]
    distances = [hamming_distance(a, b) for a, b in itertools.combinations(fingerprints, 2)]
    assert len(distances) > 500
    assert min(distances) > 10
    assert 24 <= statistics.mean(distances) <= 36  # the same topic pulls a little below 32


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_distance_is_symmetric_and_zero_only_when_equal(a: int, b: int) -> None:
    assert hamming_distance(a, b) == hamming_distance(b, a)
    assert (hamming_distance(a, b) == 0) == (a == b)
    assert 0.0 <= similarity(a, b) <= 1.0


@given(st.text())
def test_any_text_gives_a_fingerprint_or_too_short(text: str) -> None:
    try:
        value = simhash(text)
    except TextTooShortError as exc:
        assert exc.features < MIN_FEATURES
    else:
        assert 0 <= value < 2**64


@given(st.text(alphabet=st.characters(codec=None, categories=None), min_size=1))
def test_lone_surrogates_and_nuls_never_crash(text: str) -> None:
    nasty = "\ud800 " + text + " \x00 \udfff " + " ".join(f"word{i}" for i in range(MIN_FEATURES))
    assert 0 <= simhash(nasty) < 2**64
    assert 0 <= simhash(nasty, tokenizer=Tokenizer(shingles="overlapping")) < 2**64


def test_huge_text() -> None:
    text = " ".join(english_articles()) * 20
    assert len(text) > 5_000_000
    assert simhash(text) == simhash(text + " ")
