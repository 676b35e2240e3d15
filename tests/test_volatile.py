"""Volatile tokens masked: what a banner keeps from one request to the next."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_simdedup.fingerprint.volatile import _has_digit, masked


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Viewed 12 times, last synchronised 2026-03-04 12:00:01 UTC.",
         "Viewed 2,255,257 times, last synchronised 2027-11-30 08:15:59 UTC."),
        ("来源：人民日报 时间：2026-03-04 12:00 浏览：3281次",
         "来源：人民日报 时间：2025-12-31 23:59 浏览：17次"),
        ("Request 35bf992dc9e9c616 served in 391 ms.", "Request a1b2c3d4e5f60718 served in 7 ms."),
        ("Session SID9f8e7d6c5b expires Nov 27, 2026.",
         "Session SIDa0b1c2d3e4 expires Dec 1, 2026."),
    ],
)  # fmt: skip
def test_lines_that_differ_in_volatile_tokens_mask_alike(first: str, second: str) -> None:
    assert first != second and masked(first) == masked(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Team Red beat Team Blue 3 to 1.", "Team Green beat Team Blue 3 to 1."),
        ("Departs Oslo 08:15, arrives Bergen 14:40.", "Departs Oslo 08:15, arrives Voss 14:40."),
        ("A line without figures.", "Another line without figures."),
    ],
)
def test_lines_that_differ_in_their_words_stay_apart(first: str, second: str) -> None:
    assert masked(first) != masked(second)


def test_a_line_without_figures_is_itself() -> None:
    line = "Mirror hosted by Example Labs."
    assert masked(line) is line


@given(st.text(max_size=80))
def test_a_line_is_masked_exactly_when_it_holds_a_digit_of_any_script(line: str) -> None:
    """The regex short cut finds what ``str.isdigit`` finds: superscripts, fullwidth and
    Arabic-Indic digits too."""
    assert _has_digit(line) == any(c.isdigit() for c in line)
    for digit in ("²", "１", "٣", "7"):
        assert _has_digit(line + digit)
