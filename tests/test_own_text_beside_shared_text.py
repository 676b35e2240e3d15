"""Pages whose own text sits beside text a stored page of another site has, in shapes a
reader of markup takes for furniture (issue 57, a review's attacks): a restaurant's menu in
a box extractors drop, a tag page's own headlines, a contents page's new chapters, a cast
line or a product's variants laid out as one long line of short links. Each must be kept:
readings of links, furniture and leads tried on 2026-12-07 each dropped some of them (the
stored page's links left out of what a page must hold; a stricter reading free to leave
out what the main content left out too; a long line of short links taken for a menu; a
stored page's first line taken for a title no lead counts). (A line of short
links under 300 characters is a menu wherever it sits, an older rule: 30 sizes and colours
in one line are dropped beside a shared description.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_chrome_evidence import HEADLINES
from tests.test_stricter import PARAGRAPHS, _kept, _page, _story

DISHES = [
    ("Bruschetta", "grilled bread, tomato, garlic, basil", "6.50"),
    ("Burrata", "Apulian burrata, cherry tomatoes, rocket", "11.00"),
    ("Arancini", "three saffron rice balls with ragu and peas", "7.50"),
    ("Margherita", "tomato, fior di latte, basil, olive oil", "9.50"),
    ("Diavola", "tomato, mozzarella, spicy Calabrian salami", "11.50"),
    ("Capricciosa", "ham, mushrooms, artichokes, olives", "12.50"),
    ("Spaghetti alle vongole", "clams, garlic, white wine, parsley", "15.00"),
    ("Cacio e pepe", "tonnarelli, pecorino romano, black pepper", "12.00"),
    ("Lasagne", "slow cooked beef ragu, bechamel, parmesan", "13.50"),
    ("Risotto ai funghi", "carnaroli rice, porcini, thyme", "14.00"),
    ("Pappardelle", "wild boar ragu, juniper, red wine", "15.50"),
    ("Tiramisu", "mascarpone, savoiardi soaked in espresso, cocoa", "6.00"),
    ("Panna cotta", "vanilla cream, wild berry coulis", "5.50"),
    ("Cannoli", "two Sicilian cannoli with ricotta and pistachio", "6.50"),
] * 2
CHAPTERS = [f"Chapter {n}: The {HEADLINES[n % 6].split()[1]} and the quay" for n in range(1, 91)]
SHORT_CHAPTERS = [f"{n}. Storm {n % 7}" for n in range(1, 71)]
CAST = [f"Actor Number {n}" for n in range(30)]
VARIANTS = [
    f"EU {size} {colour}" for colour in ("black", "white", "navy", "red") for size in range(36, 46)
]


def _restaurant() -> tuple[tuple[str, str], tuple[str, str]]:
    # A listing site's description of a restaurant, then the restaurant's own site: the
    # same description and its menu, in a box both extractors leave out (class "menu").
    about = PARAGRAPHS[0][:3]
    menu = "<div class='menu'>" + "".join(
        f"<div class='dish'><h4>{name}</h4><p>{what}</p><span>&euro; {price}</span></div>"
        for name, what, price in DISHES
    )
    listing = _page(f"<article><h1>Trattoria</h1>{_story(about)}</article>", "Listings")
    own = _page(f"<div class='main'><h1>Trattoria</h1>{_story(about)}{menu}</div></div>")
    return ("https://listings.example/r/1", listing), ("https://trattoria.example/", own)


def _links(titles: list[str], host: str, tag: str = "li") -> str:
    return "".join(
        f"<{tag}><a href='https://{host}/{n}'>{t}</a></{tag}>" for n, t in enumerate(titles)
    )


def _tag_pages() -> tuple[tuple[str, str], tuple[str, str]]:
    # Two news sites' tag pages sharing a description: the first lists its headlines after
    # it, the second its own before it.
    about = PARAGRAPHS[2][:2]
    theirs = [f"{h} (report {n})" for n, h in enumerate(HEADLINES * 5)]
    own = [f"Harbour news {n}: the ferry timetable for winter, change {n}" for n in range(12)]
    stored = _page(_story(about) + _links(theirs, "a.example", "h3"), "Topic")
    page = _page(_links(own, "b.example", "h3") + _story(about), "Topic")
    return ("https://a.example/topic/harbour", stored), ("https://b.example/topic/harbour", page)


def _contents(inline: bool) -> tuple[tuple[str, str], tuple[str, str]]:
    # A book's blurb and its contents on one site, the same with 30 chapters more on
    # another: as a list, or as one line of short links (a grid of chapters).
    blurb = PARAGRAPHS[3][:2]
    titles = SHORT_CHAPTERS if inline else CHAPTERS
    stored_count, count = (40, 70) if inline else (60, 90)

    def book(host: str, n: int) -> str:
        links = _links(titles[:n], host, "span") if inline else _links(titles[:n], host)
        return _page(f"<h1>The Keeper</h1>{_story(blurb)}<div class='toc'>{links}</div>", "Book")

    return (
        ("https://a-books.example/b/1", book("a-books.example", stored_count)),
        ("https://b-books.example/b/1", book("b-books.example", count)),
    )


def _one_line(items: list[str]) -> tuple[tuple[str, str], tuple[str, str]]:
    # A synopsis on one site; on another the same and a line of short links of its own (a
    # cast, a product's sizes and colours).
    about = PARAGRAPHS[4][:2]
    line = "<p>" + ", ".join(
        f"<a href='https://b.example/x/{n}'>{t}</a>" for n, t in enumerate(items)
    )
    return (
        ("https://a.example/f/1", _page(f"<h1>A film</h1>{_story(about)}")),
        ("https://b.example/f/1", _page(f"<h1>A film</h1>{_story(about)}{line}</p>")),
    )


INTRO = (
    "Our town paper reported this morning on the ferry plan, and since so many of you "
    "wrote to ask about it, here is the start of their story."
)
CLOSING = "We will post more when the council votes next week."


def _blog_quote() -> tuple[tuple[str, str], tuple[str, str]]:
    # A story whose extract kept its section's headlines; a blog quoting its first two
    # paragraphs between an opening of its own (a first line a "new title" might be) and a
    # closing line.
    story = PARAGRAPHS[0][:6]
    headlines = _links(HEADLINES * 10, "news.example", "p")
    stored = _page(f"<article><h1>Ferry route</h1>{_story(story)}{headlines}</article>")
    page = _page(f"<article><p>{INTRO}</p>{_story(story[:2])}<p>{CLOSING}</p></article>")
    return ("https://news.example/1", stored), ("https://blog.example/p/1", page)


def _digest_story() -> tuple[tuple[str, str], tuple[str, str]]:
    # A digest of three stories; a blog carrying its second with an opening and a closing
    # line of its own.
    first, second, third = PARAGRAPHS[3][:2], PARAGRAPHS[5][:8], PARAGRAPHS[2][:3]
    digest = _page(
        "<article><h1>Morning briefing for Tuesday</h1>"
        f"<h2>First story</h2>{_story(first)}<h2>Second story</h2>{_story(second)}"
        f"<h2>Third story</h2>{_story(third)}</article>"
    )
    page = _page(f"<article><p>{INTRO}</p>{_story(second)}<p>{CLOSING}</p></article>")
    return ("https://digest.example/d/1", digest), ("https://blog.example/s/4", page)


CASES = {
    "a blog's opening and closing around a quoted story": _blog_quote,
    "a digest's second story with an opening and a closing of its own": _digest_story,
    "a restaurant's menu in a box extractors drop": _restaurant,
    "a tag page's own headlines before a shared description": _tag_pages,
    "30 new chapters in a contents list": lambda: _contents(inline=False),
    "30 new chapters in one line of short links": lambda: _contents(inline=True),
    "a cast of 30 in one line of links": lambda: _one_line(CAST),
    "a product's 40 variants in one line of links": lambda: _one_line(VARIANTS),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_page_with_its_own_text_beside_shared_text_is_kept(tmp_path: Path, case: str) -> None:
    stored, page = CASES[case]()
    assert _kept(tmp_path, stored, page), case
