"""The path a project's ``ADDONS`` names: ``scrapy_simdedup.addon``."""

from scrapy_simdedup.scrapy_layer.addon import Addon

__all__ = ["Addon"]
