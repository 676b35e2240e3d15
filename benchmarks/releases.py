"""The same pages in two releases of a document set: docutils' documentation, consecutive
releases, fetched once from PyPI (sdists) and cached.

A page that changed between releases by a little (at least ``MIN_SAME`` of its words in
order, by difflib) is a near-duplicate of its earlier version: the copy a crawler meets
when a site publishes docs per release. Pages rewritten more are left out of the labels,
unchanged ones too (an exact copy is not a test).
"""

from __future__ import annotations

import difflib
import itertools
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

RELEASES = ("0.16", "0.17.1", "0.18.1", "0.19", "0.20.1", "0.21.2")
CACHE = Path.home() / ".cache" / "scrapy-simdedup-benchmarks" / "docutils"
MIN_SAME = 0.9
MAX_SAME_DISTINCT = 0.5
"""Pages sharing less than this (difflib ratio) are distinct; a page moved to another path
between releases (docs/api/transforms.txt became docs/ref/transforms.txt) is not."""
_DOC = re.compile(r"^[^/]+/docs/.+\.txt$")


@dataclass(frozen=True)
class ReleasePair:
    path: str
    old: str  # the page in one release
    new: str  # the same page in the next
    same: float  # difflib ratio of their words


def release_documents(version: str) -> dict[str, str]:
    """Path -> text of every ``docs/*.txt`` page in docutils ``version``'s sdist."""
    CACHE.mkdir(parents=True, exist_ok=True)
    archives = list(CACHE.glob(f"docutils-{version}.tar.gz"))
    if not archives:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", f"docutils=={version}", "-d", str(CACHE)],
            check=True,
        )  # fmt: skip
        archives = list(CACHE.glob(f"docutils-{version}.tar.gz"))
    pages: dict[str, str] = {}
    with tarfile.open(archives[0]) as archive:
        for member in archive.getmembers():
            if _DOC.match(member.name) and (file := archive.extractfile(member)):
                pages[member.name.split("/", 1)[1]] = file.read().decode("utf-8", "replace")
    return pages


def release_pairs() -> tuple[list[ReleasePair], list[tuple[str, str]]]:
    """Lightly edited pages across consecutive releases, and every distinct (path, text)."""
    releases = [release_documents(version) for version in RELEASES]
    pairs: list[ReleasePair] = []
    for older, newer in itertools.pairwise(releases):
        for path in sorted(older.keys() & newer.keys()):
            old, new = older[path], newer[path]
            if old == new:
                continue
            same = word_similarity(old, new)
            if same >= MIN_SAME:
                pairs.append(ReleasePair(path, old, new, same))
    distinct = sorted({(path, text) for release in releases for path, text in release.items()})
    return pairs, distinct


def word_similarity(a: str, b: str) -> float:
    """difflib's ratio of the two texts' words, in order: 1.0 for the same words."""
    return difflib.SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio()
