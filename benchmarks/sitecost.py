"""CPU per fetched page: plain Scrapy against the plugin on a ~5,000-page nginx site.

Called by ``benchmarks/crawl.py --only site`` (and ``--profile PATH``). Each run is a fresh
``scrapy crawl`` process of the demo spider, writing a JSON-lines feed; the modes take
turns, round after round. A run's CPU comes from ``wait4`` (the crawl's process and the
children it reaped); the fingerprint helper's own CPU is the plugin's
``simdedup/helper/cpu_seconds`` stat, and is subtracted to give the crawl's process alone.
The all-new site has the same documents with no reprints and no parameters: nothing to
skip or drop, only the plugin's cost.
"""

from __future__ import annotations

import datetime
import json
import os
import pstats
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from benchmarks.attribution import report
from benchmarks.staticsite import StaticSite, nginx, write_site

ROOT = Path(__file__).resolve().parent.parent
PLAIN = ["-s", "ITEM_PIPELINES={}", "-s", "DOWNLOADER_MIDDLEWARES={}"]
CRAWL_TIMEOUT = 1800
_STATS = re.compile(r"Dumping Scrapy stats:\n(\{.*?\})\n(?=\d{4}-\d\d-\d\d |\Z)", re.S)


@dataclass(frozen=True)
class Run:
    """One crawl's figures."""

    fetched: int  # responses received
    seconds: float  # Scrapy's elapsed_time_seconds: the whole site
    cpu: float  # the crawl's process, seconds (start-up included)
    helper_cpu: float  # the fingerprint helper process, seconds
    new_pages: int  # pages the pipeline judged new (0 for plain Scrapy)
    kept: int  # items in the feed
    texts: frozenset[int]  # the distinct texts the feed holds

    @property
    def cpu_ms_per_page(self) -> float:
        return 1000 * self.cpu / max(1, self.fetched)

    @property
    def helper_ms_per_new_page(self) -> float:
        return 1000 * self.helper_cpu / max(1, self.new_pages)

    @property
    def pages_per_second(self) -> float:
        return self.fetched / max(1e-9, self.seconds)


def measured_crawl(
    url: str, settings: list[str], site: StaticSite, feed: Path, *,
    root: Path = ROOT, profile: Path | None = None,
) -> Run:  # fmt: skip
    """Crawl ``url`` in a fresh process and measure it (``profile``: under cProfile)."""
    profiler = ["-m", "cProfile", "-o", str(profile)] if profile else []
    command = [
        sys.executable, *profiler, "-m", "scrapy", "crawl", "pages", "-a", f"start_urls={url}",
        "-s", "LOG_LEVEL=INFO", "-o", f"{feed}:jsonl", *settings,
    ]  # fmt: skip
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(
            command, cwd=root / "demo_project", stdout=subprocess.DEVNULL, stderr=log,
            env={**os.environ, "PYTHONPATH": str(root)},
        )  # fmt: skip
        watchdog = threading.Timer(CRAWL_TIMEOUT, os.kill, (process.pid, signal.SIGKILL))
        watchdog.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            watchdog.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        text = log.read()
    match = _STATS.search(text)
    if process.returncode != 0 or match is None:
        raise RuntimeError(f"the crawl failed ({process.returncode}):\n{text[-3000:]}")
    stats = eval(match.group(1), {"datetime": datetime})  # Scrapy's own dump
    helper = float(stats.get("simdedup/helper/cpu_seconds", 0.0))
    return Run(
        fetched=int(stats.get("response_received_count", 0)),
        seconds=float(stats["elapsed_time_seconds"]),
        cpu=usage.ru_utime + usage.ru_stime - helper,
        helper_cpu=helper,
        new_pages=int(stats.get("simdedup/content/unique", 0)),
        kept=int(stats.get("item_scraped_count", 0)),
        texts=_texts(feed, site),
    )


def _texts(feed: Path, site: StaticSite) -> frozenset[int]:
    """The distinct texts in the feed (a reprint counts as its original)."""
    found = set()
    for line in feed.read_text("utf-8").splitlines() if feed.exists() else []:
        text = site.text_of(urlsplit(json.loads(line)["url"]).path)
        if text is not None:
            found.add(text)
    return frozenset(found)


MODES = {"plain": PLAIN, "plugin": []}
COMPONENTS = {
    "pipe": ["-s", "DOWNLOADER_MIDDLEWARES={}"],  # the content pipeline alone
    "urls": ["-s", "ITEM_PIPELINES={}"],  # the URL middleware alone
}
"""``--components``: each component alone, so their shares of the plugin's cost are read
from real crawls, without a profiler's distortion (the URL middleware alone learns nothing:
no verdicts reach it, so it skips nothing; on the all-new site there is nothing to skip)."""
EXPERIMENTS = {
    "shell": [
        "-s", 'ITEM_PIPELINES={"benchmarks.shell.ShellPipeline": 100}',
        "-s", 'DOWNLOADER_MIDDLEWARES={"benchmarks.shell.ShellMiddleware": 60}',
    ],
    "judged": [
        "-s", 'ITEM_PIPELINES={"benchmarks.judgehelper.HelperJudgedPipeline": 100}',
        "-s", "DOWNLOADER_MIDDLEWARES={}",
    ],
}  # fmt: skip
"""``--shell``: components hooked where the plugin's are, doing nothing (``shell.py``):
what Scrapy charges for hosting them, which no work inside the plugin can save.
``--judged``: the content judge in a helper process with an index of its own
(``judgehelper.py``), to set beside ``--components``' pipeline alone."""


def site_cost(
    rounds: int, before: Path | None = None, profile: Path | None = None, *,
    components: bool = False, settings: list[str] | None = None,
    experiments: tuple[str, ...] = (),
) -> None:  # fmt: skip
    """Rounds of plain, plugin (and the ``before`` checkout's plugin, with ``components``
    each component alone, and the ``experiments``) on the site with near-duplicates, then
    on the all-new site; medians and ratios against plain. ``settings``: ``-s`` flags for every
    crawl (``--setting``: how a Scrapy setting moves both)."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for label, near_duplicates in (("near-duplicates", True), ("all new", False))[
            : 2
            if rounds
            else 0  # --rounds 0: the profile alone
        ]:
            site = write_site(work / f"site-{near_duplicates}", near_duplicates=near_duplicates)
            pages = len(site.distinct) + len(site.reprints)
            print(f"\nThe {label} site: {pages:,} pages ({len(site.distinct):,} distinct, "
                  f"{len(site.reprints):,} reprints) served by nginx, {rounds} rounds")  # fmt: skip
            _rounds(
                site,
                work,
                rounds,
                before,
                components=components,
                settings=settings or [],
                experiments=experiments,
            )
        if profile is not None:
            _profile(work, profile)


def _rounds(
    site: StaticSite, work: Path, rounds: int, before: Path | None, *, components: bool,
    settings: list[str], experiments: tuple[str, ...] = (),
) -> None:  # fmt: skip
    modes = dict(MODES, **({"before": []} if before else {}), **(COMPONENTS if components else {}))
    modes.update((name, EXPERIMENTS[name]) for name in experiments)
    runs: dict[str, list[Run]] = {mode: [] for mode in modes}
    lost: dict[str, list[int]] = {mode: [] for mode in modes}  # texts plain Scrapy kept
    print("lost: texts plain Scrapy's feed held in the same round and this one's did not")
    print(f"{'round':>5} {'mode':>7} {'fetched':>8} {'kept':>6} {'lost':>5} {'seconds':>8} "
          f"{'pages/s':>8} {'CPU ms/page':>12} {'helper ms/new':>14}")  # fmt: skip
    with nginx(site.root) as url:
        for n in range(rounds):
            for mode, own in modes.items():
                store = ["-s", f"SIMDEDUP_DIR={work / f'{mode}-{n}-{id(site)}'}"]
                run = measured_crawl(
                    url, [*own, *settings, *store], site, work / f"{mode}-{n}-{id(site)}.jsonl",
                    root=before if mode == "before" and before else ROOT,
                )  # fmt: skip
                runs[mode].append(run)
                lost[mode].append(len(runs["plain"][-1].texts - run.texts))
                print(f"{n + 1:>5} {mode:>7} {run.fetched:>8,} {run.kept:>6,} {lost[mode][-1]:>5} "
                      f"{run.seconds:>8.1f} {run.pages_per_second:>8,.0f} "
                      f"{run.cpu_ms_per_page:>12.2f} {run.helper_ms_per_new_page:>14.3f}",
                      flush=True)  # fmt: skip
    plain = runs["plain"]
    base_cpu = statistics.median(r.cpu_ms_per_page for r in plain)
    base_seconds = statistics.median(r.seconds for r in plain)
    base_total = statistics.median(r.cpu + r.helper_cpu for r in plain)
    print("median (ratio to plain Scrapy's median in this run):")
    for mode, measured in runs.items():
        cpu = statistics.median(r.cpu_ms_per_page for r in measured)
        seconds = statistics.median(r.seconds for r in measured)
        helper = statistics.median(r.helper_ms_per_new_page for r in measured)
        total = statistics.median(r.cpu + r.helper_cpu for r in measured)
        print(f"  {mode:>7}: CPU {cpu:.2f} ms/fetched page ({cpu / base_cpu:.2f}x), "
              f"whole site {seconds:.1f} s ({seconds / base_seconds:.2f}x), "
              f"CPU in all, helper included, {total:.1f} s ({total / base_total:.2f}x), "
              f"{statistics.median(r.pages_per_second for r in measured):,.0f} pages/s, "
              f"helper {helper:.3f} ms/new page, lost at most {max(lost[mode])}")  # fmt: skip
    _paired(runs)


def _paired(runs: dict[str, list[Run]]) -> None:
    """The median of each round's ratios: a round's crawls run one after another, so the
    machine's slow and fast spells, which often last longer than a crawl, mostly cancel."""
    pairs = [(mode, "plain") for mode in runs if mode != "plain"]
    if "before" in runs:
        pairs.append(("plugin", "before"))
    print("median of the rounds' own ratios (CPU per fetched page, whole site, CPU in all):")
    for mode, base in pairs:
        rounds = list(zip(runs[mode], runs[base], strict=True))
        cpu = [run.cpu_ms_per_page / other.cpu_ms_per_page for run, other in rounds]
        wall = [run.seconds / other.seconds for run, other in rounds]
        total = [(run.cpu + run.helper_cpu) / (other.cpu + other.helper_cpu)
                 for run, other in rounds]  # fmt: skip
        print(f"  {mode:>7} / {base}: {statistics.median(cpu):.3f}x, "
              f"{statistics.median(wall):.3f}x, {statistics.median(total):.3f}x "
              f"(CPU per fetched page, round by round: "
              f"{', '.join(f'{x:.2f}' for x in cpu)})")  # fmt: skip


def _profile(work: Path, path: Path) -> None:
    """Where the plugin's time goes on the near-duplicate site: a plain and a plugin crawl
    with the plugin's entry points timed and the garbage collector apart
    (``attribution.py``, no profiler), then both under cProfile (``path`` and
    ``path.plain``), with the functions whose own time grew most against plain Scrapy's."""
    site = write_site(work / "site-True")
    plain_path = path.with_name(path.name + ".plain")
    with nginx(site.root) as url:
        _attribute(url, site, work)
        plain = measured_crawl(url, PLAIN, site, work / "p-plain.jsonl", profile=plain_path)
        run = measured_crawl(
            url, ["-s", f"SIMDEDUP_DIR={work / 'profiled'}"], site, work / "profiled.jsonl",
            profile=path,
        )  # fmt: skip
    print(f"\nProfiles written to {path} (plugin, {run.fetched:,} pages fetched) and "
          f"{plain_path} (plain Scrapy, {plain.fetched:,}); the helper process is not in "
          f"them ({run.helper_cpu:.1f} s of its own CPU). The plugin's functions by "
          "cumulative time:")  # fmt: skip
    stats = pstats.Stats(str(path))
    stats.sort_stats("cumulative").print_stats(r"scrapy_simdedup", 25)
    print(
        "Own time grown most against plain Scrapy (seconds, profiled; per fetched page "
        "the plugin fetches fewer):"
    )
    mine = _own_times(pstats.Stats(str(path)))
    theirs = _own_times(pstats.Stats(str(plain_path)))
    grown = sorted(mine, key=lambda f: mine[f] - theirs.get(f, 0.0), reverse=True)[:20]
    for function in grown:
        print(
            f"  {mine[function] - theirs.get(function, 0.0):+7.2f}  {mine[function]:7.2f}  "
            f"{function}"
        )


def _attribute(url: str, site: StaticSite, work: Path) -> None:
    figures, runs = [], []
    for mode, settings in (("plain", PLAIN), ("plugin", [])):
        out = work / f"attribution-{mode}.json"
        timed = [
            "-s", 'EXTENSIONS={"benchmarks.attribution.Attribution":0}',
            "-s", f"ATTRIBUTION_FILE={out}", "-s", f"SIMDEDUP_DIR={work / f'attributed-{mode}'}",
        ]  # fmt: skip
        runs.append(measured_crawl(url, [*settings, *timed], site, work / f"a-{mode}.jsonl"))
        figures.append(json.loads(out.read_text("utf-8")))
    print("\nWhere the plugin's CPU goes (one plain and one plugin crawl, no profiler):")
    report(figures[0], figures[1], (runs[0].fetched, runs[1].fetched), (runs[0].cpu, runs[1].cpu))


def _own_times(stats: pstats.Stats) -> dict[str, float]:
    table = stats.stats  # type: ignore[attr-defined]
    return {
        f"{Path(file).name}:{line}({name})": own
        for (file, line, name), (_, _, own, _, _) in table.items()
    }
