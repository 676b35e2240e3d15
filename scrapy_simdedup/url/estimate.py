"""How far a URL rule can be trusted: a bound on the share of its skips that differ.

A rule is a statistical claim ("this host's pages copy that host's"). While it skips, one
in so many of the requests it would skip is fetched instead, a sample (``learner.py``), and
the content pipeline judges it: a copy, as the rule predicted, or a page that came back new.
From those counts, ``share_bound`` gives the largest share of differing pages among the
rule's skips that they leave plausible: the exact (Clopper-Pearson) one-sided upper bound at
``CONFIDENCE``. With 240 samples and none new it is 1.2%; with one of 240 new, 2.0%; with
one of 20, 22%. With a risk (``SIMDEDUP_URL_RISK``), a rule skips on while that bound stays
within the share of differing skips the user accepts, so one contradicting page ends a rule
that a handful of samples support, not one that hundreds do.

With a risk, samples are drawn at random from the requests a rule would skip, as the crawl
meets them; the first would-be skip of each section is one too, and a page that came back
new counts whichever request brought it. Not a random draw of the rule's skips, but the
nearest a crawl has: the bound is an estimate, and says so.
"""

from __future__ import annotations

import math
from functools import lru_cache

CONFIDENCE = 0.95
"""The confidence of every stated bound."""
_STEPS = 60  # bisection steps: the bound to 2**-60


@lru_cache(maxsize=4096)  # asked again for the same counts while a rule's evidence rests
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


def describe_bound(new: int, samples: int) -> str:
    """The bound as a user reads it: "240 samples, 1 new: at most 2.0% of its skips differ
    (95% confidence)"."""
    bound = share_bound(new, samples)
    return (
        f"{samples:,} sample{'s' if samples != 1 else ''}, {new:,} new: at most "
        f"{bound:.1%} of its skips differ ({CONFIDENCE:.0%} confidence)"
    )
