"""A pipeline that runs after ContentSeenPipeline and drops some items (for the crawl tests)."""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem


class DropOriginalHost:
    """Drops every item whose URL starts with ``DROP_URL_PREFIX`` (a setting)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    @classmethod
    def from_crawler(cls, crawler: Any) -> DropOriginalHost:
        return cls(crawler.settings.get("DROP_URL_PREFIX", "-"))

    def process_item(self, item: Any) -> Any:
        if str(ItemAdapter(item).get("url", "")).startswith(self.prefix):
            raise DropItem("dropped by a later pipeline")
        return item
