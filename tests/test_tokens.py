from __future__ import annotations

import logging
import random

import pytest

from benchmarks.corpora import chinese_articles, chinese_paragraphs
from scrapy_simdedup.fingerprint.tokens import _HAN_RUN, Tokenizer


@pytest.mark.parametrize(
    ("tokenizer", "text", "expected"),
    [
        (Tokenizer(), "The Ferry crossed THE harbour", ["ferry", "crossed", "harbour"]),
        (Tokenizer(), "Café über naïve", ["café", "über", "naïve"]),
        (Tokenizer(), "我们的水稻新品种试种成功", ["水稻", "新品种", "试种", "成功"]),
        (Tokenizer(), "Python 3 发布了新版本", ["python", "3", "发布", "版本"]),
        (Tokenizer(cjk="bigrams"), "水稻新品种", ["水稻", "稻新", "新品", "品种"]),
        (Tokenizer(), "ひらがな", ["ひら", "らが", "がな"]),
        (Tokenizer(shingles="overlapping", shingle_size=4), "ab cdef", ["abcd", "bcde", "cdef"]),
        (Tokenizer(shingles="fixed", shingle_size=5), "abcdefghijkl", ["abcde", "fghij"]),
    ],
)
def test_tokens(tokenizer: Tokenizer, text: str, expected: list[str]) -> None:
    assert tokenizer.tokens(text) == expected


def test_single_han_characters_and_stopwords_carry_no_weight() -> None:
    weights = Tokenizer().weights("我们的 的 了 是 在 水稻 水稻 因为")
    assert weights == {"水稻": 2.0}


def test_idf_weighting_prefers_rare_words() -> None:
    weights = Tokenizer(weighting="idf").weights("中国 中国 水稻 水稻")
    assert weights["水稻"] > weights["中国"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cjk": "thulac"}, "cjk must be one of jieba, bigrams"),
        ({"shingles": "yes"}, "shingles must be one of"),
        ({"weighting": "bm25"}, "weighting must be one of"),
        ({"shingle_size": 1}, "shingle_size must be between 2 and 16"),
    ],
)
def test_bad_options_are_named(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Tokenizer(**kwargs)  # type: ignore[arg-type]


def test_names_differ_per_option() -> None:
    names = {
        Tokenizer().name,
        Tokenizer(cjk="bigrams").name,
        Tokenizer(weighting="idf").name,
        Tokenizer(shingles="fixed", shingle_size=5).name,
    }
    assert len(names) == 4


def test_rjieba_cuts_the_words_jieba_cuts() -> None:
    """The fast cutter must not change a fingerprint: same words as jieba, text by text."""
    import jieba
    import rjieba

    rng = random.Random(5)
    texts = [*chinese_articles()[:1000], *chinese_paragraphs()[:3000]]
    texts.append("".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(5_000)))
    texts.append("繁體中文的新聞報導，臺灣與香港的讀者\n第二行 English words 混合 123 數字")
    jieba.setLogLevel(logging.WARNING)
    for text in texts:
        runs = "\n".join(_HAN_RUN.findall(text))
        assert rjieba.cut(runs) == jieba.lcut(runs), text[:80]
