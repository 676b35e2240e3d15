"""What a portal's own stored pages showed outside their judged text (issue 57): its comment
form's terms, its newsletter box, a cookie notice at the foot, which its extractor left out
of its own page and keeps in a reprint's. After the content a reprint shares with another
host's stored page, such a line is the portal's and adds nothing; before it, a page's lead
is what it adds, even when the portal teases it on another page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from scrapy_simdedup.fingerprint.maincontent import main_content
from scrapy_simdedup.index.handle import SimHashIndex
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.judges.content import ContentJudge
from tests.test_chrome_evidence import ARTICLES, _paragraphs, _story

TERMS = (
    "By submitting this form you agree to the portal using your data for the purposes of "
    "publishing your comment. Your personal data will only be passed to third parties for "
    "spam filtering or when the law obliges us to do so."
)
LOCAL_LEAD = (
    "The county council said on Monday that the two ferries serving the island will stop "
    "for a month while the pier is rebuilt, and that a bus will run to the mainland instead."
)
PORTAL = "https://portal.example"


@pytest.fixture
def index(tmp_path: Path) -> Iterator[SimHashIndex]:
    with open_index(tmp_path / "index", seed=1) as opened:
        yield opened


def _portal_page(paragraphs: list[str], aside: str = TERMS) -> str:
    """A page of the portal: its story, and in a box its extractor leaves out, ``aside``."""
    return (
        f"<html><body><article>{_story(paragraphs)}</article>"
        f"<aside><form><p>{aside}</p></form></aside></body></html>"
    )


def _reprint(paragraphs: list[str]) -> str:
    """The portal's page of another site's story, laid out so that its extractor keeps the
    paragraphs after the story as well."""
    return f"<html><body><div>{_story(paragraphs)}</div></body></html>"


def _stored(index: SimHashIndex, *, aside: str = TERMS, shown: bool = True) -> ContentJudge:
    """A judge holding a news site's story and one page of the portal's own, stored as the
    pipeline stores HTML items (with what the extract left out, unless not ``shown``)."""
    judge = ContentJudge(index)
    news = main_content(_reprint(_paragraphs(ARTICLES[0])))
    assert judge.judge(news.text, "https://news.example/1", outside=news.outside).copy is False
    own = main_content(_portal_page(_paragraphs(ARTICLES[2]), aside))
    assert own.outside.splitlines() == [aside], "the portal's box is outside its story"
    outside = own.outside if shown else ""
    assert judge.judge(own.text, f"{PORTAL}/own/1", outside=outside).copy is False
    return judge


def _terms_reprint() -> str:
    reprint = main_content(_reprint([*_paragraphs(ARTICLES[0]), TERMS])).text
    assert TERMS in reprint, "the reprint's extract keeps the portal's terms"
    return reprint


def test_a_reprint_carrying_the_terms_the_portal_showed_aside_is_a_copy(
    index: SimHashIndex,
) -> None:
    judge = _stored(index)
    verdict = judge.judge(_terms_reprint(), f"{PORTAL}/reprint/1")
    assert verdict.copy and verdict.original == "https://news.example/1", verdict
    assert verdict.confirmation is not None
    assert verdict.confirmation.novel_words == 0
    assert verdict.confirmation.template_words >= len(TERMS.split()) - 2


def test_without_what_the_portal_showed_the_same_reprint_adds_content(
    index: SimHashIndex,
) -> None:
    # The control: the terms are what made the reprint "add" words.
    judge = _stored(index, shown=False)
    verdict = judge.judge(_terms_reprint(), f"{PORTAL}/reprint/1")
    assert not verdict.copy and verdict.adds_content, verdict


def test_what_the_portal_showed_is_counted_across_runs(tmp_path: Path) -> None:
    # The counts are in the store: a second crawl of the portal knows its terms.
    with open_index(tmp_path / "index", seed=1) as first:
        _stored(first)
    with open_index(tmp_path / "index", seed=1) as second:
        verdict = ContentJudge(second).judge(_terms_reprint(), f"{PORTAL}/reprint/1")
    assert verdict.copy and verdict.original == "https://news.example/1", verdict


def test_a_lead_the_portal_teased_on_another_page_still_keeps_the_page(
    index: SimHashIndex,
) -> None:
    # The portal's sidebar quoted its own story's first paragraph; that story is the news
    # site's story under the portal's local lead. The lead is all it adds: kept.
    judge = _stored(index, aside=LOCAL_LEAD)
    page = main_content(_reprint([LOCAL_LEAD, *_paragraphs(ARTICLES[0])])).text
    verdict = judge.judge(page, f"{PORTAL}/local/1")
    assert not verdict.copy and verdict.adds_content, verdict


def test_another_host_never_takes_the_portals_terms_as_its_chrome(index: SimHashIndex) -> None:
    # Only the portal's own pages showed the terms: on a third site they are content.
    judge = _stored(index)
    verdict = judge.judge(_terms_reprint(), "https://third.example/reprint/1")
    assert not verdict.copy and verdict.adds_content, verdict


def test_on_the_portals_own_host_the_terms_still_count(index: SimHashIndex) -> None:
    # Two pages of one site differ by what they show: its own story with the terms laid out
    # as a paragraph is compared as it is.
    judge = _stored(index)
    page = main_content(_reprint([*_paragraphs(ARTICLES[2]), TERMS])).text
    verdict = judge.judge(page, f"{PORTAL}/own/1?print=1")
    assert not verdict.copy, verdict


def test_the_query_command_explains_a_candidate_as_the_verdict_takes_it(
    index: SimHashIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    # `scrapy simdedup query --text` prints the verdict and each candidate's confirmation:
    # both leave out what the portal's stored page showed (the command confirmed without
    # it, and said the reprint "adds" the terms beside a verdict dropping it).
    from scrapy.settings import Settings

    from scrapy_simdedup.config import SimDedupConfig
    from scrapy_simdedup.scrapy_layer.commands import _print_text_query

    _stored(index)
    config = SimDedupConfig.from_settings(Settings())
    _print_text_query(index, _terms_reprint(), config, f"{PORTAL}/reprint/1")
    printed = capsys.readouterr().out
    assert "verdict: " in printed and "would be dropped" in printed.splitlines()[0], printed
    line = next(line for line in printed.splitlines() if "bits  https://news.example/1" in line)
    assert "a copy, would be dropped" in line, printed
