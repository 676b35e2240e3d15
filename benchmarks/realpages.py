"""Real pages of real sites, with hand-marked article text, and reprints built from them.

Two public sets, both MIT-licensed, are read from git clones (nothing of them is shipped
here but a few fixtures under ``tests/fixtures/realpages/``, their licence beside them):

* English: Scrapinghub's article-extraction benchmark (181 news and blog pages of 126
  sites, each with its ``articleBody``)::

      git clone https://github.com/scrapinghub/article-extraction-benchmark

* Chinese: the Chinese web content extraction dataset (69 news, blog and forum pages of
  about 50 sites, each with its cleaned content)::

      git clone https://github.com/immortal-autumn/Chinese-Web-Content-Extraction-Dataset

``--sets DIR`` names a folder holding both clones (work trees or bare git folders).

A **reprint** is one site's article laid into another real site's page: the element of
that page holding its own article (found by its hand-marked text) is emptied and filled with
the other article's paragraphs, its ``<title>`` and ``<h1>`` take the reprinted title, and
everything else (menus, breadcrumbs, share bars, related lists, comment boxes, footers) stays.
Rows (``ROWS``): **chrome** (the article as it is), **edited** (a few words of two
paragraphs changed), **cut** (its first 30-70% of paragraphs) must be dropped as copies of
the stored original; **same chrome** (an article never stored, in the page of a site whose
own page is stored) and **follow-up** (the same, opening with a stored article's first
paragraph) must be kept.

Sites are split in two halves by a hash of the host: thresholds are chosen on "tune" and
reported on "held-out" as well. Deterministic.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from lxml import etree, html

ENGLISH_SET = "article-extraction-benchmark"
CHINESE_SET = "Chinese-Web-Content-Extraction-Dataset"
COPY_ROWS = ("chrome", "edited", "cut")
KEEP_ROWS = ("same chrome", "follow-up")
ROWS = (*COPY_ROWS, *KEEP_ROWS)
HALVES = ("tune", "held-out")
MIN_ARTICLE_CHARS = {"en": 600, "zh": 300}
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[^\W\d_]+")
_TITLE_SEPARATOR = re.compile(r"\s+[-|–—]\s+|_|\s*\|\s*|(?<=[\u3400-\u9fff])[-－—]")
_WRAPPER = re.compile(rb"^\s*<text\b[^>]*>|</text>\s*$")


@dataclass(frozen=True)
class RealPage:
    """One page as its site served it, and its article as a person marked it."""

    language: str
    url: str
    html: str
    article: tuple[str, ...]  # paragraphs
    title: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or self.url


@dataclass(frozen=True)
class RealCase:
    row: str
    language: str
    half: str
    url: str
    html: str
    original: str | None  # the stored page it copies (copy rows)


def _git_reader(folder: Path):  # type: ignore[no-untyped-def]
    """Read a file of a work tree, or of HEAD in a bare clone."""
    if (folder / ".git").exists() or not (folder / "HEAD").exists():

        def read(path: str) -> bytes:
            return (folder / path).read_bytes()

        def names(under: str) -> list[str]:
            return sorted(str(p.relative_to(folder)) for p in (folder / under).iterdir())

        return read, names

    def read_git(path: str) -> bytes:
        return subprocess.run(["git", "--git-dir", str(folder), "show", f"HEAD:{path}"],
                              capture_output=True, check=True).stdout  # fmt: skip

    def names_git(under: str) -> list[str]:
        command = ["git", "--git-dir", str(folder), "ls-tree", "--name-only", "HEAD", f"{under}/"]
        out = subprocess.run(command, capture_output=True, check=True, text=True)
        return sorted(out.stdout.split())

    return read_git, names_git


def _find(sets: Path, name: str) -> Path:
    for candidate in (sets / name, sets / name / "repo", sets / f"{name}.git"):
        if (candidate / "HEAD").exists() or (candidate / ".git").exists():
            return candidate
    for candidate in sets.glob(f"*{name}*"):
        for inner in (candidate, candidate / "repo"):
            if (inner / "HEAD").exists() or (inner / ".git").exists():
                return inner
    raise SystemExit(f"no clone of {name} under {sets}: see benchmarks/realpages.py's docstring")


def _decoded(raw: bytes) -> str:
    """The page as its site served it: the dataset's ``<text encoding=...>`` wrapper names
    the encoding it was saved in (GB2312 read as its superset GB18030)."""
    from scrapy_simdedup.errors import UndecodablePageError
    from scrapy_simdedup.fingerprint.pagetext import decode_page

    named = re.search(rb'<text\b[^>]*encoding="([^"]+)"', raw[:2000])
    body = _WRAPPER.sub(b"", raw)
    if named:
        codec = named.group(1).decode("ascii").lower()
        codec = "gb18030" if codec in ("gb2312", "gbk", "gb18030") else codec
        try:
            return body.decode(codec, "replace")
        except LookupError:
            pass
    try:
        return decode_page(body).text
    except UndecodablePageError:
        return body.decode("utf-8", "replace")


def _title(page: str) -> str:
    found = re.search(r"<title[^>]*>(.*?)</title>", page, re.IGNORECASE | re.DOTALL)
    return re.sub(r"\s+", " ", html.fromstring(found.group(1)).text_content()).strip() if (
        found and found.group(1).strip()) else ""  # fmt: skip


def _paragraphs(text: str) -> tuple[str, ...]:
    return tuple(p for p in (re.sub(r"\s+", " ", line).strip() for line in text.splitlines()) if p)


def english_pages(sets: Path) -> list[RealPage]:
    read, _ = _git_reader(_find(sets, ENGLISH_SET))
    truth = json.loads(read("ground-truth.json"))
    pages = []
    for name, marked in sorted(truth.items()):
        body = marked.get("articleBody") or ""
        letters = re.findall(r"[^\W\d_]", body)
        if not letters or sum(c.isascii() for c in letters) < 0.9 * len(letters):
            continue  # English only: the set also holds Korean, Portuguese, ...
        page = _decoded(gzip.decompress(read(f"html/{name}.html.gz")))
        pages.append(RealPage("en", marked["url"], page, _paragraphs(body), _title(page)))
    return [p for p in pages if len("".join(p.article)) >= MIN_ARTICLE_CHARS["en"]]


def chinese_pages(sets: Path) -> list[RealPage]:
    read, names = _git_reader(_find(sets, CHINESE_SET))
    pages = []
    for path in names("original"):
        stem = Path(path).stem
        raw = read(path)
        found = re.search(rb'<text id="([^"]+)"', raw[:2000])
        url = found.group(1).decode("ascii", "replace") if found else f"https://site-{stem[:8]}.cn/"
        page = _decoded(raw)
        article = _paragraphs(read(f"cleaned/{stem}.txt").decode("utf-8", "replace"))
        pages.append(RealPage("zh", url, page, article, _title(page)))
    return [p for p in pages if len("".join(p.article)) >= MIN_ARTICLE_CHARS["zh"]]


@cache
def real_pages(sets: str) -> tuple[RealPage, ...]:
    return (*english_pages(Path(sets)), *chinese_pages(Path(sets)))


def half_of(page: RealPage, pages: tuple[RealPage, ...]) -> str:
    """Which half of its language's sites the page's host falls in: hosts in the order of
    their hash, taken in turn, so that each half has as many sites."""
    return _halves(pages)[page.host]


@cache
def _halves(pages: tuple[RealPage, ...]) -> dict[str, str]:
    halves: dict[str, str] = {}
    for language in ("en", "zh"):
        hosts = sorted({p.host for p in pages if p.language == language},
                       key=lambda h: hashlib.sha256(h.encode()).digest())  # fmt: skip
        halves.update((host, HALVES[n % 2]) for n, host in enumerate(hosts))
    return halves


def _tokens(text: str) -> list[str]:
    return [t.casefold() for t in _TOKEN.findall(text)]


def article_element(root: etree._Element, article: tuple[str, ...]) -> etree._Element | None:
    """The element holding the page's own article: the most words of the marked text and
    the fewest others (each text fragment scored where it sits, summed up the tree)."""
    marked = set(_tokens(" ".join(article)))
    score: dict[etree._Element, int] = {}
    for element in root.iter():
        if not isinstance(element.tag, str) or element.tag in ("script", "style", "head"):
            continue
        own = (element.text or "") + "".join(child.tail or "" for child in element)
        words = _tokens(own)
        score[element] = 2 * sum(w in marked for w in words) - len(words)
    for element in reversed(list(score)):  # children before parents (document order)
        parent = element.getparent()
        if parent is not None and parent in score:
            score[parent] += score[element]
    for whole in (root, *root.iter("body")):  # the page itself holds no chrome to keep
        score.pop(whole, None)
    if not score:
        return None
    best = max(score, key=lambda e: score[e])
    return best if score[best] > 0 else None


def _title_parts(title: str) -> tuple[str, str]:
    """A page title as (headline, site suffix with its separator)."""
    cuts = list(_TITLE_SEPARATOR.finditer(title))
    if not cuts:
        return title, ""
    last = cuts[-1]
    return title[: last.start()], title[last.start() :]


def reprinted(donor: RealPage, title: str, paragraphs: tuple[str, ...]) -> str | None:
    """``donor``'s page with its article replaced by ``paragraphs`` titled ``title``."""
    root = html.document_fromstring(donor.html)
    place = article_element(root, donor.article)
    if place is None:
        return None
    tail = place.tail
    for child in list(place):
        place.remove(child)
    place.text = None
    tag = "p" if place.tag not in ("p", "span", "a", "font", "b") else "br"
    for paragraph in paragraphs:
        element = etree.SubElement(place, tag)
        if tag == "br":
            element.tail = paragraph
        else:
            element.text = paragraph
    place.tail = tail
    headline, suffix = _title_parts(donor.title)
    for element in root.iter("title"):
        if element.text_content().strip() == donor.title.strip():  # not an icon's own title
            element.text = title + suffix
    shown = _headline_element(root, headline, place)
    if shown is not None:  # the donor's headline now shows the reprint's
        for child in list(shown):
            shown.remove(child)
        shown.text = title
    elif tag == "br":
        place.text = title
        place.insert(0, etree.Element("br"))
    else:  # a reprint shows its headline above its article
        heading = etree.Element("h1")
        heading.text = title
        place.insert(0, heading)
    if _left_of(donor.article, root, paragraphs) > MAX_LEFT:
        return None  # the donor's article is elsewhere too (a teaser, a second copy)
    return html.tostring(root, encoding="unicode")


MIN_HEADLINE_SHARE = 0.6
"""An element of the donor's page whose words are this share of its headline's (Jaccard)
is where its headline shows: its ``<h1>``, or a heading worded unlike its ``<title>``'s."""


def _headline_element(
    root: etree._Element, headline: str, place: etree._Element
) -> etree._Element | None:
    """The heading of ``root`` showing ``headline`` (not ``place``, the emptied article,
    which holds no heading now): an ``h1``-``h3`` whose words are most like the
    headline's, or None."""
    wanted = set(_tokens(headline))
    if not wanted:
        return None
    best, best_share = None, MIN_HEADLINE_SHARE
    for element in root.iter("h1", "h2", "h3"):
        if element is place:
            continue
        words = set(_tokens(element.text_content()))
        share = len(words & wanted) / len(words | wanted) if words else 0.0
        if share >= best_share:
            best, best_share = element, share
    return best


MAX_LEFT = 0.2
"""A donor page may keep this share of its own article's words (those the laid-in article
lacks) outside the replaced element; more, and the page would carry two articles."""


def _left_of(article: tuple[str, ...], root: etree._Element, laid_in: tuple[str, ...]) -> float:
    """The share of ``article``'s own words (not in ``laid_in``) still on the page."""
    for dropped in root.xpath("//script|//style|//noscript"):
        dropped.drop_tree() if dropped.getparent() is not None else None
    own = set(_tokens(" ".join(article))) - set(_tokens(" ".join(laid_in)))
    if not own:
        return 0.0
    on_page = set(_tokens(root.text_content()))
    return len(own & on_page) / len(own)


def _has_article(page: RealPage) -> bool:
    return article_element(html.document_fromstring(page.html), page.article) is not None


def _edited(paragraphs: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    """Two paragraphs with a few words (characters, in Chinese) swapped for others."""
    out = list(paragraphs)
    for at in rng.sample(range(len(out)), min(2, len(out))):
        tokens = re.split(r"(\s+)", out[at]) if not _CJK.search(out[at]) else list(out[at])
        spots = [i for i, t in enumerate(tokens) if t.strip()]
        for i in rng.sample(spots, min(2, len(spots))):
            tokens[i] = "新" if _CJK.search(tokens[i]) else "newly"
        out[at] = "".join(tokens)
    return tuple(out)


def _cut(paragraphs: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    keep = max(1, round(len(paragraphs) * rng.uniform(0.3, 0.7)))
    return paragraphs[:keep]


def headline(page: RealPage) -> str:
    return _title_parts(page.title)[0] or page.article[0][:40]


def cases(pages: tuple[RealPage, ...], language: str, half: str, seed: int = 1) -> tuple[
    list[RealPage], list[RealCase]]:  # fmt: skip
    """The stored originals of one language and half, and the cases judged after them.

    Two thirds of the pages are stored; the rest are articles never stored (the keep rows
    carry them). Each case is laid into the page of another host (round robin), so that a
    donor site reprints several articles, as a portal does."""
    rng = random.Random(f"{seed}{language}{half}")
    mine = sorted((p for p in pages if p.language == language and half_of(p, pages) == half),
                  key=lambda p: hashlib.sha256(p.url.encode()).digest())  # fmt: skip
    split = len(mine) * 2 // 3
    stored, unstored = mine[:split], mine[split:]
    donors = [p for p in mine if _has_article(p)]
    made: list[RealCase] = []
    turn = 0

    def donor_for(avoid: str) -> RealPage:
        nonlocal turn
        for _ in range(len(donors)):
            turn += 1
            donor = donors[turn % len(donors)]
            if donor.host != avoid:
                return donor
        raise ValueError("a single host: no other site to reprint in")

    def add(row: str, donor: RealPage, article: tuple[str, tuple[str, ...]],
            original: str | None, path: str) -> None:  # fmt: skip
        page = reprinted(donor, *article)
        if page is not None:
            url = f"{urlsplit(donor.url).scheme}://{donor.host}/{path}"
            made.append(RealCase(row, language, half, url, page, original))

    for n, page in enumerate(stored):
        name = headline(page)
        add("chrome", donor_for(page.host), (name, page.article), page.url, f"reprint/{n}")
        add("edited", donor_for(page.host), (name, _edited(page.article, rng)), page.url,
            f"edited/{n}")  # fmt: skip
        add("cut", donor_for(page.host), (name, _cut(page.article, rng)), page.url, f"cut/{n}")
    stored_donors = [p for p in donors if p in stored]
    for n, page in enumerate(unstored):  # each article never stored is in one case only
        row = KEEP_ROWS[n % 2]
        paragraphs = page.article if row == "same chrome" else (
            stored[n % len(stored)].article[0], *page.article)  # fmt: skip
        donor = stored_donors[(n + len(row)) % len(stored_donors)]
        if donor.host == page.host:
            donor = stored_donors[(n + len(row) + 1) % len(stored_donors)]
        add(row, donor, (headline(page), paragraphs), None, f"{row.replace(' ', '-')}/{n}")
    rng.shuffle(made)
    return stored, made


def all_cases(sets: str) -> Iterator[tuple[str, str, list[RealPage], list[RealCase]]]:
    pages = real_pages(sets)
    for language in ("en", "zh"):
        for half in HALVES:
            stored, made = cases(pages, language, half)
            yield language, half, stored, made


def judged(sets: str, decider_type: type) -> dict[str, dict[str, float]]:
    """Per "language half row": the share of the row's pages dropped (``dropped``) and how
    many pages it has (``pages``), each half judged as a stream by a real pipeline: its
    stored originals first, then its cases in a fixed shuffled order. ``cpu``: the crawl's
    process's extraction (``main_text``) and the helper's fingerprinting, per page, in ms."""
    results: dict[str, dict[str, float]] = {}
    for language, half, stored, made in all_cases(sets):
        decider = decider_type(3, 0.8)
        for page in stored:
            decider.keeps(page.url, page.html)
        kept: dict[str, list[bool]] = {row: [] for row in ROWS}
        for case in made:
            kept[case.row].append(decider.keeps(case.url, case.html))
        decider.close()
        for row, verdicts in kept.items():
            results[f"{language} {half} {row}"] = {
                "dropped": sum(not k for k in verdicts) / len(verdicts) if verdicts else 0.0,
                "pages": float(len(verdicts)),
            }
    results["cpu"] = _cpu(sets)
    return results


def _cpu(sets: str) -> dict[str, float]:
    """Median CPU per real page (3 rounds over every page and case): the main-content
    extraction the crawl's process does, and the fingerprinting the helper does."""
    import time

    from scrapy_simdedup.fingerprint.fingerprinted import fingerprinted
    from scrapy_simdedup.fingerprint.maincontent import main_text
    from scrapy_simdedup.index.opening import open_index

    pages = [p.html for p in real_pages(sets)]
    pages += [c.html for *_, made in all_cases(sets) for c in made]
    texts = [main_text(page) for page in pages]
    extract, prints = [], []
    with open_index("memory") as index:
        for _ in range(3):
            started = time.process_time()
            for page in pages:
                main_text(page)
            extract.append(1000 * (time.process_time() - started) / len(pages))
            started = time.process_time()
            for text in texts:
                fingerprinted(text, index.tokenizer, index.seed)
            prints.append(1000 * (time.process_time() - started) / len(texts))
    return {"extract_ms": sorted(extract)[1], "fingerprint_ms": sorted(prints)[1]}
