"""The bound on a rule's share of differing pages: exact, and read the way a user reads it."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from scrapy_simdedup.url.estimate import CONFIDENCE, describe_bound, share_bound


def _at_most(new: int, judged: int, share: float) -> float:
    """P(X <= new), X ~ Binomial(judged, share), in exact fractions (an independent sum)."""
    p = Fraction(share)
    return float(sum(comb(judged, k) * p**k * (1 - p) ** (judged - k) for k in range(new + 1)))


@pytest.mark.parametrize(("new", "judged"), [(1, 20), (1, 240), (3, 60), (10, 400), (0, 59)])
def test_the_bound_is_the_share_at_which_so_few_new_pages_have_five_percent_chance(
    new: int, judged: int
) -> None:
    bound = share_bound(new, judged)
    alpha = 1 - CONFIDENCE
    assert _at_most(new, judged, bound) == pytest.approx(alpha, rel=1e-6)
    # a share a little below the bound leaves the counts more likely than that
    assert _at_most(new, judged, bound * 0.98) > alpha


def test_the_bound_falls_with_evidence_and_rises_with_new_pages() -> None:
    assert share_bound(0, 0) == 1.0  # nothing judged: nothing known
    assert share_bound(1, 1) == 1.0
    assert share_bound(0, 240) < share_bound(1, 240) < share_bound(2, 240)
    assert share_bound(1, 20) > share_bound(1, 200) > share_bound(1, 2000)
    # one new page among a handful says much; among hundreds, little
    assert share_bound(1, 20) > 0.2 and share_bound(1, 240) < 0.02
    assert share_bound(5, 10**6) < 2e-5  # millions of pages: summed in logs


@pytest.mark.parametrize(("new", "judged"), [(-1, 5), (3, 2), (0, -1)])
def test_a_count_that_cannot_be_is_refused(new: int, judged: int) -> None:
    with pytest.raises(ValueError, match="no count"):
        share_bound(new, judged)


def test_the_bound_reads_as_a_sentence() -> None:
    assert describe_bound(1, 240) == (
        "240 samples, 1 new: at most 2.0% of its skips differ (95% confidence)"
    )
