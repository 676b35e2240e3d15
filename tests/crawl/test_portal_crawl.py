"""Real crawls of reprints as crawlers meet them (issue 33): a portal that reprints a news
site with its chrome and an editor's touch, a docs mirror with a live banner, and pages
listed in full on a category page or a digest before their own page is crawled.

The sites are built from ``benchmarks/portal.py``'s pages (``tests/support/portalsite.py``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from scrapy_simdedup.index.opening import open_index
from tests.support import portalsite
from tests.support.crawls import Crawl, run_crawl
from tests.support.portalsite import COPY_KINDS, DIGEST_SIZE, DOCS, PRODUCTS, DocsAndMirror

pytestmark = pytest.mark.timeout(900)

SEED = 1  # the store's seed: the same fingerprints on every run
PLAIN_SCRAPY = ("ITEM_PIPELINES={}", "DOWNLOADER_MIDDLEWARES={}")


def _crawl(starts: list[str], folder: Path, name: str, *settings: str) -> Crawl:
    """A crawl with the plugin on a new store of ``SEED`` in ``folder``; its content
    verdicts are printed, for a run that fails."""
    open_index(folder / "index" / "pages", seed=SEED).close()
    log = folder / f"{name}-verdicts.jsonl"
    args = ["-s", f"SIMDEDUP_DIR={folder / 'index'}", "-s", f"SIMDEDUP_VERDICT_LOG={log}"]
    for setting in settings:
        args += ["-s", setting]
    crawl = run_crawl(starts, folder / f"{name}.jsonl", *args)
    assert crawl.returncode == 0, crawl.log[-3000:]
    for line in log.read_text("utf-8").splitlines() if log.exists() else []:
        record = json.loads(line)
        if record["event"] != "crawl":
            print("verdict:", {k: v for k, v in record.items() if k != "time"})
    return crawl


def _plain_scrapy(starts: list[str], folder: Path) -> Crawl:
    """The same spider with neither the pipeline nor the middleware."""
    args = [arg for setting in PLAIN_SCRAPY for arg in ("-s", setting)]
    crawl = run_crawl(starts, folder / "plain.jsonl", *args)
    assert crawl.returncode == 0, crawl.log[-3000:]
    return crawl


def _pages(crawl: Crawl, urls: dict[str, str]) -> list[tuple[str, str]]:
    """(site, path) of each item of the feed, in feed order."""
    sites = {urlsplit(url).netloc: name for name, url in urls.items()}
    found = []
    for item in crawl.items:
        split = urlsplit(str(item["url"]))
        found.append((sites[split.netloc], split.path))
    return found


def _skipped(crawl: Crawl, event: str = "skipped") -> int:
    prefix = f"simdedup/url/{event}/"
    return sum(n for key, n in crawl.simdedup().items() if key.startswith(prefix))


@pytest.mark.parametrize("language", ["chinese", "english"])
def test_a_portals_reprints_are_dropped_and_what_adds_content_is_kept(
    language: str, tmp_path: Path
) -> None:
    site = portalsite.news_and_portal(language)
    with portalsite.serve_reprinted(site) as urls:
        starts = [urls["news"], urls["portal"]]
        crawl = _crawl(starts, tmp_path, "plugin")
        plain = _plain_scrapy(starts, tmp_path)
    assert not site.gate.waited_in_vain  # the news index's pages were fetched first
    # The site: plain Scrapy yields every article page, with the text the benchmark judges.
    assert sorted(_pages(plain, urls)) == sorted(site.texts)
    for page, item in zip(_pages(plain, urls), plain.items, strict=True):
        assert item["text"] == site.texts[page], page

    kept = _pages(crawl, urls)
    assert len(kept) == len(set(kept))  # one item per page
    order = {page: at for at, page in enumerate(kept)}
    copies_kept = [(kind, copy) for kind, original, copy in site.copies
                   if ("news", original) in order and ("portal", copy) in order]  # fmt: skip
    originals_dropped = [
        copy for _, original, copy in site.copies if ("news", original) not in order
    ]
    cuts_kept = [  # both kept, the full original first: the cut reprint added nothing
        (kind, copy) for kind, full, copy, _ in site.cuts
        if order.get(("news", full), len(order)) < order.get(("portal", copy), -1)
    ]  # fmt: skip
    full_lost = [full for _, full, _, _ in site.cuts if ("news", full) not in order]
    merged_lost = [merged for merged in site.merged if ("portal", merged) not in order]
    held = set().union(*(site.holds[page] for page in kept))
    everything = set().union(*site.holds.values())
    print(
        f"{language}: kept {len(kept)} of {len(site.texts)} pages;",
        f"copies kept beside their original: {len(copies_kept)} of {len(site.copies)}",
        dict(Counter(kind for kind, _ in copies_kept)),
        copies_kept,
        f"(originals dropped for their reprint: {originals_dropped})",
        f"| cut reprints kept after their full original: {cuts_kept}",
        f"| full originals lost: {full_lost} | merged pages lost: {merged_lost}",
        f"| paragraphs lost: {sorted(everything - held)} | stats: {crawl.simdedup()}",
    )
    # Nothing plain Scrapy keeps is lost: every paragraph is in some kept page (a
    # reprint's edited paragraph counts for its original's).
    plain_held = set().union(*(site.holds[page] for page in _pages(plain, urls)))
    assert plain_held == everything
    assert held == everything, sorted(everything - held)
    # Pages that add content are kept: a merged page adds an article the news site lacks;
    # a full original met after its cut reprint adds the paragraphs the cut lacks.
    assert merged_lost == []
    assert full_lost == []
    # Copies: of an original and its reprint, one is kept (whichever came first). At least
    # 97% of the reprints that add nothing are dropped (all of them, on this site).
    assert sorted({kind for kind, _, _ in site.copies}) == sorted(COPY_KINDS)
    assert len(copies_kept) <= 0.03 * len(site.copies), copies_kept
    # A cut reprint after its full original adds nothing either (95% in the benchmark).
    assert cuts_kept == []


def test_a_mirror_with_a_live_banner_is_dropped_from_its_third_page_and_learned(
    tmp_path: Path,
) -> None:
    site = DocsAndMirror()
    with portalsite.serve(site.answers()) as urls:
        # A polite pace (two requests at a time, 0.05 s apart): on a mirror of 20 pages, as
        # on one of thousands, most of its requests then wait in the scheduler while its
        # first pages are judged. At full speed on loopback Scrapy sends all 20 to the
        # downloader before the fifth verdict, and nothing is left to skip.
        crawl = _crawl(
            [urls["docs"], urls["mirror"]], tmp_path, "plugin",
            "CONCURRENT_REQUESTS=2", "DOWNLOAD_DELAY=0.05",
        )  # fmt: skip
    assert not site.gate.waited_in_vain  # the originals were fetched first
    kept = _pages(crawl, urls)
    mirror_kept = [path for name, path in kept if name == "mirror"]
    fetched = Counter(site.mirror_fetched)
    stats = crawl.simdedup()
    dropped = stats.get("simdedup/content/dropped", 0)
    skipped, reissued = _skipped(crawl), _skipped(crawl, "reissued")
    print(
        f"mirror: fetched {sum(fetched.values())} ({len(fetched)} pages), kept {len(mirror_kept)}",
        f"{mirror_kept}, dropped {dropped}, skipped {skipped}, re-issued {reissued};",
        f"mirror pages in fetch order: {site.mirror_fetched} | stats: {stats}",
    )
    assert sorted(path for name, path in kept if name == "docs") == sorted(site.paths)
    assert max(fetched.values()) == 1  # no mirror page fetched twice
    # Every mirror page was fetched (and kept or dropped) or skipped on a bet that held.
    assert len(fetched) + skipped - reissued == DOCS
    assert dropped == len(fetched) - len(mirror_kept)
    # A banner that differs from page to page only in its digits is the mirror's template
    # from its third page on: only the first two pages may be kept for it.
    assert len(mirror_kept) <= 2, mirror_kept
    # The URL middleware learns from the copies: it saves requests.
    assert skipped > 0, stats


@pytest.mark.parametrize("delivery", [True, False], ids=["template-shop", "bare-products"])
def test_every_product_is_kept_after_a_category_page_listing_them(
    delivery: bool, tmp_path: Path
) -> None:
    pages = portalsite.shop_category(delivery)
    with portalsite.serve({"shop": pages.get}) as urls:
        crawl = _crawl([urls["shop"] + "c/all"], tmp_path, "plugin")
    kept = [path for _, path in _pages(crawl, urls)]
    print(f"kept {len(kept)}: {kept} | stats: {crawl.simdedup()}")
    assert kept[:1] == ["/c/all"]  # the category page was judged first
    # One product is a twentieth of the category page, not its copy.
    assert sorted(kept) == sorted(pages)
    assert len(pages) == PRODUCTS + 1


@pytest.mark.parametrize("language", ["chinese", "english"])
def test_every_article_is_kept_after_a_digest_carrying_it(language: str, tmp_path: Path) -> None:
    pages = portalsite.digests(language)
    with portalsite.serve({"news": pages.get}) as urls:
        digests = [urls["news"] + f"digest/{d}.html" for d in range(2)]
        crawl = _crawl(digests, tmp_path, "plugin")
    kept = [path for _, path in _pages(crawl, urls)]
    print(f"kept {len(kept)}: {kept} | stats: {crawl.simdedup()}")
    for d in range(2):  # each digest was judged before the articles it carries
        carried = [f"/a/{n}.html" for n in range(d * DIGEST_SIZE, (d + 1) * DIGEST_SIZE)]
        after = [at for at, path in enumerate(kept) if path in carried]
        assert kept.index(f"/digest/{d}.html") < min(after, default=len(kept)), d
    # One article is a sixth of the digest that carries it, not its copy.
    assert sorted(kept) == sorted(pages)
    assert len(pages) == 2 * (DIGEST_SIZE + 1)
