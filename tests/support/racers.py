"""Workers racing on one shared index: each adds the same pages, altered by one bit.

``race(url, workers, pages)`` starts the workers as processes at one moment and checks that
exactly ``pages`` were kept in total and that the index is consistent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from scrapy_simdedup import open_index
from tests.support import processes

ROOT = Path(__file__).resolve().parent.parent.parent

# Each worker feeds its own 1-bit-altered copy of the same pages, in the same order, from the
# same moment on; it prints how many it kept.
_WORKER = textwrap.dedent(
    """
    import random, sys, time
    from scrapy_simdedup import open_index
    url, worker, pages, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    rng = random.Random(7)
    fingerprints = [rng.getrandbits(64) for _ in range(pages)]
    with open_index(url, prefix="race") as index:
        while time.time() < start:
            time.sleep(0.001)
        kept = 0
        for n, fp in enumerate(fingerprints):
            kept += index.query_or_add(fp ^ (1 << worker), f"w{worker}/page/{n}").added
    print(kept)
    """
)


def race(url: str, workers: int, pages: int) -> None:
    start = time.time() + 3
    racers = [
        processes.popen(
            [sys.executable, "-c", _WORKER, url, str(w), str(pages), str(start)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for w in range(workers)
    ]
    kept = [int(p.communicate(timeout=600)[0]) for p in racers]
    assert all(p.returncode == 0 for p in racers)
    assert sum(kept) == pages
    with open_index(url, prefix="race") as index:
        assert len(index) == pages
        assert index.verify().consistent


# Each worker judges one side of every pair (the pages, or their reprints), each pair at the
# same moment as the other worker (20 ms apart); it prints the numbers of the pairs it kept.
_JUDGE = textwrap.dedent(
    """
    import json, sys, time
    from scrapy_simdedup import open_index
    from scrapy_simdedup.judges.content import ContentJudge
    from tests.support.reprints import pairs
    url, side, seed, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    chosen = [int(n) for n in sys.argv[5].split(",")]
    made = pairs(max(chosen) + 1)
    with open_index(url, prefix="judges", seed=seed) as index:
        judge = ContentJudge(index)
        texts = [(n, judge.fingerprinted(made[n][side])) for n in chosen]
        kept = []
        for k, (n, done) in enumerate(texts):  # each pair met at one moment by both
            while time.time() < start + k * 0.02:
                time.sleep(0.0005)
            if not judge.decide(done, f"https://{side}.example/{n}").copy:
                kept.append(n)
    print(json.dumps(kept))
    """
)


def judge_race(url: str, chosen: list[int], seed: int) -> list[int]:
    """Two workers judge the pages and the reprints of the ``chosen`` pairs at once; how
    many of each pair were kept, in ``chosen``'s order."""
    start = time.time() + 3
    racers = [
        processes.popen(
            [
                sys.executable,
                "-c",
                _JUDGE,
                url,
                str(side),
                str(seed),
                str(start),
                ",".join(map(str, chosen)),
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for side in (0, 1)
    ]
    kept = [json.loads(p.communicate(timeout=600)[0]) for p in racers]
    assert all(p.returncode == 0 for p in racers)
    return [sum(n in side for side in kept) for n in chosen]
