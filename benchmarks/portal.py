"""Reprints as a news portal makes them, and a documentation mirror with a live banner.

Built from the corpora the project ships (see ``corpora.py``): Chinese articles of the
People's Daily (January 1998) and English documents (the standard library's docstrings,
the Language Reference topics). Every edit is one that reprints really get:

* a new title, an editor line, a few characters changed inside sentences;
* a portal's chrome: a breadcrumb, a "source / time / views" line with the page's own view
  count, share and previous/next links naming other articles, copyright and disclaimer
  notices;
* paragraphs cut, and the other way round: the full article after its cut reprint, two
  articles merged, one article after a digest that carries it among others;
* a documentation mirror whose banner and footer carry a per-request timestamp, a visit
  counter and a request id.

Deterministic: the same seed gives the same pages.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.corpora import chinese_articles, english_articles

NEWS_HOST = "https://news.example.cn/"
PORTAL_HOST = "https://portal.example.com/"
DOCS_HOST = "https://docs.example.org/"
MIRROR_HOST = "https://mirror.example.net/"


@dataclass(frozen=True)
class Article:
    title: str
    paragraphs: tuple[str, ...]
    chinese: bool

    @property
    def text(self) -> str:
        return "\n".join((self.title, *self.paragraphs))


def chinese_news(count: int) -> list[Article]:
    """Articles of at least five paragraphs, each titled by the start of its lead."""
    found = []
    for text in chinese_articles(1500, limit=2000):
        paragraphs = tuple(p for p in text.split("\n") if len(p) >= 30)
        if len(paragraphs) >= 5:
            # A title of the lead's first words, its punctuation gone: not a sentence of it.
            title = re.sub(r"[，。、；：！？“”]", "", paragraphs[0][:20])
            found.append(Article(title, paragraphs, chinese=True))
        if len(found) == count:
            break
    return found


def english_news(count: int) -> list[Article]:
    """English documents of at least five paragraphs, titled by their first line."""
    from benchmarks.quality import stdlib_documents

    found = []
    for text in (*stdlib_documents(), *english_articles(2000)):
        blocks = [" ".join(p.split()) for p in text.split("\n\n")]
        paragraphs = tuple(p for p in blocks[1:] if len(p.split()) >= 12)
        if len(paragraphs) >= 5:
            found.append(Article(blocks[0][:80], paragraphs[:12], chinese=False))
        if len(found) == count:
            break
    return found


# ---- chrome ---------------------------------------------------------------------------


def _stamp(rng: random.Random) -> str:
    return (
        f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} "
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    )


def portal_chrome(
    article: Article, others: list[Article], rng: random.Random
) -> tuple[list[str], list[str]]:
    """(lines above the article, lines below it) as a portal prints them."""
    before, after = rng.sample(others, 2)
    views = rng.randint(10, 99_999)
    if article.chinese:
        top = [
            "首页 > 新闻中心 > 国内新闻 > 正文",
            f"来源：人民日报 时间：{_stamp(rng)} 浏览：{views}次 作者：本报记者",
        ]
        bottom = [
            "分享到：微信 微博 QQ空间 复制链接",
            f"上一篇：{before.title}",
            f"下一篇：{after.title}",
            "Copyright © 2003-2026 环球资讯网 版权所有 京ICP备05012345号",
            "免责声明：本文转载自其他媒体，转载目的在于传递更多信息，并不代表本网赞同其观点"
            "和对其真实性负责。如有侵权，请联系我们删除。",
        ]
    else:
        top = [
            "Home > News > World > Article",
            f"Source: The Daily Reference | Published: {_stamp(rng)} | Views: {views:,}",
        ]
        bottom = [
            "Share this article: Facebook Twitter LinkedIn Email Print",
            f"Previous article: {before.title}",
            f"Next article: {after.title}",
            "Copyright 2003-2026 Global News Portal. All rights reserved.",
            "Disclaimer: This article is reprinted from other media for the purpose of "
            "passing on more information. It does not mean that this site agrees with its "
            "views or is responsible for its authenticity. Contact us to have it removed.",
        ]
    return top, bottom


def new_title(article: Article, rng: random.Random) -> str:
    if article.chinese:
        phrase = rng.choice(article.paragraphs[1:])[:14].rstrip("，。、；：")
        return f"【转载】{phrase}"
    words = rng.choice(article.paragraphs[1:]).split()[:8]
    return "Reprinted: " + " ".join(words).title()


def editor_line(article: Article, rng: random.Random) -> str:
    name = rng.choice(["王小明", "李华", "张伟", "刘洋"] if article.chinese else
                      ["Jane Smith", "Wei Zhang", "Maria Garcia", "Tom Baker"])  # fmt: skip
    return f"（责任编辑：{name}）" if article.chinese else f"Edited by {name} for the web desk."


def change_characters(paragraphs: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    """One to six characters (Chinese) or words (English) changed inside sentences."""
    edited = list(paragraphs)
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(edited))
        text = edited[at]
        if any("\u4e00" <= c <= "\u9fff" for c in text[:20]):
            i = rng.randrange(len(text))
            edited[at] = text[:i] + rng.choice("某该此其本") + text[i + 1 :]
        else:
            words = text.split()
            words[rng.randrange(len(words))] = rng.choice(["banana", "the", "quickly", "it"])
            edited[at] = " ".join(words)
    return tuple(edited)


def cut(paragraphs: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    """One to three paragraphs removed, never the lead, never half the article, never one
    whose words the article repeats elsewhere (docstrings repeat their module's)."""
    most = max(1, min(3, len(paragraphs) // 3))
    words = [set(p.split()) for p in paragraphs]
    own = [
        at for at in range(1, len(paragraphs))
        if sum(words[at] <= other for other in words) == 1
    ]  # fmt: skip
    gone = set(rng.sample(own, min(len(own), rng.randint(1, most))))
    return tuple(p for i, p in enumerate(paragraphs) if i not in gone)


def heavy_edit(
    paragraphs: tuple[str, ...], others: list[Article], rng: random.Random
) -> tuple[str, ...]:
    """A rewrite: a third of the paragraphs replaced by other articles' and the rest
    reordered (it adds what it took in: kept or dropped, either is right)."""
    edited = list(paragraphs)
    for at in rng.sample(range(len(edited)), max(1, len(edited) // 3)):
        edited[at] = rng.choice(rng.choice(others).paragraphs)
    rng.shuffle(edited)
    return tuple(edited)


# ---- the rows -------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """The pages stored before (key, text), the page judged, and whether it is a copy.

    A row is judged two ways: as a stream (every case's stored pages first, once each, then
    the pages in order, as a portal's pages follow its source's), and fresh (each case in
    an index of its own: the first reprint a portal shows)."""

    stored: tuple[tuple[str, str], ...]
    page: tuple[str, str]
    copy: bool


def reprint(article: Article, others: list[Article], kind: str, rng: random.Random) -> str:
    """The portal's page for ``article`` with one kind of edit (or "typical": all)."""
    title, paragraphs, lines_top, lines_bottom = article.title, article.paragraphs, [], []
    if kind in ("new title", "typical"):
        title = new_title(article, rng)
    if kind in ("characters", "typical"):
        paragraphs = change_characters(paragraphs, rng)
    if kind in ("cut", "typical cut"):
        paragraphs = cut(paragraphs, rng)
    if kind == "heavy":
        paragraphs = heavy_edit(paragraphs, others, rng)
    if kind in ("chrome", "typical", "typical cut"):
        lines_top, lines_bottom = portal_chrome(article, others, rng)
    if kind in ("editor line", "typical", "typical cut"):
        lines_bottom = [editor_line(article, rng), *lines_bottom]
    return "\n".join([*lines_top, title, *paragraphs, *lines_bottom])


COPY_KINDS = ("new title", "editor line", "characters", "chrome", "typical", "cut", "typical cut")
REPORT_KINDS = ("heavy",)  # a rewrite: reported, neither way required


def portal_cases(articles: list[Article], kind: str, seed: int = 1) -> list[Case]:
    """The originals on the news host, then the portal's reprint of each."""
    rng = random.Random(seed)
    return [
        Case(((f"{NEWS_HOST}a/{i}", a.text),),
             (f"{PORTAL_HOST}n/{i}", reprint(a, articles, kind, rng)), kind != "heavy")
        for i, a in enumerate(articles)
    ]  # fmt: skip


def full_after_cut_cases(articles: list[Article], seed: int = 1) -> list[Case]:
    """The portal's cut reprints first, then the full originals: each adds content."""
    rng = random.Random(seed)
    return [
        Case(((f"{PORTAL_HOST}n/{i}", reprint(a, articles, "typical cut", rng)),),
             (f"{NEWS_HOST}a/{i}", a.text), False)
        for i, a in enumerate(articles)
    ]  # fmt: skip


def merged_cases(articles: list[Article]) -> list[Case]:
    """Every other article stored; then a portal page merging it with the next one."""
    pairs = list(zip(articles[::2], articles[1::2], strict=False))
    return [
        Case(((f"{NEWS_HOST}a/{2 * i}", a.text),),
             (f"{PORTAL_HOST}m/{i}", f"{a.text}\n{b.text}"), False)
        for i, (a, b) in enumerate(pairs)
    ]  # fmt: skip


def digest_cases(articles: list[Article], size: int = 6) -> list[Case]:
    """A digest of ``size`` whole articles stored; then each of them on its own page."""
    cases = []
    for start in range(0, len(articles) - size + 1, size):
        group = articles[start : start + size]
        digest = "\n".join(a.text for a in group)
        stored = ((f"{NEWS_HOST}digest/{start}", digest),)
        cases += [
            Case(stored, (f"{NEWS_HOST}a/{start + j}", a.text), False) for j, a in enumerate(group)
        ]
    return cases


def mirror_banner(rng: random.Random, path: str) -> tuple[str, str]:
    """A mirror's banner and footer as one request sees them."""
    visits = rng.randint(1_000, 9_999_999)
    banner = (
        f"You are reading a mirror of docs.example.org{path}, last synchronised "
        f"{_stamp(rng)} UTC. This page has been viewed {visits} times."
    )
    footer = (
        f"Page generated {_stamp(rng)} in {rng.randint(3, 900)} ms, request "
        f"{rng.getrandbits(64):016x}. Visitor number {visits + 1}. "
        "Mirror hosted by Example Labs."
    )
    return banner, footer


def mirror_cases(documents: list[str], seed: int = 1) -> list[Case]:
    """The documents stored on their host; then the mirror's copy of each, in order."""
    rng = random.Random(seed)
    cases = []
    for i, document in enumerate(documents):
        banner, footer = mirror_banner(rng, f"/d/{i}")
        page = (f"{MIRROR_HOST}d/{i}", f"{banner}\n{document}\n{footer}")
        cases.append(Case(((f"{DOCS_HOST}d/{i}", document),), page, True))
    return cases


ROWS: dict[str, Callable[[list[Article]], list[Case]]] = {
    **{kind: (lambda arts, kind=kind: portal_cases(arts, kind)) for kind in COPY_KINDS},
    **{kind: (lambda arts, kind=kind: portal_cases(arts, kind)) for kind in REPORT_KINDS},
    "full after cut": full_after_cut_cases,
    "merged": merged_cases,
    "digest": digest_cases,
}
