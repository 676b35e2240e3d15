"""A SimHash index on disk or in memory, independent of Scrapy."""

from __future__ import annotations
