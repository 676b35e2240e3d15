"""Switchers: a parameter a page offers its reader in several values for one path.

A page that links one path under several values of a parameter (``?lang=fr``, ``de``,
``es``; a sort or tab switcher) offers variants: which one has content of its own cannot
be told from other paths (a real translation among fallbacks), so no pattern rule skips
that parameter in that section, on any host (a mirror inherits its original's rules).
Found here from the links a page offers (``linked``), or taken from another worker of
the crawl (``add``, ``url/sharing.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.features import section_template
from scrapy_simdedup.url.rules import template_path

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.url.parts import UrlParts

MAX_OFFERED = 200_000
"""Links with query parameters remembered by page, to tell a page that offers several values
of one parameter for one path (a switcher); the oldest go."""
MAX_SWITCHERS = 10_000


class Switchers:
    """The switchers (section, parameter) known in this crawl, in the order they were found,
    and the links that may show more."""

    def __init__(self) -> None:
        # (linking page, target without the parameter, parameter) -> the first value seen
        self._offered: dict[tuple[str, str, str], str] = {}
        # (section, parameter): a page offered several values of it for one path
        # Switchers (section, parameter) by when they were found. On a shared store, what
        # forbids skips is announced to the other workers (``found``), and what they found
        # is taken in here, then handed to the URL core for its bets (``heard``).
        self._switchers: dict[tuple[str, str], None] = {}

    def linked(self, parts: UrlParts, source: UrlParts | None) -> list[tuple[str, str]]:
        """A link from the page ``source`` to ``parts`` was met. Returns the switchers it
        showed, as (section, parameter): no pattern rule skips the parameter in that
        section from now on (``UrlLearner.linked``)."""
        if source is None or not parts.params:
            return []
        found = []
        names: set[str] = set()
        for name, value in parts.params:
            if name in names:  # ``?a=1&a=2``: one link, not two variants
                continue
            names.add(name)
            key = (source.url, parts.without_params(frozenset((name,))), name)
            first = self._offered.get(key)
            if first is None:
                if len(self._offered) >= MAX_OFFERED:
                    del self._offered[next(iter(self._offered))]
                self._offered[key] = value
                continue
            switcher = (template_path(section_template(parts)), name)
            known = switcher in self._switchers
            if first != value and not known and len(self._switchers) < MAX_SWITCHERS:
                self._switchers[switcher] = None
                found.append(switcher)
        return found

    def add(self, switcher: tuple[str, str]) -> bool:
        """A switcher another worker found; whether it is new here (and was kept)."""
        if switcher not in self._switchers and len(self._switchers) < MAX_SWITCHERS:
            self._switchers[switcher] = None
            return True
        return False

    def latest(self, count: int) -> list[tuple[str, str]]:
        """The ``count`` switchers found last, the most recent first."""
        return list(reversed(self._switchers))[:count]

    def switches(self, parts: UrlParts, names: Iterable[str]) -> bool:
        """Whether one of ``names`` is a switcher in ``parts``' section (see ``linked``)."""
        if not self._switchers:
            return False
        section = template_path(section_template(parts))
        return any((section, name) in self._switchers for name in names)
