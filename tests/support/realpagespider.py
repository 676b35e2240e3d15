"""The spider of the real-pages crawl (issue 57).

``scrapy runspider tests/support/realpagespider.py -a pages=PAGES.json``, where the JSON file
lists ``[url, priority]`` pairs. Each page is requested once, at its priority, one request at
a time on Scrapy's own priority queue: the pages of the highest priority (the originals)
are fetched and judged before the others. Each page becomes one item, its HTML as it came:
the plugin finds the main content itself. ``-a text=paragraphs`` makes the item's text its
paragraphs joined with spaces instead, as many spiders do
(``" ".join(response.xpath("//body//p//text()").getall())``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import scrapy
from scrapy.http import Response


class RealPagesSpider(scrapy.Spider):
    name = "realpages"
    custom_settings = {  # noqa: RUF012 (Scrapy's convention)
        # Originals first: a single request at a time, taken by priority.
        "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.ScrapyPriorityQueue",
        "CONCURRENT_REQUESTS": 1,
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "RETRY_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 30,
        "CLOSESPIDER_TIMEOUT": 240,
        "FEED_EXPORT_ENCODING": "utf-8",
        "LOG_LEVEL": "INFO",
    }

    def __init__(self, pages: str = "", text: str = "html", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if text not in ("html", "paragraphs"):
            raise ValueError(f"text is html or paragraphs, not {text!r}")
        self.paragraphs = text == "paragraphs"
        if not pages:
            raise ValueError("give the pages to crawl: -a pages=PAGES.json")
        self.pages: list[tuple[str, int]] = [
            (str(url), int(priority)) for url, priority in json.loads(Path(pages).read_text())
        ]

    async def start(self) -> AsyncIterator[Any]:
        for url, priority in sorted(self.pages, key=lambda page: -page[1]):
            yield scrapy.Request(url, callback=self.parse, priority=priority)

    def parse(self, response: Response) -> Iterator[Any]:
        if self.paragraphs:
            yield {
                "url": response.url,
                "text": " ".join(response.xpath("//body//p//text()").getall()),
            }
        else:
            yield {"url": response.url, "text": response.text}
