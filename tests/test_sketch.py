from __future__ import annotations

import itertools
import random
from pydoc_data.topics import topics

import pytest

from benchmarks.corpora import chinese_articles, english_articles
from scrapy_simdedup.fingerprint.sketch import SKETCH_BYTES, Sketch, sketch_tokens
from scrapy_simdedup.fingerprint.textprint import fingerprint_text
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from tests.support.edits import chinese_copies, english_copies


def _sketch(text: str, seed: int = 5) -> Sketch:
    result = fingerprint_text(text, with_sketch=True, seed=seed)
    assert result.sketch is not None
    return result.sketch


@pytest.mark.parametrize(
    ("docs", "copies"),
    [(english_articles(1500), english_copies), (chinese_articles()[:60], chinese_copies)],
    ids=["en", "zh"],
)
def test_copies_confirm_and_unrelated_texts_do_not(docs: tuple[str, ...], copies) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(2)
    sketches = [_sketch(d) for d in docs]
    for doc, sketch in zip(docs, sketches, strict=True):
        for _, copy in copies(doc, rng):
            assert sketch.confirms(_sketch(copy), 0.8)
    assert not any(a.confirms(b, 0.8) for a, b in itertools.combinations(sketches, 2))


def test_a_page_containing_another_is_not_its_copy() -> None:
    chapter, section = _sketch(topics["execmodel"]), _sketch(topics["naming"])
    assert topics["naming"][200:800] in topics["execmodel"]
    assert not chapter.confirms(section, 0.8)


def test_same_sketch_from_both_paths_and_round_trip() -> None:
    text = english_articles(1500)[0]
    tokens = Tokenizer().tokens(text)
    sketch = sketch_tokens(tokens, 5)
    assert sketch == _sketch(text)
    raw = sketch.to_bytes()
    assert len(raw) == SKETCH_BYTES
    assert Sketch.from_bytes(raw) == sketch


@pytest.mark.parametrize("raw", [b"", b"x" * 10, b"\x00" * (SKETCH_BYTES + 4)])
def test_malformed_payloads_are_no_sketch(raw: bytes) -> None:
    assert Sketch.from_bytes(raw) is None


def test_empty_and_tiny_texts() -> None:
    assert sketch_tokens([], 1).tokens == 0
    assert sketch_tokens(["one"], 1).similarity(sketch_tokens(["one"], 1)) == 1.0
