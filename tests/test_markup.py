from __future__ import annotations

import pytest

from scrapy_simdedup.fingerprint.markup import looks_like_html

TUTORIAL = (
    "Put the site's name in a <header> element and the links in <nav>. A <footer> holds the "
    'copyright line. Write links as <a href="...">, and never nest one <a> in another. '
) * 3


@pytest.mark.parametrize(
    "value",
    [
        "<!DOCTYPE html><html><body><p>Hi</p></body></html>",
        "  <html><body>x</body></html>",
        "<!-- saved page --><div>x</div>",
        "<p>One paragraph.</p><p>Another one.</p>",
        "<div class='post'>Text",
        "Intro text <div><p>a</p><p>b</p><p>c</p></div>",
    ],
)
def test_documents_and_fragments_are_html(value: str) -> None:
    assert looks_like_html(value)


@pytest.mark.parametrize(
    "value",
    [
        TUTORIAL,
        "<header> is an element for introductory content; see also <footer>.",
        "Compare a < b and b > c in the loop, then print(<result>).",
        "Plain text without any markup at all.",
    ],
)
def test_prose_that_mentions_tags_is_text(value: str) -> None:
    assert not looks_like_html(value)
