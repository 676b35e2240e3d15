"""Page chrome: the lines sites of a kind print around any article, which add no content.

A portal prints a breadcrumb, a "source / time / views" line, share and previous/next
links, an editor's name, a copyright notice and a disclaimer around every article it
reprints; a mirror prints a banner with its visit counter. A reader does not call those
lines content, and they must not make a reprint "add" words to its original, even on a
host met for the first time (its template is learned from its third page on, see
``index/blockcounts.py``).

``is_chrome`` recognises such a line (a line of text, before it is cut into sentences) by a
small lexicon (English and Chinese) and by its length: a marker inside a paragraph is
content.
Strong markers (a copyright or disclaimer notice) allow ``MAX_NOTICE_WORDS`` words, the
others ``MAX_CHROME_WORDS``; a Chinese character counts as a word, as in ``blocks.py``, and
figures (times, counters) do not count.
"""

from __future__ import annotations

import re
from functools import lru_cache

MAX_CHROME_WORDS = 30
MAX_NOTICE_WORDS = 80
_WORD = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]|[^\W\d_][\w]*"
)  # words with a letter: a timestamp or a counter is no word of a line's length

_NOTICE = re.compile(
    r"copyright\s*(?:©|\(c\)|\d{4})|©|\(c\)\s*\d{4}|all rights reserved|版权所有|版权归|ICP[备证]"
    r"|免责声明|^\W*disclaimer\b|不代表本[网站]|如有侵权|转载目的|请注明出处",
    re.IGNORECASE,
)
_CHROME = re.compile(
    # source / time / views lines and counters
    r"来源[:：]|稿源[:：]|发布时间|更新时间|浏览[:：]?\s*\d|阅读[:：]?\s*\d|点击[:：]?\s*\d|\d+\s*次(?:浏览|阅读|点击)"
    r"|字号[:：]|\bviews?\s*[:：]|\b\d[\d,.]*\s+(?:views|visits|reads|hits)\b"
    r"|\bviewed\s+[\d,.]+\s+times|\bvisitor\s+(?:number|no\.?|#)|\bpage generated\b"
    r"|\bgenerated (?:in|at|on)\b.*\d|\blast (?:updated|modified|synchroni[sz]ed|synced)\b"
    r"|\bmirror (?:of|hosted)\b|\bpublished\s*[:：]|\bposted (?:on|by|at)\b|\bsource\s*[:：]"
    # editor and author lines
    r"|责任编辑|编辑[:：]|作者[:：]|记者[:：]|\bedited by\b|\beditor\s*[:：]|\bby the web desk\b"
    # share bars and previous / next links
    r"|分享到|一键分享|\bshare (?:this|on|via)\b"
    r"|\b(?:facebook|twitter|weibo|wechat)\b.*\b(?:twitter|linkedin|email|facebook|weibo|qq)\b"
    r"|^(?:上一篇|下一篇|上一页|下一页)"
    r"|^(?:previous|next|prev)(?: article| post| page| story)?\s*[:：]"
    r"|返回顶部|返回首页|\bback to top\b"
    # breadcrumbs
    r"|^(?:首页|home)\s*(?:>|»|›|/|＞)",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)  # chrome lines repeat from page to page, content lines do not
def is_chrome(line: str) -> bool:
    """Whether ``line`` (one line of a page's text) is chrome rather than content."""
    if len(line) > 4 * MAX_NOTICE_WORDS and not line.isascii():
        return False  # long CJK text: content, whatever it mentions
    words = len(_WORD.findall(line))
    if words > MAX_NOTICE_WORDS:
        return False
    if _NOTICE.search(line):
        return True
    return words <= MAX_CHROME_WORDS and _CHROME.search(line) is not None


def without_chrome(text: str) -> str:
    """``text`` without its chrome lines (``text`` itself when it is all chrome): what a
    page's SimHash, sketch and longest sentences are made of, so that a reprint in a
    portal's chrome is as near its original as the article it carries."""
    lines = text.splitlines()
    kept = [line for line in lines if not line.strip() or not is_chrome(line)]
    if len(kept) == len(lines) or not any(line.strip() for line in kept):
        return text
    return "\n".join(kept)
