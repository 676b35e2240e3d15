"""Lines with a date, counted in their site's template with their figures masked.

A banner's timestamp or counter changes on every page while the banner does not, so a line
with a date, a time, a long count or an id is counted by its masked text, and once on two
of a site's pages it is the site's template. A page whose only words of its own are such
a line (a daily report, a session's date, a price on a day) would then hold nothing: it is
judged by those lines as written, and kept when they add content. A page whose such line
is a banner of a few words stays a copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from scrapy_simdedup.index.handle import SimHashIndex
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.judges.content import ContentJudge
from tests.support.joinedbanner import apart, articles, joined
from tests.support.stores import index_location

HOST = "https://docs.example"
ABOUT = " ".join(
    [
        "Pilates strengthens the deep muscles of the back and belly with slow, controlled "
        "movements on a mat.",
        "Each class starts with breathing and gentle warm up exercises before the main sequence.",
        "Mats, blocks and bands are provided, so you only need comfortable clothes and a bottle "
        "of water.",
        "Please arrive ten minutes early on your first visit so the teacher can ask about "
        "injuries.",
        "The class is suitable for beginners, and harder versions of each exercise are shown "
        "for regulars.",
        "Booking is required because the studio holds at most twelve people at a time.",
        "Cancellations are free up to four hours before the start of the class.",
    ]
)


@pytest.fixture(params=["leveldb", "memory"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SimHashIndex]:
    handle = open_index(index_location(request.param, tmp_path))
    yield handle
    handle.close()


@pytest.mark.parametrize(
    "sessions",
    [
        [f"{teacher} leads the next session on 2026-11-05 at 18:00 in studio two."
         for teacher in ("Julia", "Marco", "Martin", "Mary")],  # names no months
        [f"Julia leads the next session on 2026-11-{day:02d} at 18:00 in studio two."
         for day in (5, 12, 19, 26)],  # one teacher, four dates
    ],
    ids=["teachers", "dates"],
)  # fmt: skip
def test_sessions_on_one_description_are_all_kept(index: SimHashIndex, sessions: list[str]) -> None:
    # From the third page on, the description is the site's template, and so is the
    # session's line by its masked figures: it is all each page holds of its own.
    judge = ContentJudge(index)
    for n, session in enumerate(sessions):
        verdict = judge.judge(f"{ABOUT}\n{session}", f"https://studio.example/pilates/{n}")
        assert not verdict.copy, (n, verdict.confirmation)


@pytest.mark.parametrize(
    ("first", "second", "third"),
    [
        ("The call returns the remaining 12 items:", "The call returns the remaining 14 items:",
         "The call returns the remaining 16 items:"),
        ("The rule was adopted in May:", "The rule was adopted in June:",
         "The rule was adopted in July:"),
        ("The next reading of the bill is set for 2026-12-05 at 10:00 in the main hall:",
         "The next reading of the bill is set for 2026-12-12 at 10:00 in the main hall:",
         "The next reading of the bill is set for 2026-12-19 at 10:00 in the main hall:"),
    ],
    ids=["figure", "month", "date"],
)  # fmt: skip
def test_a_last_sentence_with_a_banner_joined_that_differs_before_it_is_new(
    index: SimHashIndex, first: str, second: str, third: str
) -> None:
    # A spider joined the page's paragraphs, its footer's banner with them: the last
    # sentence holds the banner's date, and is counted by its masked figures.
    pages = articles(4)
    judge = ContentJudge(index)
    for n, article in enumerate(pages[1:4], 1):
        judge.judge(apart(article, 20 + n), f"{HOST}/{n}")
    for n, own in enumerate((first, second, third)):
        text = joined(pages[0], 11 + n, last=f"{pages[0][-1]} {own}")
        verdict = judge.judge(text, f"{HOST}/0?v={n}")
        assert not verdict.copy, (n, verdict.confirmation)


def test_a_page_that_is_all_template_but_a_short_banner_is_a_copy(index: SimHashIndex) -> None:
    # Two pages of one text kept (say, before their banner was the site's template): the
    # text is then the site's template, and a third whose banner alone differs adds too
    # few words to be kept.
    pages = articles(4)
    judge = ContentJudge(index)
    for n, article in enumerate(pages[1:4], 1):
        judge.judge(apart(article, 20 + n), f"{HOST}/{n}")
    text = apart(pages[0], 11)
    judge.judge(text, f"{HOST}/0")
    judge.judge(text + " Printed from the archive.", f"{HOST}/0?print=1")
    verdict = judge.judge(apart(pages[0], 12), f"{HOST}/0?ref=feed")
    assert verdict.copy, verdict.confirmation
    assert verdict.confirmation is not None and verdict.confirmation.novel_words < 12
