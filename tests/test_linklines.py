"""Lines of links, told by markup: marked in the extract, never a paragraph that links."""

from __future__ import annotations

from scrapy_simdedup.fingerprint.linklines import (
    LINK_MARK,
    MAX_LINK_LINE_CHARS,
    is_link_line,
    marked_lines,
    unmarked,
)
from scrapy_simdedup.fingerprint.maincontent import main_text
from scrapy_simdedup.fingerprint.pagetext import page_text

PARAGRAPH = (
    "The council voted on Tuesday to reopen the northern ferry route, which storms closed "
    "in March, and the first boats will leave from the new quay on Friday morning."
)


def _marks(text: str) -> list[tuple[bool, str]]:
    return [(is_link_line(line), unmarked(line)) for line in text.splitlines()]


def test_lines_that_are_mostly_links_are_marked_and_a_paragraph_with_a_link_is_not() -> None:
    extract = (
        '<p><a href="/">Home</a> | <a href="/news">News</a> | <a href="/sport">Sport</a></p>\n'
        f'<p>{PARAGRAPH[:60]}<a href="/ferries">ferry route</a>{PARAGRAPH[60:]}</p>\n'
        '<ul><li><a href="/a/1">Ten things to do on the islands this summer</a></li>\n'
        "<li>Read more: <a href='/a/2'>The quay that took three winters to build</a></li></ul>"
    )
    assert _marks(marked_lines(extract)) == [
        (True, "Home | News | Sport"),
        (False, f"{PARAGRAPH[:60]}ferry route{PARAGRAPH[60:]}"),
        (True, "Ten things to do on the islands this summer"),
        (True, "Read more: The quay that took three winters to build"),
    ]


def test_a_link_the_extract_leaves_open_ends_with_its_block() -> None:
    # Seen on a real page: "<a href=''>" with no "</a>" before the article; every
    # paragraph after it passed for a line of links, and a distinct page was dropped.
    extract = f'<p><a href="">New, 6 comments</p>\n<p>{PARAGRAPH}</p>\n<p>{PARAGRAPH}</p>'
    assert [linked for linked, _ in _marks(marked_lines(extract))] == [True, False, False]


def test_a_long_line_inside_a_link_is_a_paragraph() -> None:
    teaser = " ".join([PARAGRAPH] * 3)
    assert len(teaser) > MAX_LINK_LINE_CHARS
    assert _marks(marked_lines(f'<a href="/story"><p>{teaser}</p></a>')) == [(False, teaser)]


def test_the_mark_of_the_input_is_no_mark() -> None:
    # A text that carries the mark itself (a user's field) gets it only where links say.
    text = marked_lines(f"<p>{LINK_MARK}{PARAGRAPH}</p>")
    assert _marks(text) == [(False, PARAGRAPH)] and LINK_MARK not in text


def test_main_text_and_page_text_mark_the_same_menu() -> None:
    menu = "".join(f'<li><a href="/s/{n}">Section number {n}</a></li>' for n in range(6))
    page = (
        f"<html><body><div class='menu'><ul>{menu}</ul></div><article><h1>Ferries</h1>"
        f"<p>{PARAGRAPH}</p><p>{PARAGRAPH.replace('Tuesday', 'Monday')}</p></article>"
        f"<div class='related'><ul>{menu}</ul></div></body></html>"
    )
    for text in (main_text(page), page_text(page)):
        lines = _marks(text)
        assert (False, PARAGRAPH) in lines
        assert all(linked for linked, line in lines if line.startswith("Section number"))


def test_a_page_inside_one_form_keeps_its_text_and_a_search_form_does_not() -> None:
    # ASP.NET wraps every page in one <form>; a search box is a form of its own.
    article = f"<h1>Ferries</h1><p>{PARAGRAPH}</p>"
    search = "<form action='/search'><label>Search the site</label><input name='q'></form>"
    wrapped = f"<html><body><form id='aspnetForm'>{search}{article}</form></body></html>"
    assert PARAGRAPH in page_text(wrapped) and "Search the site" not in page_text(wrapped)
    assert PARAGRAPH in main_text(wrapped)


def test_a_line_is_the_same_sentence_linked_or_not() -> None:
    from scrapy_simdedup.fingerprint.blocks import text_blocks

    headline = "Storm warning for the northern coast as ferries stay in port"
    linked = text_blocks(marked_lines(f'<p><a href="/x">{headline}</a></p>'), seed=1)
    plain = text_blocks(headline, seed=1)
    assert [b.exact for b in linked] == [b.exact for b in plain]
    assert all(b.linked for b in linked) and not any(b.linked for b in plain)


def test_a_sentence_that_is_mostly_a_link_is_prose() -> None:
    # An update that links its follow-up, a reply that links the fix, a citation: read.
    lines = [
        '<p>Update: <a href="/s/2">the minister resigned on Friday evening</a>.</p>',
        '<p><a href="/fix">Fixed in driver 2.4.1, released today, see the notes</a>. Thanks!</p>',
        "<p><a href='/c'>Smith, J. (2020). Ferries of the north. Harbour Press</a></p>",
        "<p>更新：<a href='/s/3'>部长已于周五晚间辞职。</a></p>",
    ]
    assert [linked for linked, _ in _marks(marked_lines("\n".join(lines)))] == [False] * 4
