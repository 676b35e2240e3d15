"""The URL middleware's memory per fetched page, beside plain Scrapy's dupefilter.

    python3 benchmarks/urlmemory.py [--pages 200000]

While a crawl runs, the URL core remembers its URLs: queued, fetched, judged, kept, the
page each copy copies, the first page of a host to reprint a page of another, and the
host sizes that tell a mirror from its original (``url/judge.py``, ``url/sitesize.py``;
each set at most ``MAX_REMEMBERED`` entries). This replays ``--pages`` pages through a
``UrlCore`` on a LevelDB index (adaptive mode, 50 hosts, one page in five a reprint of
another host's page at a path of its own) and reports the Python heap it grew by per page
(``tracemalloc``, after 2,000 pages of warm-up, so the URL caches of fixed size are full).
The baseline, in the same run: Scrapy's ``RFPDupeFilter`` told the same URLs, which any
crawl holds (one request fingerprint per URL).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.url.actions import Seen
from scrapy_simdedup.url.bets import Bet
from scrapy_simdedup.url.core import UrlCore
from scrapy_simdedup.url.judge import MAX_REMEMBERED
from scrapy_simdedup.url.judgewiring import judge_for_crawl

WARM_UP = 2_000
HOSTS = 50


def urls(pages: int) -> list[tuple[str, str | None]]:
    """Each page's URL and the URL of the page it reprints (None: new)."""
    found: list[tuple[str, str | None]] = []
    for n in range(pages):
        host = n % HOSTS
        if n % 5 == 0 and n:
            copied = f"http://h{(host + 1) % HOSTS}.example/news/{n - 1}.html"
            found.append((f"http://h{host}.example/story/{n}.html", copied))
        else:
            found.append((f"http://h{host}.example/news/{n}.html", None))
    return found


class _Tally(dict[str, int]):
    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        self[key] = self.get(key, start) + count

    def set_value(self, key: str, value: object) -> None:
        self[key] = int(value)  # type: ignore[call-overload]

    def get_value(self, key: str, default: object = None) -> object:
        return self.get(key, default)


class _NoLot:
    """Bets kept nowhere beyond the process (none are made here: nothing is learned)."""

    def park(self, bet: Bet[str]) -> bool:
        return True

    def forget(self, urls: list[str]) -> None:
        pass

    def leftovers(self) -> list[Bet[str]]:
        return []

    def held_elsewhere(self, url: str) -> bool:
        return False


def grown_per_page(
    pages: list[tuple[str, str | None]], step: Callable[[str, str | None], None]
) -> float:
    """Heap bytes per page that ``step`` grew the process by, after the warm-up."""
    for url, copied in pages[:WARM_UP]:
        step(url, copied)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for url, copied in pages[WARM_UP:]:
        step(url, copied)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / (len(pages) - WARM_UP)


def url_core_bytes(pages: list[tuple[str, str | None]]) -> float:
    with (
        tempfile.TemporaryDirectory() as folder,
        open_index(folder, expected_size=len(pages), seed=7) as index,
    ):
        judge = judge_for_crawl(
            index, mode="adaptive", max_distance=3, expected_size=len(pages),
            min_evidence=3, sample_every=1000,
        )  # fmt: skip
        core: UrlCore[str] = UrlCore(judge, _NoLot(), _Tally(), drop=True)
        core.opened()

        def step(url: str, copied: str | None) -> None:
            core.scheduled(Seen(url, url))
            core.fetched(url, url, 200)
            core.verdict(url, copied)

        return grown_per_page(pages, step)


def dupefilter_bytes(pages: list[tuple[str, str | None]]) -> float:
    from scrapy import Request
    from scrapy.dupefilters import RFPDupeFilter

    seen = RFPDupeFilter()

    def step(url: str, copied: str | None) -> None:
        seen.request_seen(Request(url))

    return grown_per_page(pages, step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200_000)
    args = parser.parse_args()
    if args.pages <= WARM_UP:
        parser.error(f"--pages must exceed the {WARM_UP:,} pages of warm-up")
    pages = urls(args.pages)
    ours = url_core_bytes(pages)
    plain = dupefilter_bytes(pages)
    print(f"{args.pages - WARM_UP:,} pages after {WARM_UP:,} of warm-up (one in five a reprint)")
    print(f"  URL core:                    {ours:6.0f} bytes per fetched page")
    print(f"  Scrapy's dupefilter (plain): {plain:6.0f} bytes per request")
    print(f"  per million pages: {ours * 1e6 / 2**20:.0f} MiB against {plain * 1e6 / 2**20:.0f} "
          f"MiB; the URL core's sets stop at {MAX_REMEMBERED:,} entries each")  # fmt: skip


if __name__ == "__main__":
    main()
