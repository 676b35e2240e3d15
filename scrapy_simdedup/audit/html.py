"""``scrapy simdedup report --html``: a verdict log's summary as one self-contained HTML page.

Styles, script and charts (SVG) are inline and a Content-Security-Policy forbids loading
anything else, so the file opens offline and a page's own markup can never run: every text
taken from the log or the feed (crawled content, untrusted) is escaped. With the crawl's
texts, each page near the threshold is shown beside the page it resembles
(``sidebyside.py``).
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from scrapy_simdedup.audit import bins
from scrapy_simdedup.audit.charts import bar_chart
from scrapy_simdedup.audit.htmlassets import SCRIPT, STYLE
from scrapy_simdedup.audit.report import FOUND_BY, advice, overview, rule_lines
from scrapy_simdedup.audit.sidebyside import side_by_side, template_lines
from scrapy_simdedup.audit.summary import host, why_kept

if TYPE_CHECKING:
    from collections.abc import Mapping

    from scrapy_simdedup.audit.records import Record
    from scrapy_simdedup.audit.sidebyside import Line
    from scrapy_simdedup.audit.summary import Summary

NEAREST = 10  # pages shown on either side of the threshold
CLUSTERS = 10
MEASURES = (
    ("similarity", "similarity"), ("distance", "SimHash bits"), ("contained", "of it in the other"),
    ("contains", "of the other in it"), ("covers", "of the stored content held"),
    ("content_words", "content words"), ("novel_words", "words of its own"),
    ("lacking_words", "stored words it lacks"), ("chrome_words", "chrome words"),
    ("template_words", "template words"), ("shown_words", "words the stored page showed aside"),
)  # fmt: skip
NOT_IN_FEED = (
    "not in the feed: a dropped page is not written to it (crawl with SIMDEDUP_DROP = False "
    "to keep copies, annotated, and see both texts)"
)
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def html_report(
    summary: Summary, texts: Mapping[str, str] | None = None, *, source: str = ""
) -> str:
    """The whole page. ``texts``: page key -> text from the crawl's feed (``feed.py``);
    without it the pages are named but not shown. ``source``: the log's path, for the
    title."""
    templates = template_lines(texts) if texts else {}
    body = [
        f"<h1>scrapy-simdedup report</h1><p class='source'>{escape(source)}</p>",
        "".join(f"<p class='overview'>{escape(line)}</p>" for line in overview(summary)),
        _mirrors(summary),
        _rules(summary),
        _clusters(summary),
        "<h2>Histograms</h2>",
        _chart(bins.distances(summary), f"k = {summary.max_distance}", after=True),
        _chart(bins.similarities(summary), f"threshold {summary.threshold:.2f}"),
        _nearest(summary, texts, templates),
        "<h2>Suggestions</h2>",
        "".join(f"<p class='advice'>{escape(line.strip())}</p>" for line in advice(summary)[1:]),
    ]
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{_CSP}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>scrapy-simdedup report {escape(source)}</title><style>{STYLE}</style>"
        f"</head><body>{''.join(body)}<script>{SCRIPT}</script></body></html>\n"
    )


def _chart(histogram: bins.Histogram, marker: str, *, after: bool = False) -> str:
    title = f"<h3>{escape(histogram.title)}</h3>"
    return f"<figure>{title}{bar_chart(histogram, marker=marker, after=after)}</figure>"


def _mirrors(summary: Summary) -> str:
    rows = []
    for pair in summary.mirrors:
        for way in pair.ways:
            how = ", ".join(f"{n} {FOUND_BY.get(k, k)}" for k, n in way.found_by.most_common())
            rows.append(
                f"<tr><td>{escape(way.copy)}</td><td>{escape(way.original)}</td>"
                f"<td>{way.copies}</td><td>{escape(how)}</td><td>{way.skipped}</td>"
                f"<td>{way.unconfirmed}</td></tr>"
            )
    head = (
        "<tr><th>host</th><th>serves copies of</th><th>dropped</th><th>found by</th>"
        "<th>skipped before download</th><th>kept, unconfirmed</th></tr>"
    )
    table = f"<table class='mirrors'>{head}{''.join(rows)}</table>" if rows else "<p>none</p>"
    return f"<h2>Mirror hosts</h2>{table}"


def _rules(summary: Summary) -> str:
    """The URL rules in force at the crawl's end, each with its stated bound."""
    items = "".join(f"<li>{escape(line)}</li>" for line in rule_lines(summary))
    listed = f"<ul class='rules'>{items}</ul>" if items else "<p>none</p>"
    return f"<h2>URL rules at the crawl's end</h2>{listed}"


def _clusters(summary: Summary) -> str:
    rows = []
    for cluster in summary.clusters[:CLUSTERS]:
        copies = "".join(
            f"<li>{escape(str(r.get('key')))} <span class='how'>{escape(_how(r))}</span></li>"
            for r in cluster.copies
        )
        rows.append(
            f"<tr><td>{escape(cluster.original)}</td><td>{len(cluster.copies)}</td>"
            f"<td><ul>{copies}</ul></td></tr>"
        )
    head = "<tr><th>original</th><th>copies</th><th>the copies</th></tr>"
    table = f"<table class='clusters'>{head}{''.join(rows)}</table>" if rows else "<p>none</p>"
    more = len(summary.clusters) - CLUSTERS
    tail = f"<p>... and {more:,} more originals</p>" if more > 0 else ""
    return f"<h2>Largest clusters</h2>{table}{tail}"


def _how(record: Record) -> str:
    found = FOUND_BY.get(str(record.get("found_by")), str(record.get("found_by")))
    if "similarity" in record:
        found += f", {record.get('distance')} bits, similarity {float(record['similarity']):.3f}"
    return found


def _nearest(
    summary: Summary, texts: Mapping[str, str] | None, templates: Mapping[str, frozenset[str]]
) -> str:
    threshold = summary.threshold

    def nearest(records: list[Record]) -> list[Record]:
        scored = [r for r in records if "similarity" in r]
        return sorted(scored, key=lambda r: abs(float(r["similarity"]) - threshold))[:NEAREST]

    parts = [f"<h2>Nearest the threshold ({threshold:.2f})</h2>"]
    if texts is None:
        parts.append("<p>Give the crawl's feed (--feed FILE) to see the texts side by side.</p>")
    for title, records, other in (
        ("Kept", nearest(summary.unconfirmed), "candidate"),
        ("Dropped", nearest(summary.copies), "original"),
    ):
        parts.append(f"<h3>{title}</h3>")
        for record in records:
            parts.append(_pair(record, str(record.get(other)), summary, texts, templates))
        if not records:
            parts.append("<p>none</p>")
    return "".join(parts)


def _pair(
    record: Record,
    other: str,
    summary: Summary,
    texts: Mapping[str, str] | None,
    templates: Mapping[str, frozenset[str]],
) -> str:
    key = str(record.get("key"))
    kept = record.get("event") == "unconfirmed"
    said = why_kept(record, summary.threshold) if kept else _how(record)
    head = (
        f"<h4><span class='sim'>{float(record['similarity']):.3f}</span> {escape(key)} "
        f"{'~' if kept else '='} {escape(other)} <span class='how'>({escape(said)})</span></h4>"
    )
    measures = "".join(
        f"<td>{escape(str(record[name]))}<br><small>{label}</small></td>"
        for name, label in MEASURES
        if name in record
    )
    parts = [head, f"<table class='measures'><tr>{measures}</tr></table>"]
    if texts is not None:
        parts.append(_texts(key, other, texts, templates))
    return f"<section class='pair'>{''.join(parts)}</section>"


def _texts(
    key: str, other: str, texts: Mapping[str, str], templates: Mapping[str, frozenset[str]]
) -> str:
    mine, theirs = texts.get(key), texts.get(other)
    template = templates.get(host(key) or "", frozenset()) | templates.get(
        host(other) or "", frozenset()
    )
    # With one page missing there is nothing to compare with: the other is shown unmarked.
    shown = side_by_side(mine or theirs or "", theirs or mine or "", template)
    cut = "<p class='cut'>Long texts: only their start is compared.</p>" if shown.cut else ""
    return (
        f"<div class='sbs'>{_side(key, mine, shown.left)}{_side(other, theirs, shown.right)}"
        f"</div>{cut}"
    )


def _side(key: str, text: str | None, lines: tuple[Line, ...]) -> str:
    title = f"<div class='side-title'>{escape(key)}</div>"
    if text is None:
        return f"<div class='side missing'>{title}<p>{escape(NOT_IN_FEED)}</p></div>"
    body = "".join(f"<p class='line {line.kind}'>{_marked(line)}</p>" for line in lines)
    return f"<div class='side'>{title}{body}</div>"


def _marked(line: Line) -> str:
    return "".join(
        f"<mark>{escape(word)}</mark>" if differs else escape(word) for word, differs in line.pieces
    )
