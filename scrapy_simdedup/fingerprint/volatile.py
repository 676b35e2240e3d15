"""Volatile tokens: what changes on every request while a line stays the same line.

A banner's timestamp, a page's view count, a request id or a session id differ from page to
page (and from one fetch of a page to the next), so a block hashed as it stands never
repeats and never becomes its host's template. ``masked`` replaces them with placeholders:
hex and id-like runs of eight or more characters holding a digit become ``#``, runs of
digits (with the separators of dates, times, prices and counts between them) become ``0``,
and month names become ``M``. Only template learning reads masked text; content is
compared as it stands, so two pages that differ in their figures (scores, prices,
timetables) stay two pages.
"""

from __future__ import annotations

import re

_ID = re.compile(r"\b(?=[0-9a-zA-Z_-]*\d)(?=[0-9a-zA-Z_-]*[a-zA-Z])[0-9a-zA-Z_-]{8,}\b")
_NUMBER = re.compile(r"\d+(?:[.,:/\-]\d+)*")
_MONTH = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b\.?", re.IGNORECASE
)


def masked(line: str) -> str:
    """``line`` with its volatile tokens replaced; the line itself when it has none."""
    if not any(c.isdigit() for c in line):
        return line
    return _MONTH.sub("M", _NUMBER.sub("0", _ID.sub("#", line)))
