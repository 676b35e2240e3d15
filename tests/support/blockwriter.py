"""Pages of a few templated hosts, and a process that judges them until it is killed.

``pages(count)`` is deterministic: each host's pages share its three template sentences
and have four sentences of random words of their own, so every page is new and its
template shows from the host's third page. ``python -m tests.support.blockwriter FOLDER``
judges them into the LevelDB index in ``FOLDER``, printing each page's key once its
verdict (and so its store writes) returned.
"""

from __future__ import annotations

import random
import sys

from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.judges.content import ContentJudge

HOSTS = ("https://shop.example/", "https://news.example/", "https://forum.example/")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _sentence(rng: random.Random, words: int = 9) -> str:
    return " ".join("".join(rng.choices(_LETTERS, k=rng.randint(3, 9))) for _ in range(words))


def pages(count: int) -> list[tuple[str, str]]:
    """``count`` pages as (key, text), the hosts taking turns."""
    templates = {
        host: [_sentence(random.Random(host + str(n))) for n in range(3)] for host in HOSTS
    }
    rng = random.Random(5)
    found = []
    for n in range(count):
        host = HOSTS[n % len(HOSTS)]
        own = [_sentence(rng) for _ in range(4)]
        lines = [templates[host][0], *own[:2], templates[host][1], *own[2:], templates[host][2]]
        found.append((f"{host}page/{n}", ".\n".join(lines) + "."))
    return found


def main() -> None:
    with open_index(sys.argv[1]) as index:
        judge = ContentJudge(index)
        print("ready", flush=True)
        for key, text in pages(100_000):
            verdict = judge.judge(text, key)
            assert verdict.original is None, verdict
            print(key, flush=True)


if __name__ == "__main__":
    main()
