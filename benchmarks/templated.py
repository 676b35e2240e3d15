"""Template-heavy pages: product pages and forum threads with long shared blocks.

Each site repeats a long block inside every page's main content (a shop's delivery terms, a
forum's rules), where no extractor can tell it from content; pages differ in a few fields
(name, price, SKU, a 30-word description; a thread's title and posts). True copies are the
same page on a mirror (another host, a line of its own added) and price-only variants of a
product (a fair near-duplicate). Generated from a seed: the same run, the same pages.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

_WORDS_TEXT = (
    "oak walnut steel linen wool cotton brass copper glass leather bamboo cedar maple slate "
    "marble velvet canvas pine ash birch clay stone rattan cork felt jute hemp silk resin "
    "chair table lamp shelf stool bench desk cabinet mirror rug vase bowl basket clock sofa "
    "bed crate tray frame hook rail drawer trunk bin cart screen easel ladder planter kettle "
    "soft sturdy light heavy narrow wide tall low round square curved straight polished "
    "matte glossy warm cool bright dark pale deep quiet bold simple ornate classic modern "
    "thread reply post question answer issue solved thanks update version install error "
    "config server client driver kernel module package build test release branch merge"
)
_WORDS = _WORDS_TEXT.split()


@dataclass(frozen=True)
class TemplatedPage:
    content: int  # pages with one content id are copies of each other
    url: str
    text: str


def _sentences(rng: random.Random, count: int, words: int) -> str:
    return " ".join(
        " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "." for _ in range(count)
    )


def templated_pages(products: int = 200, threads: int = 200, seed: int = 1) -> list[TemplatedPage]:
    """Distinct pages, then their copies (mirror pages and price-only variants), unshuffled."""
    rng = random.Random(seed)
    delivery = _sentences(rng, 25, 16)
    rules = _sentences(rng, 20, 15)
    pages: list[TemplatedPage] = []
    for n in range(products):
        name = " ".join(w.capitalize() for w in rng.sample(_WORDS, 3))
        body = f"{_sentences(rng, 3, 10)}\nDelivery & returns\n{delivery}"
        text = f"{name}\nPrice: {rng.randrange(5, 900)} EUR\nSKU {rng.randrange(10**6, 10**7)}"
        pages.append(TemplatedPage(n, f"https://shop.example/p/{n}", f"{text}\n{body}"))
        if n % 4 == 0:  # a variant: the same product at another price
            variant = text.replace("Price: ", "Price: 1")
            pages.append(TemplatedPage(n, f"https://shop.example/p/{n}?v=2", f"{variant}\n{body}"))
    for n in range(threads):
        title = " ".join(w.capitalize() for w in rng.sample(_WORDS, 5))
        posts = "\n".join(_sentences(rng, 3, 13) for _ in range(3))
        text = f"{title}\n{posts}\nForum rules\n{rules}"
        pages.append(TemplatedPage(products + n, f"https://forum.example/t/{n}", text))
    copies = [
        TemplatedPage(
            page.content, page.url.replace(".example/", "-mirror.example/"), _mirrored(page.text)
        )
        for page in pages[::3]
    ]
    return pages + copies


def _mirrored(text: str) -> str:
    return text + "\nMirrored by Example Mirror Network."
