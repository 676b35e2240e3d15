"""Pages a looser stricter reading lost (issue 57): a reprint or mirror with content of its
own beside the copied story, in markup unlike the story's, that trafilatura leaves out.

A rule that called lines "furniture" when their element's kind (tag and classes) held no
line of the article, and none was one of three like siblings, dropped each of them (a
review's cases): replies whose rows alternate classes or carry one of their own, an
accepted answer among two others, threaded replies, live updates beside a story whose
paragraphs carry a class, and one box of short lines (lyrics, a changelog, specifications,
a recipe, code, two multi-line replies). The stricter reading's bound keeps them all: each
stores an original on one host and judges a page on another host holding the original's
text and its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.corpora import chinese_paragraphs
from tests.test_stricter import PARAGRAPHS, _kept, _news, _page, _portal, _story

STORED = ("https://news.example/1", _news(PARAGRAPHS[0]))
REPLIES = [
    "Same here, the update broke my build on Windows but downgrading to 3.11.4 fixed it for now",
    "Does anyone know if this also affects the walrus operator inside comprehensions or only"
    " plain assignment",
    "I filed a bug report about the starred target case, they said a fix lands in the next release",
    "Thanks for posting this, the part about augmented assignment evaluating the target first"
    " finally made sense",
    "Careful with x[i] = i = 1 style code in production, we lost a whole afternoon to exactly that",
]


def _judged(page: str, tmp_path: Path) -> bool:
    return _kept(tmp_path, STORED, ("https://portal.example/x", page))


# 1. The list test is by kind (tag + classes): rows that alternate classes are no "like
#    siblings". phpBB bg1/bg2, SMF windowbg/windowbg2, vBulletin alt1/alt2, odd/even.
@pytest.mark.parametrize("count", [4, 5])
@pytest.mark.parametrize("outer", ["thread-replies", "comments"])
def test_replies_alternating_odd_even_classes_keep_a_mirror(
    tmp_path: Path, count: int, outer: str
) -> None:
    replies = "".join(
        f"<div class='reply {'odd' if n % 2 else 'even'}'><div class='who'>user{n}</div>"
        f"<div class='reply-text'>{text}</div></div>"
        for n, text in enumerate(REPLIES[:count])
    )
    assert _judged(_portal(PARAGRAPHS[0], f"<div class='{outer}'>{replies}</div>"), tmp_path)


# 1b. Three answers, one flagged accepted: two like siblings and one unlike, no list.
def test_three_answers_one_accepted_keep_a_qa_mirror(tmp_path: Path) -> None:
    answers = [
        (
            "answer accepted-answer",
            "Use a tuple target instead<br>a, b = b, a<br>it swaps without a "
            "temporary variable<br>works for any number of names as long as both sides match",
        ),
        (
            "answer",
            "You can also unpack into a list target<br>[a, b] = b, a<br>same thing really, "
            "the brackets are optional",
        ),
        (
            "answer",
            "Be careful with x[i] style targets<br>they are assigned left to right after the "
            "right side is evaluated<br>so i, x[i] = 1, 2 sets x[1]",
        ),
    ]
    posts = "".join(
        f"<div class='{cls}'><div class='votes'>3</div><div class='answer-body'>{body}</div></div>"
        for cls, body in answers
    )
    assert _judged(_portal(PARAGRAPHS[0], f"<div id='answers'>{posts}</div>"), tmp_path)


# 2. Threaded replies: two threads of two, no level has three like siblings.
def test_threaded_replies_keep_a_mirror(tmp_path: Path) -> None:
    def one(n: int, child: str = "") -> str:
        return (
            f"<li class='reply'><div class='reply-meta'>user{n}</div>"
            f"<div class='reply-text'>{REPLIES[n]}</div>{child}</li>"
        )

    threads = one(0, f"<ul class='children'>{one(1)}</ul>") + one(
        2, f"<ul class='children'>{one(3)}</ul>"
    )
    beside = f"<div class='responses'><h3>Responses</h3><ol class='reply-list'>{threads}</ol></div>"
    assert _judged(_portal(PARAGRAPHS[0], beside), tmp_path)


# 3. A class unique to each item (reply-101, id-t1_abc, post-123): never like siblings.
def test_replies_with_a_class_of_their_own_keep_a_mirror(tmp_path: Path) -> None:
    replies = "".join(
        f"<div class='reply reply-{101 + n}'><div class='who'>user{n}</div>"
        f"<div class='reply-text'>{text}</div></div>"
        for n, text in enumerate(REPLIES)
    )
    assert _judged(_portal(PARAGRAPHS[0], f"<div class='replies'>{replies}</div>"), tmp_path)


# 4. Article paragraphs carry a class (CSS-in-JS / BEM news sites): the live updates' plain
#    <p> is "unlike the article"; key-event / pinned flags break the list.
def test_live_updates_beside_a_reprint_with_classed_paragraphs_keep_it(tmp_path: Path) -> None:
    updates = [
        (
            "09:12",
            "key-event",
            "Officials confirm the vote on the ferry contract is postponed until spring",
        ),
        (
            "09:40",
            "",
            "Residents outside the town hall say they were never consulted about the new timetable",
        ),
        (
            "10:05",
            "key-event",
            "The council leader will give a statement at eleven, her office says",
        ),
        (
            "10:31",
            "",
            "Our reporter at the quay says the morning ferries are running normally despite the"
            " protest",
        ),
        (
            "10:58",
            "pinned",
            "Summary so far: vote postponed, protest peaceful, ferries running, statement expected",
        ),
    ]
    live = "".join(
        f"<div class='block {flag}'><time>{at}</time><p>{text}</p></div>"
        for at, flag, text in updates
    )
    story = "".join(f"<p class='dcr-1x2y3z'>{p}</p>" for p in PARAGRAPHS[0])
    page = _page(
        f"<div class='main'><div class='story'><h1>Reprinted</h1>{story}</div>"
        f"<div class='live-updates'>{live}</div></div>",
        "Portal",
    )
    assert _judged(page, tmp_path)


# 5. One or two boxes of short lines, by genre.
TWO_REPLIES = (
    "<div class='replies'><h3>2 replies</h3>"
    "<div class='reply'><div class='reply-author'>marta_k</div><div class='reply-body'>"
    "I ran into this last week when porting our build scripts<br>"
    "The starred target case is the one that bit us, the order of evaluation is not what you"
    " expect<br>"
    "What fixed it for us was to split the assignment into two lines<br>"
    "first, *rest = rows<br>rest = [r for r in rest if r]<br>"
    "Also worth knowing that augmented assignment on a tuple element raises but still mutates"
    " the list<br>"
    "Hope this saves somebody an afternoon</div></div>"
    "<div class='reply'><div class='reply-author'>jdoe</div><div class='reply-body'>"
    "Thanks, this is the clearest write-up of assignment I have seen<br>"
    "One thing I would add: x = y = [] gives you one list, not two<br>"
    "We had a bug for months because of that in a config loader</div></div></div>"
)
LYRICS = (
    "<h2>Lyrics</h2><div class='lyrics'>"
    + "<br>".join(
        [
            "Now the harbour lights are burning low",
            "And the ferry bell rings out across the bay",
            "Every sailor that I used to know",
            "Has packed his bags and gone away",
            "",
            "We built the quay with our own hands",
            "In the winter of the great storm year",
            "Now the tourists walk upon the sands",
            "And nobody remembers we were here",
            "",
            "So raise a glass to the northern pier",
            "To the lighthouse and the gulls that cry",
            "To the ones who left and the ones still here",
            "And the ships that never said goodbye",
        ]
    )
    + "</div>"
)
SPECS = (
    "<div class='product-specs'><h3>Specifications</h3><div class='spec-text'>"
    + "<br>".join(
        [
            "Capacity: 1.2 litres, enough for five cups",
            "Power: 2200 watts, UK three pin plug",
            "Body: brushed stainless steel with a cool touch handle",
            "Filter: removable washable limescale filter",
            "Safety: boil dry protection and automatic switch off",
            "Base: 360 degree swivel base with cord storage",
            "Dimensions: 22 x 16 x 24 cm, weight 1.1 kg",
            "In the box: kettle, base, spare filter, user manual",
        ]
    )
    + "</div></div>"
)
CHANGELOG = (
    "<div class='whatsnew'><h3>What's new in this version</h3><div class='changelog'>"
    + "<br>".join(
        [
            "Version 2.4.1 released on 3 March",
            "Fixed a crash when opening files with non ASCII names on Windows",
            "Fixed slow start up on machines with many fonts installed",
            "Added dark mode for the settings window",
            "Added support for exporting to PDF/A",
            "Improved memory use when editing large spreadsheets by a third",
            "Removed the old update checker, updates now come through the store",
            "Updated translations for German, Polish and Japanese",
        ]
    )
    + "</div></div>"
)
RECIPE = (
    "<div class='recipe-card'><h3>Focaccia</h3><h4>Ingredients</h4><div class='ingredients'>"
    "500 g strong white bread flour<br>7 g sachet of fast action yeast<br>1 tsp fine sea salt<br>"
    "2 tbsp olive oil, plus extra for the tin<br>300 ml lukewarm water<br>"
    "a handful of black olives, halved</div><h4>Method</h4><div class='method'>"
    "Mix the flour, yeast and salt in a large bowl<br>"
    "Add the oil and water and bring together into a soft dough<br>"
    "Knead for ten minutes until smooth, then leave to rise for an hour<br>"
    "Bake at 220C for 20 to 25 minutes until golden</div></div>"
)
CODE = (
    "<div class='answer'><div class='answer-body'><code class='block'>"
    + "<br>".join(
        line.replace(" ", "&nbsp;")
        for line in [
            "def flatten(rows):",
            '    """Flatten one level of nesting, keeping the order of the rows."""',
            "    first, *rest = rows",
            "    out = list(first)",
            "    for row in rest:",
            "        out += row",
            "    return out",
            "x = [0, 1]",
            "i = 0",
            "i, x[i] = 1, 2  # i is updated first, then x[i]",
            "print(x)  # [0, 2]",
            "pairs = {key: value for key, value in zip(keys, values) if value is not None}",
            "first, second, *others = sorted(pairs.items(), key=lambda item: item[1],"
            " reverse=True)",
        ]
    )
    + "</code></div></div>"
)


@pytest.mark.parametrize(
    "beside",
    [TWO_REPLIES, LYRICS, SPECS, CHANGELOG, RECIPE, CODE],
    ids=[
        "two multi-line replies",
        "lyrics",
        "specs in br lines",
        "changelog",
        "recipe",
        "code with br",
    ],
)
def test_a_box_of_short_lines_of_its_own_keeps_a_reprint(tmp_path: Path, beside: str) -> None:
    assert _judged(_portal(PARAGRAPHS[0], beside), tmp_path)


def test_two_chinese_replies_keep_a_reprint(tmp_path: Path) -> None:
    chinese = [p for p in chinese_paragraphs() if len(p) > 60]
    replies = [
        "这篇文章说得很有道理<br>我们村去年也遇到了同样的问题，后来是镇里出钱修好的<br>"
        "希望有关部门能够重视起来，不要等出了事才处理<br>支持作者继续跟踪报道",
        "补充一点：修路的钱到底是谁出的，文章里没有说清楚<br>"
        "我问过村委会，他们说是县里拨款，但是到现在还没到位<br>大家可以去县政府网站上查一下公示",
    ]
    beside = (
        "<div class='replies'><h3>网友回复</h3>"
        + "".join(
            f"<div class='reply-item'><div class='user'>网友{n}</div>"
            f"<div class='reply-con'>{r}</div></div>"
            for n, r in enumerate(replies)
        )
        + "</div>"
    )
    page = _page(
        f"<div class='main'><div class='story'><h1>转载</h1>{_story(chinese[:8])}</div>"
        f"{beside}</div>",
        "门户",
    )
    assert _kept(
        tmp_path,
        (
            "https://news.example.cn/1",
            _page(f"<article><h1>新闻</h1>{_story(chinese[:8])}</article>"),
        ),
        ("https://portal.example.cn/1", page),
    )


SHORT = PARAGRAPHS[0][:3]
SHORT_STORED = ("https://news.example/2", _news(SHORT))


def _heavy(page: str) -> str:
    """``page`` inside a portal's heavy chrome, in boxes the main content leaves out (a menu
    of sections, a sidebar of site statements), several times the story's words: the page
    is judged by its whole readable text (``maincontent.MIN_SHARE``)."""
    sections = "".join(
        f"<li><a href='/s/{n}'>Section {n}</a><ul>"
        + "".join(f"<li><a href='/s/{n}/{m}'>Topic {n}.{m} news</a></li>" for m in range(8))
        + "</ul></li>"
        for n in range(20)
    )
    statements = "".join(
        f"<div class='notice'>Statement {n}: reproduction of any material of this site in any"
        f" form requires the written permission of the editors of office {n}</div>"
        for n in range(40)
    )
    return page.replace("<body>", f"<body><div class='menu'><ul>{sections}</ul></div>").replace(
        "</body>", f"<div class='sidebar'>{statements}</div></body>"
    )


@pytest.mark.parametrize(
    "beside",
    [TWO_REPLIES, LYRICS, SPECS, CHANGELOG, RECIPE, CODE, "replies"],
    ids=["two multi-line replies", "lyrics", "specs", "changelog", "recipe", "code", "replies"],
)
def test_a_box_of_its_own_keeps_a_reprint_judged_by_its_whole_text(
    tmp_path: Path, beside: str
) -> None:
    # The same boxes on a portal whose chrome makes the main content a small share of the
    # page: the page is judged by its whole text (a stricter reading free to leave out what
    # the main content left out too dropped some of these pages' kind: 2026-12-07).
    from scrapy_simdedup.fingerprint.maincontent import main_content
    from scrapy_simdedup.fingerprint.pagetext import page_text

    if beside == "replies":
        beside = (
            "<div class='comments'>"
            + "".join(f"<div class='comment'><p>{text}</p></div>" for text in REPLIES)
            + "</div>"
        )
    page = _heavy(_portal(SHORT, beside))
    assert main_content(page).text == page_text(page), "the page is judged by its whole text"
    assert _kept(tmp_path, SHORT_STORED, ("https://portal.example/x", page))
