"""Crawl throughput: the demo spider with and without ContentSeenPipeline, same site, same run.

    python3 benchmarks/crawl.py [--rounds 3]

The site is generated on 127.0.0.1: every document of the benchmark corpora (Python
Reference topics and Chinese news) on an original host, all of them again on a mirror, and
half on a partial mirror: several thousand pages. Each round crawls it once with plain
Scrapy (ITEM_PIPELINES = {}), once with the pipeline (a fresh LevelDB folder) and once with
the pipeline and SIMDEDUP_CJK = "bigrams", in turn;
pages/s is response_received_count / elapsed_time_seconds from Scrapy's own stats.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo_project"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DEMO))

from demosite import Page, serve_sites  # noqa: E402

from benchmarks.corpora import chinese_articles, english_articles  # noqa: E402

_STATS = re.compile(r"Dumping Scrapy stats:\n(\{.*?\})\n(?=\d{4}-\d\d-\d\d |\Z)", re.S)


def generated_sites() -> dict[str, dict[str, Page]]:
    documents = list(english_articles(300)) + list(chinese_articles(1500, limit=2000))
    original = {}
    for n, text in enumerate(documents):
        title, _, body = text.partition("\n")
        original[f"/page/{n}.html"] = Page(f"doc-{n}", title.strip() or f"Page {n}", body)
    partial = {path: page for i, (path, page) in enumerate(original.items()) if i % 2}
    return {"original": original, "mirror": dict(original), "partial": partial}


def crawl(urls: list[str], settings: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "pages", "-a", "start_urls=" + ",".join(urls),
         "-s", "LOG_LEVEL=INFO", *settings],
        cwd=DEMO, capture_output=True, text=True, check=True, timeout=1800,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    match = _STATS.search(done.stderr)
    if match is None:
        raise RuntimeError(done.stderr[-2000:])
    stats: dict[str, object] = eval(match.group(1), {"datetime": datetime})  # Scrapy's own dump
    return stats


def pages_per_second(stats: dict[str, object]) -> float:
    return float(stats["response_received_count"]) / float(stats["elapsed_time_seconds"])  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sites = generated_sites()
    pages = sum(len(p) for p in sites.values())
    plain: list[float] = []
    dedup: list[float] = []
    bigrams: list[float] = []
    with serve_sites(sites) as served, tempfile.TemporaryDirectory() as folder:
        urls = list(served.values())
        print(f"{pages:,} pages on {len(sites)} hosts; {args.rounds} rounds\n")
        print(f"{'round':>5} {'plain':>8} {'pipeline':>9} {'bigrams':>8} {'dropped':>8}  (pages/s)")
        for n in range(args.rounds):
            plain.append(pages_per_second(crawl(urls, ["-s", "ITEM_PIPELINES={}"])))
            stats = crawl(urls, ["-s", f"SIMDEDUP_DIR={folder}/{n}"])
            dedup.append(pages_per_second(stats))
            dropped = stats.get("simdedup/content/dropped", 0)
            fast = ["-s", f"SIMDEDUP_DIR={folder}/b{n}", "-s", "SIMDEDUP_CJK=bigrams"]
            bigrams.append(pages_per_second(crawl(urls, fast)))
            print(
                f"{n + 1:>5} {plain[-1]:>8,.0f} {dedup[-1]:>9,.0f} {bigrams[-1]:>8,.0f} "
                f"{dropped:>8,}",
                flush=True,
            )
    base = statistics.median(plain)
    print(f"\nmedian: plain Scrapy {base:,.0f} pages/s")
    for label, rates in (("pipeline (jieba)", dedup), ("pipeline (CJK bigrams)", bigrams)):
        ratio = statistics.median(rates) / base
        print(f"{label}: {statistics.median(rates):,.0f} pages/s, {1 - ratio:.1%} cost")


if __name__ == "__main__":
    main()
