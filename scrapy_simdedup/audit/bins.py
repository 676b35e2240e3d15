"""The report's histograms as data: bins and counts of SimHash distances and similarities,
shared by the text report (``report.py``) and the HTML one (``html.py``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.audit.histogram import counts_in
from scrapy_simdedup.audit.tuning import JUST_UNDER

if TYPE_CHECKING:
    from scrapy_simdedup.audit.summary import Summary


@dataclass(frozen=True)
class Histogram:
    """``counts[series][i]`` values fall in bin ``bins[i]``; ``marked``: the bin where the
    setting the chart is about (k, or the threshold) sits, if any."""

    title: str
    bins: list[str]
    counts: dict[str, list[int]]
    marked: int | None = None


def distances(summary: Summary) -> Histogram:
    """SimHash distances of the fingerprinted copies and the unconfirmed candidates, 0 to
    k + 5 bits and one bin beyond."""
    k = summary.max_distance
    fingerprinted = [r for r in summary.copies if r.get("found_by") in ("simhash", "sentences")]
    series = {"copies": fingerprinted, "unconfirmed": summary.unconfirmed}
    top = k + 5
    bins = [str(bits) for bits in range(top + 1)] + [f">{top}"]
    counts = {
        name: counts_in([min(int(r.get("distance", 0)), top + 1) for r in found], range(top + 3))
        for name, found in series.items()
    }
    exact = len(summary.copies) - len(fingerprinted)
    title = (
        f"SimHash distance in bits (k = {k}: beyond it, only shared sentences find a copy; "
        f"{exact:,} copies found by their exact text are left out)"
    )
    return Histogram(title, bins, counts, marked=k)


def similarities(summary: Summary) -> Histogram:
    """Similarities of the copies and the unconfirmed candidates in bins of 0.05 (the
    threshold an edge), empty bins far under the threshold left out."""
    threshold = round(summary.threshold, 2)
    series = {
        "copies": [float(r["similarity"]) for r in summary.copies if "similarity" in r],
        "unconfirmed": [float(r["similarity"]) for r in summary.unconfirmed if "similarity" in r],
    }
    values = [value for found in series.values() for value in found]
    start = max(0.0, math.floor(min([threshold - JUST_UNDER, *values]) * 20 + 1e-9) / 20)
    grid = {round(start + 0.05 * at, 2) for at in range(round((1 - start) * 20) + 1)}
    edges = sorted({*grid, threshold})
    counts = {name: counts_in(found, edges) for name, found in series.items()}
    near = round(threshold - JUST_UNDER, 2)
    shown = [  # empty bins far under the threshold say nothing
        at
        for at in range(len(edges) - 1)
        if edges[at] >= near or any(found[at] for found in counts.values())
    ]
    marked = next((row for row, at in enumerate(shown) if edges[at] == threshold), None)
    return Histogram(
        "Similarity (estimated Jaccard similarity of 3-word shingles; copies need the threshold)",
        [f"{edges[at]:.2f}-{edges[at + 1]:.2f}" for at in shown],
        {name: [found[at] for at in shown] for name, found in counts.items()},
        marked=marked,
    )
