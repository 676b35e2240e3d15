"""Lines that are links: a page's markup says which of its lines a reader follows, not reads.

Menus, breadcrumbs, share bars, tag lists, "related" and "most read" lists, previous/next
links: whatever their words, most of their text sits inside ``<a>`` elements. That is the
strongest signal jusText, boilerpipe and trafilatura take from markup (link density), and
it needs no word list. A paragraph that links a few of its words stays content.

The main-content extract (``maincontent.py``) is read as resiliparse's minimal HTML with
its links kept; each line whose text is mostly inside links is marked with ``LINK_MARK``, a
zero-width character at its start. The mark travels with the text (to the fingerprint
helper, into the exact hash) and ``blocks.py`` turns it into a block flag: what a page
adds to another site's page is never its links alone (``judges/confirmation.py``). On a
page's own host the lines count as they are: two pages of one category differ by their
links.
"""

from __future__ import annotations

import html
import re

LINK_MARK = "\u2060"
"""WORD JOINER: invisible, no word character, kept by ``str.strip``."""
MIN_LINK_SHARE = 0.5
"""A line with at least this share of its characters (spaces aside) inside links is a line
of links."""
MAX_LINK_LINE_CHARS = 300
"""A longer line is a paragraph, linked or not (a teaser card, markup whose link never
closes): no headline, menu or share bar is that long."""
_LINE_BREAK = re.compile(
    r"<(?:/?(?:p|li|ul|ol|pre|h[1-6]|div|tr|table)|br)\b[^>]*>|\n", re.IGNORECASE
)
_LINK = re.compile(r"<a\b[^>]*>(.*?)(?:</a\s*>|$)", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"[^\S\n]+")


def is_link_line(line: str) -> bool:
    """Whether ``line`` (of a marked text) was mostly links."""
    return line.startswith(LINK_MARK)


def unmarked(text: str) -> str:
    """``text`` without its marks: as a reader sees it (a report, a side-by-side view)."""
    return text.replace(LINK_MARK, "")


class MarkedLines:
    """Text taken piece by piece, each piece inside links or not, cut into lines; a line
    that is mostly links is marked."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._parts: list[str] = []
        self._linked = self._total = 0

    def add(self, text: str, in_link: bool) -> None:
        """A piece of text; a newline in it ends a line."""
        for n, piece in enumerate(text.replace(LINK_MARK, "").split("\n")):
            if n:
                self.end_line()
            chars = _chars(piece)
            self._total += chars
            self._linked += chars if in_link else 0
            self._parts.append(piece)

    def end_line(self) -> None:
        line = _SPACE.sub(" ", "".join(self._parts)).strip()
        if line:
            links = 0 < self._total <= MAX_LINK_LINE_CHARS and (
                self._linked >= MIN_LINK_SHARE * self._total
            )
            self._lines.append(LINK_MARK + line if links else line)
        self._parts.clear()
        self._linked = self._total = 0

    def text(self) -> str:
        self.end_line()
        return "\n".join(self._lines)


def marked_lines(minimal_html: str) -> str:
    """The text of resiliparse's minimal HTML (``links=True``), one line per block, each
    line that is mostly links starting with ``LINK_MARK``. A link the extract leaves open
    ends with its line."""
    lines: list[str] = []
    for raw in _LINE_BREAK.split(minimal_html):
        if not raw or raw.isspace():
            continue
        line = _text_of(raw)
        if not line:
            continue
        total = _chars(line)
        linked = 0
        if "<a" in raw or "<A" in raw:
            for inside in _LINK.findall(raw):
                text = _text_of(inside)
                linked += _chars(text)
        links = 0 < total <= MAX_LINK_LINE_CHARS and linked >= MIN_LINK_SHARE * total
        lines.append(LINK_MARK + line if links else line)
    return "\n".join(lines)


def _chars(text: str) -> int:
    return len(text) - text.count(" ") - text.count("\t")


def _text_of(markup: str) -> str:
    text = _TAG.sub("", markup) if "<" in markup else markup
    if "&" in text:
        text = html.unescape(text)
    return _SPACE.sub(" ", text.replace(LINK_MARK, "")).strip()
