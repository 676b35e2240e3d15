"""A site of hostile and odd pages on 127.0.0.1, which is also the crawl's HTTP proxy.

Requests for hosts that cannot be reached offline (IDN names, IPv6 zone ids) go through the
proxy, so no name is ever resolved and nothing leaves the machine.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from benchmarks.corpora import chinese_articles, english_articles

BIG_PAGE_BYTES = 50 * 2**20
CJK_CHARS = 2**20


def _html(body: str, head: str = "") -> str:
    return f"<html><head>{head}<title>t</title></head><body>{body}</body></html>"


def _encoded_pages() -> dict[str, tuple[str, bytes]]:
    """GBK, Big5, Shift_JIS and UTF-16 pages with a right, a wrong and no declaration."""
    chinese = chinese_articles()
    texts = {
        "gbk": chinese[0][:1500],
        "big5": chinese[1][:1500].encode("big5", "ignore").decode("big5"),
        "shift_jis": chinese[2][:1500].encode("shift_jis", "ignore").decode("shift_jis"),
        "utf-16": chinese[3][:1500],
    }
    wrong = {"gbk": "big5", "big5": "shift_jis", "shift_jis": "gbk", "utf-16": "utf-8"}
    pages: dict[str, tuple[str, bytes]] = {}
    for codec, text in texts.items():
        for label, declared in (("right", codec), ("wrong", wrong[codec]), ("missing", None)):
            meta = f'<meta charset="{declared}">' if declared else ""
            body = _html(f"<p>{text}</p>", meta).encode(codec)
            header = f"text/html; charset={declared}" if declared else "text/html"
            pages[f"/enc/{codec}-{label}.html"] = (header, body)
    return pages


def build_pages() -> dict[str, tuple[str, bytes]]:
    """Path -> (Content-Type, body). ``/`` links to every page and to the odd URLs."""
    rng = random.Random(7)
    english = english_articles()
    pages: dict[str, tuple[str, bytes]] = {
        "/png": ("image/png", b"\x89PNG\r\n\x1a\n" + rng.randbytes(20_000)),
        "/pdf": ("application/pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + rng.randbytes(20_000)),
        "/octet.html": ("text/html", rng.randbytes(30_000)),  # binary declared as HTML
        "/empty.html": ("text/html", b""),
        "/blank.html": ("text/html", _html("   \n\t ").encode()),
        "/deep.html": (
            "text/html",
            _html("<div>" * 5000 + f"<p>{english[0][:2000]}</p>" + "</div>" * 5000).encode(),
        ),
        "/cjk.html": (
            "text/html; charset=utf-8",
            _html("".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(CJK_CHARS))).encode(),
        ),
        "/surrogates.json": (
            "application/json",
            json.dumps(
                {"title": "lone \ud800 surrogate", "text": english[1][:3000] + "\udfff"}
            ).encode("ascii"),
        ),
        "/lonely.html": ("text/html", _html(english[2][:3000]).encode()),
    }
    pages.update(_encoded_pages())
    return pages


def odd_links(port: int) -> list[str]:
    """Links a hostile page may hold; some cannot even become a Request."""
    here = f"http://127.0.0.1:{port}"
    return [
        f"{here}/odd/ctrl\x01\x7fchars.html",
        f"{here}/odd/tab\tand\nnewline.html",
        f"http://[fe80::1%25eth0]:{port}/odd/zone-id.html",
        "http://[::1%25lo]/odd/zone-id-2.html",
        "http://例え.テスト/odd/idn.html",
        "http://xn--r8jz45g.xn--zckzah/odd/idn-punycode.html",
        f"{here}/odd/long?q=" + "a" * 100_000,
        f"http://user:p%40ss@127.0.0.1:{port}/odd/auth.html",
        f"http://127.0.0.1:{port}/odd/%zz%%bad-escapes.html",
        "http:///odd/no-host.html",
        "http://127.0.0.1:99999/odd/bad-port.html",
        "javascript:alert(1)",
        "mailto:someone@example.invalid",
        f"{here}/odd/\ud800-surrogate.html",
    ]


def _handler(pages: dict[str, tuple[str, bytes]]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = urlsplit(self.path).path if self.path.startswith("http") else self.path
            path = path.split("?", 1)[0]
            if path == "/":
                links = "".join(f'<a href="{p}">{p}</a>' for p in pages)
                content_type, body = "text/html", _html(links).encode()
            elif path == "/big.html":
                self._send_big()
                return
            elif path in pages:
                content_type, body = pages[path]
            else:
                content_type, body = "text/html", _html(f"<p>odd page {path[:100]}</p>").encode()
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _send_big(self) -> None:
            chunk = "".join(f"<p>line {i} of a page far too big</p>\n" for i in range(2000))
            data = chunk.encode()
            repeats = BIG_PAGE_BYTES // len(data)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(repeats * len(data)))
            self.end_headers()
            for _ in range(repeats):
                self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve_hostile() -> Iterator[str]:
    """Serve the hostile site on 127.0.0.1 until the block ends; yields its URL."""
    pages = build_pages()
    pages["/big.html"] = ("text/html", b"")  # listed; sent in chunks by the handler
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(pages))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
