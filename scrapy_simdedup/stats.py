"""Every stats key the plugin writes, and the closing summary built from them.

Keys read as ``simdedup/<area>/<event>``; nothing else in the package spells one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

CONTENT_CHECKED = "simdedup/content/checked"
CONTENT_UNIQUE = "simdedup/content/unique"
CONTENT_DROPPED = "simdedup/content/dropped"
CONTENT_ANNOTATED = "simdedup/content/annotated"
CONTENT_REVISITS = "simdedup/content/revisits"
CONTENT_UNCONFIRMED = "simdedup/content/unconfirmed"
CONTENT_EXACT_FALLBACK = "simdedup/content/exact_fallback"
CONTENT_REPEATED_KEYS = "simdedup/content/repeated_keys"  # a key's second item in one run
CONTENT_ADDS_CONTENT = "simdedup/content/adds_content"  # similar, but with words of its own
CONTENT_EXACT_COPIES = "simdedup/content/exact_copies"  # found by the text hash alone
CONTENT_HELPER_FINGERPRINTS = "simdedup/content/helper_fingerprints"  # in the helper process
CONTENT_STRICTER = "simdedup/content/stricter_extractions"
"""HTML pages read again by the stricter extraction: their extract added content to another
site's stored page (``fingerprint/stricter.py``)."""
CONTENT_STRICTER_COPIES = "simdedup/content/stricter_copies"  # copies by that text
HELPER_CPU_SECONDS = "simdedup/helper/cpu_seconds"  # the helper process's CPU, when it exited
CONTENT_TRUNCATED = "simdedup/content/truncated"
CONTENT_STORE_ERRORS = "simdedup/content/store_errors"
CONTENT_RELEASED = "simdedup/content/released"  # stored, then dropped by a later pipeline
INDEX_SIZE = "simdedup/index/size"
INDEX_SKIPPED_ENTRIES = "simdedup/index/skipped_entries"  # broken or over a bucket's cap
URL_CHECKED = "simdedup/url/checked"
"""Requests the URL judge decided on, each once: when skipped, or when sent to download (a
request read back from a JOBDIR queue too). Exempt and unjudgeable ones are ``unchecked``."""
URL_FETCHED = "simdedup/url/fetched"
URL_SAMPLED = "simdedup/url/sampled"
URL_PARKED = "simdedup/url/parked"  # skipped on a bet, held until it is settled
URL_PENDING = "simdedup/url/pending"  # skips waiting for a counterpart not yet queued
URL_AWAITED = "simdedup/url/awaited_at_idle"  # held at idle for evidence on its way
URL_EXTENDED = "simdedup/url/extended"  # pending bets given longer: their original is near
URL_GATHERING = "simdedup/url/gathering"  # skips on a rule not learned yet
URL_PROBES = "simdedup/url/probes"  # requests fetched to learn such a rule meanwhile
URL_ALREADY_PARKED = "simdedup/url/already_parked"  # a link again to a request held on a bet
URL_DEEPER_COUNTERPART = "simdedup/url/deeper_counterpart"  # fetched: DEPTH_LIMIT applies
URL_CLOSING = "simdedup/url/closing"  # 1 once the crawl's budget left only its reserve
URL_REVISITS_REQUESTED = "simdedup/url/revisits_requested"  # a page an earlier crawl kept
URL_REQUESTED_ON_MIRROR = "simdedup/url/requested_on_mirror"  # a failed link, on the mirror
URL_BROUGHT_NOTHING = "simdedup/url/brought_nothing"  # a 2xx with no content verdict by idle
URL_REVISITS_FAILED = "simdedup/url/revisits_failed"  # an earlier crawl's URL brought nothing
CONTENT_MOVED = "simdedup/content/moved"  # kept at its new URL: its earlier one brought nothing
URL_REISSUED_ELSEWHERE = "simdedup/url/reissued_elsewhere"
"""Re-issues not sent: a worker of the same crawl fetched the URL, has it on its way to the
downloader, or re-issued it (a shared store: one fetch per crawl)."""
URL_FETCHED_BY_REISSUE = "simdedup/url/fetched_by_reissue"
"""Requests not sent to the downloader: another worker's re-issue of the URL fetches it."""
URL_REISSUED_DROPPED = "simdedup/url/reissued_dropped"
"""Re-issued requests the scheduler refused (its dupefilter): 0, or a re-issue was lost."""
URL_FINAL = "simdedup/url/final"  # bets still standing when the crawl finished
URL_STRICT_SAMPLED_COPIES = "simdedup/url/strict/sampled_copies"  # strict samples: copies
URL_STRICT_SAMPLED_NEW = "simdedup/url/strict/sampled_new"  # strict samples: distinct pages
URL_RULES_HELD = "simdedup/url/rules_held"
"""New pages where a rule in force predicted a copy and that left it standing: its counts
still bound the share of its differing pages within SIMDEDUP_URL_RISK (the bets of the
page's section were re-issued, unless its section's samples bound it too:
``URL_SECTIONS_HELD``)."""
URL_SECTIONS_HELD = "simdedup/url/sections_held"
"""Of those, the new pages whose section's own samples (judged there, new there) still
bound its differing pages within SIMDEDUP_URL_RISK: no bet was re-issued."""
URL_MIRROR_HOSTS = "simdedup/url/mirror_hosts"
URL_PATTERNS = "simdedup/url/patterns_learned"
URL_TRAPS = "simdedup/url/traps_learned"
STORE_ERROR_REASON = "simdedup_store_error"


def content_skipped(reason: str) -> str:
    """Key counting items passed through unchecked, per reason (no_text, binary, ...)."""
    return f"simdedup/content/skipped/{reason}"


def url_skipped(reason: str) -> str:
    """Key counting requests skipped before download, per reason (mirror, pattern, ...)."""
    return f"simdedup/url/skipped/{reason}"


def url_would_skip(reason: str) -> str:
    """Key counting requests annotate mode (SIMDEDUP_DROP False) fetched but would skip."""
    return f"simdedup/url/would_skip/{reason}"


def url_reissued(why: str) -> str:
    """Key counting parked requests re-issued, per reason (counterpart_failed, ...)."""
    return f"simdedup/url/reissued/{why}"


def url_unchecked(reason: str) -> str:
    """Key counting requests let through without a check (dont_filter, not_http, ...)."""
    return f"simdedup/url/unchecked/{reason}"


def url_summary(stats: StatsCollector, mirrors: list[str]) -> str:
    """One line for the log at close: requests saved, and the mirrors found."""
    skipped = sum(
        value for key, value in stats.get_stats().items() if key.startswith("simdedup/url/skipped/")
    )
    checked = stats.get_value(URL_CHECKED, 0)
    share = f" ({skipped / checked:.0%})" if checked else ""
    reissued = sum(
        value
        for key, value in stats.get_stats().items()
        if key.startswith("simdedup/url/reissued/")
    )
    line = (
        f"simdedup: {checked:,} requests checked, {skipped:,} skipped before download{share}, "
        f"{reissued:,} of them re-issued, {stats.get_value(URL_SAMPLED, 0):,} fetched as samples"
    )
    line += "".join(f"; {mirror}" for mirror in mirrors)
    weakened = stats.get_value(URL_MIRROR_HOSTS, 0) - len(mirrors)
    if weakened > 0:  # simdedup/url/mirror_hosts counts every mirror rule learned
        line += (
            f"; {weakened:,} more mirror rule{'s' if weakened != 1 else ''} learned, not in force"
        )
    return line


def summary(stats: StatsCollector) -> str:
    """One line for the log at close: what dedup did in this crawl."""
    checked = stats.get_value(CONTENT_CHECKED, 0)
    dropped = stats.get_value(CONTENT_DROPPED, 0)
    annotated = stats.get_value(CONTENT_ANNOTATED, 0)
    removed = dropped or annotated
    share = f" ({removed / checked:.0%})" if checked else ""
    verb = "dropped" if dropped or not annotated else "annotated"
    skipped = sum(
        value
        for key, value in stats.get_stats().items()
        if key.startswith("simdedup/content/skipped/")
    )
    return (
        f"simdedup: {checked:,} pages checked, {removed:,} near-duplicates {verb}{share}, "
        f"{stats.get_value(CONTENT_UNIQUE, 0):,} unique, "
        f"{stats.get_value(CONTENT_REVISITS, 0):,} re-visits, "
        f"{stats.get_value(CONTENT_UNCONFIRMED, 0):,} unconfirmed matches kept, "
        f"{skipped:,} skipped; index holds {stats.get_value(INDEX_SIZE, 0):,} pages"
        + _index_gap(stats)
    )


def _index_gap(stats: StatsCollector) -> str:
    """Why the index's size differs from the pages kept as unique: short texts are kept by
    their exact hash alone, and released pages leave it (earlier crawls' pages count too)."""
    notes = []
    short = stats.get_value(CONTENT_EXACT_FALLBACK, 0)
    if short:
        notes.append(f"short texts, compared by exact hash, are not in it: {short:,}")
    released = stats.get_value(CONTENT_RELEASED, 0)
    if released:
        notes.append(f"released by a later pipeline: {released:,}")
    return f" ({'; '.join(notes)})" if notes else ""
