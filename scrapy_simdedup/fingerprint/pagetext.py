"""The readable text of an HTML page: what stays the same when a mirror or reprint copies it.

Bytes are decoded as browsers do: byte-order mark, then the HTTP ``Content-Type`` charset,
then ``<meta charset>``, each tried strictly so that a wrong declaration (GBK bytes labelled
UTF-8) falls through; then UTF-8; then statistical detection (charset-normalizer). Binary
bodies (images, PDFs, archives) and bytes no decoder explains are refused with
``UndecodablePageError`` instead of being fingerprinted as garbage.

The text leaves out what is not the page's content and what mirrors change: scripts, styles,
templates, comments, and page furniture (nav, header, footer, aside, forms but one that holds
the page, menus, and elements with the matching ARIA roles). Block elements become line
breaks, so sentence-based fingerprints (nshash) see paragraph ends; a line that is mostly
links is marked (``linklines.py``).
"""

from __future__ import annotations

import codecs
import html as html_lib
import re
from dataclasses import dataclass
from itertools import islice

import charset_normalizer
from charset_normalizer.md import mess_ratio
from lxml import etree
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
)

from scrapy_simdedup.errors import UndecodablePageError
from scrapy_simdedup.fingerprint.linklines import MarkedLines

DETECTION_SAMPLE_BYTES = 65_536
FORM_PAGE_ELEMENTS = 150
"""A form with more elements than this holds the page, not a control (see ``_holds_page``)."""
MAX_MESS = 0.2
"""Above this charset-normalizer "mess ratio" a decoding is garbage (e.g. GBK read as cp1252),
however strictly it decoded; the next candidate is tried."""
_BINARY_MAGIC = (
    b"\x89PNG", b"%PDF", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b", b"BZh",
    b"\xfd7zXZ", b"RIFF", b"OggS", b"wOFF", b"wOF2", b"\x00\x00\x01\x00", b"ID3", b"\x7fELF",
)  # fmt: skip
_DROPPED_TAGS = frozenset(
    [
        "script",
        "style",
        "template",
        "noscript",
        "svg",
        "math",
        "iframe",
        "object",
        "embed",
        "canvas",
        "head",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "menu",
        "button",
        "select",
        "textarea",
        "dialog",
    ]
)
_DROPPED_ROLES = frozenset(
    ["navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"]
)
_BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "li",
        "main",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_INLINE_SPACE = re.compile(r"[^\S\n]+")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_DROPPED_BLOCK = re.compile(
    r"<!--.*?-->|<(script|style|template|noscript|svg|head|nav|header|footer|aside|form)\b.*?</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class DecodedPage:
    """A decoded body and how its encoding was found: bom, header, meta, utf-8 or detected."""

    text: str
    encoding: str
    source: str


def decode_page(body: bytes, content_type: str | None = None) -> DecodedPage:
    """Decode a body as a browser would; ``UndecodablePageError`` for binary or unknown bytes."""
    if body.startswith(_BINARY_MAGIC):
        raise UndecodablePageError("binary", f"body starts like a binary file ({body[:4]!r})")
    bom_encoding, bom = read_bom(body)
    if bom_encoding and bom:
        return DecodedPage(body[len(bom) :].decode(bom_encoding, "replace"), bom_encoding, "bom")
    declared = (
        ("header", http_content_type_encoding(content_type) if content_type else None),
        ("meta", html_body_declared_encoding(body)),
        ("utf-8", "utf-8"),
    )
    for source, encoding in declared:
        codec = resolve_encoding(encoding) if encoding else None
        text = _strict_decode(body, codec)
        if codec and text is not None and _believable(_checked(text, codec), codec):
            return DecodedPage(text, codec, source)
    return _detect(body)


def _believable(text: str, codec: str) -> bool:
    """Bytes that decode strictly as UTF-8 are UTF-8: other encodings almost never pass, and
    the mess ratio misjudges real text (Chinese news with full-width digits and colons
    scores 0.28). Single-byte codecs decode anything, so their text must also read well."""
    return codec == "utf-8" or _readable(text)


def _strict_decode(body: bytes, codec: str | None) -> str | None:
    """Strict, but a character cut off at the end (a capped or truncated body) is dropped."""
    if codec is None:
        return None
    try:
        text: str = codecs.getincrementaldecoder(codec)().decode(body, final=False)
    except (UnicodeDecodeError, LookupError):
        return None
    return text


def _readable(text: str) -> bool:
    return mess_ratio(text[:DETECTION_SAMPLE_BYTES], maximum_threshold=MAX_MESS) < MAX_MESS


def _detect(body: bytes) -> DecodedPage:
    match = charset_normalizer.from_bytes(body[:DETECTION_SAMPLE_BYTES]).best()
    if match is None or not _readable(
        body[:DETECTION_SAMPLE_BYTES].decode(match.encoding, "replace")
    ):
        raise UndecodablePageError(
            "undetectable", "no declared or detected encoding explains these bytes"
        )
    text = _checked(body.decode(match.encoding, "replace"), match.encoding)
    return DecodedPage(text, match.encoding, "detected")


def _checked(text: str, encoding: str) -> str:
    sample = text[:DETECTION_SAMPLE_BYTES]
    if sample and len(_CONTROL.findall(sample)) > len(sample) // 20:
        raise UndecodablePageError(
            "binary", f"decoded as {encoding}, but over 5% of it is control characters"
        )
    return text


def page_text(page: str | bytes, *, content_type: str | None = None) -> str:
    """The readable text of an HTML page (str, or bytes decoded by ``decode_page``).

    Raises ``UndecodablePageError`` for binary or undecodable bytes; any ``str`` works,
    including lone surrogates and NULs (replaced before parsing).
    """
    markup = decode_page(page, content_type).text if isinstance(page, bytes) else page
    markup = _XML_DECLARATION.sub("", markup, count=1)
    data = markup.encode("utf-8", "replace").replace(b"\x00", b"")
    if not data.strip():
        return ""
    # Plain lxml elements: lxml.html's element classes cost a Python look-up per element
    # and its API is not needed here (the same tree, the same text).
    parser = etree.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.ParserError, ValueError):
        return ""
    if root is None:  # nothing but whitespace or what the parser drops
        return ""
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        # libxml2 stops at 2,048 nested elements and drops the rest; flatten instead.
        return _flat_text(markup)
    return _readable_text(root)


def _flat_text(markup: str) -> str:
    """Text of markup too deep to parse: dropped blocks and tags removed by pattern."""
    markup = _DROPPED_BLOCK.sub(" ", markup)
    text = html_lib.unescape(_TAG.sub("\n", markup))
    return _tidy(text)


def _readable_text(root: etree._Element) -> str:
    """The text, a line per block, lines that are mostly links marked (``linklines.py``)."""
    lines = MarkedLines()
    skipping: etree._Element | None = None
    links = 0  # inside how many <a> elements
    for event, element in etree.iterwalk(root, events=("start", "end")):
        if skipping is not None:
            if event == "end" and element is skipping:
                skipping = None
                lines.add(element.tail or "", links > 0)
            continue
        tag = element.tag if isinstance(element.tag, str) else ""
        if event == "start":
            if _furniture(element, tag):
                skipping = element
                continue
            if tag in _BLOCK_TAGS:
                lines.end_line()
            if tag == "a":
                links += 1
                lines.anchor()
            lines.add(element.text or "", links > 0)
        else:
            if tag in _BLOCK_TAGS:
                lines.end_line()
            links -= tag == "a"
            lines.add(element.tail or "", links > 0)
    return lines.text()


def _furniture(element: etree._Element, tag: str) -> bool:
    """Page furniture, left out. A form that holds the page itself (ASP.NET wraps every page
    in one, and so do some portals) is no furniture: only its controls are."""
    if tag == "form":
        return not _holds_page(element)
    return (
        tag in _DROPPED_TAGS
        or element.get("role") in _DROPPED_ROLES
        or element.get("hidden") is not None
    )


def _holds_page(form: etree._Element) -> bool:
    """A form with headings, an article or a main element, or more elements than a search
    box, a login or a comment form have."""
    if next(form.iter("h1", "h2", "article", "main"), None) is not None:
        return True
    counted = sum(1 for _ in islice(form.iter(), FORM_PAGE_ELEMENTS + 1))
    return counted > FORM_PAGE_ELEMENTS


def _tidy(text: str) -> str:
    lines = (_INLINE_SPACE.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)
