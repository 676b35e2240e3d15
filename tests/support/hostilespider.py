"""The spider of the hostile-input crawl.

``scrapy runspider tests/support/hostilespider.py -a site=URL``.

It hands the pipeline what a careless spider would: raw bodies as bytes, JSON strings with
lone surrogates, and requests for every odd link (all through the site as a proxy).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Response

from tests.support.hostilesite import odd_links


class HostileSpider(scrapy.Spider):
    name = "hostile"
    custom_settings = {  # noqa: RUF012 (Scrapy's convention)
        "FEED_EXPORT_FIELDS": ["url"],  # the bodies themselves are not worth exporting
        "DOWNLOAD_MAXSIZE": 64 * 2**20,
        "DOWNLOAD_WARNSIZE": 0,
        "DOWNLOAD_TIMEOUT": 30,
        "RETRY_ENABLED": False,
        "URLLENGTH_LIMIT": 0,  # let the 100 KB URL reach the URL middleware
        "CLOSESPIDER_TIMEOUT": 240,
    }

    def __init__(self, site: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.site = site
        self.port = urlsplit(site).port or 80
        self.unrequestable = 0

    async def start(self) -> AsyncIterator[Any]:
        yield scrapy.Request(self.site, callback=self.parse_index, meta={"proxy": self.site})

    def parse_index(self, response: Response) -> Iterator[Any]:
        hrefs = response.css("a::attr(href)").getall()
        for url in [response.urljoin(h) for h in hrefs] + odd_links(self.port):
            try:
                yield scrapy.Request(url, callback=self.parse_page, meta={"proxy": self.site})
            except (ValueError, TypeError, UnicodeError):
                self.unrequestable += 1  # Scrapy itself refuses it; not ours to judge
        self.crawler.stats.set_value("hostile/unrequestable", self.unrequestable)

    def parse_page(self, response: Response) -> Iterator[Any]:
        if response.url.endswith(".json"):
            data = json.loads(response.body)
            yield {"url": response.url, "title": data["title"], "text": data["text"]}
        else:
            yield {"url": response.url, "title": None, "text": response.body}
