"""``ADDONS = {"scrapy_simdedup.Addon": 0}``: turn the plugin on with its defaults."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.scrapy_layer.middleware import UrlSimHashMiddleware
from scrapy_simdedup.scrapy_layer.pipeline import ContentSeenPipeline

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

PIPELINE_PRIORITY = 100
MIDDLEWARE_PRIORITY = 60


class Addon:
    """Enables ``ContentSeenPipeline`` (priority 100) and ``UrlSimHashMiddleware`` (60),
    each unless already configured. ``SIMDEDUP_URL_MODE = "off"`` turns the second off."""

    def update_settings(self, settings: BaseSettings) -> None:
        settings.setdefault_in_component_priority_dict(
            "ITEM_PIPELINES", ContentSeenPipeline, PIPELINE_PRIORITY
        )
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", UrlSimHashMiddleware, MIDDLEWARE_PRIORITY
        )
