"""Lines that are links: a page's markup says which of its lines a reader follows, not reads.

Menus, breadcrumbs, share bars, tag lists, "related" and "most read" lists, previous/next
links: whatever their words, most of their text sits inside ``<a>`` elements. That is the
strongest signal jusText, boilerpipe and trafilatura take from markup (link density), and
it needs no word list. A paragraph that links a few of its words stays content, and so does
any line with a sentence's end in it.

The main-content extract (``maincontent.py``) is read as resiliparse's minimal HTML with
its links kept, and each line that is mostly links is marked by a zero-width character at
its start: ``MENU_MARK`` for a line of three links or more, short ones (a menu, a
breadcrumb, a share bar: chrome wherever it sits, ``chrome.py``), ``LINK_MARK`` for the
others (a headline, a list item). The marks travel with the text (to the fingerprint
helper, into the exact hash); ``blocks.py`` reads them as it cuts sentences, which are
hashed without them. Against another host's page, a line of links before the content the
page shares adds nothing; after it, it may be the page's own (its sources, a contents
page's new chapters) and counts (``judges/confirmation.py``). On a page's own host the
lines count as they are: two pages of one category differ by their links.
"""

from __future__ import annotations

import html
import re

LINK_MARK = "\u2060"
"""WORD JOINER: invisible, no word character, kept by ``str.strip``."""
MENU_MARK = "\u2061"
"""FUNCTION APPLICATION: as invisible; a line of three short links or more."""
MARKS = LINK_MARK + MENU_MARK
MIN_LINK_SHARE = 0.5
"""A line with at least this share of its characters (spaces aside) inside links is a line
of links."""
MAX_LINK_LINE_CHARS = 300
"""A longer line is a paragraph, linked or not (a teaser card, markup whose link never
closes): no headline, menu or share bar is that long. Nor is a line with a sentence's end
(``_PROSE``) a line of links."""
MIN_MENU_LINKS = 3
MAX_MENU_LINK_CHARS = 16
"""A line of ``MIN_MENU_LINKS`` links or more, this many characters each on average (spaces
aside), is a menu: "Home | News | Sport", "搜狐首页 - 新闻 - 体育", "Share: Facebook Twitter"."""
_LINE_BREAK = re.compile(
    r"<(?:/?(?:p|li|ul|ol|pre|h[1-6]|div|tr|table)|br)\b[^>]*>|\n", re.IGNORECASE
)
_LINK = re.compile(r"<a\b[^>]*>(.*?)(?:</a\s*>|$)", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_PROSE = re.compile(r"[a-z\u3400-\u9fff][.!?。！？](?:\s|$)")
"""A sentence's end: a line that has one is prose a reader reads, linked or not (an update
that links its follow-up, a reply that links the fix, a citation); a headline, a menu item,
a breadcrumb has none."""
_SPACE = re.compile(r"[^\S\n]+")


def _marked(line: str, total: int, linked: int, anchors: int) -> str:
    """``line`` with the mark its links call for (``total``, ``linked``: its characters and
    those inside links; ``anchors``: how many links)."""
    if not 0 < total <= MAX_LINK_LINE_CHARS or linked < MIN_LINK_SHARE * total:
        return line
    if _PROSE.search(line):
        return line
    if anchors >= MIN_MENU_LINKS and linked <= MAX_MENU_LINK_CHARS * anchors:
        return MENU_MARK + line
    return LINK_MARK + line


def is_link_line(line: str) -> bool:
    """Whether ``line`` (of a marked text) was mostly links, a menu or not."""
    return line[:1] in (LINK_MARK, MENU_MARK)


def is_menu_line(line: str) -> bool:
    """Whether ``line`` (of a marked text) was a menu: three short links or more."""
    return line.startswith(MENU_MARK)


def unmarked(text: str) -> str:
    """``text`` without its marks: as a reader sees it (a report, a side-by-side view)."""
    return text.replace(LINK_MARK, "").replace(MENU_MARK, "")


class MarkedLines:
    """Text taken piece by piece, each piece inside links or not, cut into lines; a line
    that is mostly links is marked."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._parts: list[str] = []
        self._linked = self._total = self._anchors = 0

    def anchor(self) -> None:
        """A link starts in the current line."""
        self._anchors += 1

    def add(self, text: str, in_link: bool) -> None:
        """A piece of text; a newline in it ends a line."""
        for n, piece in enumerate(unmarked(text).split("\n")):
            if n:
                self.end_line()
            chars = _chars(piece)
            self._total += chars
            self._linked += chars if in_link else 0
            self._parts.append(piece)

    def end_line(self) -> None:
        line = _SPACE.sub(" ", "".join(self._parts)).strip()
        if line:
            self._lines.append(_marked(line, self._total, self._linked, self._anchors))
        self._parts.clear()
        self._linked = self._total = self._anchors = 0

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
        linked = anchors = 0
        if "<a" in raw or "<A" in raw:
            for inside in _LINK.findall(raw):
                linked += _chars(_text_of(inside))
                anchors += 1
        lines.append(_marked(line, _chars(line), linked, anchors))
    return "\n".join(lines)


def _chars(text: str) -> int:
    return len(text) - text.count(" ") - text.count("\t")


def _text_of(markup: str) -> str:
    text = _TAG.sub("", markup) if "<" in markup else markup
    if "&" in text:
        text = html.unescape(text)
    return _SPACE.sub(" ", unmarked(text)).strip()
