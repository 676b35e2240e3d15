"""The content judge's decision on LevelDB with the block-count copy, against without it.

    python3 benchmarks/blockcache.py [--pages portal|templated] [--rounds 9]

Issue 37: half of a new page's store calls were its template block counts. In one
process, rounds alternate between the judge as it is (the exact in-memory copy of the
counts, ``index/blockcache.py``, and counts settled at ``MAX_COUNT``) and the judge as it
was (every count read from the store, as on Redis, and raised to 255), so both are timed
on the same machine load. Each round judges the same texts, fingerprinted beforehand,
into a fresh LevelDB folder with a fixed seed: the portal's originals and typical reprints
(``portal.py``), or the template-heavy products and forum threads of ``templated.py``.
Prints the median and the fastest CPU microseconds per decision of each.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import portal
from benchmarks.templated import templated_pages
from scrapy_simdedup.index import blockcounts, opening
from scrapy_simdedup.index.blockcache import BlockCache
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.judges.content import ContentJudge

SETTLED = blockcounts.MAX_COUNT
EARLIER_MAX_COUNT = 255


def streams(pages: str) -> list[list[tuple[str, str]]]:
    """The texts judged in one round, one list per index."""
    if pages == "templated":
        found = templated_pages(200, 200)
        random.Random(1).shuffle(found)
        return [[(page.url, page.text) for page in found]]
    lists = []
    for articles in (portal.chinese_news(60), portal.english_news(60)):
        texts = [(f"{portal.NEWS_HOST}a/{i}", a.text) for i, a in enumerate(articles)]
        texts += [case.page for case in portal.portal_cases(articles, "typical")]
        lists.append(texts)
    return lists


def judged_us(data: list[list[tuple[str, str]]], *, copy: bool) -> float:
    """CPU microseconds per decision, with the copy or as before."""
    opening.BlockCache = BlockCache if copy else (lambda store: None)  # type: ignore[assignment, misc]
    blockcounts.MAX_COUNT = SETTLED if copy else EARLIER_MAX_COUNT
    elapsed, pages = 0.0, 0
    with tempfile.TemporaryDirectory() as folder:
        for n, texts in enumerate(data):
            with open_index(f"{folder}/{n}", seed=7) as index:
                judge = ContentJudge(index)
                done = [(key, judge.fingerprinted(text)) for key, text in texts]
                started = time.process_time()
                for key, fingerprinted in done:
                    judge.judge(fingerprinted, key)
                elapsed += time.process_time() - started
                pages += len(done)
    return 1e6 * elapsed / pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", choices=("portal", "templated"), default="portal")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    data = streams(args.pages)
    times: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(args.rounds):
        for copy in (False, True) if round_ % 2 == 0 else (True, False):
            times[copy].append(judged_us(data, copy=copy))
    for copy, label in ((False, "as before (store reads)"), (True, "with the copy")):
        print(
            f"{args.pages} on LevelDB, {label:24}: {statistics.median(times[copy]):6.0f} us "
            f"per decision (fastest {min(times[copy]):.0f})"
        )
    ratio = statistics.median(times[True]) / statistics.median(times[False])
    print(f"ratio of medians: {ratio:.3f} ({args.rounds} rounds each, interleaved)")


if __name__ == "__main__":
    main()
