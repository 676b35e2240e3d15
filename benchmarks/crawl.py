"""Crawl cost: the demo spider with and without the plugin's components, same site, same run.

    python3 benchmarks/crawl.py [--rounds 3] [--only pipeline,middleware,traps,scenarios,site]
                                [--before CHECKOUT] [--profile PATH] [--components]
                                [--shell] [--judged] [--setting NAME=VALUE ...]
                                [--scenario NAME ...] [--risk SHARE]

``site``: CPU per fetched page of the crawl's process (and of the fingerprint helper, apart;
and the whole site's CPU, the helper's included) on a ~5,000-page site of real text served
by nginx, plain Scrapy against the plugin with its defaults, then on the same site with
nothing to skip or drop (``benchmarks/sitecost.py``;
``--profile PATH`` adds a plain and a plugin crawl with the plugin's entry points timed,
the garbage collector apart (per generation, and the objects it tracks mid-crawl) and the
waits for the helper's replies, ``benchmarks/attribution.py``, then both under cProfile,
and prints where the plugin's time goes; ``--components`` adds, in every round, a crawl
with the content pipeline alone and one with the URL middleware alone; ``--shell`` one
with components hooked where the plugin's are, doing nothing: ``benchmarks/shell.py``;
``--judged`` one with the content judge in a helper process: ``benchmarks/judgehelper.py``).

``pipeline``: pages/s of plain Scrapy against Scrapy with ContentSeenPipeline.
``middleware``: pages/s with UrlSimHashMiddleware alone on one host with nothing to skip
(the per-request cost of the decision). ``traps``: requests, bytes and seconds on the demo's
trap site (mirror, partial mirror, session ids, sort orders, calendar) with the content
pipeline, URL checks off against adaptive. ``scenarios``: per site (the demo, an original
and its mirror started together, the trap site, a forum with removed posts, two shops
sharing legal pages, and the six ways a skip lost a page in ordinary settings: a page
budget, a depth limit, a mirror's own section, a soft 404, ``?lang=`` fallbacks, a long
finite calendar; and a mirror whose one page differs, a mirror that lags behind on 4 of its
120 articles), URL checks off against adaptive: the share of duplicate-only requests
skipped, requests, bytes and seconds, re-issues, distinct pages kept (and per 1,000
requests), and distinct pages lost against the crawl without URL checks. ``--risk SHARE``
adds, per scenario, a crawl with ``SIMDEDUP_URL_RISK=SHARE``; each adaptive crawl also
prints the largest bound its mirror rules stated at the end (``bound``) beside the share of
the requests it did not make that really differed (``differed``: pages lost over the
requests the crawl without URL checks made and it did not).
``--scenario`` crawls only the scenarios named.

The site is generated on 127.0.0.1: every document of the benchmark corpora (Python
Reference topics and Chinese news) on an original host, all of them again on a mirror, and
half on a partial mirror: several thousand pages. Each round crawls it once with plain
Scrapy (no pipeline, no middleware), once with the pipeline (a fresh LevelDB folder) and
once with the pipeline fingerprinting in the crawl's own process, in turn; then the
original host alone (every page new, so no copy is found by its text hash) with plain
Scrapy and with the pipeline. pages/s is response_received_count / elapsed_time_seconds
from Scrapy's own stats. ``--before`` names a checkout of an earlier revision (``git worktree
add /tmp/before REV``): each pipeline round then also crawls with that revision's code, so a
change is measured against what it replaced in the same run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo_project"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DEMO))

from demosite import Page, build_sites, serve_sites  # noqa: E402

from benchmarks.corpora import chinese_articles, english_articles  # noqa: E402
from benchmarks.sitecost import site_cost  # noqa: E402

_STATS = re.compile(r"Dumping Scrapy stats:\n(\{.*?\})\n(?=\d{4}-\d\d-\d\d |\Z)", re.S)


def generated_sites() -> dict[str, dict[str, Page]]:
    documents = list(english_articles(300)) + list(chinese_articles(1500, limit=2000))
    original = {}
    for n, text in enumerate(documents):
        title, _, body = text.partition("\n")
        original[f"/page/{n}.html"] = Page(f"doc-{n}", title.strip() or f"Page {n}", body)
    partial = {path: page for i, (path, page) in enumerate(original.items()) if i % 2}
    return {"original": original, "mirror": dict(original), "partial": partial}


def crawl(urls: list[str], settings: list[str], root: Path = ROOT) -> dict[str, object]:
    return crawl_with_log(urls, settings, root)[0]


def crawl_with_log(
    urls: list[str], settings: list[str], root: Path = ROOT
) -> tuple[dict[str, object], str]:
    """Scrapy's closing stats of one crawl, and its log."""
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "pages", "-a", "start_urls=" + ",".join(urls),
         "-s", "LOG_LEVEL=INFO", *settings],
        cwd=root / "demo_project", capture_output=True, text=True, check=True, timeout=1800,
        env={**os.environ, "PYTHONPATH": str(root)},
    )  # fmt: skip
    match = _STATS.search(done.stderr)
    if match is None:
        raise RuntimeError(done.stderr[-2000:])
    stats: dict[str, object] = eval(match.group(1), {"datetime": datetime})  # Scrapy's own dump
    return stats, done.stderr


def pages_per_second(stats: dict[str, object]) -> float:
    return float(stats["response_received_count"]) / float(stats["elapsed_time_seconds"])  # type: ignore[arg-type]


NO_URL_CHECKS = ["-s", "SIMDEDUP_URL_MODE=off"]
PLAIN = ["-s", "ITEM_PIPELINES={}", "-s", "DOWNLOADER_MIDDLEWARES={}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, help="per part (default 3; site: 5)")
    parser.add_argument("--only", default="pipeline,middleware,traps,scenarios,site")
    parser.add_argument("--before", type=Path, help="a checkout of an earlier revision")
    parser.add_argument("--profile", type=Path, help="site: write a cProfile of one crawl here")
    parser.add_argument(
        "--components", action="store_true",
        help="site: also crawl with the content pipeline alone and the URL middleware alone",
    )  # fmt: skip
    parser.add_argument(
        "--shell", action="store_true",
        help="site: also crawl with components hooked where the plugin's are, doing nothing",
    )  # fmt: skip
    parser.add_argument(
        "--judged", action="store_true",
        help="site: also crawl with the content judge in a helper process (an experiment)",
    )  # fmt: skip
    parser.add_argument(
        "--scenario", action="append", default=[], metavar="NAME",
        help="scenarios: crawl only this one (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--risk", type=float, help="scenarios: also crawl with SIMDEDUP_URL_RISK at this share"
    )
    parser.add_argument(
        "--setting", action="append", default=[], metavar="NAME=VALUE",
        help="site: a Scrapy setting for every crawl, plain Scrapy's too (repeatable), "
        "e.g. CONCURRENT_ITEMS=8",
    )  # fmt: skip
    args = parser.parse_args()
    parts = args.only.split(",")
    if "site" in parts:
        rounds = 5 if args.rounds is None else args.rounds
        settings = [flag for setting in args.setting for flag in ("-s", setting)]
        site_cost(
            rounds,
            args.before,
            args.profile,
            components=args.components,
            settings=settings,
            experiments=tuple(name for name in ("shell", "judged") if getattr(args, name)),
        )
    args.rounds = 3 if args.rounds is None else args.rounds
    if "pipeline" in parts:
        pipeline_cost(args.rounds, args.before)
    if "middleware" in parts:
        middleware_cost(args.rounds)
    if "traps" in parts:
        trap_savings(args.rounds)
    if "scenarios" in parts:
        url_scenarios(args.rounds, args.scenario, args.risk)


def pipeline_cost(rounds: int, before: Path | None = None) -> None:
    sites = generated_sites()
    pages = sum(len(p) for p in sites.values())
    rates: dict[str, list[float]] = {name: [] for name in ("plain", "helper", "inproc", "before")}
    fresh: dict[str, list[float]] = {"plain": [], "helper": []}
    with serve_sites(sites) as served, tempfile.TemporaryDirectory() as folder:
        urls = list(served.values())
        print(f"ContentSeenPipeline: {pages:,} pages on {len(sites)} hosts; {rounds} rounds")
        print("(the same site's original host alone: every page new, nothing to drop)\n")
        if before is not None:
            print(f"'before': the pipeline of the checkout {before}\n")
        print(f"{'round':>5} {'plain':>7} {'pipeline':>9} {'in-process':>11} {'dropped':>8}"
              f"   {'new: plain':>10} {'pipeline':>9}"
              f"{'   before' if before else ''}  (pages/s)")  # fmt: skip
        for n in range(rounds):
            rates["plain"].append(pages_per_second(crawl(urls, PLAIN)))
            if before is not None:
                earlier = ["-s", f"SIMDEDUP_DIR={folder}/b{n}", *NO_URL_CHECKS]
                rates["before"].append(pages_per_second(crawl(urls, earlier, before)))
            stats = crawl(urls, ["-s", f"SIMDEDUP_DIR={folder}/{n}", *NO_URL_CHECKS])
            rates["helper"].append(pages_per_second(stats))
            alone = [
                "-s",
                f"SIMDEDUP_DIR={folder}/i{n}",
                "-s",
                "SIMDEDUP_FINGERPRINT_PROCESS=False",
            ]
            rates["inproc"].append(pages_per_second(crawl(urls, [*alone, *NO_URL_CHECKS])))
            original = [served["original"]]
            fresh["plain"].append(pages_per_second(crawl(original, PLAIN)))
            only_new = ["-s", f"SIMDEDUP_DIR={folder}/n{n}", *NO_URL_CHECKS]
            fresh["helper"].append(pages_per_second(crawl(original, only_new)))
            print(
                f"{n + 1:>5} {rates['plain'][-1]:>7,.0f} {rates['helper'][-1]:>9,.0f} "
                f"{rates['inproc'][-1]:>11,.0f} {stats.get('simdedup/content/dropped', 0):>8,}"
                f"   {fresh['plain'][-1]:>10,.0f} {fresh['helper'][-1]:>9,.0f}"
                + (f" {rates['before'][-1]:>8,.0f}" if before else ""),
                flush=True,
            )
    print(f"\nmedian: plain Scrapy {statistics.median(rates['plain']):,.0f} pages/s")
    print("cost: of the median rates, and (in brackets) the median of each round's own cost")
    for label, measured, plain in (
        ("pipeline", rates["helper"], rates["plain"]),
        ("pipeline, SIMDEDUP_FINGERPRINT_PROCESS=False", rates["inproc"], rates["plain"]),
        ("every page new: pipeline", fresh["helper"], fresh["plain"]),
        *((("before: pipeline", rates["before"], rates["plain"]),) if before else ()),
    ):
        rate = statistics.median(measured)
        paired = statistics.median(1 - m / p for m, p in zip(measured, plain, strict=True))
        print(f"{label}: {rate:,.0f} pages/s, {1 - rate / statistics.median(plain):.1%} cost "
              f"({paired:.1%})")  # fmt: skip


def middleware_cost(rounds: int) -> None:
    """The decision's own cost: one host, nothing to skip, no pipeline (nothing learned)."""
    sites = {"original": generated_sites()["original"]}
    plain: list[float] = []
    checked: list[float] = []
    with serve_sites(sites) as served, tempfile.TemporaryDirectory() as folder:
        urls = list(served.values())
        print(f"\nUrlSimHashMiddleware, nothing to skip: {len(sites['original']):,} pages\n")
        print(f"{'round':>5} {'plain':>8} {'middleware':>11}  (pages/s)")
        for n in range(rounds):
            plain.append(pages_per_second(crawl(urls, PLAIN)))
            only_urls = ["-s", "ITEM_PIPELINES={}", "-s", f"SIMDEDUP_DIR={folder}/{n}"]
            checked.append(pages_per_second(crawl(urls, only_urls)))
            print(f"{n + 1:>5} {plain[-1]:>8,.0f} {checked[-1]:>11,.0f}", flush=True)
    base, rate = statistics.median(plain), statistics.median(checked)
    print(f"\nmedian: plain Scrapy {base:,.0f} pages/s, with the middleware {rate:,.0f} "
          f"pages/s, {1 - rate / base:.1%} cost")  # fmt: skip


def trap_savings(rounds: int) -> None:
    """Requests, bytes and time on the demo's trap site, with and without the middleware."""
    built = build_sites(traps=True)
    sites = {name: built[name] for name in ("original", "mirror", "partial")}
    print(f"\nURL traps: {sum(len(p) for p in sites.values()):,} pages on 3 hosts\n")
    print(f"{'round':>5} {'mode':>9} {'requests':>9} {'MB':>6} {'seconds':>8} {'items':>6} "
          f"{'dropped':>8} {'skipped':>8}")  # fmt: skip
    totals: dict[str, list[tuple[int, float, float]]] = {"off": [], "adaptive": []}
    with serve_sites(sites) as served, tempfile.TemporaryDirectory() as folder:
        urls = list(served.values())
        for n in range(rounds):
            for mode, rows in totals.items():
                stats = crawl(urls, ["-s", f"SIMDEDUP_DIR={folder}/{mode}{n}",
                                     "-s", f"SIMDEDUP_URL_MODE={mode}"])  # fmt: skip
                requests = int(stats["downloader/request_count"])  # type: ignore[call-overload]
                megabytes = int(stats["downloader/response_bytes"]) / 2**20  # type: ignore[call-overload]
                seconds = float(stats["elapsed_time_seconds"])  # type: ignore[arg-type]
                skipped = sum(v for k, v in stats.items() if k.startswith("simdedup/url/skipped/"))  # type: ignore[misc]
                rows.append((requests, megabytes, seconds))
                print(
                    f"{n + 1:>5} {mode:>9} {requests:>9,} {megabytes:>6.1f} {seconds:>8.1f} "
                    f"{stats.get('item_scraped_count', 0):>6,} "
                    f"{stats.get('item_dropped_count', 0):>8,} {skipped:>8,}",
                    flush=True,
                )
    off, on = ([statistics.median(col) for col in zip(*totals[m], strict=True)] for m in totals)
    fewer = 1 - on[0] / off[0]
    print(
        f"\nmedian: {on[0]:,.0f} requests instead of {off[0]:,.0f} ({fewer:.0%} fewer), "
        f"{on[1]:.1f} MB instead of {off[1]:.1f}, {on[2]:.1f} s instead of {off[2]:.1f}"
    )


Contents = dict[str, dict[str, str]]  # site -> path (with query) -> content id


Scenario = tuple[
    Callable[[], AbstractContextManager[dict[str, str]]],
    Contents,
    list[str],  # settings of both crawls (a budget, a depth limit)
    Callable[[dict[str, str]], None],  # links that need the served URLs, added once served
]


def _scenarios() -> dict[str, Scenario]:
    """The sites ``scenarios`` crawls: the demo's, a forum and two shops, and the six ways a
    skip lost a page in ordinary settings (a page budget, a depth limit, a mirror's own
    section, a soft 404, ``?lang=`` fallbacks, a long finite calendar)."""
    from tests.support import urlsites

    def nothing(served: dict[str, str]) -> None:
        pass

    def demo(names: tuple[str, ...], traps: bool = False) -> Scenario:
        built = build_sites(traps=traps)
        chosen = {name: built[name] for name in names}
        contents = {n: {p: page.content for p, page in ps.items()} for n, ps in chosen.items()}
        return (lambda: serve_sites(chosen)), contents, [], nothing

    def generated(
        sites: dict[str, urlsites.Site],
        settings: tuple[str, ...] = (),
        linked: Callable[[dict[str, urlsites.Site], dict[str, str]], None] | None = None,
    ) -> Scenario:
        contents = {n: {p: page.content for p, page in s.pages.items()} for n, s in sites.items()}
        settings_args = [arg for setting in settings for arg in ("-s", setting)]
        hook = (lambda served: linked(sites, served)) if linked else nothing
        return (lambda: urlsites.serve(sites)), contents, settings_args, hook

    archive = urlsites.mirror_ahead_of_archive()
    busy = (40, 300, 610, 880, 1100, 1200)
    return {
        "demo": demo(("original", "mirror", "partial", "reprints")),
        "together": demo(("original", "mirror"), traps=True),
        "traps": demo(("original", "mirror", "partial"), traps=True),
        "forum": generated({"forum": urlsites.forum(slow_listing=0.2)}),
        "shops": generated(urlsites.two_shops()),
        "budget": generated(
            archive,
            ("CLOSESPIDER_PAGECOUNT=90",),
            lambda sites, urls: urlsites.link_own_pages(sites, urls, every=2),
        ),
        "depth": generated(urlsites.depth_skew(), ("DEPTH_LIMIT=3",)),
        "own": generated(
            urlsites.mirror_with_own_section_behind_about(), (), urlsites.link_mirror_about
        ),
        "soft404": generated(urlsites.mirror_with_soft_404s()),
        "lang": generated({"news": urlsites.translated_news()}),
        "calendar": generated({"calendar": urlsites.calendar(days=1216, busy=busy)}),
        "differing": generated(urlsites.mirror_with_a_differing_page()),
        "lagging": generated(urlsites.lagging_mirror()),
        # A large mirror, a twentieth of whose pages differ (as a page the judge misjudges
        # would): what a rule standing within SIMDEDUP_URL_RISK still avoids.
        "lagging5": generated(urlsites.lagging_mirror(articles=400, lagging=20)),
    }


def _kept(feed: Path, served: dict[str, str], contents: Contents) -> set[str]:
    by_host = {urlsplit(url).netloc: contents[name] for name, url in served.items()}
    kept = set()
    for line in feed.read_text("utf-8").splitlines() if feed.exists() else []:
        split = urlsplit(json.loads(line)["url"])
        paths = by_host[split.netloc]
        found = paths.get(split.path + (f"?{split.query}" if split.query else ""))
        kept.add(found or paths[split.path])
    return kept


_BOUND = re.compile(
    r"mirrors \S+(?: \(the copy: .*?\))?: [\d,]+ samples?, [\d,]+ new: at most ([\d.]+)%"
)


def url_scenarios(rounds: int, only: list[str] | None = None, risk: float | None = None) -> None:
    """Per scenario: URL checks off (the content pipeline alone, which fetches what plain
    Scrapy fetches) against adaptive, in the same round. ``lost``: distinct pages the
    crawl without URL checks kept and adaptive did not; ``per 1k``: distinct pages kept per
    1,000 requests (under a budget, the plugin must keep more). ``bound``: the largest
    bound the mirror rules in force stated at the end; ``differed``: lost over the requests
    the crawl without URL checks made and this one did not (a skip, or a page only a
    skipped page links)."""
    modes = {"off": ["-s", "SIMDEDUP_URL_MODE=off"], "adaptive": []}
    if risk is not None:
        modes[f"risk={risk:g}"] = ["-s", f"SIMDEDUP_URL_RISK={risk}"]
    print(f"\n{'scenario':>9} {'round':>5} {'mode':>9} {'requests':>9} {'MB':>6} {'seconds':>8} "
          f"{'dup.fetch':>9} {'skipped':>8} {'reissued':>8} {'kept':>5} {'per 1k':>7} "
          f"{'lost':>5} {'bound':>6} {'differed':>8}")  # fmt: skip
    for name, (serve, contents, settings, linked) in _scenarios().items():
        if only and name not in only:
            continue
        with serve() as served, tempfile.TemporaryDirectory() as folder:
            linked(served)
            for n in range(rounds):
                dropped: dict[str, int] = {}
                kept: dict[str, set[str]] = {}
                for mode, mode_settings in modes.items():
                    feed = Path(folder) / f"{mode}{n}.jsonl"
                    stats, log = crawl_with_log(list(served.values()), [
                        "-s", f"SIMDEDUP_DIR={folder}/{mode}{n}", "-o", f"{feed}:jsonl",
                        *mode_settings, *settings,
                    ])  # fmt: skip
                    dropped[mode] = int(stats.get("item_dropped_count", 0))  # type: ignore[call-overload]
                    count = {
                        kind: sum(
                            v for k, v in stats.items() if k.startswith(f"simdedup/url/{kind}/")
                        )  # type: ignore[misc]
                        for kind in ("skipped", "reissued")
                    }
                    kept[mode] = _kept(feed, served, contents)
                    lost = len(kept["off"] - kept[mode])
                    requests = int(stats["downloader/request_count"])  # type: ignore[call-overload]
                    if mode == "off":
                        requests_off = requests
                    bounds = [float(found) for found in _BOUND.findall(log)]
                    bound = f"{max(bounds):.1f}%" if bounds else "-"
                    unfetched = requests_off - requests if mode != "off" else 0
                    differed = f"{100 * lost / unfetched:.1f}%" if unfetched > 0 else "-"
                    print(
                        f"{name:>9} {n + 1:>5} {mode:>9} {requests:>9,} "
                        f"{int(stats['downloader/response_bytes']) / 2**20:>6.1f} "  # type: ignore[call-overload]
                        f"{float(stats['elapsed_time_seconds']):>8.1f} {dropped[mode]:>9,} "  # type: ignore[arg-type]
                        f"{count['skipped']:>8,} {count['reissued']:>8,} {len(kept[mode]):>5} "
                        f"{1000 * len(kept[mode]) / max(1, requests):>7.1f} {lost:>5} "
                        f"{bound:>6} {differed:>8}",
                        flush=True,
                    )
                if dropped["off"]:
                    for mode in list(modes)[1:]:
                        share = 1 - dropped[mode] / dropped["off"]
                        print(f"{name:>9} {n + 1:>5} {mode}: duplicate-only fetches avoided: "
                              f"{share:.0%}")  # fmt: skip


if __name__ == "__main__":
    main()
