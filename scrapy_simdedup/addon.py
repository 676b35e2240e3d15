"""``ADDONS = {"scrapy_simdedup.Addon": 0}``: turn the plugin on with its defaults."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.pipeline import ContentSeenPipeline

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

PIPELINE_PRIORITY = 100


class Addon:
    """Enables ``ContentSeenPipeline`` (priority 100, unless already configured)."""

    def update_settings(self, settings: BaseSettings) -> None:
        settings.setdefault_in_component_priority_dict(
            "ITEM_PIPELINES", ContentSeenPipeline, PIPELINE_PRIORITY
        )
