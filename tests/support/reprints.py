"""Pages and their reprints that SimHash puts more than k bits apart: only their shared
sentences (nshash) tell the judge that one copies the other. Deterministic, no corpus
beyond the Language Reference topics that ship with Python."""

from __future__ import annotations

import random
import re
from functools import cache

from benchmarks.corpora import english_articles


@cache
def vocabulary() -> tuple[str, ...]:
    """The words of the Language Reference topics, four letters or more."""
    words = {
        w.lower() for text in english_articles(2000) for w in re.findall(r"[A-Za-z]{4,}", text)
    }
    return tuple(sorted(words))


def page(rng: random.Random) -> str:
    """Eight sentences of 14-22 words: a short page, so a few edits move its SimHash."""
    words = vocabulary()
    sentences = (
        " ".join(rng.choice(words) for _ in range(rng.randint(14, 22))).capitalize() + "."
        for _ in range(8)
    )
    return "\n".join(sentences)


def reprint(text: str, rng: random.Random) -> str:
    """``text`` retitled and signed, with one word changed in two of its sentences."""
    lines = text.split("\n")
    for at in rng.sample(range(len(lines)), 2):
        words = lines[at].split()
        words[rng.randrange(len(words))] = rng.choice(vocabulary())
        lines[at] = " ".join(words)
    return "Reprinted today\n" + "\n".join(lines) + "\nEdited by the desk."


def pairs(count: int, seed: int = 5) -> list[tuple[str, str]]:
    """``count`` (page, reprint) pairs, the same ones on every call."""
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        text = page(rng)
        made.append((text, reprint(text, rng)))
    return made
