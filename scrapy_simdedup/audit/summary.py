"""What a verdict log says, summed up: mirror hosts, clusters, and the pages near the threshold.

Works on the records of ``read_log`` (see ``records.py`` for their fields); the report
(``report.py``) only lays the summary out.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy_simdedup.fingerprint.sketch import MIN_LENGTH_RATIO

if TYPE_CHECKING:
    from scrapy_simdedup.audit.records import Record

MIN_MIRROR_PAGES = 3
"""Copies between two hosts that make the copying one a mirror host in the report."""
COPIES = ("dropped", "annotated")


@dataclass
class MirrorHost:
    """Host ``copy`` served pages of host ``original``: ``copies`` dropped or annotated,
    ``skipped`` before download (``rules`` learned by the URL middleware), and
    ``unconfirmed`` pages kept although close to one of ``original``'s."""

    copy: str
    original: str
    copies: int = 0
    skipped: int = 0
    unconfirmed: int = 0
    found_by: Counter[str] = field(default_factory=Counter)
    rules: set[str] = field(default_factory=set)

    @property
    def pages(self) -> int:
        return self.copies + self.skipped


@dataclass(frozen=True)
class MirrorPair:
    """Two hosts serving the same pages, each way: which of them was met first decides
    which one's pages are the copies, so a crawl of both finds copies both ways.
    ``ways[0]`` is the way with more pages."""

    ways: tuple[MirrorHost, ...]

    @property
    def hosts(self) -> tuple[str, str]:
        return self.ways[0].copy, self.ways[0].original

    @property
    def pages(self) -> int:
        return sum(way.pages for way in self.ways)

    @property
    def unconfirmed(self) -> int:
        return sum(way.unconfirmed for way in self.ways)


@dataclass(frozen=True)
class Cluster:
    original: str
    copies: list[Record]


@dataclass
class Summary:
    """A verdict log's crawl (or crawls), summed up; ``settings``: the last crawl line."""

    records: list[Record]
    crawls: int
    settings: dict[str, Any]
    events: Counter[str]
    mirrors: list[MirrorPair]
    clusters: list[Cluster]
    copies: list[Record]  # dropped or annotated
    unconfirmed: list[Record]
    rules: list[Record] = field(default_factory=list)  # URL rules in force at the last end

    @property
    def threshold(self) -> float:
        return float(self.settings.get("confirm_similarity", 0.8))

    @property
    def max_distance(self) -> int:
        return int(self.settings.get("content_max_distance", 3))


def last_crawl(records: list[Record]) -> list[Record]:
    """The records from the last ``crawl`` line on (all of them when there is none)."""
    starts = [at for at, record in enumerate(records) if record.get("event") == "crawl"]
    return records[starts[-1] :] if starts else records


def summarise(records: list[Record], defaults: dict[str, Any] | None = None) -> Summary:
    """``defaults``: settings to assume when the records hold no ``crawl`` line."""
    crawls = [record for record in records if record.get("event") == "crawl"]
    settings = {**(defaults or {}), **(crawls[-1] if crawls else {})}
    copies = [record for record in records if record.get("event") in COPIES]
    unconfirmed = [record for record in records if record.get("event") == "unconfirmed"]
    return Summary(
        records=records,
        crawls=len(crawls),
        settings=settings,
        events=Counter(str(record.get("event")) for record in records),
        mirrors=mirror_hosts(records),
        clusters=clusters(copies),
        copies=copies,
        unconfirmed=unconfirmed,
        rules=[record for record in last_crawl(records) if record.get("event") == "url_rule"],
    )


def host(url: object) -> str | None:
    """``host:port`` of a URL key (None for a key that is no URL, e.g. ``text:...``)."""
    if not isinstance(url, str) or "://" not in url:
        return None
    return urlsplit(url).netloc.lower() or None


def mirror_hosts(records: list[Record]) -> list[MirrorPair]:
    """Pairs of hosts where one served ``MIN_MIRROR_PAGES`` or more of the other's pages
    (either way, together; an edited mirror's pages may all be unconfirmed), the most
    pages first."""
    ways: dict[tuple[str, str], MirrorHost] = {}

    def way(page: object, other: object) -> MirrorHost | None:
        mine, theirs = host(page), host(other)
        if mine is None or theirs is None or mine == theirs:
            return None
        return ways.setdefault((mine, theirs), MirrorHost(mine, theirs))

    for record in records:
        event = record.get("event")
        if event in COPIES and (found := way(record.get("key"), record.get("original"))):
            found.copies += 1
            found.found_by[str(record.get("found_by"))] += 1
        elif event == "unconfirmed" and (found := way(record.get("key"), record.get("candidate"))):
            found.unconfirmed += 1
        elif event == "url_skipped" and record.get("rule") == "mirror":
            found = way(record.get("url"), record.get("counterpart"))
            if found:
                found.skipped += 1
                found.rules.add(str(record.get("rule_name")))
    pairs: dict[frozenset[str], list[MirrorHost]] = defaultdict(list)
    for (mine, theirs), found in ways.items():
        pairs[frozenset((mine, theirs))].append(found)
    found_pairs = [
        MirrorPair(tuple(sorted(both, key=lambda w: (-w.pages - w.unconfirmed, w.copy))))
        for both in pairs.values()
    ]
    mirrors = [pair for pair in found_pairs if pair.pages + pair.unconfirmed >= MIN_MIRROR_PAGES]
    return sorted(mirrors, key=lambda pair: (-pair.pages - pair.unconfirmed, pair.hosts))


def clusters(copies: list[Record]) -> list[Cluster]:
    """Each original with the pages dropped (or annotated) as its copies, largest first."""
    by_original: dict[str, list[Record]] = defaultdict(list)
    for record in copies:
        by_original[str(record.get("original"))].append(record)
    found = [Cluster(original, members) for original, members in by_original.items()]
    return sorted(found, key=lambda cluster: (-len(cluster.copies), cluster.original))


def similar_only(record: Record) -> bool:
    """An unconfirmed candidate kept for its similarity alone: a lower
    ``SIMDEDUP_CONFIRM_SIMILARITY`` would drop it (it adds no words of its own, and the
    two lengths are comparable)."""
    return (
        isinstance(record.get("similarity"), (int, float))
        and not record.get("adds_content")
        and float(record.get("length_ratio", 1.0)) >= MIN_LENGTH_RATIO
    )


def why_kept(record: Record, threshold: float) -> str:
    """Why an unconfirmed candidate was kept, in a few words."""
    if record.get("adds_content"):
        said = f"adds {record.get('novel_words', 0)} words of its own"
        if record.get("lacking_words"):
            said += f" and lacks {record.get('lacking_words')} of the stored page's"
        return said
    if float(record.get("length_ratio", 1.0)) < MIN_LENGTH_RATIO:
        return f"lengths differ ({float(record.get('length_ratio', 0)):.0%} of the longer)"
    if "similarity" not in record:
        return "no sketch to confirm with"
    return f"similarity under {threshold:.2f}"
