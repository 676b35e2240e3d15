"""Text histograms a person reads at a glance: one row per bin, a bar per series."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

BAR_WIDTH = 24


def histogram(
    bins: Sequence[str], series: Mapping[str, Sequence[int]], *, width: int = BAR_WIDTH
) -> list[str]:
    """Rows ``label  ####### 12  ### 3``, one column per series, bars scaled to the largest
    count of all series (so columns compare), a count > 0 never drawn empty."""
    largest = max((count for counts in series.values() for count in counts), default=0)
    label_width = max((len(label) for label in bins), default=0)
    column = width + 7
    header = " " * label_width + "  " + "".join(f"{name:<{column}}" for name in series)
    rows = [header.rstrip()]
    for at, label in enumerate(bins):
        cells = []
        for counts in series.values():
            count = counts[at]
            bar = "#" * (max(1, round(width * count / largest)) if count else 0)
            cells.append(f"{bar} {count}" if count else "")
        rows.append(f"{label:>{label_width}}  " + "".join(f"{c:<{column}}" for c in cells))
    return [row.rstrip() for row in rows]


def counts_in(values: Sequence[float], edges: Sequence[float]) -> list[int]:
    """How many ``values`` fall in each bin ``[edges[i], edges[i+1])``; the last bin is
    closed, so 1.0 counts in the top bin."""
    counts = [0] * (len(edges) - 1)
    for value in values:
        for at in range(len(counts)):
            last = at == len(counts) - 1
            if edges[at] <= value < edges[at + 1] or (last and value == edges[at + 1]):
                counts[at] += 1
                break
    return counts
