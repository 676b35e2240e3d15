from __future__ import annotations

import pytest

from benchmarks.corpora import chinese_articles
from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.keywords import keyword_fingerprint, top_keywords

ARTICLES = chinese_articles()[:40]


def test_golden_values() -> None:
    from tests.test_simhash import EN, ZH

    assert keyword_fingerprint(EN, top_n=5) == 0xE79EE9EB02D2906A
    assert keyword_fingerprint(ZH, top_n=5) == 0x470905ACA454410C


def test_heaviest_keywords_come_first() -> None:
    text = "水稻 水稻 水稻 品种 品种 试种 高温 农民"
    assert top_keywords(text, 2) == ["水稻", "品种"]


def test_reprint_with_editor_line_keeps_the_fingerprint() -> None:
    same = sum(
        keyword_fingerprint(a) == keyword_fingerprint(a + "\n（责任编辑：王小明）")
        for a in ARTICLES
    )
    assert same >= 0.9 * len(ARTICLES)


def test_different_articles_differ() -> None:
    assert len({keyword_fingerprint(a) for a in ARTICLES}) == len(ARTICLES)


def test_order_option_changes_the_value() -> None:
    text = ARTICLES[0]
    assert keyword_fingerprint(text, ordered=True) != keyword_fingerprint(text)


def test_short_text_is_refused() -> None:
    with pytest.raises(TextTooShortError):
        keyword_fingerprint("水稻 品种")
