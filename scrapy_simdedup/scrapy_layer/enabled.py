"""Which of the plugin's components a project's settings enable, and what that leaves idle.

``scrapy startproject`` writes ``ADDONS = {}`` near the top of ``settings.py``; an
``ADDONS = {"scrapy_simdedup.Addon": 0}`` pasted above it is overwritten, and the plugin is
silently off. Scrapy runs nothing of a package its settings do not name (it reads entry
points only for commands), so a crawl cannot notice: ``scrapy simdedup check`` (and every
other ``scrapy simdedup`` action) does. When one component runs, it notices settings meant
for the other one, which is off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from scrapy.settings import BaseSettings

PIPELINE = "scrapy_simdedup.ContentSeenPipeline"
MIDDLEWARE = "scrapy_simdedup.UrlSimHashMiddleware"
ADDON = "scrapy_simdedup.Addon"
_DEFINED_IN = {
    PIPELINE: "scrapy_simdedup.pipeline.ContentSeenPipeline",
    MIDDLEWARE: "scrapy_simdedup.middleware.UrlSimHashMiddleware",
    ADDON: "scrapy_simdedup.addon.Addon",
}
URL_SETTINGS = ("SIMDEDUP_URL_",)


@dataclass(frozen=True)
class Enabled:
    """What ``ITEM_PIPELINES``, ``DOWNLOADER_MIDDLEWARES`` and ``ADDONS`` turn on."""

    pipeline: bool
    middleware: bool
    addon: bool

    @property
    def content(self) -> bool:
        return self.pipeline or self.addon

    @property
    def urls(self) -> bool:
        return self.middleware or self.addon

    @property
    def anything(self) -> bool:
        return self.content or self.urls


def enabled(settings: BaseSettings) -> Enabled:
    return Enabled(
        pipeline=_names(settings.getwithbase("ITEM_PIPELINES"), PIPELINE),
        middleware=_names(settings.getwithbase("DOWNLOADER_MIDDLEWARES"), MIDDLEWARE),
        addon=_names(settings["ADDONS"], ADDON),
    )


def _names(components: MutableMapping[Any, Any], name: str) -> bool:
    """Whether the component dict turns on ``name`` (or a subclass of it)."""
    ours = load_object(_DEFINED_IN[name])
    for component in build_component_list(components):  # those with priority None are off
        if component in (name, _DEFINED_IN[name]):
            return True
        try:
            found = load_object(component) if isinstance(component, str) else component
        except (ImportError, ValueError, NameError, AttributeError):
            continue  # Scrapy reports a component it cannot load when the crawl starts
        if isinstance(found, type) and issubclass(found, ours):
            return True
    return False


def own_settings(settings: BaseSettings, prefixes: tuple[str, ...] = ("SIMDEDUP_",)) -> list[str]:
    """The ``SIMDEDUP_*`` settings a project sets (beginning with one of ``prefixes``)."""
    return sorted(
        name
        for name in settings
        if isinstance(name, str) and name.startswith(prefixes) and settings.get(name) is not None
    )


def idle_plugin_warning(settings: BaseSettings) -> str | None:
    """The warning for ``SIMDEDUP_*`` settings while no component is on (None: all is well,
    or ``SIMDEDUP_ENABLED`` is False, which says the plugin is off on purpose)."""
    names = own_settings(settings)
    if not names or not settings.getbool("SIMDEDUP_ENABLED", True) or enabled(settings).anything:
        return None
    return (
        f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} set, but the plugin is not "
        f"enabled: neither {PIPELINE} in ITEM_PIPELINES, {MIDDLEWARE} in "
        f"DOWNLOADER_MIDDLEWARES nor {ADDON} in ADDONS, so a crawl keeps every duplicate. "
        "scrapy startproject writes ADDONS = {} in settings.py: put the plugin in that line, "
        f'ADDONS = {{"{ADDON}": 0}}, since a line above it is overwritten.'
    )


def half_enabled_warning(settings: BaseSettings, *, adaptive: bool) -> str | None:
    """The warning one running component gives about the other, off: the URL middleware in
    adaptive mode learns from the pipeline's verdicts; ``SIMDEDUP_URL_*`` settings do
    nothing without the middleware."""
    on = enabled(settings)
    if on.urls and not on.content and adaptive:
        return (
            f"{MIDDLEWARE} runs in adaptive mode, but {PIPELINE} is not in ITEM_PIPELINES: "
            "it learns its rules from the pipeline's verdicts, so it will skip nothing. "
            f'Enable the pipeline (or ADDONS = {{"{ADDON}": 0}}), or set SIMDEDUP_URL_MODE.'
        )
    url_settings = own_settings(settings, URL_SETTINGS)
    if on.content and not on.urls and url_settings and settings.get("SIMDEDUP_URL_MODE") != "off":
        return (
            f"{', '.join(url_settings)} {'is' if len(url_settings) == 1 else 'are'} set, but "
            f"{MIDDLEWARE} is not in DOWNLOADER_MIDDLEWARES: no request is skipped before "
            f'download. Add {{"{MIDDLEWARE}": 60}} to DOWNLOADER_MIDDLEWARES to use '
            f"{'it' if len(url_settings) == 1 else 'them'}."
        )
    return None
