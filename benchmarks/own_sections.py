"""How often a mirror's section of its own is found, against the probability the docs state.

    python3 benchmarks/own_sections.py [--seeds 400] [--pages 300]

A mirror copies an original's docs (``/docs/<n>.html``). The mirror also has a section of its
own, linked only from ``m`` of its docs pages (a sidebar on some pages) or from its
``/about/`` page. The mirror rule is learned on the first docs copies; then the mirror's other
pages come, in random order, and the rule decides each: a sample is fetched (its links
followed: the section is found), a skip is not. Per ``m``, over ``--seeds`` orders, the share
of crawls that found the section, beside ``1 - (1 - 1/n) ** m`` with ``n`` the sampling
interval (``SIMDEDUP_URL_SAMPLE_EVERY``, 20) and beside the same rule without the
first-in-section sample (``baseline``: the learner as it was, every section alike). Offline
(the learner alone, as a crawl calls it), so it runs in seconds.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scrapy_simdedup.url.learner import UrlLearner  # noqa: E402
from scrapy_simdedup.url.parts import url_parts  # noqa: E402

ORIGINAL, MIRROR = "http://a.example", "http://m.example"


class Fetched(set[str]):
    def __call__(self, url: str) -> bool:
        return url in self


def _found(seed: int, pages: int, linking: int, about: bool, stratified: bool) -> bool:
    """Whether a crawl in the order of ``seed`` fetches a page that links the section."""
    rng = random.Random(seed)
    fetched = Fetched()
    learner = UrlLearner(None, fetched, min_evidence=3, sample_every=20)
    if not stratified:
        learner.decisions._first_in_section = lambda rule, parts: False  # type: ignore[method-assign]
    for n in range(6):  # the rule is learned on the first copies
        fetched.update({f"{ORIGINAL}/docs/{n}.html", f"{MIRROR}/docs/{n}.html"})
        learner.observe(
            url_parts(f"{MIRROR}/docs/{n}.html"), url_parts(f"{ORIGINAL}/docs/{n}.html")
        )
    rest = [f"/docs/{n}.html" for n in range(6, pages)] + ["/about/team.html"]
    rng.shuffle(rest)
    links = set(rng.sample(rest[:-1], linking)) if linking else set()
    if about:
        links = {"/about/team.html"}
    covered = {f"{ORIGINAL}{path}" for path in rest}
    for path in rest:
        decision = learner.decide(url_parts(f"{MIRROR}{path}"), covered)
        if path in links and not decision.skip:
            return True
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--pages", type=int, default=300)
    args = parser.parse_args()
    print(f"{'linked from':>24} {'stated':>7} {'found':>7} {'baseline':>9}")
    cases = [(f"{m} docs pages", m, False) for m in (1, 5, 20, 60)]
    cases.append(("the /about/ page", 0, True))
    for name, linking, about in cases:
        found = sum(_found(s, args.pages, linking, about, True) for s in range(args.seeds))
        base = sum(_found(s, args.pages, linking, about, False) for s in range(args.seeds))
        stated = 1.0 if about else 1 - (1 - 1 / 20) ** linking
        print(
            f"{name:>24} {stated:>7.0%} {found / args.seeds:>7.0%} {base / args.seeds:>9.0%}",
            flush=True,
        )


if __name__ == "__main__":
    main()
