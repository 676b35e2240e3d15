"""A list of durations as the benchmarks report it: its percentiles in microseconds."""

from __future__ import annotations

import statistics


def percentiles(seconds: list[float]) -> dict[str, float]:
    """Microseconds at the median, the 90th, 99th and 99.9th percentiles, the largest, the
    mean, and the count."""
    if len(seconds) < 2:
        return {"count": len(seconds)}
    cuts = statistics.quantiles(seconds, n=1000, method="inclusive")
    return {
        "count": len(seconds),
        "mean": 1e6 * statistics.fmean(seconds),
        "p50": 1e6 * cuts[499],
        "p90": 1e6 * cuts[899],
        "p99": 1e6 * cuts[989],
        "p99.9": 1e6 * cuts[998],
        "max": 1e6 * max(seconds),
    }
