"""The shared crawl-cost site's pages replayed through the content judge: the decision's cost
per page, as a distribution, and the copies it kept.

    python3 benchmarks/sitereplay.py [--site DIR] [--pages 3000] [--before CHECKOUT] [--rounds 3]

``../shared/bench/`` builds the site (its README says how; ``run_crawl.py`` generates it in
``/tmp/simdedup_site/www`` on its first run). Each page's text is what its bench spider
yields (the text of the page's ``<p>`` elements, joined by spaces), judged in page order
by ``ContentJudge`` on a LevelDB folder, the texts fingerprinted beforehand (the helper's
work in a crawl): what is timed is ``ContentJudge.decide``, the crawl's process's work,
per call (``time.perf_counter``). The site's near-duplicates are its pages whose text, its
"generated at ..., view #N" banner left out, is an earlier page's; a near-duplicate kept is
a copy the judge missed, counted apart where the banner joins the page's last sentence
(the spider joins the paragraphs, and a last paragraph without a full stop takes it in).
A page dropped whose text is no earlier page's is a distinct page lost.

``--before`` names a checkout of an earlier revision (``git worktree add /tmp/before
REV``): the same pages are judged by its code in a subprocess, in turn with this one's,
round after round, and printed beside; the store's seed is the same.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = os.environ.get("SIMDEDUP_BENCHMARK_CODE")  # the checkout judging, for --before
sys.path.insert(0, str(ROOT))
from benchmarks.distribution import percentiles  # noqa: E402  (this checkout's, whatever judges)

if CODE:
    sys.path.insert(0, CODE)  # the package judged is the checkout's

SITE = Path(tempfile.gettempdir()) / "simdedup_site" / "www"
SEED = 1
_BANNER = re.compile(r"\s*generated at [^\n]*$")
_JOINED = re.compile(r"[.!?。！？]\s*generated at ")


def site_texts(site: Path, pages: int) -> list[tuple[str, str]]:
    """(URL, text) of the site's first ``pages`` pages, as the bench spider reads them."""
    from lxml import html

    folder = site / "p"
    if not folder.is_dir():
        raise SystemExit(
            f"no site in {site}: build it with `python3 ../shared/bench/crawl/run_crawl.py "
            "--runs 0` (see ../shared/bench/README.md), or name it with --site"
        )
    texts = []
    for name in sorted(os.listdir(folder))[:pages]:
        root = html.fromstring((folder / name).read_bytes())
        found = root.xpath("//body//p//text()")
        text = " ".join(str(part) for part in found) if isinstance(found, list) else ""
        texts.append((f"http://127.0.0.1/p/{name}", text))
    return texts


@dataclass(frozen=True)
class Replay:
    """Each page judged, in page order: its key, ``decide``'s time (s), and its verdict."""

    keys: list[str]
    seconds: list[float]
    dropped: list[bool]


def judged(texts: list[tuple[str, str]]) -> Replay:
    """The pages of ``texts`` judged one after another (those with no text left out)."""
    from scrapy_simdedup.index.opening import open_index
    from scrapy_simdedup.judges.content import ContentJudge

    with tempfile.TemporaryDirectory() as folder, open_index(f"{folder}/db", seed=SEED) as index:
        judge = ContentJudge(index)
        done = [(key, judge.fingerprinted(text)) for key, text in texts if text.strip()]
        seconds, dropped = [], []
        for key, fingerprinted in done:
            started = time.perf_counter()
            verdict = judge.decide(fingerprinted, key)
            seconds.append(time.perf_counter() - started)
            dropped.append(verdict.copy)
    return Replay([key for key, _ in done], seconds, dropped)


def copies(texts: list[tuple[str, str]], replay: Replay) -> dict[str, int]:
    """Near-duplicates (banner joined to the last sentence or not) and how many were kept;
    distinct pages dropped."""
    dropped = dict(zip(replay.keys, replay.dropped, strict=True))
    seen: set[str] = set()
    counts = dict.fromkeys(("joined", "joined_kept", "apart", "apart_kept", "distinct_lost"), 0)
    for key, text in texts:
        if key not in dropped:
            continue
        body = _BANNER.sub("", text)
        if body not in seen:
            seen.add(body)
            counts["distinct_lost"] += dropped[key]
            continue
        kind = "joined" if not _JOINED.search(text) else "apart"
        counts[kind] += 1
        counts[f"{kind}_kept"] += not dropped[key]
    return counts


def one_round(site: Path, pages: int, checkout: Path | None) -> dict[str, dict[str, float]]:
    """A round judged here, or by ``checkout``'s code in a subprocess: ``time``, the
    decision's percentiles in microseconds; ``copies``, as ``copies`` counts them."""
    if checkout is None:
        texts = site_texts(site, pages)
        replay = judged(texts)
        counted = {name: float(n) for name, n in copies(texts, replay).items()}
        return {"time": percentiles(replay.seconds), "copies": counted}
    env = {**os.environ, "SIMDEDUP_BENCHMARK_CODE": str(checkout.resolve())}
    command = [sys.executable, __file__, "--json", "--site", str(site), "--pages", str(pages)]
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True,
                         timeout=3600)  # fmt: skip
    found: dict[str, dict[str, float]] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=SITE, help="the shared site's www folder")
    parser.add_argument("--pages", type=int, default=3000, help="its first pages, in order")
    parser.add_argument("--before", type=Path, help="a checkout of an earlier revision")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each code, in turn")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(one_round(args.site, args.pages, None)))
        return
    codes: list[tuple[str, Path | None]] = [("now", None)]
    if args.before:
        codes.append(("before", args.before))
    for round_ in range(1, args.rounds + 1):
        for name, checkout in codes:
            found = one_round(args.site, args.pages, checkout)
            took, kept = found["time"], {k: int(n) for k, n in found["copies"].items()}
            print(
                f"round {round_} {name:6} decide us: mean {took['mean']:.0f}, p50 "
                f"{took['p50']:.0f}, p90 {took['p90']:.0f}, p99 {took['p99']:.0f}, max "
                f"{took['max']:.0f} | near-duplicates kept: {kept['joined_kept']} of "
                f"{kept['joined']} with the banner in their last sentence, "
                f"{kept['apart_kept']} of {kept['apart']} apart | distinct pages dropped: "
                f"{kept['distinct_lost']}"
            )


if __name__ == "__main__":
    main()
