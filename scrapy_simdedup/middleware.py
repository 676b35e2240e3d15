"""The path a project's ``DOWNLOADER_MIDDLEWARES`` names: ``scrapy_simdedup.middleware``."""

from scrapy_simdedup.scrapy_layer.middleware import PredictedDuplicate, UrlSimHashMiddleware

__all__ = ["PredictedDuplicate", "UrlSimHashMiddleware"]
