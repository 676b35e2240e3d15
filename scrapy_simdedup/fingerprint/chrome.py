"""Page chrome: the lines sites of a kind print around any article, which add no content.

A portal prints a breadcrumb, a "source / time / views" line, share and previous/next
links, an editor's name, a copyright notice and a disclaimer around every article it
reprints; a mirror prints a banner with its visit counter. A reader does not call those
lines content, and they must not make a reprint "add" words to its original, even on a
host met for the first time (its template is learned from its third page on, see
``index/blockcounts.py``).

``is_chrome`` recognises such a line (a line of text, before it is cut into sentences) by a
small lexicon (English and Chinese) and by where the marker sits: anywhere in a short line,
at the start of a longer one (previous/next links, breadcrumbs, notices), or several labels
in one line. Lines that are only addresses (``/story/19.html``, ``https://...``), two or
more in a row, are a list of links printed as their paths (``listed_addresses``): a
"story gone" notice that lists other links than its twin adds nothing. A Chinese
character counts as a word, as in ``blocks.py``, and figures (times, counters) do not
count. A banner the lexicon does not know is learned as its site's template instead
(``index/blockcounts.py``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from scrapy_simdedup.fingerprint.linklines import MARKS, is_menu_line

SHORT_WORDS = 12
"""A line this short with a marker anywhere is chrome ("Views: 3,281", "posted by ann")."""
MAX_CHROME_WORDS = 30
"""A line with a marker at its start may be this long ("Source: ... | Published: ...")."""
MIN_LABELS = 2
"""Labels in a longer line that make it a "source / time / views" line."""
MAX_NOTICE_WORDS = 80
"""A notice (copyright, disclaimer) may be this long when it starts the line."""
LEAD_CHARS = 2
"""A notice this close to the line's start (after a bracket) starts it."""
MAX_LINE_CHARS = 2_000
MAX_CACHED_CHARS = 1_000
_WORD = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]|[^\W\d_][\w]*"
)  # words with a letter: a timestamp or a counter is no word of a line's length

_NOTICE = re.compile(
    r"copyright\s*(?:©|\(c\)|\d{4})|©|\(c\)\s*\d{4}|all rights reserved|免责声明|disclaimer\b"
    r"|^声明[:：]",
    re.IGNORECASE,
)
_NOTICE_ANYWHERE = re.compile(
    r"版权所有|版权归|ICP[备证]|不代表本[网站]|如有侵权|转载目的|请注明出处"
)
_LINE_START = re.compile(
    # previous / next links, share bars and breadcrumbs: a line that starts so is chrome
    r"^\W{0,2}(?:上一篇|下一篇|上一页|下一页|分享到|一键分享|返回顶部|返回首页)"
    r"|^(?:previous|next|prev)(?: article| post| page| story)?\s*[:：]"
    r"|^share (?:this|on|via)\b|^back to top\b"
    r"|^(?:首页|home)\s*(?:>|»|›|/|＞)",
    re.IGNORECASE,
)
_LABELS = re.compile(
    # source / time / views / author labels and counters: one in a short line, or several
    r"来源[:：]|稿源[:：]|发布时间|更新时间|时间[:：]|浏览[:：]?\s*\d|阅读[:：]?\s*\d|点击[:：]?\s*\d"
    r"|\d{1,12}\s*次(?:浏览|阅读|点击)"
    r"|字号[:：]|\bviews?\s*[:：]|\b\d[\d,.]{0,20}\s+(?:views|visits|reads|hits)\b"
    r"|\bviewed\s+[\d,.]{1,20}\s+times|\bvisitor\s+(?:number|no\.?|#)|\bpage generated\b"
    r"|\bgenerated (?:in|at|on)\b.{0,80}?\d|\blast (?:updated|modified|synchroni[sz]ed|synced)\b"
    r"|\bpublished\s*[:：]|\bsource\s*[:：]|\bupdated\s*[:：]"
    r"|责任编辑|编辑[:：]|作者[:：]|记者[:：]|\beditor\s*[:：]",
    re.IGNORECASE,
)
_BARE_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]{0,15}://|www\.|/)\S*", re.IGNORECASE)
"""A line that is only a web address or a site path: a link printed as its address. Two
or more such lines in a row are a list of links (``listed_addresses``); one alone may be
what the page is about (the target of a "you are leaving this site" page)."""
MIN_LISTED = 2
_LABEL_WORDS = (
    "来源", "稿源", "时间", "浏览", "阅读", "点击", "字号", "编辑", "作者", "记者",
    "view", "visit", "read", "hit", "generated", "last", "published", "source", "updated",
    "editor",
)  # fmt: skip
"""One of these is in any line ``_LABELS`` finds a label in (case folded): a test in a
few microseconds where the pattern takes twenty."""
_SHORT_ONLY = re.compile(
    # markers that also start sentences of content: chrome only in a short line
    r"\bmirror (?:of|hosted)\b|\bposted (?:on|by|at)\b|\bedited by\b|\bby the web desk\b"
    r"|\b(?:facebook|twitter|weibo|wechat)\b.{0,80}\b(?:twitter|linkedin|email|facebook|weibo|qq)\b",
    re.IGNORECASE,
)


def is_chrome(line: str) -> bool:
    """Whether ``line`` (one line of a page's text) is chrome rather than content: a
    short line (``SHORT_WORDS``) with a marker, a line that starts as chrome does
    (previous/next, a breadcrumb, a share bar, a notice), or one of several labels ("Source:
    ... | Published: ... | Views: ..."). A sentence of a paragraph that mentions a source,
    a view count or a copyright is content."""
    if len(line) > MAX_LINE_CHARS:
        return False
    if len(line) > MAX_CACHED_CHARS:
        return _judged(line.strip())
    return _cached(line)


@lru_cache(maxsize=8192)  # chrome lines repeat from page to page, content lines do not
def _cached(line: str) -> bool:
    return _judged(line.strip())


def _judged(line: str) -> bool:
    words = len(_WORD.findall(line))
    if words > MAX_NOTICE_WORDS:
        return False
    if _NOTICE_ANYWHERE.search(line):
        return True
    notice = _NOTICE.search(line)
    if notice is not None and (words <= SHORT_WORDS or notice.start() <= LEAD_CHARS):
        return True
    if words > MAX_CHROME_WORDS:
        return False
    if _LINE_START.search(line):
        return True
    folded = line.casefold().replace("ı", "i").replace("i\u0307", "i")  # (İ, ı) as re does
    labels = len(_LABELS.findall(line)) if any(w in folded for w in _LABEL_WORDS) else 0
    if labels >= MIN_LABELS or (labels and words <= SHORT_WORDS):
        return True
    return words <= SHORT_WORDS and _SHORT_ONLY.search(line) is not None


def listed_addresses(lines: list[str]) -> set[int]:
    """The indexes of ``lines`` that are links printed as their addresses, in a list
    (``MIN_LISTED`` or more in a row, blank lines between them allowed): a "related
    stories" list, which a reader does not call content. A "story gone" notice that lists
    other links than its twin adds nothing to it."""
    listed: set[int] = set()
    run: list[int] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if len(stripped) <= MAX_LINE_CHARS and _BARE_ADDRESS.fullmatch(stripped):
            run.append(index)
            continue
        if len(run) >= MIN_LISTED:
            listed.update(run)
        run = []
    if len(run) >= MIN_LISTED:
        listed.update(run)
    return listed


def chrome_lines(lines: list[str]) -> list[bool]:
    """Whether each of ``lines`` is chrome (``is_chrome``, or in a list of addresses); a
    blank line is not. Worked out once per text: ``without_chrome`` and the text's blocks
    both need it."""
    menus = [is_menu_line(line) for line in lines]  # chrome by its links (``linklines.py``)
    lines = [line.lstrip(MARKS) for line in lines]  # a line of links reads as its text
    listed = listed_addresses(lines)
    return [
        bool(line.strip()) and (menu or index in listed or is_chrome(line))
        for index, (line, menu) in enumerate(zip(lines, menus, strict=True))
    ]


def without_chrome(text: str, *, chrome: list[bool] | None = None) -> str:
    """``text`` without its chrome lines (``text`` itself when it is all chrome): what a
    page's SimHash, sketch and longest sentences are made of, so that a reprint in a
    portal's chrome is as near its original as the article it carries. ``chrome``:
    ``chrome_lines(text.splitlines())``, when the caller has it."""
    lines = text.splitlines()
    flags = chrome_lines(lines) if chrome is None else chrome
    kept = [line for line, is_chrome_line in zip(lines, flags, strict=True) if not is_chrome_line]
    if len(kept) == len(lines) or not any(line.strip() for line in kept):
        return text
    return "\n".join(kept)
