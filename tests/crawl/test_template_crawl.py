"""Real crawls of a shop whose product pages share a long delivery block in their content."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from scrapy_simdedup.index.opening import open_index
from tests.support.crawls import run_crawl
from tests.support.shop import ALIASED, PRODUCTS, product_of, serve_shops

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def shops() -> Iterator[dict[str, str]]:
    with serve_shops() as urls:
        yield urls


@pytest.mark.parametrize("url_mode", ["adaptive", "off"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_product_is_kept_and_every_copy_dropped(
    shops: dict[str, str], tmp_path: Path, url_mode: str, seed: int
) -> None:
    open_index(tmp_path / "pages", seed=seed).close()  # the store's seed, chosen here
    crawl = run_crawl(
        [shops["shop"], shops["mirror"]],
        tmp_path / "feed.jsonl",
        "-s", f"SIMDEDUP_DIR={tmp_path}", "-s", f"SIMDEDUP_URL_MODE={url_mode}",
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    kept = Counter(product_of(str(item["url"])) for item in crawl.items)
    assert kept == Counter(range(PRODUCTS))  # every distinct product, once
    stats = crawl.simdedup()
    copies = stats.get("simdedup/content/dropped", 0)
    skipped = sum(v for k, v in stats.items() if k.startswith("simdedup/url/skipped/"))
    # A skip re-issued (its bet lost) was fetched after all, and dropped or kept above.
    reissued = sum(v for k, v in stats.items() if k.startswith("simdedup/url/reissued/"))
    assert copies + skipped - reissued == len(ALIASED) + PRODUCTS  # aliases, mirrored products


def test_a_start_url_linked_again_is_one_item(shops: dict[str, str], tmp_path: Path) -> None:
    # Scrapy fetches a start URL again when a page links to it (start requests skip the
    # dupefilter); the second item with that URL in one crawl is a copy of the first.
    product = shops["shop"] + "p/5"
    crawl = run_crawl(
        [shops["shop"], product],
        tmp_path / "feed.jsonl",
        "-s", f"SIMDEDUP_DIR={tmp_path}", "-s", "SIMDEDUP_URL_MODE=off",
    )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert [item["url"] for item in crawl.items].count(product) == 1
    assert crawl.stats["downloader/request_count"] >= PRODUCTS + len(ALIASED) + 2
    assert crawl.simdedup()["simdedup/content/repeated_keys"] == 1
