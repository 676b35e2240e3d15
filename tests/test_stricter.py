"""The stricter extraction (issue 57): an HTML page whose main content adds content to
another site's stored page is read again, stricter (trafilatura's precision extraction,
what it leaves out bounded: ``fingerprint/stricter.py``). A portal's comment form,
newsletter box and "related" list make no reprint a page of its own; a forum's new replies,
a shop's own specifications, the rest of a cut article, a digest's second story and an
editor's note beside a reprint still keep their pages.

Each case runs the real pipeline on a LevelDB folder, the stored page first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.corpora import chinese_paragraphs
from scrapy_simdedup.fingerprint.maincontent import main_content
from scrapy_simdedup.fingerprint.stricter import MAX_LEFT_OUT_WORDS, stricter_text
from scrapy_simdedup.scrapy_layer.pipeline import NearDuplicateItem
from tests.support.components import opened_pipeline, simdedup_stats
from tests.test_chrome_evidence import ARTICLES, _paragraphs

PARAGRAPHS = [_paragraphs(article) for article in ARTICLES]
TERMS = (
    "By submitting this form you agree to the portal using your data for the purposes of "
    "publishing your comment. Your personal data will only be passed to third parties for "
    "spam filtering or when the law obliges us to do so."
)
PORTAL_BOXES = (
    '<div class="comments"><h3>Leave a Reply</h3><form><p>' + TERMS + "</p><textarea>"
    '</textarea><button>Post comment</button></form></div><div class="newsletter"><h4>Keep '
    "up to date</h4><p>Subscribe to our daily newsletter and get the stories that matter in "
    "your inbox every morning.</p><form><input><button>Subscribe</button></form></div>"
    '<div class="related"><h4>Most read</h4><ul><li><a href="/a">Council approves the new '
    'harbour plan</a></li><li><a href="/b">Ferry fares to rise in spring</a></li></ul></div>'
)
NOTE = (
    "Editor's note: this story was updated on Tuesday to say that the council has since "
    "postponed its vote on the ferry contract until the spring, after objections from residents."
)


def _page(body: str, title: str = "News") -> str:
    return (
        f"<html><head><title>{title}</title></head><body><header><nav><a href='/'>Home</a> "
        f"<a href='/w'>World</a></nav></header>{body}<footer><p>Copyright 2026 Site Ltd.</p>"
        "</footer></body></html>"
    )


def _story(paragraphs: list[str]) -> str:
    return "".join(f"<p>{p}</p>" for p in paragraphs)


def _news(paragraphs: list[str]) -> str:
    return _page(f"<article><h1>A story</h1>{_story(paragraphs)}</article>")


def _portal(paragraphs: list[str], beside: str = PORTAL_BOXES) -> str:
    """A portal's page: the story in one container with what sits beside it."""
    return _page(
        f'<div class="main"><div class="story"><h1>Reprinted</h1>{_story(paragraphs)}</div>'
        f"{beside}</div>",
        "Portal",
    )


def _kept(tmp_path: Path, stored: tuple[str, str], page: tuple[str, str]) -> bool:
    """Whether the pipeline keeps ``page`` (url, html) after storing ``stored``."""
    settings = {"SIMDEDUP_STORE": "leveldb", "SIMDEDUP_DIR": str(tmp_path)}
    with opened_pipeline(settings) as pipeline:
        url, html = stored
        pipeline.process_item({"url": url, "text": html})
        url, html = page
        try:
            pipeline.process_item({"url": url, "text": html})
        except NearDuplicateItem:
            return False
        return True


def test_the_portals_boxes_are_in_its_extract_and_out_of_the_stricter_text() -> None:
    # The case the stricter text is for: resiliparse keeps the boxes with the story.
    page = _portal(PARAGRAPHS[0])
    extract = main_content(page).text
    assert TERMS[:40] in extract and "daily newsletter" in extract
    stricter = stricter_text(page, extract)
    assert stricter and TERMS[:40] not in stricter and "daily newsletter" not in stricter
    assert PARAGRAPHS[0][-1][:40] in stricter


def test_a_reprint_among_a_portals_boxes_is_a_copy(tmp_path: Path) -> None:
    settings = {"SIMDEDUP_STORE": "leveldb", "SIMDEDUP_DIR": str(tmp_path)}
    with opened_pipeline(settings) as pipeline:
        pipeline.process_item({"url": "https://news.example/1", "text": _news(PARAGRAPHS[0])})
        with pytest.raises(NearDuplicateItem) as dropped:
            pipeline.process_item(
                {"url": "https://portal.example/r/1", "text": _portal(PARAGRAPHS[0])}
            )
        assert dropped.value.original == "https://news.example/1"
        stats = simdedup_stats(pipeline)
        assert stats["simdedup/content/stricter_extractions"] == 1
        assert stats["simdedup/content/stricter_copies"] == 1


def test_text_items_are_never_read_again(tmp_path: Path) -> None:
    # The control: the same reprint as its extract's text adds content and is kept.
    reprint = main_content(_portal(PARAGRAPHS[0])).text
    assert _kept(
        tmp_path,
        ("https://news.example/1", _news(PARAGRAPHS[0])),
        ("https://portal.example/r/1", reprint),
    )


def _forum(posts: list[str]) -> str:
    replies = "".join(
        f'<div class="comment" id="c{n}"><div class="comment-author">user{n}</div>'
        f'<div class="comment-body"><p>{text}</p></div></div>'
        for n, text in enumerate(posts[1:])
    )
    return _page(
        f'<article><h1>A thread</h1><p>{posts[0]}</p></article><section id="comments" '
        f'class="comments">{replies}</section>',
        "Forum",
    )


def test_a_forum_mirror_with_new_replies_is_kept(tmp_path: Path) -> None:
    posts, new = PARAGRAPHS[1][:4], PARAGRAPHS[2][:2]
    assert _kept(
        tmp_path,
        ("https://forum-a.example/t/1", _forum(posts)),
        ("https://forum-b.example/t/1", _forum(posts + new)),
    )


def _shop(specifications: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><td>{name}</td><td>{value}</td></tr>" for name, value in specifications)
    return _page(
        f'<div class="product"><h1>Kettle</h1><div class="description">'
        f'{_story(PARAGRAPHS[3][:5])}</div><table class="specs">{rows}</table></div>',
        "Shop",
    )


def test_a_shop_with_the_makers_description_and_its_own_specifications_is_kept(
    tmp_path: Path,
) -> None:
    own = [
        ("Volume", "1.2 litres, for two cups or a small pot of tea"),
        ("Power", "1500 watts on a standard socket"),
        ("Colour", "brushed steel with a black handle and lid"),
        ("Warranty", "three years from the date of purchase"),
    ]
    assert _kept(
        tmp_path,
        ("https://shop-a.example/p/1", _shop([("Volume", "1.7 litres"), ("Power", "2200 W")])),
        ("https://shop-b.example/p/9", _shop(own)),
    )


def test_the_full_article_after_its_cut_reprint_is_kept(tmp_path: Path) -> None:
    article = PARAGRAPHS[4]
    assert _kept(
        tmp_path,
        ("https://news.example/cut", _news(article[: len(article) * 2 // 5])),
        ("https://portal.example/full", _portal(article)),
    )


def test_a_digest_of_a_stored_story_and_another_is_kept(tmp_path: Path) -> None:
    # trafilatura takes one <article> of the two: past MAX_LEFT_OUT_WORDS, no stricter text.
    assert sum(len(p.split()) for p in PARAGRAPHS[1]) > MAX_LEFT_OUT_WORDS
    digest = _page(
        f'<div class="digest"><article><h2>One</h2>{_story(PARAGRAPHS[5])}</article>'
        f"<article><h2>Two</h2>{_story(PARAGRAPHS[1])}</article></div>",
        "Digest",
    )
    assert _kept(
        tmp_path,
        ("https://news.example/s1", _news(PARAGRAPHS[5])),
        ("https://digest.example/d", digest),
    )


@pytest.mark.parametrize("box", ["editor-note", "update", "aside-box"])
def test_an_editors_note_beside_a_reprint_keeps_it(tmp_path: Path, box: str) -> None:
    # trafilatura leaves the note's box out; a prose paragraph of its size is put back.
    page = _portal(PARAGRAPHS[0], f'<div class="{box}"><p>{NOTE}</p></div>{PORTAL_BOXES}')
    assert NOTE in stricter_text(page, main_content(page).text)
    assert _kept(
        tmp_path,
        ("https://news.example/1", _news(PARAGRAPHS[0])),
        ("https://portal.example/n", page),
    )


def _answers(question: list[str], answers: list[str]) -> str:
    """A Q&A page: each answer beside its vote buttons."""
    votes = "<div class='votes'><button>up</button><span>3</span><button>down</button></div>"
    posts = "".join(
        f"<div class='answer'>{votes}<div class='post'><p>{answer}</p></div></div>"
        for answer in answers
    )
    return _page(
        f"<div id='content'><h1>A question</h1><div class='question'>{votes}<div class='post'>"
        f"{_story(question)}</div></div><div id='answers'>{posts}</div></div>",
        "Q&A",
    )


def test_a_qa_mirror_with_new_answers_beside_vote_buttons_is_kept(tmp_path: Path) -> None:
    # Review: answers in boxes holding buttons were left out freely; only forms are now.
    question, answers = PARAGRAPHS[0][:5], PARAGRAPHS[2][:6]
    assert _kept(
        tmp_path,
        ("https://qa-a.example/q/1", _answers(question, answers[:1])),
        ("https://qa-b.example/q/1", _answers(question, answers)),
    )


def test_a_correction_beside_a_print_button_keeps_a_reprint(tmp_path: Path) -> None:
    correction = "<div class='tools'><p>" + NOTE + "</p><button>Print</button></div>"
    assert _kept(
        tmp_path,
        ("https://news.example/1", _news(PARAGRAPHS[0])),
        ("https://portal.example/c", _portal(PARAGRAPHS[0], correction)),
    )


def test_short_replies_beside_a_mirrored_post_keep_it(tmp_path: Path) -> None:
    # Five replies of 14-21 words, each too short to be put back: their sum is past the
    # bound of what the stricter text may leave out.
    lengths = (14, 21, 17, 15, 18)
    replies = [" ".join(p.split()[:n]) + "." for p, n in zip(PARAGRAPHS[3], lengths, strict=False)]
    assert sum(len(r.split()) for r in replies) > MAX_LEFT_OUT_WORDS
    beside = "".join(
        f"<div class='reply'><span>user{n}</span><p>{r}</p><button>Reply</button></div>"
        for n, r in enumerate(replies)
    )
    assert _kept(
        tmp_path,
        ("https://forum-a.example/t/2", _news(PARAGRAPHS[0])),
        ("https://forum-b.example/t/2", _portal(PARAGRAPHS[0], beside)),
    )


def test_a_chinese_digest_of_a_stored_story_and_another_is_kept(tmp_path: Path) -> None:
    # Review: Chinese words were counted by spaces, a paragraph as one word.
    chinese = [p for p in chinese_paragraphs() if len(p) > 60]
    digest = _page(
        f"<div class='main'><article><h1>转载</h1>{_story(chinese[:8])}</article>"
        f"<article><h2>另一篇</h2>{_story(chinese[20:26])}</article></div>",
        "门户",
    )
    assert _kept(
        tmp_path,
        (
            "https://news.example.cn/1",
            _page(f"<article><h1>新闻</h1>{_story(chinese[:8])}</article>"),
        ),
        ("https://portal.example.cn/1", digest),
    )


def test_a_page_the_stricter_extraction_cannot_read_is_judged_by_its_extract() -> None:
    assert stricter_text(b"\x00\x01\x02binary", "some extract") == ""
    assert stricter_text("<html><body><p>Too short.</p></body></html>", "Too short.") == ""


def test_a_crawl_can_turn_the_stricter_reading_off(tmp_path: Path) -> None:
    settings = {
        "SIMDEDUP_STORE": "leveldb",
        "SIMDEDUP_DIR": str(tmp_path),
        "SIMDEDUP_STRICTER_READING": False,
    }
    with opened_pipeline(settings) as pipeline:
        pipeline.process_item({"url": "https://news.example/1", "text": _news(PARAGRAPHS[0])})
        item = {"url": "https://portal.example/r/1", "text": _portal(PARAGRAPHS[0])}
        assert pipeline.process_item(item) is item
        assert "simdedup/content/stricter_extractions" not in simdedup_stats(pipeline)
