"""The ``scrapy simdedup`` command, at the path earlier releases registered."""

from scrapy_simdedup.scrapy_layer.commands import SimDedupCommand

__all__ = ["SimDedupCommand"]
