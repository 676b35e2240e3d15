"""Small sites whose URLs tempt the URL middleware: a forum with removed posts, shops on
one platform, a mirror whose original fails, a news site that grows between crawls.

Each site maps a path to a ``Page``; ``serve`` runs them on 127.0.0.1 with per-page
status codes and delays. Every page carries a content id: pages with one id are copies,
so a crawl that loses nothing keeps one page per id.
"""

from __future__ import annotations

import datetime
import html
import itertools
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.responses import send_html

WORDS = (  # noqa: SIM905
    "river stone window garden letter market winter signal copper harbour lantern meadow "
    "orchard pepper ribbon saddle timber velvet walnut yellow anchor basket candle dragon "
    "engine feather glacier hammer island jacket kettle ladder marble needle oyster pillow "
    "quartz rocket shadow tunnel umbrella violin whistle zipper bridge castle dancer eagle "
    "forest guitar hollow insect jungle kitten lemon mirror nickel ocean parrot rabbit"
).split()


@dataclass
class Page:
    content: str  # pages with the same content id are copies
    title: str
    body: str
    links: tuple[str, ...] = ()
    status: int = 200
    delay: float = 0.0  # seconds before answering
    moved_to: str | None = None  # a 301 to this path


@dataclass
class Site:
    pages: dict[str, Page] = field(default_factory=dict)
    walled_after: int | None = None  # requests answered before every page is a bot wall
    shell_prefix: str | None = None  # paths answered with an empty app shell
    banner: bool = False  # a banner with the time and a request number, new per request
    served: itertools.count[int] = field(default_factory=itertools.count)

    def distinct(self) -> set[str]:
        return {page.content for page in self.pages.values() if page.status == 200}


def prose(seed: str, words: int = 160) -> str:
    """Distinct text for ``seed``: long enough for a SimHash, far from every other seed."""
    rng = random.Random(seed)
    sentences = []
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14))) + ".")
    return " ".join(sentences).capitalize()


def page(content: str, links: tuple[str, ...] = (), **options: object) -> Page:
    """A page whose text is ``prose(content)``: same content id, same text."""
    return Page(content, content.replace("-", " ").title(), prose(content), links, **options)  # type: ignore[arg-type]


def render(site: str, path: str, page: Page) -> bytes:
    links = "".join(f'<li><a href="{html.escape(h)}">{html.escape(h)}</a></li>' for h in page.links)
    return (
        f"<!doctype html><html><head><title>{html.escape(page.title)}</title></head><body>"
        f"<header>{html.escape(site)}</header><main><h1>{html.escape(page.title)}</h1>"
        f"<p>{html.escape(page.body)}</p></main><ul>{links}</ul></body></html>"
    ).encode()


def _handler(name: str, site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            pages = site.pages  # a test may grow the site between crawls
            found = pages.get(self.path) or pages.get(self.path.split("?", 1)[0])
            if found is None:
                self.send_error(404)
                return
            if found.delay:
                time.sleep(found.delay)
            if found.moved_to is not None:
                self.send_response(301)
                self.send_header("Location", found.moved_to)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if found.status != 200:
                with suppress(OSError):
                    self.send_error(found.status)
                return
            walled = site.walled_after is not None and next(site.served) >= site.walled_after
            if walled or (site.shell_prefix and self.path.startswith(site.shell_prefix)):
                send_html(self, BOT_WALL if walled else APP_SHELL)
                return
            page = render(name, self.path, found)
            if site.banner:
                now = datetime.datetime.now()
                served = f"Mirrored copy, served {now:%H:%M:%S.%f} as no. {next(site.served)}"
                page = page.replace(b"<header>", f"<header><div>{served}</div>".encode(), 1)
            send_html(self, page)  # a timeout test gives up on it

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve(sites: dict[str, Site]) -> Iterator[dict[str, str]]:
    """Serve each site on its own free loopback port; yields name -> base URL."""
    servers = {
        name: ThreadingHTTPServer(("127.0.0.1", 0), _handler(name, site))
        for name, site in sites.items()
    }
    for server in servers.values():
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield {name: f"http://127.0.0.1:{s.server_address[1]}/" for name, s in servers.items()}
    finally:
        for server in servers.values():
            server.shutdown()
            server.server_close()


BOT_WALL = (
    b"<!doctype html><html><head><title></title><script>document.cookie='c=1';"
    b"location.reload()</script></head><body><noscript></noscript></body></html>"
)
"""A JavaScript challenge with a 200: no text, no link, so a spider yields nothing."""
APP_SHELL = (
    b"<!doctype html><html><head><title></title><script src='/app.js'></script></head>"
    b"<body><div id='root'></div></body></html>"
)
"""An empty single-page app: its text comes by script, which a spider does not run."""


def mirror_behind_a_wall(
    shared: int = 30, articles: int = 40, walled_after: int | None = 20,
    shell: bool = False,
) -> dict[str, Site]:  # fmt: skip
    """An original and its full mirror (docs linking articles past the 15th; the mirror
    answers 50 ms later, so it is taken for the copy). The original answers its first
    ``walled_after`` requests, then a bot wall for every page; with ``shell`` its articles
    are an empty app shell from the start. The mirror serves every page, so a crawl
    following its links keeps every article."""
    original, mirror = Site(walled_after=walled_after), Site()
    if shell:
        original.shell_prefix = "/article/"
    docs = tuple(f"/docs/{WORDS[n % len(WORDS)]}-{n}.html" for n in range(shared))
    linked = tuple(f"/article/{n}" for n in range(1, articles + 1))
    for site, delay in ((original, 0.0), (mirror, 0.05)):
        site.pages["/"] = page("home", docs[:10], delay=delay)
        for n, path in enumerate(docs):
            links = docs[n + 1 : n + 11] + linked * (n >= 15)
            site.pages[path] = page(f"doc-{path}", links, delay=delay)
        for n, path in enumerate(linked):
            site.pages[path] = page(f"article-{n}", delay=delay)
    return {"original": original, "mirror": mirror}


def mirror_with_a_differing_page(
    shared: int = 30, articles: int = 60, late: float = 2.5
) -> dict[str, Site]:
    """An original and its full mirror (docs linking articles past the 15th; the mirror
    answers 50 ms later, so it is taken for the copy), whose ``/latest/story.html`` differs
    from the original's. Each home page links a ``/news/`` index that answers ``late``
    seconds later and links ``/latest/story.html``: it is met once the mirror rule is
    learned and has samples, in a section of its own (so the mirror's is fetched as that
    section's first sample), and comes back new beside its counterpart. The mirror tops
    each page with a banner of the time and a request number, new per request."""
    original, mirror = Site(), Site(banner=True)
    docs = tuple(f"/docs/{WORDS[n % len(WORDS)]}-{n}.html" for n in range(shared))
    linked = tuple(f"/article/{n}" for n in range(1, articles + 1))
    for site, delay in ((original, 0.0), (mirror, 0.05)):
        site.pages["/"] = page("home", (*docs[:10], "/news/"), delay=delay)
        for n, path in enumerate(docs):
            links = docs[n + 1 : n + 11] + linked * (n >= 15)
            site.pages[path] = page(f"doc-{path}", links, delay=delay)
        for n, path in enumerate(linked):
            site.pages[path] = page(f"article-{n}", delay=delay)
        site.pages["/news/"] = page("news", ("/latest/story.html",), delay=late + delay)
    original.pages["/latest/story.html"] = page("news-latest")
    mirror.pages["/latest/story.html"] = page("news-latest-on-the-mirror", delay=0.05)
    return {"original": original, "mirror": mirror}


def lagging_mirror(shared: int = 30, articles: int = 120, lagging: int = 4) -> dict[str, Site]:
    """An original and its full mirror (the home page links every article; the mirror
    answers 50 ms later, so it is taken for the copy) that lags behind: ``lagging`` of its
    articles are an older version, whose last paragraph the original has since replaced.
    Each is a page of its own that only a sample can find."""
    original, mirror = Site(), Site()
    docs = tuple(f"/docs/{WORDS[n % len(WORDS)]}-{n}.html" for n in range(shared))
    linked = tuple(f"/article/{n}" for n in range(1, articles + 1))
    older = {linked[n * articles // lagging] for n in range(lagging)}
    for site, delay in ((original, 0.0), (mirror, 0.05)):
        site.pages["/"] = page("home", docs[:10] + linked, delay=delay)
        for n, path in enumerate(docs):
            site.pages[path] = page(f"doc-{path}", docs[n + 1 : n + 11], delay=delay)
        for n, path in enumerate(linked):
            site.pages[path] = page(f"article-{n}", delay=delay)
            if site is mirror and path in older:  # its last paragraph, as it was
                current = site.pages[path]
                kept = " ".join(current.body.split()[:120])
                body = f"{kept} {prose(f'article-{n}-older', 40)}"
                site.pages[path] = Page(f"article-{n}-older", current.title, body, delay=delay)
    return {"original": original, "mirror": mirror}


def moving_news(moved: str | None, articles: int = 30, old_links: int = 0) -> Site:
    """A news site whose stories live at ``/article/N``; ``moved``: after the site moved
    them to ``/posts/N``, its old URLs answer "301" (to the new one) or "404"; or "503":
    the stories are at ``/posts/N`` and their old URLs are down.
    ``old_links``: the home page still links the first that many old URLs."""
    site = Site()
    prefix = "/article/" if moved is None else "/posts/"
    paths = tuple(f"{prefix}{n}" for n in range(1, articles + 1))
    old = tuple(f"/article/{n}" for n in range(1, old_links + 1)) if moved else ()
    site.pages["/"] = page("home", old + paths[:10])
    for n, path in enumerate(paths):
        site.pages[path] = page(f"story-{n}", paths[n + 1 : n + 11])
    if moved is not None:
        for n in range(1, articles + 1):
            old = f"/article/{n}"
            if moved == "301":
                site.pages[old] = page(f"story-{n - 1}", moved_to=f"/posts/{n}")
            else:  # "404" (moved), "503" (down)
                site.pages[old] = page("gone", status=int(moved))
    return site


def forum(threads: int = 60, removed: int = 8, slow_listing: float = 1.0) -> Site:
    """Removed threads show one moderator notice (a trap template); the next listing,
    reached through them and answering slowly, links ``threads`` distinct threads of the
    same template ``/thread/{num}``."""
    notice = "notice"
    site = Site()
    removed_paths = tuple(f"/thread/{n}" for n in range(1, removed + 1))
    site.pages["/"] = page("forum-home", removed_paths)
    for path in removed_paths:
        site.pages[path] = page(notice, ("/forum/2",))
    listed = tuple(f"/thread/{n}" for n in range(100, 100 + threads))
    site.pages["/forum/2"] = page("forum-2", listed, delay=slow_listing)
    for path in listed:
        site.pages[path] = page(f"thread-{path.rsplit('/', 1)[1]}")
    return site


def forum_waiting(threads: int = 60, removed: int = 14) -> Site:
    """One listing links the distinct threads first and the removed ones last: with one
    request at a time (LIFO) the removed ones are fetched first, so the trap is learned
    while the distinct threads wait in the scheduler."""
    site = Site()
    listed = tuple(f"/thread/{n}" for n in range(100, 100 + threads))
    removed_paths = tuple(f"/thread/{n}" for n in range(1, removed + 1))
    site.pages["/"] = page("forum-home", listed + removed_paths)
    for path in removed_paths:
        site.pages[path] = page("notice")
    for path in listed:
        site.pages[path] = page(f"thread-{path.rsplit('/', 1)[1]}")
    return site


LEGAL = (
    "terms", "privacy", "about", "shipping", "returns", "contact", "imprint", "cookies",
    "accessibility", "warranty", "payment", "faq",
)  # fmt: skip


def shop(name: str, products: int = 40) -> Site:
    """A shop on a platform every shop shares its legal pages with; its own catalog,
    linked from the legal pages' footer (found once they were fetched)."""
    site = Site()
    legal = tuple(f"/{p}" for p in LEGAL)
    site.pages["/"] = page(f"{name}-home", legal)
    for path in legal:
        site.pages[path] = page(f"platform-{path[1:]}", (*legal, "/catalog"))  # alike in all
    items = tuple(f"/product/{n}" for n in range(1, products + 1))
    site.pages["/catalog"] = page(f"{name}-catalog", items)
    for path in items:
        site.pages[path] = page(f"{name}-product-{path.rsplit('/', 1)[1]}")
    return site


def mirrored_with_failures(
    shared: int = 30, failing: int = 20, latency: float = 0.0, mirror_step: float = 0.0
) -> dict[str, Site]:
    """An original and its full mirror; ``failing`` articles are still on the mirror while
    the original answers them slowly with 404, 500, or not in time. The articles are linked
    from the docs pages past the 15th, so they are found once a mirror rule exists.
    ``latency``: seconds every docs page takes to answer, as a real server's would.
    ``mirror_step`` > 0: the mirror answers later and later, its home after that many
    seconds and its n-th docs page after n + 2 times that (n at most 10): its first pages
    make the rule before its pages linking the articles come, so it is taken for the copy,
    and its docs past the 15th are skipped."""
    original, mirror = Site(), Site()
    docs = tuple(f"/docs/{WORDS[n % len(WORDS)]}-{n}.html" for n in range(shared))
    articles = tuple(f"/article/{n}" for n in range(1, failing + 1))
    for site in (original, mirror):
        later = mirror_step if site is mirror else 0.0
        site.pages["/"] = page("home", docs[:10], delay=later)
        for n, path in enumerate(docs):
            links = docs[n + 1 : n + 11] + articles * (n >= 15)
            delay = (min(n, 10) + 2) * later if later else latency
            site.pages[path] = page(f"doc-{path}", links, delay=delay)
    for n, path in enumerate(articles):
        mirror.pages[path] = page(f"article-{n}")
        status, delay = ((404, 1.5), (500, 1.5), (200, 8.0))[n % 3]
        original.pages[path] = page(f"article-{n}", status=status, delay=delay)
    return {"original": original, "mirror": mirror}


def mirror_with_own_section(shared: int = 30, own: int = 12) -> dict[str, Site]:
    """An original and a mirror of its docs that grew a section of its own: a chain of
    ``own`` pages (each links the next), linked from the mirror's docs past the 15th only.
    The mirror answers 50 ms later, so its docs come second: it is taken for the copy."""
    original, mirror = Site(), Site()
    docs = tuple(f"/docs/{WORDS[n % len(WORDS)]}-{n}.html" for n in range(shared))
    for site, delay in ((original, 0.0), (mirror, 0.05)):
        site.pages["/"] = page("home", docs[:10], delay=delay)
        for n, path in enumerate(docs):
            extra = ("/own/1",) if site is mirror and n >= 15 else ()
            site.pages[path] = page(f"doc-{path}", docs[n + 1 : n + 11] + extra, delay=delay)
    for n in range(1, own + 1):
        links = (f"/own/{n + 1}",) if n < own else ()
        mirror.pages[f"/own/{n}"] = page(f"own-{n}", links, delay=0.05)
    return {"original": original, "mirror": mirror}


def mirror_with_own_section_behind_about(shared: int = 30, own: int = 12) -> dict[str, Site]:
    """An original and a mirror of its docs; the mirror's copy of ``/about/team.html`` also
    links a section of its own, a chain of ``own`` pages. The mirror's about page is linked
    from the original's last docs page (call ``link_mirror_about`` once the sites are
    served): it is met after the mirror rule is learned on ``/docs/``. A crawl that skips
    it as a copy never sees the section. The mirror answers 50 ms later: it is the copy."""
    original, mirror = Site(), Site()
    docs = tuple(f"/docs/{WORDS[n % len(WORDS)]}-{n}.html" for n in range(shared))
    for site, delay in ((original, 0.0), (mirror, 0.05)):
        site.pages["/"] = page("home", docs[:10], delay=delay)
        for n, path in enumerate(docs):
            site.pages[path] = page(f"doc-{path}", docs[n + 1 : n + 11], delay=delay)
        own_link = ("/own/1",) if site is mirror else ()
        # The same page on both: the link is the only difference, and it is not text.
        site.pages["/about/team.html"] = page("about-team", own_link, delay=delay)
    for n in range(1, own + 1):
        links = (f"/own/{n + 1}",) if n < own else ()
        mirror.pages[f"/own/{n}"] = page(f"own-{n}", links, delay=0.05)
    return {"original": original, "mirror": mirror}


def mirror_with_own_paged_tag(
    shared: int = 30, tags: int = 9, own: int = 6, *, same_slug: bool = False
) -> dict[str, Site]:
    """An original and its mirror, both with one-page tags whose pager links the tag under
    ``?page=`` (tag ``n`` as ``?page=n % 3 + 1``, one value per page: no switcher), which
    serves the tag itself; the last docs page links the tags, so they are met once the
    mirror rule is learned: the original teaches that ``?page=`` changes nothing in
    ``/tag/``, a rule its mirror inherits, and the mirror's tags are skipped as copies.
    The mirror also has a tag of its own, paged with a next-only pager: ``/tag/local``
    links ``?page=2``, which links ``?page=3``, up to ``own``, each page distinct. The
    original's last docs page links it (call ``link_mirror_tag`` once the sites are
    served). ``same_slug``: the original has a one-page ``/tag/local`` too, another
    page (a mirror that diverged). The mirror answers 50 ms later: it is the copy."""
    original, mirror = Site(), Site()
    docs = tuple(f"/docs/{WORDS[n % len(WORDS)]}-{n}.html" for n in range(shared))
    tagged = tuple(f"/tag/t{n}" for n in range(tags))
    for site, delay in ((original, 0.0), (mirror, 0.05)):
        site.pages["/"] = page("home", docs[:10], delay=delay)
        for n, path in enumerate(docs):
            links = docs[n + 1 : n + 11] + tagged * (n == shared - 1)
            site.pages[path] = page(f"doc-{path}", links, delay=delay)
        for n, path in enumerate(tagged):
            site.pages[path] = page(f"tag-{n}", (f"{path}?page={n % 3 + 1}",), delay=delay)
    mirror.pages["/tag/local"] = page("local-1", ("/tag/local?page=2",), delay=0.05)
    if same_slug:
        original.pages["/tag/local"] = page("local-original")
    for n in range(2, own + 1):
        links = (f"/tag/local?page={n + 1}",) if n < own else ()
        mirror.pages[f"/tag/local?page={n}"] = page(f"local-{n}", links, delay=0.05)
    return {"original": original, "mirror": mirror}


def link_mirror_tag(sites: dict[str, Site], urls: dict[str, str]) -> None:
    """The original's last docs page links the mirror's own tag (an absolute link), and
    its own ``/tag/local`` if it has one."""
    original = sites["original"]
    last = max((path for path in original.pages if path.startswith("/docs/")),
               key=lambda path: int(path.rsplit("-", 1)[1].split(".")[0]))  # fmt: skip
    own = ("/tag/local",) if "/tag/local" in original.pages else ()
    links = (*original.pages[last].links, *own, f"{urls['mirror']}tag/local")
    original.pages[last].links = links


def link_mirror_about(sites: dict[str, Site], urls: dict[str, str]) -> None:
    """The original's last docs page links both about pages (absolute links)."""
    original = sites["original"]
    last = max((path for path in original.pages if path.startswith("/docs/")),
               key=lambda path: int(path.rsplit("-", 1)[1].split(".")[0]))  # fmt: skip
    about = tuple(f"{urls[name]}about/team.html" for name in ("original", "mirror"))
    original.pages[last].links = (*original.pages[last].links, *about)


def mirror_with_soft_404s(
    stories: int = 30,
    gone: tuple[int, ...] = (18, 21, 24, 27),
    gone_on_mirror: tuple[int, ...] = (),
) -> dict[str, Site]:
    """An original and its mirror; the original answers 200 with one "this story is no
    longer available" notice for the ``gone`` stories, which the mirror still carries.
    The mirror answers 50 ms later: it is the copy. ``gone_on_mirror``: stories the
    mirror took down (the same notice) while the original still carries them."""
    original, mirror = Site(), Site()
    paths = tuple(f"/story/{n}.html" for n in range(stories))
    for site, delay in ((original, 0.0), (mirror, 0.05)):
        site.pages["/"] = page("home", paths[:10], delay=delay)
        for n, path in enumerate(paths):
            taken_down = gone if site is original else gone_on_mirror
            content = "story-gone" if n in taken_down else f"story-{n}"
            site.pages[path] = page(content, paths[n + 1 : n + 11], delay=delay)
    return {"original": original, "mirror": mirror}


def translated_news(
    articles: int = 40,
    translated: tuple[tuple[int, str], ...] = (
        (9, "fr"), (14, "de"), (19, "es"), (25, "fr"), (31, "de"), (36, "es"),
    ),
) -> Site:  # fmt: skip
    """Articles that each link ``?lang=fr``, ``de`` and ``es``; most answer with their
    English page (a fallback: a copy), the ``translated`` ones with a real translation."""
    site = Site()
    site.pages["/"] = page("home", tuple(f"/news/{n}" for n in range(0, articles, 4)))
    for n in range(articles):
        langs = tuple(f"/news/{n}?lang={lang}" for lang in ("fr", "de", "es"))
        more = tuple(f"/news/{m}" for m in range(n + 1, min(articles, n + 4)))
        site.pages[f"/news/{n}"] = page(f"news-{n}", langs + more)
        for lang in ("fr", "de", "es"):
            own = (n, lang) in translated
            site.pages[f"/news/{n}?lang={lang}"] = page(f"news-{n}-{lang}" if own else f"news-{n}")
    return site


def news(grown: bool) -> Site:
    """Sections with ``?page=N``: one page each at first (every ``?page`` repeats page 1),
    three distinct pages each once grown; product pages that were "unavailable" (one
    notice, a trap) and are rewritten with distinct text once grown."""
    site = Site()
    sections = tuple(f"/section/{name}" for name in ("world", "sport", "arts", "science"))
    products = tuple(f"/item/{n}" for n in range(1, 31))
    site.pages["/"] = page("news-home", sections + products)
    for section in sections:
        pages = tuple(f"{section}?page={n}" for n in range(1, 6))
        for n, path in enumerate(pages, 1):
            content = f"{section[9:]}-{n}" if grown and n <= 3 else f"{section[9:]}-1"
            site.pages[path] = page(content, pages)
        site.pages[section] = site.pages[f"{section}?page=1"]
    for path in products:
        content = f"item-{path[6:]}" if grown else "item-unavailable"
        site.pages[path] = page(content)
    return site


def tags_with_clamped_pagers(tags: int = 12, big_pages: int = 6, delay: float = 0.2) -> Site:
    """A blog's tags, one page each, whose pager shows "next" (``?page=2``) whatever the
    tag holds, and a server that clamps (a page past the last answers with the last, as
    Django's ``Paginator.get_page`` does): their copies teach that ``?page=2`` changes
    nothing on ``/tag/``. Each tag links the next (answering after ``delay`` seconds: the
    verdicts keep up), and the last links ``/tag/big``, which is really paged: its first
    page links ``?page=2``, which links ``?page=3``, up to ``big_pages``, each distinct."""
    site = Site()
    names = (*(f"/tag/t{n}" for n in range(tags)), "/tag/big")
    site.pages["/"] = page("blog-home", names[:1])
    for path, following in itertools.pairwise(names):
        site.pages[path] = page(f"tag-{path[5:]}", (f"{path}?page=2", following), delay=delay)
    site.pages["/tag/big"] = page("big-1", ("/tag/big?page=2",))
    for n in range(2, big_pages + 1):
        links = (f"/tag/big?page={n + 1}",) if n < big_pages else ()
        site.pages[f"/tag/big?page={n}"] = page(f"big-{n}", links)
    return site


def two_shops() -> dict[str, Site]:
    """Two unrelated shops on one platform: they share only the legal pages."""
    return {"a": shop("a"), "b": shop("b")}


def two_start_pages(many: int = 100, few: int = 6, slow_start: float = 6.0) -> Site:
    """One host, one section of pages (``/p/N``) linked again with a ``?sid=`` that changes
    nothing, from two start pages: ``/a`` links ``many`` pages and their copies (a crawl of
    it learns the parameter), ``/b`` links ``few`` others and two copies, too few to learn
    from, and answers after ``slow_start`` seconds."""
    site = Site()
    a_pages = tuple(f"/p/{n}" for n in range(1, many + 1))
    # Each copy's link first: Scrapy fetches the last link first, so the copy comes second.
    site.pages["/a"] = page("a-home", tuple(x for p in a_pages for x in (f"{p}?sid=s{p[3:]}", p)))
    b_pages = tuple(f"/p/{n}" for n in range(many + 1, many + few + 1))
    b_links = (*b_pages, *(f"{p}?sid=s{p[3:]}" for p in b_pages[:2]))
    site.pages["/b"] = page("b-home", b_links, delay=slow_start)
    for path in a_pages + b_pages:
        site.pages[path] = page(f"page-{path}")
    return site


def cms_with_forum(articles: int = 6, threads: int = 2, pages_per_thread: int = 3) -> Site:
    """A CMS links each single-page article again as ``?page=1`` ("page 1 of 1", the same
    page): its copies teach that ``page`` changes nothing on ``/article/``. Its forum, whose
    index answers after 2 s, has threads really paginated with ``?page=2``, ``?page=3``."""
    site = Site()
    articles_ = tuple(f"/article/{n}" for n in range(1, articles + 1))
    site.pages["/"] = page("cms-home", (*articles_, "/forum"))
    for path in articles_:
        site.pages[path] = page(f"article-{path}", (f"{path}?page=1",))
    thread_paths = tuple(f"/forum/thread/{n}" for n in range(1, threads + 1))
    site.pages["/forum"] = page("forum-index", thread_paths, delay=2.0)
    for thread in thread_paths:
        for n in range(1, pages_per_thread + 1):
            following = (f"{thread}?page={n + 1}",) if n < pages_per_thread else ()
            path = thread if n == 1 else f"{thread}?page={n}"
            site.pages[path] = page(f"thread-{thread}-page-{n}", following)
    return site


def calendar(days: int = 120, busy: tuple[int, ...] = (1, 45, 90), latency: float = 0.0) -> Site:
    """An events calendar whose index links every day: most days say "no events
    scheduled" (one notice, the date in its title), the ``busy`` days list real events.
    ``latency``: seconds each day's page takes to answer, as a real server's would."""
    site = Site()
    start = datetime.date(2024, 3, 1)
    dates = [start + datetime.timedelta(days=n) for n in range(days)]
    paths = tuple(f"/events/{d.isoformat()}" for d in dates)
    site.pages["/"] = page("home", ("/events",))
    site.pages["/events"] = page("events-index", paths)
    empty = prose("no-events-scheduled")
    for n, (d, path) in enumerate(zip(dates, paths, strict=True)):
        if n in busy:
            site.pages[path] = page(f"event-{d.isoformat()}", delay=latency)
        else:
            title = f"Events on {d.isoformat()}"
            site.pages[path] = Page("no-events", title, empty, delay=latency)
    return site


def mirror_ahead_of_archive(
    shared: int = 30, own: int = 12, archive: int = 300, delay: float = 0.0
) -> dict[str, Site]:
    """An original with a long archive (a chain of ``archive`` pages, each linking the next
    five: a crawl that ends on a budget never goes idle), and a mirror of its docs with
    ``own`` pages the original lacks. The mirror answers 50 ms later, so its docs come
    second: it is taken for the copy. Its own pages are linked from the archive (call
    ``link_own_pages`` once the sites are served), so they are found after the mirror rule
    was learned and skipped on bets waiting for originals that never come.
    ``delay``: seconds every archive page takes (for a crawl that ends on time)."""
    original, mirror = Site(), Site()
    docs = tuple(f"/docs/{WORDS[n % len(WORDS)]}-{n}.html" for n in range(shared))
    pages = tuple(f"/archive/{n}" for n in range(archive))
    for site, later in ((original, 0.0), (mirror, 0.05)):
        first = ("/archive/0",) if site is original else ()
        site.pages["/"] = page("home", docs[:10] + first, delay=later)
        for n, path in enumerate(docs):
            site.pages[path] = page(f"doc-{path}", docs[n + 1 : n + 6], delay=later)
    for n in range(1, own + 1):
        mirror.pages[f"/own/{n}"] = page(f"own-{n}", delay=0.05)
    for n, path in enumerate(pages):
        original.pages[path] = page(f"archive-{n}", pages[n + 1 : n + 6], delay=delay)
    return {"original": original, "mirror": mirror}


def link_own_pages(sites: dict[str, Site], urls: dict[str, str], every: int = 3) -> None:
    """The archive's page ``every * n`` links the mirror's ``/own/n`` (an absolute link)."""
    own = sorted(int(path.rsplit("/", 1)[1]) for path in sites["mirror"].pages if "/own/" in path)
    for n in own:
        archived = sites["original"].pages[f"/archive/{every * n}"]
        archived.links = (*archived.links, f"{urls['mirror']}own/{n}")


def depth_skew(docs: int = 10, chapters: int = 5, sections: int = 3) -> dict[str, Site]:
    """An original whose chapters sit deep (home, /a, /b, then ``/ch/N`` at depth 3, their
    sections at depth 4) and a mirror that lists them high (its /toc, answered after the
    docs taught the mirror rule, links the chapters at depth 2, their sections at depth 3).
    Both carry ``docs`` shared pages linked from home; the mirror answers 50 ms later."""
    original, mirror = Site(), Site()
    shared = tuple(f"/docs/{n}" for n in range(docs))
    chaps = tuple(f"/ch/{n}" for n in range(chapters))
    for site, later in ((original, 0.0), (mirror, 0.05)):
        for path in shared:
            site.pages[path] = page(f"doc-{path}", delay=later)
        for chapter in chaps:
            parts = tuple(f"{chapter}/s/{m}" for m in range(sections))
            site.pages[chapter] = page(f"chapter-{chapter}", parts, delay=later)
            for part in parts:
                site.pages[part] = page(f"section-{part}", delay=later)
    original.pages["/"] = page("home", (*shared, "/a"))
    original.pages["/a"] = page("original-a", ("/b",))
    original.pages["/b"] = page("original-b", chaps)
    mirror.pages["/"] = page("home", (*shared, "/toc"), delay=0.05)
    mirror.pages["/toc"] = page("mirror-toc", chaps, delay=1.0)
    return {"original": original, "mirror": mirror}


def articles_with_tabs(articles: int = 40, delay: float = 0.3) -> Site:
    """Articles listed on one page, each linking its ``?tab=comments`` (a page of its own,
    one value per path: no switcher) and a ``?sid=`` variant (its own page again). The
    variants answer slowly, so many are on their way at once while the first come back."""
    site = Site()
    paths = tuple(f"/story/{n}" for n in range(articles))
    site.pages["/"] = page("stories-home", paths)
    for n, path in enumerate(paths):
        site.pages[path] = page(f"story-{n}", (f"{path}?tab=comments", f"{path}?sid=s{n}x"))
        site.pages[f"{path}?tab=comments"] = page(f"story-{n}-comments", delay=delay)
        site.pages[f"{path}?sid=s{n}x"] = page(f"story-{n}", delay=delay)
    return site
