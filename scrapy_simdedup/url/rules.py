"""The URL rules a crawl learns, and the decision a rule makes on a request.

A rule is one claim about a site's URLs, with the evidence for it (its copies and the pages
that came back new): **mirror** (a host serves another's pages under the same paths),
**pattern** (a query parameter changes nothing in a section), **trap** (pages of one path
template copy each other), and **strict** (a URL near one fetched, in strict mode). How
rules are learned, chosen and applied is ``learner.py``'s; what a rule is and how it is
stored is here.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Literal

from scrapy_simdedup.url.parts import UrlParts

GENERAL_VALUES = 3
"""Distinct values of a parameter its copies must show before its rule covers any value."""
MAX_VALUE_CHARS = 200
"""A parameter's value (and a path) is remembered by its first this many characters."""
MAX_SPECIFIC_VALUES = 64
"""Values a pattern rule that met a new page remembers (one per copy that showed it)."""
MIN_DUPLICATE_SHARE = 0.9
"""The share of a rule's verdicts that must be copies before it skips."""

RuleKind = Literal["mirror", "pattern", "trap", "strict"]
_IDENTITY_SEPARATOR = "\x00"


@dataclass
class Rule:
    """One learned (or still learning) rule and its evidence."""

    kind: RuleKind
    host: str
    other: str = ""  # mirror: the original host; strict: the fetched URL it is near
    names: tuple[str, ...] = ()  # pattern: the parameters that change nothing
    template: str = ""  # trap: the path template; pattern: the section (none: applies nowhere)
    values: tuple[str, ...] = ()  # pattern: values its copies showed
    # pattern: a value of it brought a new page (a translation among ?lang= fallbacks):
    # it covers the values its copies showed, never "any value" again
    specific: bool = False
    # pattern: values that brought a new page (a real translation among fallbacks): never
    # skipped again, though copies showed the same value elsewhere in the section
    denied: tuple[str, ...] = ()
    # pattern: paths (no host, no query) where a value of it brought a new page: the path
    # has content behind the parameter (a pager's next pages, an article's translations),
    # so none of its values is skipped there again
    paths: tuple[str, ...] = ()
    duplicates: int = 0
    uniques: int = 0
    # its samples in this crawl: would-be skips fetched to check it and judged copies, and
    # the pages that came back new where it predicted a copy (whichever request brought
    # them); not stored: a site changes between crawls, and its bound with it
    samples: int = field(default=0, compare=False)
    samples_new: int = field(default=0, compare=False)  # of them, the pages that came back new
    streak: int = 0  # duplicates since the last new page
    content_duplicates: int = 0  # mirror: copies among content pages (not /terms, /about)
    chosen: bool = False  # mirror: this direction was chosen; the reverse never skips
    chosen_why: str = ""  # mirror, chosen: the evidence that chose it (``mirrors.py``)
    candidates: int = field(default=0, compare=False)  # would-be skips since the last sample
    exemplar: str = field(default="", compare=False)  # trap: what its latest copy copied
    # mirror: may skip a copy whose original is not queued yet (a pending bet); off for
    # this crawl once such a bet came back new (the host has pages the other lacks)
    waits: bool = field(default=True, compare=False)
    # trap: a page of its template came back new in this crawl: the template has pages of
    # its own among its copies (a calendar's busy days), so it skips nothing more here
    stopped: bool = field(default=False, compare=False)
    skipped_here: int = field(default=0, compare=False)  # trap: its skips in this crawl
    chained_here: int = field(default=0, compare=False)  # trap: of them, linked from its own
    # with a risk: its run of copies reached what it needs in this crawl, and from then on
    # a new page ends it only once its samples no longer bound its differing skips within
    # the risk
    proven: bool = field(default=False, compare=False)

    @property
    def identity(self) -> str:
        """What names the rule in its bets, its tallies and the store (``kind_of`` reads
        its kind back)."""
        return _IDENTITY_SEPARATOR.join(
            (self.kind, self.host, self.other, ",".join(self.names), self.template)
        )

    def describe(self) -> str:
        if self.kind == "mirror":
            return f"{self.host} mirrors {self.other}"
        if self.kind == "pattern":
            section = template_path(self.template)
            general = not self.values or len(self.values) >= GENERAL_VALUES
            values = "" if general else f" ({' or '.join(self.values)})"
            return (
                f"{self.host}: parameters {', '.join(self.names)}{values} change nothing"
                f" on /{section}"
            )
        if self.kind == "trap":
            return f"{self.template} is a trap (its pages copy each other)"
        return f"near the fetched {self.other}"

    def copy_note(self) -> str:
        """`` (the copy: why)`` for a chosen mirror rule (``copy_note``), else empty."""
        return copy_note(self.chosen_why)

    def learned(self, min_evidence: int) -> bool:
        """Whether the rule skips on its run: ``min_evidence`` copies in a row (twice that
        for a trap) and ``MIN_DUPLICATE_SHARE`` of its verdicts copies."""
        needed = 2 * min_evidence if self.kind == "trap" else min_evidence
        return self.streak >= needed and self.may_stand(min_evidence)

    def may_stand(self, min_evidence: int) -> bool:
        """Whether the rule may skip at all: ``MIN_DUPLICATE_SHARE`` of its verdicts copies
        (and, for a mirror, copies among content pages). With a risk, a rule a run proved
        in this crawl (``proven``) skips on such counts while its samples bound the share
        of its differing skips within the risk (``Standing.learned``), however recent
        its last new page. A trap stops at its first new page (``stopped``): a calendar's
        busy day says nothing of the next."""
        share = self.duplicates / max(1, self.duplicates + self.uniques)
        spread = self.kind != "mirror" or self.content_duplicates >= min_evidence
        return share >= MIN_DUPLICATE_SHARE and spread

    def record(self, duplicate: bool, *, content_page: bool = False) -> None:
        if duplicate:
            self.duplicates += 1
            self.streak += 1
            self.content_duplicates += content_page
        else:
            self.uniques += 1
            self.streak = 0

    def to_json(self) -> bytes:
        data = asdict(self)
        for this_crawls in (
            "candidates", "exemplar", "waits", "stopped", "skipped_here", "chained_here",
            "proven", "samples", "samples_new",
        ):  # fmt: skip
            del data[this_crawls]
        for absent_before in ("paths", "chosen_why"):  # as an earlier version writes them
            if not data[absent_before]:
                del data[absent_before]
        return json.dumps(data, sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Rule:
        data = json.loads(raw)
        data["names"] = tuple(data["names"])
        data["values"] = tuple(data.get("values", ()))
        data["denied"] = tuple(data.get("denied", ()))
        data["paths"] = tuple(data.get("paths", ()))
        known = set(cls.__dataclass_fields__)  # a later version's fields are left out
        return cls(**{name: value for name, value in data.items() if name in known})

    def covers_values(self, parts: UrlParts) -> bool:
        """A pattern rule applies to these values of its parameters: never to a value that
        brought a new page; any, once its copies showed ``GENERAL_VALUES`` of them; else
        only those they showed. Never on a path where a value brought a new page, and
        nowhere once too many paths did (they are not kept beyond ``MAX_SPECIFIC_VALUES``)."""
        if self.paths and (len(self.paths) >= MAX_SPECIFIC_VALUES or path_key(parts) in self.paths):
            return False
        if self.denied and any(
            value[:MAX_VALUE_CHARS] in self.denied for name, value in parts.params
            if name in self.names
        ):  # fmt: skip
            return False
        if len(self.values) >= GENERAL_VALUES and not self.specific:
            return True
        return all(
            value[:MAX_VALUE_CHARS] in self.values
            for name, value in parts.params
            if name in self.names
        )

    def deny(self, parts: UrlParts) -> None:
        """The values of this rule's parameters in ``parts`` brought a new page."""
        path = path_key(parts)
        if path not in self.paths and len(self.paths) < MAX_SPECIFIC_VALUES:
            self.paths = (*self.paths, path)
        for name, value in parts.params:
            cut = value[:MAX_VALUE_CHARS]
            if (
                name in self.names
                and cut not in self.denied
                and len(self.denied) < MAX_SPECIFIC_VALUES
            ):
                self.denied = (*self.denied, cut)

    def saw_value(self, value: str) -> None:
        value = value[:MAX_VALUE_CHARS]
        most = MAX_SPECIFIC_VALUES if self.specific else GENERAL_VALUES
        if value not in self.values and len(self.values) < most:
            self.values = (*self.values, value)


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with a request: ``skip`` it, or fetch it (``sample`` when a rule wanted
    to skip it but it is fetched to check the rule). A skip names the ``rule`` it bets on
    and the ``counterpart`` URL whose fetch must bring its content (for a trap, the page
    its copies copied)."""

    skip: bool
    rule: Rule | None = None
    sample: bool = False
    counterpart: str | None = None
    pending: bool = False  # a skip whose counterpart is not queued yet: the bet waits for it
    gathering: bool = False  # a skip on a rule whose evidence is still coming in

    @property
    def reason(self) -> str:
        return self.rule.kind if self.rule else ""


FETCH = Decision(skip=False)


def path_key(parts: UrlParts) -> str:
    """The path of ``parts`` without host and query, cut as values are (a longer path is
    taken for another with the same start: a denial too many, never one too few)."""
    return parts.path_and_query.partition("?")[0][:MAX_VALUE_CHARS]


def template_path(template: str) -> str:
    """A path template without its host: what a mirror shares with its original."""
    return template.partition("/")[2]


def kind_of(identity: str) -> str:
    """The kind of the rule ``Rule.identity`` names."""
    return identity.partition(_IDENTITY_SEPARATOR)[0]


def copy_note(why: object) -> str:
    """`` (the copy: why)``: what a user reads after a mirror rule's name, which way the
    pair went and why (``mirrors.py``); empty when ``why`` is no text (another rule, or a
    verdict log line edited by hand)."""
    return f" (the copy: {why})" if isinstance(why, str) and why else ""
