"""scrapy-redis: one and two RedisSpider workers with the plugin, beside plain scrapy-redis.

    python3 benchmarks/scrapy_redis.py [--rounds 1] [--site traps|demo] [--matched]

Each round serves the demo's scenario site on 127.0.0.1 (``traps``: an original, its
mirror and a partial mirror, with session-id links and sort orders; ``demo``: the original,
mirror, partial mirror and reprint portal), starts its own redis-server, and crawls it with
plain scrapy-redis (no pipeline, no middleware; one worker, then two) and with the plugin
(its index on the same Redis; one worker, then two), every run on fresh Redis keys. Workers
close by themselves after ``MAX_IDLE_TIME_BEFORE_CLOSE`` seconds idle (``IDLE_SECONDS``).

Per run: fetches (``downloader/request_count``, all workers), fetches avoided against plain
scrapy-redis with as many workers, pages in the feed, copies kept (pages in the feed beyond
one per distinct content), distinct pages lost against plain scrapy-redis (must be 0), and
re-issued requests sent / refused by the dupefilter (must be 0).

``--matched`` adds one plugin worker with twice Scrapy's concurrency (``CONCURRENT_REQUESTS``
and ``CONCURRENT_REQUESTS_PER_DOMAIN`` 32): as many requests in flight as two workers, to
tell what two workers lose by being two from what they lose by having more in flight.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.crawls import build_sites, serve_sites  # noqa: E402
from tests.support.redisserver import RedisServer  # noqa: E402
from tests.support.redisworkers import (  # noqa: E402
    IDLE_SECONDS,
    Run,
    contents_of,
    kept_contents,
    run_workers,
)

MATCHED = ("-s", "CONCURRENT_REQUESTS=32", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32")
"""One worker with as many requests in flight as two at Scrapy's default 16."""
SITES = {
    "traps": ("original", "mirror", "partial"),
    "demo": ("original", "mirror", "partial", "reprints"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--site", choices=sorted(SITES), default="traps")
    parser.add_argument("--matched", action="store_true", help="one worker at 32 requests too")
    args = parser.parse_args()
    built = build_sites(traps=args.site == "traps")
    sites = {name: built[name] for name in SITES[args.site]}
    pages = sum(len(p) for p in sites.values())
    print(f"scrapy-redis on the {args.site} site: {pages:,} pages on {len(sites)} hosts; "
          f"workers close after {IDLE_SECONDS} s idle\n")  # fmt: skip
    print(f"{'round':>5} {'crawl':>17} {'fetches':>8} {'avoided':>8} {'feed':>6} "
          f"{'copies':>7} {'lost':>5} {'reissued':>9} {'refused':>8} {'seconds':>8}")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder, serve_sites(sites) as served:
        server = RedisServer(Path(folder))
        server.start()
        try:
            contents = contents_of(sites, served)
            for n in range(args.rounds):
                plain: dict[int, Run] = {}
                runs: list[tuple[bool, int, tuple[str, ...]]] = [
                    (False, 1, ()),
                    (False, 2, ()),
                    (True, 1, ()),
                    (True, 2, ()),
                ]
                if args.matched:
                    runs.append((True, 1, MATCHED))
                for plugin, workers, extra in runs:
                    name = f"r{n}-{'plugin' if plugin else 'plain'}-{workers}{'x2' * bool(extra)}"
                    run = run_workers(server.url, served, Path(folder), name,
                                      workers=workers, plugin=plugin, extra=extra)  # fmt: skip
                    if not plugin:
                        plain[workers] = run
                    _row(
                        n, plugin, workers, run, plain=plain, contents=contents, doubled=bool(extra)
                    )
        finally:
            server.stop()


def _row(
    n: int,
    plugin: bool,
    workers: int,
    run: Run,
    *,
    plain: dict[int, Run],
    contents: dict[str, str],
    doubled: bool = False,
) -> None:
    for crawl in run.workers:
        if crawl.returncode != 0:
            raise RuntimeError(crawl.log[-3000:])
    fetches = run.total("downloader/request_count")
    baseline = plain[workers]
    avoided = baseline.total("downloader/request_count") - fetches
    items = run.items()
    kept = kept_contents(items, contents)
    lost = len(kept_contents(baseline.items(), contents) - kept)
    seconds = max(float(crawl.stats.get("elapsed_time_seconds", 0)) for crawl in run.workers)
    label = f"{'plugin' if plugin else 'plain'}, {workers} worker{'s' if workers > 1 else ''}"
    label = "plugin, 1 at 32" if doubled else label
    print(
        f"{n + 1:>5} {label:>17} {fetches:>8,} {avoided:>8,} {len(items):>6,} "
        f"{len(items) - len(kept):>7,} {lost:>5} {run.totals('simdedup/url/reissued/'):>9,} "
        f"{run.total('simdedup/url/reissued_dropped'):>8,} {seconds:>8.1f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
