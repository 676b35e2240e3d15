"""The text of an item's content fields, whatever they hold; never raises.

str fields are used as they are, unless they hold HTML (a document or fragment, see
``fingerprint/markup.py``, or every str when the caller says so), which is reduced to its
readable text; bytes are decoded as a browser would; lists of strings are joined. Anything else, and
bytes that are binary or undecodable, make the item pass unchecked with a counted reason.
An item whose only text is a short title is not judged either: two pages of one site share
a title far more often than a text, so a title alone would drop distinct pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import UndecodablePageError
from scrapy_simdedup.fingerprint.maincontent import MainContent, main_content
from scrapy_simdedup.fingerprint.markup import looks_like_html
from scrapy_simdedup.fingerprint.pagetext import page_text

if TYPE_CHECKING:
    from itemadapter import ItemAdapter

TITLE_FIELD = "title"
SHORT_TITLE_CHARS = 300
"""A title longer than this is text enough to judge by (some items keep a teaser there)."""
HTML_PER_TEXT_CHAR = 8
"""Markup kept per allowed text character before extraction: bounds the parser's work."""


MISSING_CONTENT_FIELDS = "missing_content_fields"


@dataclass(frozen=True)
class ItemText:
    """The text to fingerprint, or why there is none (a stats reason). ``outside``: the
    lines of an HTML field's page its main content left out (``main_content``). ``page``:
    that page's markup, when the text is the main content of one HTML field and nothing
    else (a stricter extraction of it may be asked for: ``fingerprint/stricter.py``)."""

    text: str = ""
    skipped: str | None = None
    truncated: bool = False
    outside: str = ""
    page: str | bytes = ""


def item_text(
    adapter: ItemAdapter,
    fields: tuple[str, ...],
    max_chars: int,
    html: str = "auto",
    *,
    main: bool = False,
) -> ItemText:
    """``html``: "auto" (str fields that look like HTML are HTML), "html" or "text";
    ``main``: an HTML field is judged by its main content (``main_text``), not all of its
    readable text."""
    parts: list[str] = []
    reasons: list[str] = []
    sources: list[str] = []
    outside: list[str] = []
    pages: list[str | bytes] = []
    for name in fields:
        value = adapter.get(name)
        if value is None:
            continue
        found, reason, page = _field_text(value, max_chars, html, main)
        if reason:
            reasons.append(reason)
        elif found.text.strip():
            parts.append(found.text)
            sources.append(name)
            pages.append(page)
            if found.outside:
                outside.append(found.outside)
    if not parts:
        return ItemText(skipped=reasons[0] if reasons else "no_text")
    if _title_alone(fields, sources, parts):
        return ItemText(skipped=MISSING_CONTENT_FIELDS)
    text, left_out = "\n".join(parts), "\n".join(outside)
    page = pages[0] if len(pages) == 1 else ""
    if len(text) > max_chars:
        return ItemText(text[:max_chars], truncated=True, outside=left_out)
    return ItemText(text, outside=left_out, page=page)


def _title_alone(fields: tuple[str, ...], sources: list[str], parts: list[str]) -> bool:
    """Only a short title was found, where other content fields were asked for."""
    return (
        sources == [TITLE_FIELD]
        and any(name != TITLE_FIELD for name in fields)
        and len(parts[0]) <= SHORT_TITLE_CHARS
    )


def _field_text(
    value: object, max_chars: int, html: str, main: bool
) -> tuple[MainContent, str | None, str | bytes]:
    """The field's text, or why none; and its markup when its main content was taken."""
    try:
        page: str | bytes = ""
        if isinstance(value, str):
            if html == "html" or (html == "auto" and looks_like_html(value)):
                page = value[: max_chars * HTML_PER_TEXT_CHAR]
            else:
                return MainContent(value), None, ""
        elif isinstance(value, bytes):
            page = value[: max_chars * HTML_PER_TEXT_CHAR]
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return MainContent("\n".join(value)), None, ""
        else:
            return MainContent(""), "unsupported_type", ""
        reduced = _reduced(page, main)
        return reduced, None, page if main else ""
    except UndecodablePageError as exc:
        return MainContent(""), exc.reason, ""


def _reduced(page: str | bytes, main: bool) -> MainContent:
    return main_content(page) if main else MainContent(page_text(page))
