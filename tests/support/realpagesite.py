"""The real pages of ``tests/fixtures/realpages/`` served on 127.0.0.1, one port per host.

``benchmarks/realpage_fixtures.py`` wrote them: for each language, originals of three sites,
and for each original a reprint and a cut reprint laid into other sites' pages (copies), an
article never stored in the original's own page (same chrome) and a follow-up opening with
the original's first paragraph (both must be kept). ``manifest.json`` names each file's
host label ("site-a") and path; each label is served on a port of its own, so that the
crawl meets as many hosts as the pages came from.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.portalsite import serve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "realpages"
COPY_ROLES = ("reprint", "cut")
KEEP_ROLES = ("same-chrome", "follow-up")


@dataclass(frozen=True)
class RealPage:
    """One fixture page: ``original`` is the file of the original it copies (a copy role),
    shares its site with (same chrome) or opens with (follow-up); None for an original."""

    file: str
    language: str
    role: str
    host: str
    path: str
    original: str | None

    @property
    def html(self) -> str:
        return gzip.decompress((FIXTURES / self.file).read_bytes()).decode("utf-8")


def real_pages() -> list[RealPage]:
    """Every page of the manifest, in its order (each language's originals first)."""
    manifest = json.loads((FIXTURES / "manifest.json").read_text("utf-8"))
    return [
        RealPage(p["file"], p["language"], p["role"], p["host"], p["path"], p["original"])
        for p in manifest["pages"]
    ]


@contextmanager
def serve_real_pages(pages: list[RealPage]) -> Iterator[dict[str, str]]:
    """Each host label of ``pages`` on its own loopback port until the block ends; yields
    file -> the page's URL."""
    sites: dict[str, dict[str, str]] = {}
    for page in pages:
        sites.setdefault(page.host, {})[page.path] = page.html
    with serve({host: paths.get for host, paths in sites.items()}) as urls:
        yield {page.file: urls[page.host].rstrip("/") + page.path for page in pages}
