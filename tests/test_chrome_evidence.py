"""Chrome told by evidence (issue 57): markup, repetition on the host, place; and the same
kinds of line kept where they are a page's real content.

Each copy below is laid into another host's page of HTML, read as the pipeline reads it
(``main_text``); each page that must be kept carries a line of one of the kinds reprints
add (a notice, a "Reply", a table of short cells) as content of its own.
"""

from __future__ import annotations

import pytest

from benchmarks.corpora import english_articles
from scrapy_simdedup.fingerprint.maincontent import main_text
from scrapy_simdedup.index.handle import SimHashIndex
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.judges.content import ContentJudge

ARTICLES = [a for a in english_articles(3000) if a.count("\n\n") >= 8][:6]


@pytest.fixture
def index() -> SimHashIndex:
    with open_index("memory", seed=1) as opened:
        yield opened


def _paragraphs(article: str) -> list[str]:
    return [" ".join(p.split()) for p in article.split("\n\n") if len(p.split()) >= 12]


def _page(body: str, *, links: str = "", after: str = "", aside: str = "") -> str:
    """A page of a portal: its body with lists of links inside it (``links`` above it, the
    section's headlines; ``after`` below it), which an extractor keeps with the story."""
    return (
        "<html><head><title>Portal</title></head><body>"
        f"<div class='story'>{links}{body}{after}</div>{aside}</body></html>"
    )


HEADLINES = (
    "Storm warning for the northern coast as ferries stay in port",
    "Council approves the budget for a new library in the old market",
    "Local team wins the cup after a late goal in extra time",
    "Prices of bread and milk rise for the third month in a row",
    "Museum reopens its Roman hall after two years of repairs",
    "Night trains return to the mountain line from next spring",
)


def _links(host: str, count: int = 6, start: int = 0) -> str:
    return "".join(
        f"<p><a href='https://{host}/a/{n}'>{HEADLINES[n % len(HEADLINES)]}, {host} {n}</a></p>"
        for n in range(start, start + count)
    )


def _story(paragraphs: list[str]) -> str:
    return "".join(f"<p>{p}</p>" for p in paragraphs)


def test_a_reprint_among_another_hosts_lists_of_links_is_a_copy(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    original = _paragraphs(ARTICLES[0])
    judge.judge(main_text(_page(_story(original))), "https://news.example/1")
    reprint = main_text(_page(_story(original), links=_links("portal.example")))
    verdict = judge.judge(reprint, "https://portal.example/r/1")
    assert verdict.copy and verdict.original == "https://news.example/1"
    # every headline the portal lists is chrome, none is content it adds
    assert verdict.confirmation is not None and verdict.confirmation.novel_words == 0
    assert verdict.confirmation.chrome_words >= 6 * 12


def test_a_teaser_of_a_stored_page_of_links_is_kept(index: SimHashIndex) -> None:
    # A page of links with one paragraph of text (an index page's teaser) is mostly lines
    # of links; a page holding one of its stories' teasers and the story is a page of its
    # own, and the story holding the teaser as its first paragraph is never its copy.
    judge = ContentJudge(index)
    story = _paragraphs(ARTICLES[1])
    index_page = _links("news.example", count=30) + f"<p>{story[0]}</p>"
    judge.judge(main_text(_page(index_page)), "https://news.example/")
    verdict = judge.judge(main_text(_page(_story(story))), "https://portal.example/s/1")
    assert not verdict.copy, verdict


@pytest.mark.parametrize("host", ["news.example", "mirror.example"])
def test_lines_of_links_after_the_shared_content_are_what_a_page_adds(
    index: SimHashIndex, host: str
) -> None:
    # A mirror that adds its sources, a contents page with new chapters, a thread with a
    # reply that links the fix: links after the content the page shares count, on its own
    # host or another.
    judge = ContentJudge(index)
    original = _paragraphs(ARTICLES[0])
    judge.judge(main_text(_page(_story(original))), "https://news.example/1")
    added = main_text(_page(_story(original), after=_links(host)))
    verdict = judge.judge(added, f"https://{host}/1/sources")
    assert not verdict.copy and verdict.adds_content


def test_two_pages_of_one_host_that_differ_by_their_links_are_both_kept(
    index: SimHashIndex,
) -> None:
    # A category and its second page: the same introduction, other stories listed.
    judge = ContentJudge(index)
    intro = _story(_paragraphs(ARTICLES[1])[:2])
    first = main_text(_page(intro, links=_links("news.example")))
    second = main_text(_page(intro, links=_links("news.example", start=6)))
    assert not judge.judge(first, "https://news.example/sport").copy
    assert not judge.judge(second, "https://news.example/sport?page=2").copy


def test_what_a_stored_page_of_the_host_carries_adds_nothing_to_a_copy(
    index: SimHashIndex,
) -> None:
    # The portal's own boxes (no link, no word of any list): on its stored page first.
    boxes = (
        "<div class='box'><p>We use small files on your device to remember your settings "
        "and to count visits, and you can refuse them on the settings page.</p>"
        "<p>Our editors send a letter every morning with the five stories of the day.</p></div>"
    )
    judge = ContentJudge(index)
    original = _paragraphs(ARTICLES[2])
    judge.judge(main_text(_page(_story(original))), "https://news.example/2")
    own = _story(_paragraphs(ARTICLES[3]))
    assert not judge.judge(main_text(_page(own, aside=boxes)), "https://portal.example/own").copy
    reprint = main_text(_page(_story(original), aside=boxes))
    verdict = judge.judge(reprint, "https://portal.example/r/2")
    assert verdict.copy and verdict.original == "https://news.example/2"


def test_the_same_boxes_on_a_host_met_first_still_keep_a_page(index: SimHashIndex) -> None:
    # No evidence yet that the boxes are the host's: they count (a page is kept, not lost).
    boxes = (
        "<div class='box'><p>We use small files on your device to remember your settings "
        "and to count visits, and you can refuse them on the settings page.</p></div>"
    )
    judge = ContentJudge(index)
    original = _paragraphs(ARTICLES[2])
    judge.judge(main_text(_page(_story(original))), "https://news.example/2")
    verdict = judge.judge(main_text(_page(_story(original), aside=boxes)), "https://new.example/2")
    assert not verdict.copy and verdict.adds_content


@pytest.mark.parametrize(
    "line",
    [
        # a news story quoting a notice
        "The notice on the site now reads: Copyright 2026, all rights reserved, and no part "
        "of these pages may be reproduced without the written permission of the council.",
        # a forum reply that starts "Reply"
        "Reply from Dana: I tried the second method on the old interpreter and it raised the "
        "same error, so the note about older versions is right and worth keeping here.",
    ],
    ids=["notice quoted", "forum reply"],
)
@pytest.mark.parametrize("where", ["inside", "after"])
def test_a_line_of_a_chrome_kind_that_is_content_keeps_a_page(
    index: SimHashIndex, line: str, where: str
) -> None:
    judge = ContentJudge(index)
    original = _paragraphs(ARTICLES[4])
    judge.judge(main_text(_page(_story(original))), "https://news.example/4")
    at = len(original) // 2 if where == "inside" else len(original)
    changed = [*original[:at], line, *original[at:]]
    verdict = judge.judge(main_text(_page(_story(changed))), "https://forum.example/t/4")
    assert not verdict.copy and verdict.adds_content


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_table_of_short_cells_beside_a_copied_description_keeps_a_page(
    index: SimHashIndex, where: str
) -> None:
    # A shop copies another shop's description and adds its own specification table.
    judge = ContentJudge(index)
    description = _paragraphs(ARTICLES[5])[:3]
    judge.judge(main_text(_page(_story(description))), "https://shop.example/p/1")
    table = (
        "<table><tr><td>Weight</td><td>1.2 kg</td></tr><tr><td>Colour</td><td>slate grey</td>"
        "</tr><tr><td>Frame</td><td>oak, oiled</td></tr><tr><td>Warranty</td><td>five years"
        "</td></tr><tr><td>Assembly</td><td>tools in the box</td></tr></table>"
    )
    body = table + _story(description) if where == "before" else _story(description) + table
    verdict = judge.judge(main_text(_page(body)), "https://other-shop.example/p/1")
    assert not verdict.copy and verdict.adds_content


def test_what_a_chinese_page_adds_is_counted_as_read(index: SimHashIndex) -> None:
    # Against another host, two characters are a word: a 16-character contact line adds
    # nothing, a paragraph of 40 does. On the page's own host every character counts.
    from benchmarks.corpora import chinese_articles

    article = chinese_articles(1500, limit=3)[0]
    line = "本报编辑部联系方式热线电话请拨打总机"  # 18 characters
    paragraph = "记者当天下午赶到现场时，救援队伍已经把最后一名被困群众安全转移到了附近的学校。"
    judge = ContentJudge(index)
    judge.judge(article, "https://news.example.cn/1")
    assert judge.judge(f"{article}\n{line}", "https://portal.example.cn/1").copy
    assert not judge.judge(f"{article}\n{paragraph}", "https://portal.example.cn/2").copy
    with open_index("memory", seed=1) as own:
        judge = ContentJudge(own)
        judge.judge(article, "https://news.example.cn/1")
        assert not judge.judge(f"{article}\n{line}", "https://news.example.cn/1?print=1").copy


DISCLAIMER = "Stories are summarised by our desk from the papers named in each of them."


def test_an_article_after_a_digest_repeating_its_disclaimer_is_kept(index: SimHashIndex) -> None:
    # A digest prints its disclaimer under each of three short stories: a fourth, met alone
    # on another site, starts after 54 words of teasers and 42 of disclaimers (a lead of
    # 68 words were the disclaimer counted once: a cut reprint's).
    judge = ContentJudge(index)
    teasers = [" ".join(_paragraphs(article)[0].split()[:18]) for article in ARTICLES[3:6]]
    story = " ".join(" ".join(_paragraphs(ARTICLES[2])).split()[:60])
    body = "".join(f"<p>{teaser}.</p><p>{DISCLAIMER}</p>" for teaser in teasers)
    judge.judge(main_text(_page(f"{body}<p>{story}</p>")), "https://news.example/digest")
    verdict = judge.judge(main_text(_page(f"<p>{story}</p>")), "https://portal.example/a/5")
    assert not verdict.copy, verdict


def test_an_article_after_three_distinct_paragraphs_of_a_stored_digest_is_kept(
    index: SimHashIndex,
) -> None:
    # The same place with a lead of three paragraphs of other stories: a digest's third
    # article, met alone on another site, is a page of its own.
    judge = ContentJudge(index)
    first, second, third = (_paragraphs(article) for article in ARTICLES[3:6])
    digest = _story(first[:1] + second[:1] + third[:2] + _paragraphs(ARTICLES[2]))
    judge.judge(main_text(_page(digest)), "https://news.example/digest")
    alone = main_text(_page(_story(_paragraphs(ARTICLES[2])[:4])))
    verdict = judge.judge(alone, "https://portal.example/a/6")
    assert not verdict.copy, verdict
