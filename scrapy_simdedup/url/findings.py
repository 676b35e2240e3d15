"""``Findings``: what one worker of a shared crawl found that forbids skips on all of them.

Most of what a worker learns only permits skips, and a worker that does not know it yet
merely fetches more. Some findings forbid them, and must reach the worker that holds the
bets they concern or takes the links from the shared queue, which may not be the one that
found them (issue 35): they go with the rule news (``url/news.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_FINDINGS_PER_ENTRY = 2_000
"""Of each kind of finding in one announcement; the rest go with the next."""


@dataclass
class Findings:
    """What one worker found that forbids a skip or a bet's settling on every worker:
    switchers (section, parameter), URLs whose pages were not what their path promised
    (``unpredicted``), and rules ``refuted`` while they were learned (identities)."""

    switchers: list[tuple[str, str]] = field(default_factory=list)
    unpredicted: list[str] = field(default_factory=list)
    refuted: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.switchers or self.unpredicted or self.refuted)

    def head(self) -> Findings:
        """At most ``MAX_FINDINGS_PER_ENTRY`` of each kind, the first ones (what one
        announcement holds); ``drop`` them once announced."""
        most = MAX_FINDINGS_PER_ENTRY
        return Findings(self.switchers[:most], self.unpredicted[:most], self.refuted[:most])

    def drop(self, head: Findings) -> None:
        """Take out ``head``, announced."""
        del self.switchers[: len(head.switchers)]
        del self.unpredicted[: len(head.unpredicted)]
        del self.refuted[: len(head.refuted)]

    def to_data(self) -> dict[str, list[Any]]:
        data: dict[str, list[Any]] = {}
        if self.switchers:
            data["switchers"] = [list(switcher) for switcher in self.switchers]
        if self.unpredicted:
            data["unpredicted"] = self.unpredicted
        if self.refuted:
            data["refuted"] = self.refuted
        return data

    @classmethod
    def from_data(cls, entry: dict[str, Any]) -> Findings:
        """Raises ValueError or TypeError on what this version cannot read."""
        return cls(
            [(str(section), str(name)) for section, name in entry.get("switchers", [])],
            [str(url) for url in entry.get("unpredicted", [])],
            [str(identity) for identity in entry.get("refuted", [])],
        )
