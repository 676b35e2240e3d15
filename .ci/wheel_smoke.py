"""The built wheel, installed in a clean virtualenv, run from outside the source tree.

Serves three pages on 127.0.0.1 (two carry the same article under other chrome), crawls
them with ``scrapy runspider`` and the pipeline on, and checks that the copy was dropped,
that the installed package (not the source tree) ran, and that ``scrapy simdedup``
finds the index the crawl wrote.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ARTICLE = " ".join(
    f"Sentence {n} of the harbour report says the ferries ran {n * 3} times on schedule."
    for n in range(40)
)
OTHER = " ".join(
    f"Line {n} of the garden notes says the beans grew {n * 2} centimetres this week."
    for n in range(40)
)
PAGES = {
    "/": '<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>',
    "/a": f"<html><body><nav>Site A menu</nav><main><p>{ARTICLE}</p></main></body></html>",
    "/b": f"<html><body><nav>Mirror B</nav><main><p>{ARTICLE}</p></main></body></html>",
    "/c": f"<html><body><main><p>{OTHER}</p></main></body></html>",
}
SPIDER = """
import scrapy

class Pages(scrapy.Spider):
    name = "smoke"
    custom_settings = {"ITEM_PIPELINES": {"scrapy_simdedup.ContentSeenPipeline": 100}}

    def __init__(self, start, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse(self, response):
        if response.url.endswith("/"):
            yield from response.follow_all(css="a")
        else:
            yield {"url": response.url, "text": response.text}
"""


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = PAGES.get(self.path, "").encode()
        self.send_response(200 if self.path in PAGES else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    import scrapy_simdedup

    installed = Path(scrapy_simdedup.__file__).resolve()
    assert "site-packages" in installed.parts, f"not the installed wheel: {installed}"
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory() as work:
            (Path(work) / "spider.py").write_text(SPIDER)
            start = f"http://127.0.0.1:{server.server_port}/"
            crawl = [
                sys.executable, "-m", "scrapy", "runspider", "spider.py", "-a", f"start={start}",
                "-o", "feed.jsonl:jsonl", "-s", "SIMDEDUP_DIR=index", "-s", "LOG_LEVEL=INFO",
            ]  # fmt: skip
            done = subprocess.run(
                crawl, check=False, cwd=work, capture_output=True, text=True, timeout=300
            )
            assert done.returncode == 0, done.stderr[-3000:]
            feed = Path(work) / "feed.jsonl"
            urls = sorted(json.loads(line)["url"] for line in feed.read_text().splitlines())
            assert len(urls) == 2 and urls[-1].endswith("/c"), urls  # one of /a, /b dropped
            inspect = [sys.executable, "-m", "scrapy", "simdedup", "inspect", "--index",
                       str(Path(work) / "index" / "smoke")]  # fmt: skip
            shown = subprocess.run(
                inspect, check=False, capture_output=True, text=True, timeout=120
            )
            assert shown.returncode == 0, shown.stderr[-3000:]
            print(f"wheel smoke test: {installed.parent} kept {len(urls)} of 3 pages")
            print(shown.stdout.strip().splitlines()[0])
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
