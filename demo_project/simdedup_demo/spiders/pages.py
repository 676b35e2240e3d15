"""A general spider: follows links within the hosts it starts on, yields url, title, text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Response, TextResponse

from scrapy_simdedup import UndecodablePageError, page_text


class PagesSpider(scrapy.Spider):
    """``scrapy crawl pages -a start_urls=https://a.example/,https://b.example/``"""

    name = "pages"

    def __init__(self, start_urls: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [url for url in start_urls.split(",") if url]
        if not self.start_urls:
            raise ValueError("give the sites to crawl: -a start_urls=URL[,URL...]")
        self.netlocs = {urlsplit(url).netloc for url in self.start_urls}

    def parse(self, response: Response) -> Iterator[Any]:
        if not isinstance(response, TextResponse):
            return
        try:
            content_type = response.headers.get("Content-Type", b"").decode("latin-1")
            text = page_text(response.body, content_type=content_type)
        except UndecodablePageError:
            return
        title = " ".join(response.css("h1 ::text").getall()).strip()
        if text:
            yield {
                "url": response.url,
                "title": title or response.css("title::text").get(""),
                "text": text,
            }
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if urlsplit(url).netloc in self.netlocs:
                yield scrapy.Request(url, callback=self.parse)
