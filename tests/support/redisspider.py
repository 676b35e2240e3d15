"""The demo's pages spider as a scrapy-redis ``RedisSpider``: start URLs come from a Redis
list, requests go through scrapy-redis's shared queue and dupefilter.

Loaded with ``-s SPIDER_MODULES=tests.support.redisspider`` from ``demo_project/`` (the demo
itself does not need scrapy-redis): ``scrapy crawl redis_pages -a hosts=HOST:PORT,...``.
"""

from __future__ import annotations

from typing import Any

from scrapy_redis.spiders import RedisSpider
from simdedup_demo.spiders.pages import PagesSpider


class RedisPagesSpider(RedisSpider):
    name = "redis_pages"

    def __init__(self, hosts: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.netlocs = {host for host in hosts.split(",") if host}
        if not self.netlocs:
            raise ValueError("give the hosts to stay on: -a hosts=HOST:PORT[,HOST:PORT...]")

    parse = PagesSpider.parse
