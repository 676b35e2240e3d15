"""Weighted features of a text: the input of every fingerprint.

A feature is a string; its weight is a float. By default features are words:

* runs of Han characters are cut into words by jieba (run by rjieba, its Rust port, when
  installed: the same words, ~10x faster); single-character words and the
  function words in ``stopwords.CHINESE`` get no weight (with them, unrelated Chinese
  articles land only ~11 bits apart);
* runs of kana or hangul become overlapping character bigrams;
* every other run of letters or digits is a lower-cased word, minus ``stopwords.ENGLISH``.

Options: ``cjk="bigrams"`` replaces jieba by character bigrams (no dictionary),
``shingles="overlapping"|"fixed"`` uses the character shingles of seed 000 instead of words,
and ``weighting="idf"`` multiplies term frequency by jieba's bundled IDF table (tokens it
does not know get its median IDF).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from itertools import compress, filterfalse
from types import ModuleType
from typing import Literal

from scrapy_simdedup.fingerprint.stopwords import CHINESE, ENGLISH

MAX_JIEBA_RUN = 200
"""Characters of Chinese without punctuation handed to jieba at once (news sentences are
far shorter, so their words are cut as before)."""

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA_HANGUL = "\u3040-\u30ff\u31f0-\u31ff\u1100-\u11ff\uac00-\ud7af"
_CJK = re.compile(f"[{_HAN}{_KANA_HANGUL}]")
_WORD = re.compile(r"[^\W_]+")
_HAN_RUN = re.compile(f"[{_HAN}]+")
_HAN_PIECE = re.compile(f"[{_HAN}]{{1,{MAX_JIEBA_RUN}}}")
_KANA_RUN = re.compile(f"[{_KANA_HANGUL}]+")
_OTHER_WORD = re.compile(f"[^\\W_{_HAN}{_KANA_HANGUL}]+")
_NOT_WORD = re.compile(r"[\W_]+")

CjkMode = Literal["jieba", "bigrams"]
ShingleMode = Literal["off", "overlapping", "fixed"]
Weighting = Literal["tf", "idf"]


@dataclass(frozen=True)
class Tokenizer:
    """Turns text into weighted features; frozen, so one instance can be shared freely.

    ``name`` identifies the options; an index stores it and refuses to mix fingerprints made
    by different tokenizers.
    """

    cjk: CjkMode = "jieba"
    shingles: ShingleMode = "off"
    shingle_size: int = 4
    weighting: Weighting = "tf"

    def __post_init__(self) -> None:
        _check_choice("cjk", self.cjk, ("jieba", "bigrams"))
        _check_choice("shingles", self.shingles, ("off", "overlapping", "fixed"))
        _check_choice("weighting", self.weighting, ("tf", "idf"))
        if not 2 <= self.shingle_size <= 16:
            raise ValueError(f"shingle_size must be between 2 and 16, got {self.shingle_size!r}")

    @property
    def name(self) -> str:
        if self.shingles != "off":
            return f"shingles-{self.shingles}-{self.shingle_size}/{self.weighting}"
        return f"words-{self.cjk}/{self.weighting}"

    @classmethod
    def from_name(cls, name: str) -> Tokenizer:
        """The tokenizer whose ``name`` is ``name`` (as an index stores it)."""
        kind, _, weighting = name.partition("/")
        head, _, rest = kind.partition("-")
        try:
            if head == "words":
                return cls(cjk=rest, weighting=weighting)  # type: ignore[arg-type]
            if head == "shingles":
                mode, _, size = rest.rpartition("-")
                return cls(shingles=mode, shingle_size=int(size), weighting=weighting)  # type: ignore[arg-type]
        except ValueError:
            pass
        raise ValueError(f"{name!r} does not name a tokenizer this version knows")

    def tokens(self, text: str) -> list[str]:
        """The weighted tokens of ``text`` in order, repeats included."""
        if self.shingles != "off":
            return _shingles(text, self.shingle_size, overlapping=self.shingles == "overlapping")
        if not _CJK.search(text):
            return list(filterfalse(ENGLISH.__contains__, _WORD.findall(text.lower())))
        return _mixed_tokens(text, self.cjk)

    def weights(self, text: str) -> Mapping[str, float]:
        """Feature -> weight: term frequency, times IDF when ``weighting="idf"``."""
        if self.shingles == "off" and not _CJK.search(text):
            # The common case, made cheap: count first, then drop the few stopwords present.
            counts = Counter(_WORD.findall(text.lower()))
            for stopword in ENGLISH.intersection(counts):
                del counts[stopword]
            return self._weighted(counts)
        return self.weigh(self.tokens(text))

    def weigh(self, tokens: list[str]) -> Mapping[str, float]:
        """``weights`` of tokens already cut by ``tokens``."""
        return self._weighted(Counter(tokens))

    def _weighted(self, counts: Counter[str]) -> Mapping[str, float]:
        if self.weighting == "tf":
            return counts
        idf, median = _jieba_idf()
        return {token: n * idf.get(token, median) for token, n in counts.items()}


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"Tokenizer {name} must be one of {', '.join(allowed)}; got {value!r}")


def _mixed_tokens(text: str, cjk: CjkMode) -> list[str]:
    tokens = list(filterfalse(ENGLISH.__contains__, _OTHER_WORD.findall(text.lower())))
    tokens += [run[i : i + 2] for run in _KANA_RUN.findall(text) for i in range(len(run) - 1)]
    if cjk == "bigrams":
        han_runs = _HAN_RUN.findall(text)
        tokens += [run[i : i + 2] for run in han_runs for i in range(len(run) - 1)]
        return tokens
    # One jieba call for all runs: a newline is never part of a jieba word, so no word spans
    # two runs, and the per-call overhead is paid once per text. Runs come in pieces of at
    # most MAX_JIEBA_RUN characters: jieba's HMM takes quadratic time on a long run of
    # unknown characters (300,000 without punctuation took jieba 25 s; in pieces, 2.4 s).
    pieces = _HAN_PIECE.findall(text)
    if pieces:
        words = _cut_words()("\n".join(pieces))
        # Single characters (and the newlines between pieces) carry no weight; C-level
        # filters, since a long article has thousands of words.
        longer = compress(words, map((1).__lt__, map(len, words)))
        tokens += filterfalse(CHINESE.__contains__, longer)
    return tokens


def _shingles(text: str, size: int, *, overlapping: bool) -> list[str]:
    compact = _NOT_WORD.sub("", text.lower())
    step = 1 if overlapping else size
    return [compact[i : i + size] for i in range(0, len(compact) - size + 1, step)]


@lru_cache(maxsize=1)
def _cut_words() -> Callable[[str], list[str]]:
    """jieba's word cutter. rjieba (jieba-rs: jieba's dictionary and HMM, in Rust) cuts the
    same words (``tests/test_tokens.py`` checks it on 4,000 texts) about 10x faster; jieba
    itself is the fallback where rjieba has no wheel."""
    try:
        import rjieba
    except ImportError:
        cut: Callable[[str], list[str]] = _jieba().lcut
        return cut
    return rjieba.cut


@lru_cache(maxsize=1)
def _jieba() -> ModuleType:
    import jieba

    # jieba logs its dictionary loading at DEBUG to its own stderr handler: one line per
    # process that would otherwise land in every crawl's log.
    jieba.setLogLevel(logging.WARNING)
    module: ModuleType = jieba
    return module


@lru_cache(maxsize=1)
def _jieba_idf() -> tuple[dict[str, float], float]:
    table = resources.files("jieba").joinpath("analyse", "idf.txt").read_text("utf-8")
    idf: dict[str, float] = {}
    for line in table.splitlines():
        word, _, value = line.strip().partition(" ")
        if value:
            idf[word] = float(value)
    median = sorted(idf.values())[len(idf) // 2]
    return idf, median
