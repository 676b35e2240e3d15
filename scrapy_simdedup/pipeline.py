"""The path a project's ``ITEM_PIPELINES`` names: ``scrapy_simdedup.pipeline``."""

from scrapy_simdedup.scrapy_layer.pipeline import ContentSeenPipeline, NearDuplicateItem

__all__ = ["ContentSeenPipeline", "NearDuplicateItem"]
