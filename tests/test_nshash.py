from __future__ import annotations

import pytest

from benchmarks.corpora import chinese_articles
from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.nshash import SentenceGroups, longest_sentences, sentence_hashes

ARTICLES = chinese_articles()[:60]


def test_longest_sentences_split_on_chinese_and_latin_ends() -> None:
    text = (
        "短句。这是一个比较长的句子，有很多字！Short one. This one is a longer English sentence?\nx"
    )
    assert longest_sentences(text, 2) == [
        "This one is a longer English sentence",
        "这是一个比较长的句子，有很多字",
    ]


def test_sentences_of_equal_length_keep_their_order() -> None:
    text = "first of ten. second sentence here. third of ten. fourth of 10."
    assert longest_sentences(text, 3) == ["second sentence here", "first of ten", "third of ten"]


def test_table_borders_and_rules_are_not_sentences() -> None:
    text = "+" + "-" * 60 + "+\n|" + "=" * 60 + "|\nA sentence with words in it.\n" + "=== 12 ==="
    assert longest_sentences(text) == ["A sentence with words in it"]


def test_reprints_join_the_original_group_and_distinct_articles_do_not() -> None:
    groups = SentenceGroups()
    originals = [groups.group(sentence_hashes(a)) for a in ARTICLES]
    # Real news repeats stock sentences (two speeches of January 1998 share one), nshash's
    # known weakness; nearly every article still gets a group of its own.
    assert len(set(originals)) >= 0.9 * len(ARTICLES)
    for group, article in zip(originals, ARTICLES, strict=True):
        lines = article.split("\n")
        reprint = "【转载】" + "\n".join(lines[1:]) + "\n（责任编辑：王小明）"
        if len(lines) > 1 and longest_sentences("\n".join(lines[1:])):
            assert groups.group(sentence_hashes(reprint)) == group


def test_no_sentences_is_too_short() -> None:
    with pytest.raises(TextTooShortError):
        sentence_hashes("首页。新闻。")
