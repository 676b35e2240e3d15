"""Fingerprint the bundled articles and their reprints; print how far apart they are.

Until the crawl demo exists this is the project's main job: it shows the numbers that the
content pipeline will act on (distance <= 3 bits: near-duplicate).
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from articles import ARTICLES, reprint

from scrapy_simdedup import (
    hamming_distance,
    keyword_fingerprint,
    page_text,
    sentence_hashes,
    simhash,
    similarity,
)


def as_html(text: str, site: str) -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in text.split("\n\n"))
    return (
        f"<html><body><header><a href='/'>{site}</a> | News | Sport</header>"
        f"<nav>Home Weather Contact</nav><article>{paragraphs}</article>"
        f"<footer>(c) {site}, all rights reserved</footer></body></html>"
    )


def main() -> None:
    print(f"{'pair':42} {'bits':>4} {'similar':>8}  keywords  sentences")
    for name, text in ARTICLES.items():
        original = page_text(as_html(text, "daily-news.example"))
        copy = page_text(as_html(reprint(name), "mirror.example"))
        _show(f"{name}: original vs reprint on a mirror", original, copy)
    for (a, ta), (b, tb) in itertools.combinations(ARTICLES.items(), 2):
        _show(f"{a} vs {b} (unrelated)", ta, tb)


def _show(label: str, a: str, b: str) -> None:
    fa, fb = simhash(a), simhash(b)
    same_keywords = keyword_fingerprint(a, top_n=5) == keyword_fingerprint(b, top_n=5)
    shared = bool(sentence_hashes(a) & sentence_hashes(b))
    verdict = "near-duplicate" if hamming_distance(fa, fb) <= 3 else "distinct"
    print(
        f"{label:42} {hamming_distance(fa, fb):>4} {similarity(fa, fb):>8.2f}  "
        f"{'equal' if same_keywords else 'differ':8}  {'shared' if shared else 'none':9} {verdict}"
    )


if __name__ == "__main__":
    main()
