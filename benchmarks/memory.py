"""Memory over a long run: RSS while the index takes N pages, LevelDB beside the memory store.

    python3 benchmarks/memory.py [--pages 1000000] [--samples 10]

Each store runs in its own process and does per page what a crawl with the pipeline and the
URL middleware does to the index: a look-up-and-add with a 260-byte sketch, five sentence
hashes, and the page's URL in the URL index. RSS (current, from /proc) is sampled every
N/samples pages. The memory store keeps everything in RAM and is the baseline: it grows
with the index, while LevelDB's RSS should level off (its block cache and write buffer are
bounded: 256 MB and 32 MB).

    python3 benchmarks/memory.py --redis [--pages 100000]

does the same work on a redis-server started on 127.0.0.1 and reports Redis's own memory
per page: ``INFO memory`` (``used_memory``, ``used_memory_rss``) before and after, and
``MEMORY USAGE`` of the store's two keys, with what 10M and 100M pages would take.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SKETCH_BYTES = 260
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE_SIZE / 2**20


def run_one(store: str, pages: int, samples: int) -> dict[str, object]:
    folder = Path(tempfile.mkdtemp(prefix="simdedup-memory-"))
    location = "memory" if store == "memory" else str(folder / "index")
    every = max(1, pages // samples)
    points: list[tuple[int, float, float]] = []
    start = time.perf_counter()

    def sample(n: int) -> None:
        if n % every == 0:
            points.append((n, rss_mb(), time.perf_counter() - start))

    try:
        add_pages(location, pages, sample)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"store": store, "points": points}


def add_pages(location: str, pages: int, after: Callable[[int], None] = lambda n: None) -> None:
    """Per page, what a crawl does to the index: look up and add with a sketch, record five
    sentences, add the URL to the URL index."""
    from scrapy_simdedup.index import keyspace
    from scrapy_simdedup.index.opening import open_index

    rng = random.Random(1)
    with open_index(location, memory_limit=10**9) as index:
        urls = index.companion(keyspace.URL_INDEX, 3)
        for n in range(1, pages + 1):
            url = f"https://site{n % 97}.example/section/{n}/page.html?id={n}"
            index.query_or_add(rng.getrandbits(64), url, rng.randbytes(SKETCH_BYTES))
            index.record_sentences([rng.getrandbits(64) for _ in range(5)], url)
            urls.add(rng.getrandbits(64), url)
            after(n)


def redis_memory(pages: int) -> None:
    """Redis's memory per page, measured on a fresh server, and its projections."""
    import redis

    from benchmarks.index import _redis_server
    from scrapy_simdedup.index.location import DEFAULT_REDIS_PREFIX

    folder = Path(tempfile.mkdtemp(prefix="simdedup-redis-memory-"))
    servers, url = _redis_server(folder)
    try:
        client = redis.Redis.from_url(url)
        before = client.info("memory")
        add_pages(url, pages)
        after = client.info("memory")
        tag = "{" + DEFAULT_REDIS_PREFIX + "}"
        keys = sum(
            client.memory_usage(f"{tag}:{name}", samples=0) or 0 for name in ("keys", "values")
        )
        entries = client.zcard(f"{tag}:keys")
        fields = client.hlen(f"{tag}:values")
    finally:
        servers[0].terminate()
        servers[0].wait()
        shutil.rmtree(folder, ignore_errors=True)
    used = (after["used_memory"] - before["used_memory"]) / pages
    rss = (after["used_memory_rss"] - before["used_memory_rss"]) / pages
    print(
        f"{pages:,} pages: {entries:,} sorted-set entries ({entries / pages:.1f} per page), "
        f"{fields:,} hash fields ({fields / pages:.1f} per page)"
    )
    print(f"bytes per page: used_memory {used:,.0f}, used_memory_rss {rss:,.0f}, "
          f"MEMORY USAGE of the two keys {keys / pages:,.0f}")  # fmt: skip
    for projected in (10_000_000, 100_000_000):
        print(f"{projected:>11,} pages: {used * projected / 2**30:,.1f} GiB (used_memory)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--leveldb-only", action="store_true", help="skip the baseline")
    parser.add_argument("--redis", action="store_true", help="Redis's memory per page")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.redis:
        redis_memory(args.pages)
        return
    if args.one:
        print(json.dumps(run_one(args.one, args.pages, args.samples)))
        return
    results = {}
    stores = ("leveldb",) if args.leveldb_only else ("leveldb", "memory")
    for store in stores:
        done = subprocess.run(
            [sys.executable, __file__, "--one", store, "--pages", str(args.pages),
             "--samples", str(args.samples)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        results[store] = json.loads(done.stdout)["points"]
    print(f"RSS while adding {args.pages:,} pages (MB; seconds so far in brackets)")
    print(f"{'pages':>10} {'leveldb':>16} {'memory (baseline)':>20}")
    baseline = results.get("memory")
    for i, (n, level, level_s) in enumerate(results["leveldb"]):
        line = f"{n:>10,} {level:>9.0f} ({level_s:>4.0f})"
        if baseline:
            line += f" {baseline[i][1]:>12.0f} ({baseline[i][2]:>4.0f})"
        print(line)
    for store, points in results.items():
        fifth = points[max(0, len(points) // 5 - 1)][1]
        last = points[-1][1]
        print(f"{store}: {fifth:.0f} MB at 20% of the run, {last:.0f} MB at the end "
              f"({last - fifth:+.0f} MB)")  # fmt: skip


if __name__ == "__main__":
    main()
