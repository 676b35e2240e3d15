"""The one way the test sites answer a page."""

from __future__ import annotations

from contextlib import suppress
from http.server import BaseHTTPRequestHandler


def send_html(handler: BaseHTTPRequestHandler, data: bytes) -> None:
    """A 200 with ``data`` as UTF-8 HTML; a crawler that gave up waiting is not an error."""
    with suppress(OSError):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
