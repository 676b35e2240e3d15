"""Is a string HTML? Only when it looks like a document or a fragment of one.

Prose that quotes a tag (a tutorial on ``<header>``, a reference page on ``<a href>``) is
text: parsed as HTML, everything after ``<header>`` would be thrown away as page furniture.
A string is HTML when it starts with a doctype, a comment, or an element that has
attributes or that markup follows; or when markup is dense: closing tags, and tags making
up a tenth of its start.
"""

from __future__ import annotations

import re

SAMPLE_CHARS = 4096
MIN_MARKUP_SHARE = 0.1
MIN_CLOSING_TAGS = 3
_LEADING = re.compile(r"\s*(?:<!doctype\b|<!--|<\?xml\b|<html\b)", re.I)
_LEADING_ELEMENT = re.compile(r"\s*<[a-z][a-z0-9-]*(?:\s[^<>]*)?/?>", re.I)
_TAG = re.compile(r"</?[a-z][a-z0-9-]*(?:\s[^<>]*)?/?>", re.I)


def looks_like_html(value: str) -> bool:
    """True for a document or fragment of HTML; False for text that mentions tags."""
    sample = value[:SAMPLE_CHARS]
    if _LEADING.match(sample):
        return True
    tags = _TAG.findall(sample)
    closing = sum(tag.startswith("</") for tag in tags)
    leading = _LEADING_ELEMENT.match(sample)
    if leading and (" " in leading.group().strip() or closing or len(tags) >= 3):
        return True  # an element with attributes, or one that markup follows
    markup = sum(map(len, tags))
    return closing >= MIN_CLOSING_TAGS and markup >= MIN_MARKUP_SHARE * len(sample.strip())
