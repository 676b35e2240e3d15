"""How far a URL rule can be trusted: a bound on the share of its pages that differ.

A rule is a statistical claim ("this host's pages copy that host's"), and its evidence is a
count: of the pages judged under it, so many were copies and so many came back new. From
them, ``share_bound`` gives the largest share of new pages the counts leave plausible: the
exact (Clopper-Pearson) one-sided upper bound at ``CONFIDENCE``. With 240 pages judged and
none new it is 1.2%; with one of 240 new, 2.0%; with one of 20, 22%. A rule skips on while
that bound stays within the share of differing pages the user accepts (``SIMDEDUP_URL_RISK``),
so one contradicting page ends a rule that a handful of pages support, not one that hundreds
do.

The pages judged under a rule are those that taught it and the samples fetched while it
skipped, not a random draw of the pages it skipped: the bound is an estimate, and says so.
"""

from __future__ import annotations

import math

CONFIDENCE = 0.95
"""The confidence of every stated bound."""
_STEPS = 60  # bisection steps: the bound to 2**-60


def share_bound(new: int, judged: int, confidence: float = CONFIDENCE) -> float:
    """The largest share ``p`` of differing pages under which seeing at most ``new`` of
    ``judged`` pages differ has probability at least ``1 - confidence``. 1.0 with nothing
    judged."""
    if new < 0 or judged < 0 or new > judged:
        raise ValueError(f"{new} new pages of {judged} judged is no count")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if new >= judged:
        return 1.0
    alpha = 1.0 - confidence
    if new == 0:  # P(no new page) = (1 - p) ** judged
        return 1.0 - math.pow(alpha, 1.0 / judged)
    low, high = new / judged, 1.0
    for _ in range(_STEPS):
        middle = (low + high) / 2
        if _at_most(new, judged, middle) > alpha:
            low = middle
        else:
            high = middle
    return high


def _at_most(new: int, judged: int, share: float) -> float:
    """P(X <= new) for X ~ Binomial(judged, share), summed in logs (``judged`` may be
    millions)."""
    log_share, log_rest = math.log(share), math.log1p(-share)
    log_terms = [
        math.lgamma(judged + 1) - math.lgamma(k + 1) - math.lgamma(judged - k + 1)
        + k * log_share + (judged - k) * log_rest
        for k in range(new + 1)
    ]  # fmt: skip
    top = max(log_terms)
    return math.exp(top) * sum(math.exp(term - top) for term in log_terms)


def describe_bound(new: int, judged: int) -> str:
    """The bound as a user reads it: "240 pages judged, 1 new: at most 2.0% differ (95%)"."""
    bound = share_bound(new, judged)
    return (
        f"{judged:,} page{'s' if judged != 1 else ''} judged, {new:,} new: at most "
        f"{bound:.1%} of its pages differ ({CONFIDENCE:.0%} confidence)"
    )
