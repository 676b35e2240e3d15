"""``scrapy simdedup report``'s text: a verdict log's summary, laid out to read at a glance."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from scrapy_simdedup.audit import bins
from scrapy_simdedup.audit.histogram import histogram
from scrapy_simdedup.audit.summary import why_kept
from scrapy_simdedup.audit.tuning import JUST_UNDER, distance_advice, threshold_advice
from scrapy_simdedup.index.handle import DEFAULT_EXPECTED_SIZE
from scrapy_simdedup.index.tables import choose_design
from scrapy_simdedup.url.estimate import describe_bound
from scrapy_simdedup.url.rules import copy_note

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.audit.records import Record
    from scrapy_simdedup.audit.summary import MirrorPair, Summary

LISTED = 5  # clusters, members of a cluster, pages on either side of the threshold
FOUND_BY = {
    "exact": "exact text",
    "short_text": "short text",
    "simhash": "SimHash",
    "sentences": "shared sentences",
    "same_key": "same key",
}


def report(summary: Summary, *, clusters: int = LISTED) -> list[str]:
    lines = overview(summary)
    lines += ["", "Mirror hosts (one host serving another's pages)"]
    lines += [line for pair in summary.mirrors for line in _mirror(pair)] or ["  none"]
    lines += ["", "URL rules at the crawl's end (what their samples say)"]
    lines += [f"  {line}" for line in rule_lines(summary)] or ["  none"]
    lines += ["", "Largest clusters (original <- its copies)"]
    lines += _clusters(summary, clusters) or ["  none"]
    lines += ["", *_distances(summary), "", *_similarities(summary)]
    lines += ["", *_nearest(summary), "", *advice(summary)]
    return lines


def overview(summary: Summary) -> list[str]:
    events, settings = summary.events, summary.settings
    found_by = _counted(FOUND_BY.get(str(r.get("found_by")), "?") for r in summary.copies)
    adding = sum(1 for r in summary.unconfirmed if r.get("adds_content"))
    skipped = _counted(
        str(r.get("rule")) for r in summary.records if r.get("event") == "url_skipped"
    )
    mode = "dropped" if settings.get("drop", True) else "annotated"
    requested = events["url_requested"]
    followed = f", {requested:,} failed links followed on a mirror" if requested else ""
    return [
        f"settings: SIMDEDUP_CONFIRM_SIMILARITY {summary.threshold:.2f}, "
        f"SIMDEDUP_CONTENT_MAX_DISTANCE {summary.max_distance}, copies {mode}",
        f"{len(summary.copies):,} copies {mode}{found_by}; {len(summary.unconfirmed):,} "
        f"pages kept although near a stored one ({adding:,} add words of their own); "
        f"{events['url_skipped']:,} requests skipped before download{skipped}, "
        f"{events['url_reissued']:,} re-issued{followed}",
    ]


def rule_lines(summary: Summary) -> list[str]:
    """One line per URL rule in force at the last crawl's end, with its stated bound."""
    return [
        f"{record.get('rule_name')}{copy_note(record.get('why'))}: {_bound(record)}"
        for record in summary.rules
    ]


def _bound(record: Record) -> str:
    try:
        return describe_bound(int(record["new"]), int(record["samples"]))
    except (KeyError, TypeError, ValueError):  # a line edited by hand, or cut short
        return f"counts unreadable ({record.get('samples')!r} samples, {record.get('new')!r} new)"


def _counted(values: Iterable[str]) -> str:
    """`` (3 a, 1 b)``, the most frequent first; empty for no values."""
    counts = Counter(values).most_common()
    return f" ({', '.join(f'{n:,} {name}' for name, n in counts)})" if counts else ""


def _mirror(pair: MirrorPair) -> list[str]:
    one, other = pair.hosts
    near = f", {pair.unconfirmed:,} more near but unconfirmed" if pair.unconfirmed else ""
    lines = [f"  {one} and {other}: {pair.pages:,} pages served by both{near}"]
    for way in pair.ways:
        parts = []
        if way.copies:
            how = ", ".join(f"{n:,} {FOUND_BY.get(k, k)}" for k, n in way.found_by.most_common())
            parts.append(f"{way.copies:,} dropped as copies ({how})")
        if way.skipped:
            rules = ", ".join(sorted(way.rules))
            parts.append(f"{way.skipped:,} skipped before download (rule: {rules})")
        if way.unconfirmed:
            parts.append(f"{way.unconfirmed:,} kept unconfirmed")
        lines.append(f"    {way.copy}'s pages as {way.original}'s: " + "; ".join(parts))
    return lines


def _clusters(summary: Summary, listed: int) -> list[str]:
    lines = []
    for cluster in summary.clusters[:listed]:
        count = len(cluster.copies)
        lines.append(f"  {cluster.original}  ({count} cop{'y' if count == 1 else 'ies'})")
        lines += [f"    <- {r.get('key')}  {_how(r)}" for r in cluster.copies[:LISTED]]
        if len(cluster.copies) > LISTED:
            lines.append(f"    ... and {len(cluster.copies) - LISTED} more")
    if len(summary.clusters) > listed:
        more = summary.clusters[listed:]
        sizes = sum(len(cluster.copies) for cluster in more)
        lines.append(f"  ... and {len(more):,} more originals ({sizes:,} copies)")
    return lines


def _how(record: Record) -> str:
    found = FOUND_BY.get(str(record.get("found_by")), str(record.get("found_by")))
    if "similarity" not in record:
        return found
    similarity = float(record["similarity"])
    return f"{found}, {_bits(record.get('distance'))}, similarity {similarity:.3f}"


def _bits(distance: object) -> str:
    return "1 bit" if distance == 1 else f"{distance} bits"


def _distances(summary: Summary) -> list[str]:
    found = bins.distances(summary)
    return [found.title, *histogram(found.bins, found.counts)]


def _similarities(summary: Summary) -> list[str]:
    found = bins.similarities(summary)
    rows = histogram(found.bins, found.counts)
    if found.marked is not None:
        width = max(len(row) for row in rows)
        rows[found.marked + 1] = rows[found.marked + 1].ljust(width) + "  <- the threshold"
    return [found.title, *rows]


def _nearest(summary: Summary) -> list[str]:
    threshold = summary.threshold

    def nearest(records: list[Record]) -> list[Record]:
        scored = [r for r in records if "similarity" in r]
        return sorted(scored, key=lambda r: abs(float(r["similarity"]) - threshold))[:LISTED]

    lines = [f"Nearest the threshold ({threshold:.2f}), the nearest first", "  kept:"]
    lines += [
        f"    {float(r['similarity']):.3f}  {r.get('key')}  ~ {r.get('candidate')}  "
        f"({_bits(r.get('distance'))}; {why_kept(r, threshold)})"
        for r in nearest(summary.unconfirmed)
    ] or ["    none"]
    lines.append("  dropped:")
    lines += [
        f"    {float(r['similarity']):.3f}  {r.get('key')}  = {r.get('original')}  "
        f"({_bits(r.get('distance'))}, {FOUND_BY.get(str(r.get('found_by')), '?')})"
        for r in nearest(summary.copies)
    ] or ["    none"]
    return lines


def advice(summary: Summary) -> list[str]:
    similarity, distance = threshold_advice(summary), distance_advice(summary)
    lines = ["Suggestions"]
    if similarity.suggested is not None:
        lines.append(
            f"  SIMDEDUP_CONFIRM_SIMILARITY = {similarity.suggested:.2f}: "
            f"{similarity.just_under:,} of the {similarity.similar_only:,} pages kept on "
            f"similarity alone sit within {JUST_UNDER} under {similarity.threshold:.2f}; at "
            f"{similarity.suggested:.2f}, {similarity.would_drop:,} of them would be dropped. "
            "Read the kept pages nearest it (above) first: if one of them is a distinct page, "
            "keep the threshold."
        )
    else:
        lines.append(
            f"  SIMDEDUP_CONFIRM_SIMILARITY: keep {similarity.threshold:.2f} "
            f"({similarity.just_under:,} of {similarity.similar_only:,} pages kept on "
            f"similarity alone sit within {JUST_UNDER} under it)"
        )
    if distance.suggested is not None:
        lines.append(
            f"  SIMDEDUP_CONTENT_MAX_DISTANCE = {distance.suggested}: {distance.beyond:,} of "
            f"{distance.fingerprinted:,} fingerprinted copies lay beyond {distance.max_distance} "
            "bits and were found only by a shared sentence; copies whose longest sentences "
            "were edited too are missed at this k. It costs: "
            f"{choose_design(distance.suggested, DEFAULT_EXPECTED_SIZE).describe()} instead of "
            f"{choose_design(distance.max_distance, DEFAULT_EXPECTED_SIZE).describe()} at the "
            "default SIMDEDUP_EXPECTED_PAGES, more candidates to confirm per page, and a new "
            "index"
        )
    else:
        lines.append(
            f"  SIMDEDUP_CONTENT_MAX_DISTANCE: keep {distance.max_distance} "
            f"({distance.beyond:,} of {distance.fingerprinted:,} fingerprinted copies lay "
            "beyond it, found by shared sentences)"
        )
    return lines
