"""Tune SIMDEDUP_CONFIRM_SIMILARITY with the verdict log, on a mirror whose pages were edited.

    python3 tune_demo.py

Serves short docs pages and a mirror with four words of each page replaced, crawls both
with the default settings and the verdict log on, prints ``scrapy simdedup report``, then
crawls again (a fresh index) with the settings the report suggests, and compares the two
feeds with the sites: copies kept, distinct pages lost.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from demosite import build_edited_mirror, serve_sites

from scrapy_simdedup.audit.log import read_log
from scrapy_simdedup.audit.summary import last_crawl, summarise
from scrapy_simdedup.audit.tuning import distance_advice, threshold_advice

HERE = Path(__file__).resolve().parent


def crawl(urls: dict[str, str], folder: Path, *settings: str) -> list[dict[str, str]]:
    feed = folder / "feed.jsonl"
    command = [
        sys.executable, "-m", "scrapy", "crawl", "pages", "-a",
        "start_urls=" + ",".join(urls.values()), "-O", str(feed), "-s", "LOG_LEVEL=WARNING",
        "-s", f"SIMDEDUP_DIR={folder}", "-s", f"SIMDEDUP_VERDICT_LOG={folder / 'verdicts.jsonl'}",
        *settings,
    ]  # fmt: skip
    subprocess.run(command, cwd=HERE, timeout=600, check=True)
    return [json.loads(line) for line in feed.read_text("utf-8").splitlines()]


def compare(items: list[dict[str, str]], content_of: dict[str, str]) -> str:
    kept = Counter(content_of[item["url"]] for item in items)
    lost = len(set(content_of.values()) - set(kept))
    copies = sum(n - 1 for n in kept.values())
    return f"{len(items)} items: {len(kept)} distinct pages kept, {copies} copies kept, {lost} lost"


def main() -> int:
    sites = build_edited_mirror()
    with serve_sites(sites) as urls, tempfile.TemporaryDirectory() as temporary:
        content_of = {
            urls[site].rstrip("/") + path: page.content
            for site, pages in sites.items()
            for path, page in pages.items()
        }
        first = Path(temporary) / "defaults"
        before = crawl(urls, first)
        report = ["scrapy", "simdedup", "report", "pages", "--log", str(first / "verdicts.jsonl")]
        subprocess.run([sys.executable, "-m", *report], cwd=HERE, timeout=120, check=True)
        summary = summarise(last_crawl(read_log(first / "verdicts.jsonl").records))
        threshold = threshold_advice(summary).suggested or summary.threshold
        k = distance_advice(summary).suggested or summary.max_distance
        tuned = [
            "-s", f"SIMDEDUP_CONFIRM_SIMILARITY={threshold}",
            "-s", f"SIMDEDUP_CONTENT_MAX_DISTANCE={k}",
        ]  # fmt: skip
        after = crawl(urls, Path(temporary) / "tuned", *tuned)
    print(f"\n{len(set(content_of.values()))} distinct pages on 2 sites.")
    print(f"defaults (0.8, k=3): {compare(before, content_of)}")
    print(f"suggested ({threshold}, k={k}): {compare(after, content_of)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
