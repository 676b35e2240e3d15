"""Advice on ``SIMDEDUP_CONFIRM_SIMILARITY`` and ``SIMDEDUP_CONTENT_MAX_DISTANCE`` from a log.

Only unconfirmed candidates kept for their similarity alone (``summary.similar_only``) would
change with a lower threshold; candidates kept for the words they add, or for a length that
differs by more than a fifth, stay kept whatever it is. When many of them sit just under
the threshold (an edited mirror: a few words changed per page), the report suggests the
threshold that would drop them, rounded down to 0.05, never under ``LOWEST_THRESHOLD``.
The sketch estimates similarity to about +-0.06, so candidates near the threshold fall on
either side by chance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.audit.summary import similar_only

if TYPE_CHECKING:
    from scrapy_simdedup.audit.summary import Summary

JUST_UNDER = 0.15
"""How far under the threshold a candidate still sits "just under" it."""
MIN_JUST_UNDER = 3
LOWEST_THRESHOLD = 0.5
"""Never suggested lower: at 0.5 half a page's shingles may differ."""
STEP = 0.05


@dataclass(frozen=True)
class ThresholdAdvice:
    """``suggested``: the threshold to try, None when no change is advised; ``just_under``:
    candidates kept on similarity within ``JUST_UNDER`` of the threshold, of
    ``similar_only`` such candidates in all; ``would_drop``: those the suggestion drops."""

    threshold: float
    suggested: float | None
    just_under: int
    similar_only: int
    would_drop: int


@dataclass(frozen=True)
class DistanceAdvice:
    """Copies found only through shared sentences, beyond k bits: ``beyond`` of
    ``fingerprinted`` copies (exact ones left out); ``suggested`` k, or None."""

    max_distance: int
    beyond: int
    fingerprinted: int
    farthest: int
    suggested: int | None


def threshold_advice(summary: Summary) -> ThresholdAdvice:
    threshold = summary.threshold
    similarities = [float(r["similarity"]) for r in summary.unconfirmed if similar_only(r)]
    under = [value for value in similarities if threshold - JUST_UNDER <= value < threshold]
    suggested = None
    if len(under) >= MIN_JUST_UNDER and 2 * len(under) >= len(similarities):
        lowest = math.floor(min(under) / STEP + 1e-9) * STEP
        suggested = round(max(LOWEST_THRESHOLD, lowest), 2)
    would_drop = sum(1 for value in similarities if suggested and value >= suggested)
    return ThresholdAdvice(threshold, suggested, len(under), len(similarities), would_drop)


MAX_K = 8


def distance_advice(summary: Summary) -> DistanceAdvice:
    """When a fifth or more of the fingerprinted copies (3 at least) were found only by
    shared sentences beyond k, a larger k would find such copies by SimHash too, including
    those whose longest sentences were edited as well (each bit of k costs more candidates
    to confirm per page)."""
    k = summary.max_distance
    fingerprinted = [r for r in summary.copies if r.get("found_by") in ("simhash", "sentences")]
    beyond = [
        int(r.get("distance", 0))
        for r in fingerprinted
        if r.get("found_by") == "sentences" and int(r.get("distance", 0)) > k
    ]
    farthest = max(beyond, default=0)
    suggested = None
    if len(beyond) >= MIN_JUST_UNDER and 5 * len(beyond) >= len(fingerprinted):
        near = [distance for distance in beyond if distance <= k + 3]
        if near:
            suggested = min(MAX_K, max(near))
    return DistanceAdvice(k, len(beyond), len(fingerprinted), farthest, suggested)
