"""Two page texts side by side: the words that differ marked, the lines that count as page
chrome or as their site's template told apart, for the HTML report.

Plain data, no markup: ``html.py`` escapes and lays it out. Words are compared in order
(``difflib``), a punctuation mark or a CJK character counting as a word, since Chinese is
written without spaces. Chrome is what the content judge leaves out of a page
(``is_chrome``); template lines are lines found on ``TEMPLATE_PAGES`` or more pages of one
host in the feed, the judge's own rule (a sentence on 2 stored pages is template from the
third on), with volatile tokens (dates, counts, ids) masked as the judge masks them.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from scrapy_simdedup.fingerprint.chrome import is_chrome
from scrapy_simdedup.fingerprint.linklines import MARKS, is_menu_line
from scrapy_simdedup.fingerprint.volatile import is_volatile, masked

MAX_CHARS = 20_000
"""Of each text, the part compared: difflib's work grows with the square of the words."""
TEMPLATE_PAGES = 3
_CJK = "\u3400-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]|\s+")


@dataclass(frozen=True)
class Line:
    """One line of a text: ``(words, differs)`` pieces, and what the judge makes of it:
    ``"content"``, ``"chrome"`` or ``"template"``."""

    pieces: tuple[tuple[str, bool], ...]
    kind: str


@dataclass(frozen=True)
class SideBySide:
    left: tuple[Line, ...]
    right: tuple[Line, ...]
    cut: bool  # a text was longer than MAX_CHARS: only its start is shown


def side_by_side(left: str, right: str, template: frozenset[str] = frozenset()) -> SideBySide:
    """``left`` and ``right`` as lines, the words each has that the other lacks marked;
    ``template``: masked lines of the host's template (``template_lines``)."""
    cut = len(left) > MAX_CHARS or len(right) > MAX_CHARS
    a, b = _TOKEN.findall(left[:MAX_CHARS]), _TOKEN.findall(right[:MAX_CHARS])
    words_a = [at for at, token in enumerate(a) if not token.isspace()]
    words_b = [at for at, token in enumerate(b) if not token.isspace()]
    matcher = difflib.SequenceMatcher(
        None, [a[at] for at in words_a], [b[at] for at in words_b], autojunk=False
    )
    same_a: set[int] = set()
    same_b: set[int] = set()
    for block in matcher.get_matching_blocks():
        same_a.update(words_a[block.a + i] for i in range(block.size))
        same_b.update(words_b[block.b + i] for i in range(block.size))
    return SideBySide(_lines(a, same_a, template), _lines(b, same_b, template), cut)


def _lines(tokens: list[str], same: set[int], template: frozenset[str]) -> tuple[Line, ...]:
    lines: list[Line] = []
    pieces: list[tuple[str, bool]] = []
    text: list[str] = []

    def close() -> None:
        line = "".join(text).strip()
        if line:
            lines.append(Line(tuple(pieces), _kind(line, template)))
        pieces.clear()
        text.clear()

    for at, token in enumerate(tokens):
        if token in MARKS:  # a line's mark (``linklines.py``): read, never shown
            text.append(token)
            continue
        if token.isspace():
            if "\n" in token:
                close()
            elif pieces:
                pieces.append((token, False))
                text.append(token)
            continue
        pieces.append((token, at not in same))
        text.append(token)
    close()
    return tuple(lines)


def _kind(line: str, template: frozenset[str]) -> str:
    if is_menu_line(line):
        return "chrome"
    line = line.lstrip(MARKS)
    if is_chrome(line):
        return "chrome"
    if _as_counted(line) in template:
        return "template"
    return "content"


def template_lines(texts: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Per host (``host:port``), the masked lines found on ``TEMPLATE_PAGES`` or more of
    its pages in ``texts`` (page key -> text)."""
    pages: dict[str, Counter[str]] = defaultdict(Counter)
    for key, text in texts.items():
        pages[urlsplit(key).netloc.lower()].update(_distinct_lines(text.splitlines()))
    return {
        host: frozenset(line for line, n in found.items() if n >= TEMPLATE_PAGES)
        for host, found in pages.items()
    }


def _distinct_lines(lines: Iterable[str]) -> set[str]:
    return {_as_counted(line.strip()) for line in lines if line.strip()}


def _as_counted(line: str) -> str:
    """A line as template counts see it: masked only when it holds a volatile token."""
    return masked(line) if is_volatile(line) else line
