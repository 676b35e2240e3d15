"""A site of fixed HTML pages served on 127.0.0.1 while a test runs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.responses import send_html


def html_handler(pages: dict[str, str]) -> type[BaseHTTPRequestHandler]:
    """Answers each path of ``pages`` with its HTML, anything else with 404."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            if body is None:
                self.send_error(404)
                return
            send_html(self, body.encode("utf-8"))

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve_html(pages: dict[str, str]) -> Iterator[str]:
    """``pages`` (path -> HTML) on a free loopback port until the block ends; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), html_handler(pages))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
