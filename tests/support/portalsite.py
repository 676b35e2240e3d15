"""Sites for the reprint crawls of issue 33, built with ``benchmarks/portal.py``'s pages.

The texts are the benchmark's (Chinese news of the People's Daily, English documents of the
standard library, the same edits), so a crawl and the benchmark judge the same kinds of
page; here each text becomes an HTML page served on 127.0.0.1:

* ``news_and_portal``: a news site and a portal that reprints it, each reprint with one
  kind of edit (new title, editor line, a few characters, the portal's chrome, all of these,
  paragraphs cut), and merged pages that add an article the news site lacks. The portal's
  chrome sits inside the article block, where a spider that yields the article meets it.
* ``DocsAndMirror``: documentation pages and a mirror whose banner and footer carry a
  timestamp, a visit counter and a request id made afresh for every request.
* ``shop_category`` and ``digests``: one page listing many whole pages, crawled first,
  then each listed page on its own.

A copying site's index answers once its source was served in full (``Gate``): the crawl
meets the originals first, as a crawler usually does, whatever Scrapy's scheduling. Each
page of the news site and the portal records which paragraphs it holds (article,
paragraph), so a test can check that a feed lost none. Paths have two segments
(``/a/3.html``): content pages, to the URL middleware.
"""

from __future__ import annotations

import html
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from benchmarks.portal import Article, chinese_news, english_news, mirror_banner, reprint
from tests.support.responses import send_html
from tests.support.shop import delivery_block, products

Answer = Callable[[str], "str | None"]
"""A site: path -> its HTML, or None for a 404."""

COPY_KINDS = ("new title", "editor line", "characters", "chrome", "typical")
"""The edits that leave a reprint a copy of its original (``benchmarks/portal.py``)."""
CHROME_KINDS = ("chrome", "typical", "typical cut")  # two chrome lines above the title
CUT_KINDS = ("cut", "typical cut")
COPIES_PER_KIND = 3
MERGED = 2
DOCS = 20
PRODUCTS = 20
DIGEST_SIZE = 6
NEWS_SITE = "http://news.invalid"  # in the portal's links: the news site's URL, once served
GATE_WAIT = 30.0
"""Seconds a copying site's index waits for its source to be served in full."""


class Gate:
    """Opens once a site served every path of ``paths``: a copying site's index waits for
    it (``wait``, at most ``GATE_WAIT`` seconds), so the crawl meets the originals first, as
    a crawler usually does. ``waited_in_vain`` says whether a wait ran out."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = frozenset(paths)
        self._served: set[str] = set()
        self._lock = threading.Lock()
        self._open = threading.Event()
        self.waited_in_vain = False

    def served(self, path: str) -> None:
        with self._lock:
            self._served.add(path)
            if self._served >= self.paths:
                self._open.set()

    def wait(self) -> None:
        if not self._open.wait(GATE_WAIT):
            self.waited_in_vain = True

    def source(self, answer: Answer) -> Answer:
        """``answer``, counting what it served."""

        def counted(path: str) -> str | None:
            self.served(path)
            return answer(path)

        return counted

    def copier(self, answer: Answer) -> Answer:
        """``answer``, whose index waits for the gate."""

        def waiting(path: str) -> str | None:
            if path == "/":
                self.wait()
            return answer(path)

        return waiting


@cache
def articles(language: str, count: int) -> tuple[Article, ...]:
    """``count`` articles of the benchmark's news: "chinese" or "english"."""
    return tuple(chinese_news(count) if language == "chinese" else english_news(count))


@cache
def documents(count: int = DOCS) -> tuple[str, ...]:
    """The documentation pages of the benchmark's mirror row (stdlib docs of 1,500+ chars)."""
    from benchmarks.quality import stdlib_documents

    return tuple([d for d in stdlib_documents() if len(d) >= 1500][:count])


def page_html(site: str, lines: Sequence[str], heading: int = 0, links: Sequence[str] = ()) -> str:
    """An article page: ``lines`` (the page's text, line by line) in ``<article>``, line
    ``heading`` its ``<h1>``; the site's own header, menu and footer around it."""
    body = "".join(
        f"<h1>{html.escape(line)}</h1>" if at == heading else f"<p>{html.escape(line)}</p>"
        for at, line in enumerate(lines)
    )
    menu = "".join(f"<li><a href='{link}'>{link}</a></li>" for link in ("/", *links))
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(lines[heading])}"
        f"</title></head><body><header>{site}</header><nav><ul>{menu}</ul></nav>"
        f"<main><article>{body}</article></main><footer>{site} 2026</footer></body></html>"
    )


def index_html(site: str, links: Sequence[str]) -> str:
    """A page of links only: no text of its own, so the spider yields no item for it."""
    listing = "".join(f"<li><a href='{link}'>{link}</a></li>" for link in links)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{site}</title></head>"
        f"<body><nav><ul>{listing}</ul></nav></body></html>"
    )


Paragraphs = frozenset[tuple[int, int]]


@dataclass
class Reprinted:
    """A news site, a portal that reprints it, and what each page holds.

    ``texts`` and ``holds`` are keyed by (site, path), site "news" or "portal"; ``texts`` is
    the page's text as ``benchmarks/portal.py`` made it (what the spider should read).
    """

    pages: dict[str, dict[str, str]] = field(default_factory=lambda: {"news": {}, "portal": {}})
    texts: dict[tuple[str, str], str] = field(default_factory=dict)
    holds: dict[tuple[str, str], Paragraphs] = field(default_factory=dict)
    copies: list[tuple[str, str, str]] = field(default_factory=list)
    """(kind, the original's path, its reprint's path): reprints that add nothing."""
    cuts: list[tuple[str, str, str, bool]] = field(default_factory=list)
    """(kind, the full original's path, its cut reprint's path, whether the news index lists
    the original: else only the cut reprint links it, and the crawl meets it second)."""
    merged: list[str] = field(default_factory=list)
    """The portal's pages that merge an original with an article the news site lacks."""
    gate: Gate = field(default_factory=lambda: Gate(()))
    """Opens once the news site served every page its index lists."""
    news_url: str = ""
    """Where the news site is served (``serve_reprinted``): the portal's links lead there."""

    def add(self, site: str, path: str, text: str, holds: Paragraphs, **page: Any) -> None:
        self.pages[site][path] = page_html(site, text.split("\n"), **page)
        self.texts[site, path] = text
        self.holds[site, path] = holds

    def portal_page(self, path: str) -> str | None:
        page = self.pages["portal"].get(path)
        return page and page.replace(NEWS_SITE, self.news_url.rstrip("/"))


@contextmanager
def serve_reprinted(site: Reprinted) -> Iterator[dict[str, str]]:
    """The news site and the portal until the block ends; the portal's index answers once
    the gate is open. Yields name -> URL."""
    news, portal = site.gate.source(site.pages["news"].get), site.gate.copier(site.portal_page)
    with serve({"news": news, "portal": portal}) as urls:
        site.news_url = urls["news"]
        yield urls


def news_and_portal(language: str, seed: int = 1) -> Reprinted:
    """Originals on the news site; on the portal, ``COPIES_PER_KIND`` reprints of each copy
    kind, two cut reprints of each ``CUT_KINDS`` (one whose full original the news index
    lists, one whose full original only the reprint links, as its source), and ``MERGED``
    pages merging an original with an article found nowhere else. The portal's index
    answers once the news index's pages were served: its pages come second."""
    kinds = [(k, True) for k in COPY_KINDS for _ in range(COPIES_PER_KIND)]
    kinds += [(k, listed) for listed in (True, False) for k in CUT_KINDS]
    news = list(articles(language, len(kinds) + 2 * MERGED))
    rng = random.Random(seed)
    site = Reprinted()
    unlisted = []
    for i, (kind, listed) in enumerate(kinds):
        article = news[i]
        original, copy = f"/a/{i}.html", f"/n/{1000 + i}.shtml"
        site.add("news", original, article.text, _all(i, article))
        text = reprint(article, news, kind, rng)
        lines = text.split("\n")
        held = frozenset((i, j) for j, p in enumerate(article.paragraphs) if p in lines)
        if kind in ("characters", "typical"):
            held = _all(i, article)  # every paragraph, a few of them edited
        heading = 2 if kind in CHROME_KINDS else 0
        source = (f"{NEWS_SITE}{original}",)  # a portal names its source
        site.add("portal", copy, text, held, heading=heading, links=source)
        if kind in CUT_KINDS:
            site.cuts.append((kind, original, copy, listed))
        else:
            site.copies.append((kind, original, copy))
        if not listed:
            unlisted.append(original)
    for m in range(MERGED):
        at = len(kinds) + 2 * m
        first, second = news[at], news[at + 1]
        site.add("news", f"/a/{at}.html", first.text, _all(at, first))
        merged = f"/m/{m}.shtml"
        both = _all(at, first) | _all(at + 1, second)
        site.add("portal", merged, f"{first.text}\n{second.text}", both)
        site.merged.append(merged)
    listing = sorted(set(site.pages["news"]) - set(unlisted))
    site.gate = Gate(listing)
    site.pages["news"]["/"] = index_html("news", listing)
    site.pages["portal"]["/"] = index_html("portal", sorted(site.pages["portal"]))
    return site


def _all(number: int, article: Article) -> Paragraphs:
    return frozenset((number, j) for j in range(len(article.paragraphs)))


class DocsAndMirror:
    """Documentation pages and their mirror, each page of which is made for its request.

    The mirror wraps every page in ``mirror_banner``'s banner and footer (a timestamp, a
    visit counter, a request id), drawn afresh per request, inside the page's text as in
    the benchmark's mirror row (no ``<header>`` or ``<footer>`` for an extractor to drop).
    Its index answers once the gate is open: every docs page was served.
    """

    def __init__(self, count: int = DOCS, seed: int = 1) -> None:
        self.texts: dict[str, str] = {}
        for i, document in enumerate(documents(count)):
            lines = (" ".join(line.split()) for line in document.split("\n"))
            self.texts[f"/d/{i}.html"] = "\n".join(line for line in lines if line)
        self.paths = list(self.texts)
        self.docs = {"/": index_html("docs", self.paths)}
        for at, path in enumerate(self.paths):
            following = self.paths[at + 1 : at + 2]  # a docs page links the next one
            self.docs[path] = page_html("docs", self.texts[path].split("\n"), 0, following)
        self.gate = Gate(self.paths)
        self.mirror_fetched: list[str] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def answers(self) -> dict[str, Answer]:
        return {"docs": self.gate.source(self.docs.get), "mirror": self.gate.copier(self._mirror)}

    def _mirror(self, path: str) -> str | None:
        if path not in self.texts:
            return self.docs.get(path)
        with self._lock:
            banner, footer = mirror_banner(self._rng, path)
            self.mirror_fetched.append(path)
        page = self.docs[path].replace("<main>", f"<div class='mirror'><p>{banner}</p></div><main>")
        return page.replace("</main>", f"</main><div class='mirror'><p>{footer}</p></div>")


def shop_category(delivery: bool, seed: int = 7) -> dict[str, str]:
    """``/c/all`` lists ``PRODUCTS`` products of the template shop (``tests/support/shop.py``)
    with their whole descriptions, and links each product's page ``/p/N``; a product page
    shows one of them, with the shop's 400-word delivery block when ``delivery``."""
    catalogue = products(seed)[:PRODUCTS]
    block = delivery_block(random.Random(seed + 1)) if delivery else ""
    pages = {}
    listing = []
    for n, product in enumerate(catalogue):
        lines = [product["name"], f"Price: {product['price']} EUR", product["sku"],
                 product["description"]]  # fmt: skip
        listing += lines
        shown = [*lines, "Delivery & returns", block] if delivery else lines
        pages[f"/p/{n}"] = page_html("Home Goods Shop", shown)
    pages["/c/all"] = page_html(
        "Home Goods Shop", ["All products", *listing], 0, [f"/p/{n}" for n in range(PRODUCTS)]
    )
    return pages


def digests(language: str, count: int = 2) -> dict[str, str]:
    """``count`` digests ``/digest/N`` of ``DIGEST_SIZE`` whole articles each, linking each
    article's own page ``/a/N.html``."""
    news = articles(language, count * DIGEST_SIZE)
    pages = {}
    for d in range(count):
        group = range(d * DIGEST_SIZE, (d + 1) * DIGEST_SIZE)
        lines = ["Today's news" if language == "english" else "今日要闻"]
        for n in group:
            lines += news[n].text.split("\n")
            pages[f"/a/{n}.html"] = page_html("news", news[n].text.split("\n"))
        pages[f"/digest/{d}.html"] = page_html("news", lines, 0, [f"/a/{n}.html" for n in group])
    return pages


def _handler(answer: Answer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = answer(self.path)
            if body is None:
                self.send_error(404)
                return
            send_html(self, body.encode("utf-8"))

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve(sites: dict[str, Answer]) -> Iterator[dict[str, str]]:
    """Each site on its own free loopback port until the block ends; yields name -> URL."""
    servers = {name: ThreadingHTTPServer(("127.0.0.1", 0), _handler(answer))
               for name, answer in sites.items()}  # fmt: skip
    for server in servers.values():
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield {name: f"http://127.0.0.1:{s.server_address[1]}/" for name, s in servers.items()}
    finally:
        for server in servers.values():
            server.shutdown()
            server.server_close()
