"""Volatile tokens: what changes on every request while a line stays the same line.

A banner's timestamp, a page's view count, a request id or a session id differ from page to
page (and from one fetch of a page to the next), so a block hashed as it stands never
repeats and never becomes its host's template. ``masked`` replaces them with placeholders:
hex and id-like runs of eight or more characters holding a digit become ``#``, runs of
digits (with the separators of dates, times, prices and counts between them) become ``0``,
and month names become ``M``.

Only a line with a token that changes by itself (``is_volatile``: a date, a time of day, a
count of five digits or more, an id) is counted in its site's template by its masked text:
a product's "36 V, 120 Nm, 2.4 kg" is no banner, and a line of such figures stays the
page's own. Content is compared as it stands, and a sentence that differs from another
only in its figures is new content, not an edit of it (``judges/confirmation.py``): two
pages that differ in their figures (scores, prices, timetables) stay two pages.
"""

from __future__ import annotations

import re

_ID = re.compile(r"\b(?=[0-9a-zA-Z_-]*\d)(?=[0-9a-zA-Z_-]*[a-zA-Z])[0-9a-zA-Z_-]{8,}\b")
_NUMBER = re.compile(r"\d+(?:[.,:/\-]\d+)*")
_MONTH = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b\.?", re.IGNORECASE
)


_DIGIT = re.compile(r"\d")

_VOLATILE = re.compile(
    r"\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}"  # dates
    r"|\b\d{1,2}:\d{2}\b"  # times of day
    r"|\d(?:[\d,.]?\d){4,}"  # counts of five digits or more (2,255,257)
)


def is_volatile(line: str) -> bool:
    """Whether ``line`` holds a token that changes from request to request."""
    return bool(_VOLATILE.search(line) or _ID.search(line))


def masked(line: str) -> str:
    """``line`` with its volatile tokens replaced; the line itself when it has none."""
    if not _has_digit(line):
        return line
    return _MONTH.sub("M", _NUMBER.sub("0", _ID.sub("#", line)))


def _has_digit(line: str) -> bool:
    """``any(c.isdigit() for c in line)``, a regex search first: most lines of a page are
    read here, and a generator per character was a fifth of a page's fingerprinting. An
    ASCII line holds no other digits than ``\\d`` finds (superscripts are not ASCII)."""
    if _DIGIT.search(line):
        return True
    return not line.isascii() and any(map(str.isdigit, line))
