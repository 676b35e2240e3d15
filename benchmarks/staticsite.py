"""A static site of real text served by nginx on 127.0.0.1, for ``benchmarks/crawl.py``.

About 5,000 pages: every Language Reference topic and People's Daily article of the
benchmark corpora as its own page, 15% of them reprinted at another path with an editor's
line and a title of their own (near-duplicates), and 5% of the links carrying a session id
or a tracking parameter (nginx ignores the query: the same file). Nothing is random: a
fixed seed builds the same site every time, so runs and revisions compare.
"""

from __future__ import annotations

import html
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks.corpora import chinese_articles, english_articles

LINKS_PER_PAGE = 6
REPRINT_SHARE = 0.15
PARAMETER_SHARE = 0.05


@dataclass(frozen=True)
class StaticSite:
    """The pages written under ``root``: ``distinct`` paths and their ``reprints``."""

    root: Path
    distinct: list[str]
    reprints: dict[str, str]  # reprint path -> the distinct path it copies
    texts: dict[str, int]  # distinct path -> its text's identity (some corpus texts repeat)

    def text_of(self, path: str) -> int | None:
        """The identity of the text at ``path`` (a reprint's is its original's)."""
        return self.texts.get(self.reprints.get(path, path))


def documents(count: int) -> list[tuple[str, str]]:
    """(title, body) of ``count`` real documents at most: English topics, then Chinese."""
    found = []
    for text in (*english_articles(300), *chinese_articles(350, limit=count)):
        title, _, body = text.strip().partition("\n")
        found.append((title.strip()[:80] or "Untitled", body.strip() or title))
    return found[:count]


def write_site(root: Path, pages: int = 5000, *, near_duplicates: bool = True) -> StaticSite:
    """Write about ``pages`` pages under ``root``; ``near_duplicates=False``: every page
    distinct and no parameters in links (the all-new site)."""
    rng = random.Random(20071)
    reprint_count = int(pages * REPRINT_SHARE) if near_duplicates else 0
    texts = documents(pages - reprint_count)
    distinct = [f"/doc/{n}.html" for n in range(len(texts))]
    reprints = {
        f"/reprint/{n}.html": rng.choice(distinct) for n in range(reprint_count)
    }  # fmt: skip
    every = distinct + list(reprints)
    body_of = dict(zip(distinct, texts, strict=True))
    for path in every:
        links = [rng.choice(every) for _ in range(LINKS_PER_PAGE)]
        if near_duplicates:
            links = [_with_parameter(link, rng) for link in links]
        if path in reprints:
            title, body = body_of[reprints[path]]
            title = f"{title} (reprinted)"
            body = f"Reprinted from the archive; editor {rng.randrange(1, 99)}.\n{body}"
        else:
            title, body = body_of[path]
        _write(root / path.lstrip("/"), title, body, links)
    _write(root / "index.html", "Index", "All documents.", every[:: max(1, len(every) // 50)])
    identities = {path: hash(body) for path, (_, body) in body_of.items()}
    return StaticSite(root, distinct, reprints, identities)


def _with_parameter(link: str, rng: random.Random) -> str:
    if rng.random() >= PARAMETER_SHARE:
        return link
    if rng.random() < 0.5:
        return f"{link}?sid={rng.getrandbits(48):012x}"
    return f"{link}?utm_source=feed{rng.randrange(1, 6)}"


def _write(file: Path, title: str, body: str, links: list[str]) -> None:
    paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in body.splitlines() if p.strip())
    anchors = "".join(
        f'<li><a href="{html.escape(link)}">{html.escape(link)}</a></li>' for link in links
    )
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(
        f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'</head><body><nav><a href="/index.html">Home</a></nav><main><h1>{html.escape(title)}'
        f"</h1>{paragraphs}</main><aside><ul>{anchors}</ul></aside></body></html>",
        "utf-8",
    )


_CONFIG = """
worker_processes 1;
daemon off;
{user}pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    default_type text/html;
    types {{ text/html html; }}
    charset utf-8;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        index index.html;
    }}
}}
"""


@contextmanager
def nginx(root: Path) -> Iterator[str]:
    """Serve ``root`` with nginx on a free loopback port; yields the base URL. Needs the
    ``nginx`` binary (Debian: ``apt-get install nginx-light``)."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        raise SystemExit("this benchmark needs nginx: apt-get install nginx-light")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as prefix:
        config = Path(prefix) / "nginx.conf"
        user = "user root;\n" if os.geteuid() == 0 else ""  # workers read the temporary root
        config.write_text(_CONFIG.format(prefix=prefix, port=port, root=root, user=user))
        process = subprocess.Popen(
            [binary, "-c", str(config), "-p", prefix],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            _wait_for_port(port, process)
            yield f"http://127.0.0.1:{port}/"
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            error = process.stderr.read().decode() if process.stderr else ""
            raise RuntimeError(f"nginx exited at start: {error}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nginx did not listen on port {port} within {timeout:g} s")
