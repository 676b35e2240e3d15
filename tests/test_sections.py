"""A rule's samples per section (``url/sections.py``)."""

from __future__ import annotations

import pytest

from scrapy_simdedup.url import sections
from scrapy_simdedup.url.estimate import share_bound
from scrapy_simdedup.url.sections import SectionCounts, section_of


def test_a_sections_bound_is_its_own_samples_for_the_rules_asked() -> None:
    counts = SectionCounts()
    for n in range(40):
        counts.judged("m a", f"http://m.example/p/{n}", new=n == 7)
    counts.judged("m a", "http://m.example/docs/intro", new=True)
    counts.judged("a m", "http://a.example/p/x", new=False)  # the other direction
    section = section_of("http://m.example/p/99")
    assert section is not None and section != section_of("http://m.example/docs/intro")
    assert counts.counts(("m a",), section) == (40, 1)
    assert counts.counts(("m a", "a m"), section) == (41, 1)
    assert counts.bound(("m a", "a m"), section) == pytest.approx(share_bound(1, 41))
    docs = section_of("http://m.example/docs/other")
    assert docs is not None and counts.bound(("m a",), docs) == 1.0  # one sample, new
    assert counts.bound(("other",), section) == 1.0  # nothing judged: bound by nothing


def test_beyond_the_cap_a_new_section_is_bound_by_nothing_and_no_count_is_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A busy section's new page must not be forgotten to make room (it could then stand
    # again on a few more copies): the section met past the cap is not counted instead.
    monkeypatch.setattr(sections, "MAX_SECTIONS", 3)
    counts = SectionCounts()
    counts.judged("rule", "http://m.example/a/0", new=True)
    for name in ("a", "b", "c", "d"):
        counts.judged("rule", f"http://m.example/{name}/1", new=False)
    first, last = section_of("http://m.example/a/2"), section_of("http://m.example/d/2")
    assert first is not None and last is not None
    assert counts.counts(("rule",), first) == (2, 1)
    assert counts.counts(("rule",), last) == (0, 0)
    assert counts.bound(("rule",), last) == 1.0


def test_a_url_that_is_no_url_counts_nowhere() -> None:
    counts = SectionCounts()
    counts.judged("rule", "not a url", new=True)
    assert section_of("not a url") is None
    assert counts._counts == {}
