"""The ``simdedup-settings`` directive: the settings reference, generated from
``scrapy_simdedup.config.SimDedupConfig`` (each field's name, default and docstring), so the
reference cannot drift from the settings the plugin reads. A field without a docstring is a
build warning, and the docs build treats warnings as errors."""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

if TYPE_CHECKING:
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)


def settings() -> list[tuple[str, str, str]]:
    """(setting name, default as Python source, reST description) for every setting."""
    from scrapy_simdedup.config import SimDedupConfig

    docs = ModuleAnalyzer.for_module(SimDedupConfig.__module__).find_attr_docs()
    found = []
    for field in fields(SimDedupConfig):
        default = field.default
        shown = "(required)" if default is MISSING else _python(default)
        lines = docs.get(("SimDedupConfig", field.name))
        found.append((f"SIMDEDUP_{field.name.upper()}", shown, "\n".join(lines or [])))
    return found


def _python(value: Any) -> str:
    """A default as a user writes it in settings.py (tuples as lists, ints with ``_``)."""
    if isinstance(value, tuple):
        return repr(list(value))
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10_000:
        return f"{value:_}"
    return repr(value)


class SettingsDirective(SphinxDirective):
    """One section per setting: its name (a link target), its default, its meaning."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        source = StringList()
        for name, default, description in settings():
            if not description.strip():
                logger.warning(
                    "%s has no docstring in SimDedupConfig: write one under its field in "
                    "scrapy_simdedup/config.py",
                    name,
                    location=self.get_location(),
                )
            for line in (
                f".. _{name.lower()}:",
                "",
                name,
                "~" * len(name),
                "",
                f"Default: ``{default}``",
                "",
                *description.splitlines(),
                "",
            ):
                source.append(line, "scrapy_simdedup/config.py")
        container = nodes.section()
        container.document = self.state.document
        self.state.nested_parse(source, self.content_offset, container, match_titles=True)
        return list(container.children)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("simdedup-settings", SettingsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
