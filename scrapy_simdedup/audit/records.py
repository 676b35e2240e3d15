"""The verdict log's lines: one JSON object per event, built from the judges' decisions.

Every line has ``event``, ``time`` (UTC, ISO 8601, milliseconds) and the page it is about.

* ``crawl``: a crawl opened the log: ``spider`` and the settings the verdicts depend on
  (``confirm_similarity``, ``content_max_distance``, ``drop``, ``url_mode``).
* ``dropped`` / ``annotated``: a confirmed copy. ``key`` (the page) and ``original`` (the
  stored page it copies); ``found_by``: ``exact`` (the same text, found by its hash before
  any fingerprinting), ``short_text`` (too short for a SimHash: exact hash only),
  ``simhash``, ``sentences`` (shares one of its longest sentences) or ``same_key`` (the
  key's second item in one crawl); ``distance`` (SimHash bits).
* ``unconfirmed``: a page kept although a stored page was close: ``key`` and
  ``candidate`` (the most similar stored page), ``found_by``, ``distance``, and
  ``adds_content`` when it was kept for the words it adds.
* Content lines with a confirmation add ``similarity`` (estimated Jaccard similarity of
  3-token shingles), ``direction`` (``page_in_stored``, ``stored_in_page`` or
  ``partial``), ``contained`` (share of the page in the stored one), ``contains`` (the
  reverse), ``length_ratio``, ``novel_words`` (words of the page's content the stored
  page lacks, neither as they are nor edited; once the page is sure to add content, the
  rest of what it lacks as it is counts without a test for edits), ``lacking_words`` (the
  reverse), ``covers``
  (the share of the stored page's content the page holds), and what the page's words were
  judged to be: ``content_words``, ``chrome_words`` (source / time / views lines, notices,
  editor lines, share and previous/next links), ``template_words`` (its host's
  template, learned with volatile tokens masked) and ``shown_words`` (lines the stored
  page showed outside the text it was judged by: its captions, boxes, embedded posts);
  ``stricter`` is true when the page was compared by a stricter extraction of its markup,
  its main content having added content to another site's stored page.
* ``url_skipped``: ``url`` skipped before download on a ``rule`` (``mirror``, ``pattern``,
  ``trap``, ``strict``; ``rule_name`` says which), betting on ``counterpart`` (none for a
  trap). ``url_reissued``: a parked ``url`` sent again, ``why`` (``counterpart_failed``,
  ``rule_weakened``, ...), with the rule and counterpart it had relied on.
  ``url_requested``: ``url``, a mirror's copy of ``failed`` (which brought no page on the
  original), requested because the mirror rule ``rule_name`` had skipped pages linking it.
* ``url_rule``: at the crawl's end, one line per URL rule in force: ``rule``, ``rule_name``,
  ``samples`` (requests it would have skipped, fetched to check it, and judged), ``new`` (of
  them, pages that came back new) and ``bound`` (at most this share of its skips differ, at
  95% confidence: ``url/estimate.py``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from scrapy_simdedup.url.estimate import share_bound

if TYPE_CHECKING:
    from scrapy_simdedup.judges.verdict import Verdict
    from scrapy_simdedup.url.rules import Rule

CONTENT_EVENTS = ("dropped", "annotated", "unconfirmed")
URL_EVENTS = ("url_skipped", "url_reissued", "url_requested", "url_rule")
Record = dict[str, Any]


def now() -> str:
    """The time field: UTC, ISO 8601, to the millisecond."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def crawl_record(spider: str, **settings: object) -> Record:
    return {"event": "crawl", "time": now(), "spider": spider, **settings}


def content_record(verdict: Verdict, event: str) -> Record:
    """The line for a verdict: ``dropped``, ``annotated`` or ``unconfirmed``."""
    record: Record = {"event": event, "time": now(), "key": verdict.key}
    if verdict.unconfirmed:
        record["candidate"] = verdict.candidate
    else:
        record["original"] = verdict.original
    found_by = "short_text" if verdict.exact_fallback else verdict.found_by
    record.update(found_by=found_by, distance=verdict.distance)
    if verdict.unconfirmed:
        record["adds_content"] = verdict.adds_content
    confirmation = verdict.confirmation
    if confirmation is not None:
        record.update(
            similarity=round(confirmation.similarity, 4),
            direction=confirmation.direction,
            contained=round(confirmation.contained, 4),
            contains=round(confirmation.contains, 4),
            length_ratio=round(confirmation.length_ratio, 4),
            novel_words=confirmation.novel_words,
            lacking_words=confirmation.lacking_words,
            covers=round(confirmation.covers, 4),
            content_words=confirmation.content_words,
            chrome_words=confirmation.chrome_words,
            template_words=confirmation.template_words,
            shown_words=confirmation.shown_words,
            stricter=confirmation.stricter,
        )
    return record


def url_skipped_record(
    url: str, rule: Rule, counterpart: str | None, *, pending: bool = False
) -> Record:
    """``pending``: the counterpart was not queued yet; the skip waits for it."""
    return {
        "event": "url_skipped",
        "time": now(),
        "url": url,
        "rule": rule.kind,
        "rule_name": rule.describe(),
        "counterpart": counterpart,
        "counterpart_pending": pending,
    }


def url_reissued_record(url: str, why: str, rule: Rule | None, counterpart: str | None) -> Record:
    """``rule`` is None for a request an interrupted crawl had parked."""
    return {
        "event": "url_reissued",
        "time": now(),
        "url": url,
        "why": why,
        "rule": rule.kind if rule else None,
        "rule_name": rule.describe() if rule else None,
        "counterpart": counterpart,
    }


def url_rule_record(rule: Rule, samples: int, new: int) -> Record:
    return {
        "event": "url_rule",
        "time": now(),
        "rule": rule.kind,
        "rule_name": rule.describe(),
        "samples": samples,
        "new": new,
        "bound": round(share_bound(new, samples), 4),
        "why": rule.chosen_why or None,
    }


def url_requested_record(url: str, failed: str, rule: Rule) -> Record:
    return {
        "event": "url_requested",
        "time": now(),
        "url": url,
        "failed": failed,
        "rule": rule.kind,
        "rule_name": rule.describe(),
    }
