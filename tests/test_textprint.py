from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from scrapy_simdedup.fingerprint.simhash import MIN_FEATURES
from scrapy_simdedup.fingerprint.textprint import exact_hash, fingerprint_text


def test_tiny_pages_have_no_simhash_and_differ_exactly() -> None:
    a, b = fingerprint_text("Page not found"), fingerprint_text("Access denied")
    assert a.too_short and b.too_short
    assert a.exact != b.exact


def test_exact_hash_ignores_whitespace_layout() -> None:
    assert fingerprint_text("a  b\n c").exact == fingerprint_text(" a b c ").exact


@given(st.text())
def test_never_raises(text: str) -> None:
    result = fingerprint_text(text)
    assert result.too_short == (result.features < MIN_FEATURES)
    assert 0 <= result.exact < 2**64


SPACES = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())


@given(st.text(alphabet=st.sampled_from(f"ab中{SPACES}\u200b\ufeff"), max_size=40))
def test_exact_hash_treats_every_unicode_space_alike(text: str) -> None:
    # exact_hash splits on what str.split() calls whitespace: the same set as re's \s.
    runs = re.sub(r"\s+", " ", text).strip()
    assert " ".join(text.split()) == runs
    assert exact_hash(text, 7) == exact_hash(runs, 7)
