"""Reprints by edit kind and a mirror with a live banner: the share of each row dropped.

    python3 benchmarks/reprint_quality.py [--before CHECKOUT] [--count 60] [--sets DIR] [--seed 1]

Each row of ``portal.py`` is judged by a real ContentSeenPipeline on a memory index, two
ways: as a stream (the stored pages first, then the row's pages in order: a portal's
template shows from its third page on) and fresh (each case in an index of its own). Copy
rows should be dropped (target: at least 97%, 95% for cut reprints), the rest kept (0
dropped). ``--before`` names a checkout of an earlier revision (``git worktree add
/tmp/before REV``): the same rows are judged by that revision's code in a subprocess, and
printed beside; the stores' seeds are drawn from one sequence (``--seed``) in both, so
that a row that differs differs by the code. The helper's CPU per judged page is printed
for both, and the crawl's process's per decision (the texts fingerprinted beforehand) on a
memory index and on a LevelDB folder, where the content judge's store work is a crawl's,
and on LevelDB for the template-heavy pages of ``templated.py``.

``--sets DIR`` (a folder holding clones of the two public sets ``realpages.py`` names)
adds real pages of real sites: reprints laid into other real sites' pages, per language
and per half of the sites ("tune", on which thresholds were chosen, and "held-out"). Copy
rows should be dropped (target: at least 95% on the held-out half), keep rows never.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CODE = os.environ.get("SIMDEDUP_BENCHMARK_CODE")  # the checkout judging, for --before
if CODE:
    sys.path.insert(0, CODE)
    import scrapy_simdedup  # noqa: F401  (from the checkout, before anything imports it)

    sys.path.remove(CODE)

from benchmarks import portal  # noqa: E402

COPY_TARGET = {"cut": 0.95, "typical cut": 0.95}
REAL_TARGET = 0.95


def judged(count: int) -> dict[str, dict[str, float]]:
    """Per row and mode ("stream", "fresh"): the share dropped; and "cpu_ms" per page."""
    from benchmarks.quality import Decider, stdlib_documents

    results: dict[str, dict[str, float]] = {}
    pages = 0
    started = time.process_time()
    for language, articles in (("zh", portal.chinese_news(count)),
                               ("en", portal.english_news(count))):  # fmt: skip
        rows = {name: make(articles) for name, make in portal.ROWS.items()}
        if language == "en":
            docs = [d for d in stdlib_documents() if len(d) >= 1500][:count]
            rows["mirror"] = portal.mirror_cases(docs)
        for name, cases in rows.items():
            results[f"{language} {name}"] = {
                "stream": _dropped(_stream(cases, Decider)),
                "fresh": _dropped([_fresh(case, Decider) for case in cases]),
            }
            pages += 2 * len(cases)
    results["cpu"] = {
        "ms_per_page": 1000 * (time.process_time() - started) / pages,
        "fingerprint_ms": _fingerprint_ms(count),
        "decide_ms": _decide_ms(count),
        "decide_leveldb_ms": _decide_ms(count, on_disk=True),
        "decide_templated_ms": _decide_templated_ms(),
    }
    return results


def _decide_ms(count: int, *, on_disk: bool = False) -> float:
    """CPU per page of the content judge's decision (the crawl's process's work), the
    texts fingerprinted beforehand: the originals, then the portal's typical reprints, on
    a memory index (``on_disk``: a LevelDB folder, as a crawl's); the median of 5 rounds."""
    from scrapy_simdedup.index.opening import open_index
    from scrapy_simdedup.judges.content import ContentJudge

    rounds = []
    for _ in range(5):
        pages = 0
        elapsed = 0.0
        with tempfile.TemporaryDirectory() as folder:
            for n, articles in enumerate((portal.chinese_news(count), portal.english_news(count))):
                with open_index(f"{folder}/{n}" if on_disk else "memory") as index:
                    judge = ContentJudge(index)
                    texts = [(f"{portal.NEWS_HOST}a/{i}", a.text) for i, a in enumerate(articles)]
                    texts += [c.page for c in portal.portal_cases(articles, "typical")]
                    done = [(key, judge.fingerprinted(text)) for key, text in texts]
                    started = time.process_time()
                    for key, fingerprinted in done:
                        judge.judge(fingerprinted, key)
                    elapsed += time.process_time() - started
                    pages += len(done)
        rounds.append(1000 * elapsed / pages)
    return sorted(rounds)[2]


def _decide_templated_ms() -> float:
    """``_decide_ms`` on LevelDB for template-heavy pages (``templated.py``: products and
    forum threads whose long shared blocks are their sites' templates, with copies),
    shuffled as ``quality.py`` feeds them."""
    import random

    from benchmarks.templated import templated_pages
    from scrapy_simdedup.index.opening import open_index
    from scrapy_simdedup.judges.content import ContentJudge

    pages = templated_pages(200, 200)
    random.Random(1).shuffle(pages)
    rounds = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as folder, open_index(f"{folder}/t") as index:
            judge = ContentJudge(index)
            done = [(page.url, judge.fingerprinted(page.text)) for page in pages]
            started = time.process_time()
            for key, fingerprinted in done:
                judge.judge(fingerprinted, key)
            rounds.append(1000 * (time.process_time() - started) / len(done))
    return sorted(rounds)[1]


def _fingerprint_ms(count: int) -> float:
    """Median CPU per page of ``fingerprinted`` (the helper process's work) on the rows'
    pages: 5 rounds over the typical reprints and the originals of both languages."""
    from scrapy_simdedup.fingerprint.fingerprinted import fingerprinted
    from scrapy_simdedup.index.opening import open_index

    texts = []
    for articles in (portal.chinese_news(count), portal.english_news(count)):
        texts += [a.text for a in articles]
        texts += [c.page[1] for c in portal.portal_cases(articles, "typical")]
    with open_index("memory") as index:
        tokenizer, seed = index.tokenizer, index.seed
        rounds = []
        for _ in range(5):
            started = time.process_time()
            for text in texts:
                fingerprinted(text, tokenizer, seed)
            rounds.append(1000 * (time.process_time() - started) / len(texts))
    return sorted(rounds)[2]


def _dropped(kept: list[bool]) -> float:
    return sum(not k for k in kept) / len(kept) if kept else 0.0


def _stream(cases: list[portal.Case], decider_type: type) -> list[bool]:
    decider = decider_type(3, 0.8)
    stored: set[str] = set()
    for case in cases:
        for key, text in case.stored:
            if key not in stored:
                stored.add(key)
                decider.keeps(key, text)
    kept = [decider.keeps(*case.page) for case in cases]
    decider.close()
    return kept


def _fresh(case: portal.Case, decider_type: type) -> bool:
    decider = decider_type(3, 0.8)
    for key, text in case.stored:
        decider.keeps(key, text)
    kept = decider.keeps(*case.page)
    decider.close()
    return kept


def fix_store_seeds(first: int) -> None:
    """New stores draw their seeds from one sequence starting at ``first``, in this process
    and in ``--before``'s: the rows of two revisions then differ by their code, not by the
    luck of their hashes (a row moves about 5 points from one random seed to another)."""
    import random
    import types

    from scrapy_simdedup.index import opening

    opening.secrets = types.SimpleNamespace(randbits=random.Random(first).getrandbits)  # type: ignore[assignment]


def before(checkout: Path, count: int, sets: str | None, seed: int) -> dict[str, dict[str, float]]:
    """``judged`` (and ``realpages.judged``) by the code of ``checkout``, in a subprocess."""
    env = {**os.environ, "SIMDEDUP_BENCHMARK_CODE": str(checkout.resolve())}
    command = [sys.executable, __file__, "--json", "--count", str(count), "--seed", str(seed)]
    command += ["--sets", sets] if sets else []
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True,
                         timeout=3600)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60, help="articles per language")
    parser.add_argument("--before", type=Path, help="a checkout of an earlier revision")
    parser.add_argument("--sets", help="a folder with clones of the real-page sets")
    parser.add_argument(
        "--seed", type=int, default=1, help="the first of the stores' seeds (the same for --before)"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    fix_store_seeds(args.seed)
    if args.json:
        import scrapy_simdedup

        print(f"judged by {scrapy_simdedup.__file__}", file=sys.stderr)
        print(json.dumps(_all_judged(args.count, args.sets)))
        return
    earlier = before(args.before, args.count, args.sets, args.seed) if args.before else None
    now = _all_judged(args.count, args.sets)
    real_now = now.pop("real", None)
    real_before = earlier.pop("real", None) if earlier else None
    head = f"{'row':22} {'should be':9} {'dropped: stream':>15} {'fresh':>6}"
    print(head + (f" {'before: stream':>15} {'fresh':>6}" if earlier else ""))
    for row, shares in now.items():
        if row == "cpu":
            continue
        kind = row.split(" ", 1)[1]
        should = "copy" if kind in (*portal.COPY_KINDS, "mirror") else (
            "either" if kind in portal.REPORT_KINDS else "kept")  # fmt: skip
        line = f"{row:22} {should:9} {shares['stream']:15.1%} {shares['fresh']:6.1%}"
        if earlier:
            old = earlier.get(row, {"stream": float("nan"), "fresh": float("nan")})
            line += f" {old['stream']:15.1%} {old['fresh']:6.1%}"
        target = COPY_TARGET.get(kind, 0.97)
        if should == "copy" and min(shares.values()) < target:
            line += f"  below {target:.0%}"
        if should == "kept" and max(shares.values()) > 0:
            line += "  DISTINCT PAGES DROPPED"
        print(line)
    cpu = f"judging CPU per page (pipeline, store and all): {now['cpu']['ms_per_page']:.2f} ms"
    if earlier:
        cpu += f" (before: {earlier['cpu']['ms_per_page']:.2f} ms)"
    print(cpu)
    for name, what in (("fingerprint_ms", "fingerprinting (the helper's work)"),
                       ("decide_ms", "deciding (the crawl's process)"),
                       ("decide_leveldb_ms", "deciding on LevelDB"),
                       ("decide_templated_ms", "deciding templated pages on LevelDB")):  # fmt: skip
        line = f"{what} per page: {now['cpu'][name]:.3f} ms"
        if earlier and name in earlier["cpu"]:
            line += f" (before: {earlier['cpu'][name]:.3f} ms)"
        print(line)
    if real_now is not None:
        _print_real(real_now, real_before)


def _all_judged(count: int, sets: str | None) -> dict[str, Any]:
    results: dict[str, Any] = dict(judged(count))
    if sets:
        from benchmarks import realpages
        from benchmarks.quality import Decider

        results["real"] = realpages.judged(sets, Decider)
    return results


Rows = dict[str, dict[str, float]]


def _print_real(now: Rows, earlier: Rows | None) -> None:
    from benchmarks import realpages

    print()
    print("real pages (reprints laid into other real sites' pages; thresholds chosen on 'tune')")
    head = f"{'language half row':28} {'should be':9} {'pages':>5} {'dropped':>8}"
    print(head + (f" {'before':>8}" if earlier else ""))
    for row, shares in now.items():
        if row == "cpu":
            continue
        kind = row.split(" ", 2)[2]
        should = "copy" if kind in realpages.COPY_ROWS else "kept"
        line = f"{row:28} {should:9} {shares['pages']:5.0f} {shares['dropped']:8.1%}"
        if earlier and row in earlier:
            line += f" {earlier[row]['dropped']:8.1%}"
        if should == "copy" and "held-out" in row and shares["dropped"] < REAL_TARGET:
            line += f"  below {REAL_TARGET:.0%}"
        if should == "kept" and shares["dropped"] > 0:
            line += "  DISTINCT PAGES DROPPED"
        print(line)
    for name, what in (("extract_ms", "main-content extraction (the crawl's process)"),
                       ("fingerprint_ms", "fingerprinting (the helper's work)")):  # fmt: skip
        line = f"{what} per real page: {now['cpu'][name]:.3f} ms"
        if earlier and name in earlier.get("cpu", {}):
            line += f" (before: {earlier['cpu'][name]:.3f} ms)"
        print(line)


if __name__ == "__main__":
    main()
