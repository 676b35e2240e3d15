"""A stricter main-content extraction, paid only when a page's extract adds content to
another site's stored page.

The main content (``maincontent.py``) is taken so that no article loses a word: resiliparse
keeps a portal's comment box, its newsletter form, its "related" and "most read" lists,
its author's bio when they sit beside the story in one container. Against another site's
stored page those are what a reprint seems to add, and the text alone does not tell them
from a paragraph of its own on a site met for the first time.

trafilatura's precision extraction reads the markup as a reader's eye does (link density,
comment and share sections, the elements around the text: the signals jusText and
boilerpipe use too) and keeps the article with its comments and tables. What it leaves out
of the extract is bounded, so that a page of two articles, or an article with replies or a
note of its own beside it, is never read as one article:

* lines of links (``linklines.py``) and the text of small forms (a comment form's terms, a
  sign-up's: a form is for input, its text tells how) may be left out, any number;
* any other line of ``MIN_PARAGRAPH_WORDS`` words or more with a sentence's end (an
  answer, an editor's note, a correction) is put back;
* beyond those, at most ``MAX_LEFT_OUT_WORDS`` words may be left out (a byline, a caption,
  an author's bio, headlines, a cookie notice), counted as a reader counts them (two
  Chinese characters a word); past that the page has content of its own, and no stricter
  text is given.
"""

from __future__ import annotations

import logging
import re

from scrapy_simdedup.errors import UndecodablePageError
from scrapy_simdedup.fingerprint.blocks import read_words
from scrapy_simdedup.fingerprint.linklines import MARKS, is_link_line
from scrapy_simdedup.fingerprint.pagetext import decode_page

MIN_CHARS = 200
"""A stricter text shorter than this is the extractor missing the article, not a copy."""
MAX_LEFT_OUT_WORDS = 60
"""Words of lines neither links nor forms that the stricter text may leave out: as many as
a stored page may show beside a reprint (``confirmation.SHOWN_AROUND_MAX_WORDS``)."""
MIN_PARAGRAPH_WORDS = 25
"""A prose line this long that the stricter text left out is put back: a paragraph."""
MAX_FORM_CHARS = 1000
"""A longer form holds a page (ASP.NET wraps whole pages in one): its text is no form's."""
_PROSE = re.compile(r"\w[.!?。！？](?:\s|$)")
_STRIPPED = MARKS + "\u2022 \t"


def stricter_text(page: str | bytes, extract: str, *, content_type: str | None = None) -> str:
    """The article of an HTML page (str, or bytes decoded by ``decode_page``) as
    trafilatura's precision extraction keeps it (comments and tables included), with what
    it left out of ``extract`` (the page's main content) bounded as above; "" when it
    finds less than ``MIN_CHARS`` characters, leaves out too much, or cannot read the page."""
    import trafilatura

    try:
        markup = decode_page(page, content_type).text if isinstance(page, bytes) else page
        text = trafilatura.extract(
            markup,
            favor_precision=True,
            include_comments=True,
            include_tables=True,
            deduplicate=False,
        )
        if not text or len(text) < MIN_CHARS:
            return ""
        forms = _forms(markup)
    except (UndecodablePageError, ValueError, TypeError, RecursionError):
        return ""
    kept = {_plain(line) for line in text.splitlines()}
    running = _plain(text.replace("\n", " "))
    put_back: list[str] = []
    left_out = 0
    for line in extract.splitlines():
        plain = _plain(line)
        if not plain or plain in kept or plain in running or is_link_line(line):
            continue
        if plain in forms:
            continue
        words = read_words(plain)
        if words >= MIN_PARAGRAPH_WORDS and _PROSE.search(plain):
            put_back.append(plain)
            continue
        left_out += words
        if left_out > MAX_LEFT_OUT_WORDS:
            return ""
    return "\n".join([text, *put_back])


def _forms(markup: str) -> str:
    """The text of the page's forms of at most ``MAX_FORM_CHARS`` characters, one a line."""
    from resiliparse.parse.html import HTMLTree

    body = HTMLTree.parse(markup).body
    if body is None:
        return ""
    texts = (form.text or "" for form in body.query_selector_all("form"))
    return "\n".join(_plain(text) for text in texts if len(text) <= MAX_FORM_CHARS)


def _plain(line: str) -> str:
    return " ".join(line.strip(_STRIPPED).split())


logging.getLogger("trafilatura").setLevel(logging.ERROR)  # no warning per odd page
