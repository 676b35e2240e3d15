"""Fingerprint throughput: our simhash beside the `simhash` package, on the same real texts.

    python3 benchmarks/fingerprint.py [--docs 300]

English: ~10 KB documents of the Python Language Reference; Chinese: ~10 KB documents of
the 1998 People's Daily corpus (see corpora.py). Tokenising is timed on its own, and jieba's
own `jieba.cut` over the same texts is the floor for the jieba tokenizer.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jieba
from simhash import Simhash

from benchmarks.corpora import chinese_paragraphs, english_articles
from scrapy_simdedup.fingerprint.simhash import simhash
from scrapy_simdedup.fingerprint.tokens import Tokenizer

DOC_BYTES = 10_000


def _numpy2_safe_simhash_package() -> None:
    """simhash 2.1.2 multiplies a uint8 bit array by a feature's weight; under numpy 2 a weight
    over 255 overflows instead of widening as numpy 1 did. Widen it as numpy 1 would."""
    import numpy as np
    import simhash as package

    original = package.Simhash._bitarray_from_bytes
    package.Simhash._bitarray_from_bytes = staticmethod(lambda b: original(b).astype(np.int64))


_numpy2_safe_simhash_package()


def documents(pieces: Sequence[str], count: int) -> list[str]:
    """Consecutive pieces joined into documents of about DOC_BYTES of UTF-8."""
    docs: list[str] = []
    current: list[str] = []
    size = 0
    for piece in pieces * 50:
        current.append(piece)
        size += len(piece.encode())
        if size >= DOC_BYTES:
            docs.append("\n".join(current))
            current, size = [], 0
            if len(docs) == count:
                break
    return docs


def rate(fn: Callable[[str], object], docs: list[str]) -> tuple[float, float]:
    """(docs/s, MB/s), best of three rounds."""
    megabytes = sum(len(d.encode()) for d in docs) / 1e6
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for doc in docs:
            fn(doc)
        best = min(best, time.perf_counter() - start)
    return len(docs) / best, megabytes / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=300)
    args = parser.parse_args()
    english = documents(english_articles(200), args.docs)
    chinese = documents(chinese_paragraphs(), args.docs)
    simhash(chinese[0])  # load jieba's dictionary before timing
    bigrams = Tokenizer(cjk="bigrams")
    rows = [
        ("English", "simhash package Simhash(text)", english, Simhash),
        ("English", "ours: tokenise only", english, Tokenizer().weights),
        ("English", "ours: simhash(text)", english, simhash),
        ("Chinese", "simhash package Simhash(text)", chinese, Simhash),
        ("Chinese", "jieba.cut alone (floor)", chinese, lambda t: list(jieba.cut(t))),
        ("Chinese", "ours jieba: tokenise only", chinese, Tokenizer().weights),
        ("Chinese", "ours jieba: simhash(text)", chinese, simhash),
        ("Chinese", "ours bigrams: tokenise only", chinese, bigrams.weights),
        (
            "Chinese",
            "ours bigrams: simhash(text)",
            chinese,
            lambda t: simhash(t, tokenizer=bigrams),
        ),
    ]
    print(f"{len(english)} English and {len(chinese)} Chinese documents of ~{DOC_BYTES:,} bytes\n")
    print(f"{'text':8} {'implementation':32} {'docs/s':>9} {'MB/s':>7} {'vs package':>11}")
    baseline: dict[str, float] = {}
    for language, label, docs, fn in rows:
        docs_per_s, mb_per_s = rate(fn, docs)
        baseline.setdefault(language, docs_per_s)
        ratio = docs_per_s / baseline[language]
        print(f"{language:8} {label:32} {docs_per_s:9,.0f} {mb_per_s:7.2f} {ratio:10.1f}x")


if __name__ == "__main__":
    main()
