"""Writes ``tests/fixtures/realpages/``: a few real pages and their reprints, for a real crawl.

    python3 benchmarks/realpage_fixtures.py --sets DIR [--out tests/fixtures/realpages]

Issue 57. ``DIR`` holds the clones of the two MIT-licensed sets ``realpages.py`` reads. For
each language, three **originals** of three sites (pages under ``MAX_PAGE_BYTES`` of HTML,
each served from its own host label) and, for each original, four pages laid into other
real pages with ``realpages.reprinted``:

* **reprint**: the original's headline and article in a donor site's page;
* **cut**: its first ``CUT_SHARE`` of paragraphs in another donor's page;
* **same-chrome**: an article never stored, in the original's own page, on its host;
* **follow-up**: the original's first paragraph, then an article never stored, in a third
  donor's page.

Reprints and cuts must be dropped as copies of the original; the others must be kept. Each
donor host serves one reprint, one cut and one follow-up, each of another original, as a
portal does. Pages are written gzip-compressed (UTF-8, their charset declarations rewritten
to say so), with ``manifest.json`` naming each file's language, role, host label, path,
its ``original`` (the one a reprint or cut copies, a same-chrome page shares its host and
chrome with, a follow-up opens with), the dataset pages its HTML and its article come from,
and each set's commit. Deterministic: the same clones give the same files.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

from lxml import etree, html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import realpages
from benchmarks.realpages import RealPage

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "realpages"
LANGUAGES = ("en", "zh")
ORIGINALS = 3
MAX_PAGE_BYTES = 60_000
MIN_ARTICLE_CHARS = {"en": 1_500, "zh": 800}
"""Twice the benchmark's least (``realpages.MIN_ARTICLE_CHARS``): a cut keeps a few hundred
characters, and an article never stored outweighs the stored paragraph a follow-up opens with."""
MAX_ARTICLE_CHARS = 5_000
MIN_PARAGRAPHS = 5
MAX_PARAGRAPHS = 60
CUT_SHARE = 0.4
MIN_CHROME_CHARS = {"en": 400, "zh": 200}
SOURCES = {
    "en": ("https://github.com/scrapinghub/article-extraction-benchmark", realpages.ENGLISH_SET),
    "zh": (
        "https://github.com/immortal-autumn/Chinese-Web-Content-Extraction-Dataset",
        realpages.CHINESE_SET,
    ),
}
_CHARSET = re.compile(r"(<meta\b[^>]*?charset\s*=\s*[\"']?)([\w-]+)", re.IGNORECASE)
_ENGLISH_WORD = re.compile(r"\b(?:the|and|of|to|in|is|that)\b", re.IGNORECASE)


def _usable(page: RealPage) -> bool:
    """An article of a sensible size whose element in its page is found (else no reprint
    can be laid into the page); English pages must be English (the set's ASCII filter
    lets Portuguese and German through)."""
    text = " ".join(page.article)
    if not MIN_PARAGRAPHS <= len(page.article) <= MAX_PARAGRAPHS:
        return False
    if not MIN_ARTICLE_CHARS[page.language] <= len(text) <= MAX_ARTICLE_CHARS or not page.title:
        return False
    if page.language == "en" and len(_ENGLISH_WORD.findall(text)) < 0.12 * len(text.split()):
        return False
    root = html.document_fromstring(page.html)
    return realpages.article_element(root, page.article) is not None


def _framed(page: RealPage) -> bool:
    """A small page whose article sits in chrome of its own (menus, links, a footer): the
    element ``reprinted`` fills is neither the whole page nor most of its text."""
    if len(page.html.encode("utf-8")) > MAX_PAGE_BYTES:
        return False
    root = html.document_fromstring(page.html)
    etree.strip_elements(root, "script", "style", with_tail=False)
    place = realpages.article_element(root, page.article)
    if place is None or place.tag in ("html", "body"):
        return False
    return _chars(root) - _chars(place) >= MIN_CHROME_CHARS[page.language]


def _chars(element: etree._Element) -> int:
    """Characters of the element's text, spaces left out."""
    return sum(len("".join(str(text).split())) for text in element.itertext())


def _distinct_hosts(pages: list[RealPage], count: int, avoid: set[str]) -> list[RealPage]:
    chosen: list[RealPage] = []
    for page in pages:
        if page.host not in avoid and len(chosen) < count:
            chosen.append(page)
            avoid.add(page.host)
    if len(chosen) < count:
        raise SystemExit(f"only {len(chosen)} sites fit, {count} wanted")
    return chosen


def choose(pages: tuple[RealPage, ...], language: str) -> tuple[
    list[RealPage], list[RealPage], list[RealPage]]:  # fmt: skip
    """(originals, donors, pages whose articles are never stored), each of its own site."""
    mine = sorted((p for p in pages if p.language == language and _usable(p)),
                  key=lambda p: hashlib.sha256(p.url.encode()).digest())  # fmt: skip
    used: set[str] = set()
    originals = _distinct_hosts([p for p in mine if _framed(p)], ORIGINALS, used)
    donors = _distinct_hosts([p for p in mine if _framed(p)], ORIGINALS, used)
    unstored = _distinct_hosts(mine, 2 * ORIGINALS, used)
    return originals, donors, unstored


def as_utf8(page: str) -> str:
    """The page with its ``<meta charset>`` saying UTF-8, as it is stored and served."""
    return _CHARSET.sub(lambda m: m.group(1) + "utf-8", page)


def laid(donor: RealPage, title: str, paragraphs: tuple[str, ...]) -> str:
    page = realpages.reprinted(donor, title, paragraphs)
    if page is None:
        raise SystemExit(f"no article element in {donor.url}")
    return page


class Fixtures:
    """The pages written so far: (manifest entry, HTML), and a host label for each real
    host whose page they are laid into, in the order met ("site-a", "site-b", ...)."""

    def __init__(self) -> None:
        self.made: list[tuple[dict[str, str | None], str]] = []
        self.labels: dict[str, str] = {}
        self.served: dict[str, int] = {}

    def add(self, role: str, page: RealPage, article_of: RealPage, original: str | None,
            text: str) -> str:  # fmt: skip
        """Lays down ``text`` (``page`` with ``article_of``'s article); returns its file."""
        label = self.labels.setdefault(page.host, f"site-{chr(ord('a') + len(self.labels))}")
        self.served[label] = self.served.get(label, 0) + 1
        name = f"{page.language}-{role}-{len(self.made)}.html.gz"
        entry = {
            "file": name, "language": page.language, "role": role, "host": label,
            "path": f"/news/{self.served[label]}.html", "original": original,
            "page_from": page.url, "article_from": article_of.url,
        }  # fmt: skip
        self.made.append((entry, as_utf8(text)))
        return name


def fixtures(pages: tuple[RealPage, ...]) -> list[tuple[dict[str, str | None], str]]:
    """(manifest entry, HTML) of every page, each language's originals first."""
    out = Fixtures()
    for language in LANGUAGES:
        originals, donors, unstored = choose(pages, language)
        stored = [out.add("original", p, p, None, p.html) for p in originals]
        for n, (original, name) in enumerate(zip(originals, stored, strict=True)):
            headline = realpages.headline(original)
            donor = [donors[(n + k) % len(donors)] for k in range(3)]
            out.add("reprint", donor[0], original, name,
                    laid(donor[0], headline, original.article))  # fmt: skip
            keep = max(1, round(len(original.article) * CUT_SHARE))
            out.add("cut", donor[1], original, name,
                    laid(donor[1], headline, original.article[:keep]))  # fmt: skip
            fresh, follow = unstored[2 * n], unstored[2 * n + 1]
            out.add("same-chrome", original, fresh, name,
                    laid(original, realpages.headline(fresh), fresh.article))  # fmt: skip
            out.add("follow-up", donor[2], follow, name,
                    laid(donor[2], realpages.headline(follow),
                         (original.article[0], *follow.article)))  # fmt: skip
    return out.made


def _commit(sets: Path, name: str) -> str:
    folder = realpages._find(sets, name)
    git = ["git", "--git-dir", str(folder)] if (folder / "HEAD").exists() else ["git", "-C",
           str(folder)]  # fmt: skip
    return subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=Path, required=True, help="the folder of both clones")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    made = fixtures(realpages.real_pages(str(args.sets)))
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*.html.gz"):
        old.unlink()
    for entry, page in made:
        data = gzip.compress(page.encode("utf-8"), compresslevel=9, mtime=0)
        (args.out / str(entry["file"])).write_bytes(data)
    sources = {language: {"repository": url, "commit": _commit(args.sets, name)}
               for language, (url, name) in SOURCES.items()}  # fmt: skip
    manifest = {"sources": sources, "pages": [entry for entry, _ in made]}
    text = json.dumps(manifest, ensure_ascii=False, indent=1)
    (args.out / "manifest.json").write_text(text + "\n", "utf-8")
    size = sum(f.stat().st_size for f in args.out.iterdir())
    print(f"{len(made)} pages written to {args.out} ({size / 1024:.0f} KB with the manifest)")


if __name__ == "__main__":
    main()
