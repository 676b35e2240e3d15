"""The main content of a whole HTML page, as web-corpus pipelines keep it.

A portal's page carries its menu, a "most read" sidebar naming other articles, share bars,
a comment box and a footer of links around the article; a mirror wraps each page in its own
banner. ``page_text`` drops what HTML marks as furniture (``nav``, ``footer``, their ARIA
roles), but most sites lay their chrome out in plain ``div`` elements. ``main_text`` keeps
what resiliparse's main-content extraction keeps (Bevendorff et al., ChatNoir; the
extractor of the CommonCrawl-scale pipelines), chosen over trafilatura, jusText and
readability-lxml on ``benchmarks/extractors.py``: it never lost an article's words there
(short news flashes and 40-word product pages included, in Chinese and English), left 16-19%
of the chrome where ``page_text`` left 67%, and costs less than ``page_text`` (0.27 ms a
page against 0.31 in the same run); trafilatura left less chrome but took 3-5 ms a page and
dropped titles, jusText lost Chinese pages.

The extract is read with its links (``linklines.py``): a line that is mostly links (a
menu, a "related" list, a share bar the extractor kept) is marked as such.

When the extract is short (under ``MIN_WORDS`` words, or ``MIN_SHARE`` of the characters of
the page's text) the extractor has missed the content, and the whole page's readable text
(``page_text``) is used instead: a page is never judged on less than it holds.

``main_content`` also gives the lines of the page's readable text that the extract left out
(``outside``): captions, embedded posts, pull quotes, a sidebar. A reprint lays them out as
paragraphs of its own, so its extract keeps them; the stored page shows them all the same, and
a reprint holding only them beside the article adds nothing (``judges/confirmation.py``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from scrapy_simdedup.fingerprint.linklines import MARKS, marked_lines
from scrapy_simdedup.fingerprint.pagetext import decode_page, page_text

MIN_WORDS = 20
MIN_SHARE = 0.25
_STRIPPED = MARKS + "\u2022 \t"  # link marks (``linklines.py``), resiliparse's list bullets
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]|\w+")


HIDDEN = [
    "[hidden]", '[aria-hidden="true"]', '[style*="display:none"]', '[style*="display: none"]',
    '[style*="visibility:hidden"]', '[style*="visibility: hidden"]',
]  # fmt: skip
"""Elements a reader never sees (a paywall's rest of the story, a closed modal): no text
of them is shown beside the main content. The main content leaves them out already."""
UNRENDERED = ["svg", "template"]
"""Markup a browser never renders as text: an icon's ``<title>`` inside an inline SVG is a
tooltip at most, and a ``<template>`` holds markup for scripts. Portals draw their logo
and icons this way, some with the page's title in each (seven times on one real page),
which the extract took for lines of content a reprint adds. ``page_text`` leaves them out
too."""
MAX_OUTSIDE_CHARS = 20_000
"""At most this much of the text the extract left out is kept (the page's first lines)."""


class MainContent(NamedTuple):
    """A page's main content, and the lines of its readable text the content left out."""

    text: str
    outside: str = ""


def main_text(page: str | bytes, *, content_type: str | None = None) -> str:
    """The main content of an HTML page (str, or bytes decoded by ``decode_page``), or
    its whole readable text when the extractor finds too little. Raises
    ``UndecodablePageError`` for binary or undecodable bytes, as ``page_text`` does."""
    return main_content(page, content_type=content_type).text


def main_content(page: str | bytes, *, content_type: str | None = None) -> MainContent:
    """``main_text``, with the lines of the page's text it left out (none when the whole
    readable text is used)."""
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    markup = decode_page(page, content_type).text if isinstance(page, bytes) else page
    clean = markup.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")
    if not clean.strip():
        return MainContent("")
    tree = HTMLTree.parse(clean)
    extract = extract_plain_text(
        tree,
        main_content=True,
        preserve_formatting="minimal_html",
        links=True,
        skip_elements=UNRENDERED,
    )
    main = marked_lines(extract)
    if len(_WORD.findall(main)) < MIN_WORDS:
        return MainContent(page_text(markup))
    whole = extract_plain_text(
        tree, main_content=False, preserve_formatting=True, skip_elements=HIDDEN + UNRENDERED
    )
    if _chars(main) < MIN_SHARE * _chars(whole):
        return MainContent(page_text(markup))
    return MainContent(main, _left_out(whole, main))


def _left_out(whole: str, main: str) -> str:
    """The lines of ``whole`` that are no line of ``main`` (their ends' spaces, link marks
    and list bullets aside). A line the two extractions spaced differently is given too:
    the fingerprint leaves out the page's own sentences. A set look-up per line: searching
    the extract for each line, or collapsing each line's spaces, cost 0.6 and 0.25 ms on a
    real page."""
    kept = {line.strip(_STRIPPED) for line in main.splitlines()}
    lines: list[str] = []
    size = 0
    for line in whole.splitlines():
        plain = line.strip(_STRIPPED)
        if plain and plain not in kept:
            lines.append(plain)
            size += len(plain) + 1
            if size >= MAX_OUTSIDE_CHARS:
                break
    return "\n".join(lines)


def _chars(text: str) -> int:
    """Characters but spaces: the share of a page an extract holds, at a fraction of what
    counting its words costs (0.4 ms on a real page's whole text)."""
    return len(text) - text.count(" ") - text.count("\n") - text.count("\u2022")
