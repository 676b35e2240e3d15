"""Main-content extraction of whole HTML pages (resiliparse), with the whole text as backstop."""

from __future__ import annotations

import pytest

from scrapy_simdedup.errors import UndecodablePageError
from scrapy_simdedup.fingerprint.maincontent import main_text
from scrapy_simdedup.fingerprint.pagetext import page_text

ARTICLE = (
    "<h1>The harbour reopens</h1>"
    "<p>After three weeks of repairs the harbour reopened on Monday, and the first ferries "
    "left on time for the islands.</p>"
    "<p>Fishermen said the new quay is wider and safer than the old one, which storms had "
    "damaged twice in the last winter.</p>"
)
MENU = "<div class='menu'><a href='/'>Home</a> <a href='/n'>News</a> <a href='/s'>Sports</a></div>"
SIDEBAR = (
    "<div class='most-read'><h3>Most read</h3><ul>"
    + "".join(f"<li><a href='/a/{n}'>Other story number {n} of the day</a></li>" for n in range(8))
    + "</ul></div>"
)
FOOTER = "<div class='footer'>Copyright 2026 Portal. About us | Contact | Jobs | Advertise</div>"


def page(body: str) -> str:
    return f"<html><head><title>Portal</title></head><body>{body}</body></html>"


def test_the_article_is_kept_and_the_div_chrome_left_out() -> None:
    html = page(f"{MENU}<div class='content'>{ARTICLE}</div>{SIDEBAR}{FOOTER}")
    text = main_text(html)
    assert "harbour reopened on Monday" in text and "storms had damaged" in text
    assert "The harbour reopens" in text  # the title is content
    assert "Other story number" not in text and "Advertise" not in text
    assert "Other story number" in page_text(html)  # what the whole page's text holds


@pytest.mark.parametrize(
    "html",
    [
        page("<p>Out of stock.</p>"),  # too little for any extractor: the whole text
        "<p>Only a fragment, yielded by a spider that picked the article block.</p>",
        page(f"{MENU}<table><tr><td>Weight</td><td>1.2 kg</td></tr></table>{FOOTER}"),
    ],
)
def test_a_short_extract_falls_back_to_the_whole_text(html: str) -> None:
    whole = page_text(html)
    assert set(whole.split()) <= set(main_text(html).split()) or main_text(html) == whole


def test_bytes_are_decoded_as_page_text_decodes_them() -> None:
    html = page(f"{MENU}<div>{ARTICLE.replace('harbour', 'port de pêche')}</div>{FOOTER}")
    body, header = html.encode("cp1252"), "text/html; charset=cp1252"
    assert "port de pêche" in main_text(body, content_type=header)
    with pytest.raises(UndecodablePageError):
        main_text(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    assert main_text("") == "" and main_text(b"   ") == ""


def test_text_a_browser_never_renders_is_no_line_of_the_content() -> None:
    # A portal's inline icons carry the page's title with the site's name (a real page has
    # it seven times), and a <template> holds a script's markup: no reader sees either.
    icon = (
        "<svg viewBox='0 0 9 9'><title>The harbour reopens – Portal</title><desc>Icon</desc></svg>"
    )
    held = "<template><div class='alert'>Breaking news alert placeholder text here</div></template>"
    html = page(f"{MENU}<div class='content'>{icon}{ARTICLE}{held}{icon}</div>{FOOTER}")
    text = main_text(html)
    assert "harbour reopened on Monday" in text and "storms had damaged" in text
    assert "– Portal" not in text and "Icon" not in text
    assert "placeholder" not in text
