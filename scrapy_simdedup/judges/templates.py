"""Which of a page's blocks are its site's template, as the store's counts know it now."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from scrapy_simdedup.index.blockcounts import template_of

if TYPE_CHECKING:
    from scrapy_simdedup.fingerprint.packedblocks import PackedBlocks
    from scrapy_simdedup.index.blockcounts import BlockCounts


_PLAIN_HOST = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([A-Za-z0-9.-]+)(?::([0-9]{1,5}))?(?:[/?#]|$)")
"""A key whose host ``urlsplit`` would return as it stands, lower-cased: no user, no
brackets, no whitespace (most keys; the rest are split in full, a page at a time)."""
_MAX_PORT = 65535


def host_of(key: str) -> str:
    """The site whose template a page shares: its key's host (and port, when one is
    given), or "" for keys that are no URL."""
    plain = _PLAIN_HOST.match(key)
    port = int(plain.group(2) or 0) if plain is not None else _MAX_PORT + 1
    if plain is None or port > _MAX_PORT:
        return split_host(key)
    return _site(plain.group(1).lower(), port)


def split_host(key: str) -> str:
    """``host_of`` by ``urlsplit``, whatever the key holds."""
    try:
        parts = urlsplit(key)
        return _site(parts.hostname or "", parts.port)
    except ValueError:
        return ""


def _site(host: str, port: int | None) -> str:
    return f"{host}:{port}" if port else host


SHOWN_COUNTED = 32
"""A stored page's longest blocks outside its judged text counted for its host (``shown_host``):
its notices, its author's bio, its comment form's terms are long lines, a menu's are short."""


def shown_host(host: str) -> str:
    """Where the blocks ``host``'s stored pages showed outside their judged text are counted:
    a name no host has (it holds a space), so they never mix with its template's counts."""
    return f"{host} shown"


class PageTemplates:
    """A page's template blocks, by their template hashes (volatile tokens masked): its own
    site's (``own``, from ``counts``), and with a candidate's site's as well (a mirror
    copies its original's template with its pages); each site's counts are read once.
    ``skipped_sentences``: the exact hashes of the page's template and chrome blocks,
    which find no nshash candidates and claim no sentence.

    Against a page of another host, every block a stored page of the page's own host
    already carries is left out too (``known``): a portal's cookie notice, its author's
    bio, its newsletter box are on its other pages, and dropping a copy that adds only
    them loses no text the store does not hold. So are, after the content the two pages
    share, the blocks a stored page of its host showed outside the text it was judged by
    (``shown_for``): the extractor left that page's comment form and newsletter box out,
    and a reprint's extract keeps them."""

    def __init__(self, blocks: BlockCounts, page: PackedBlocks, key: str | None) -> None:
        self._blocks, self._templates = blocks, page.templates
        self.host = host_of(key) if key else ""
        self.counts = blocks.counts(self.host, self._templates)
        self.own = template_of(self.counts)
        # On one stored page of the host or more, as written: a line whose figures changed
        # (a ticker's new count) is known by its masked text only once it is template.
        self.known = self.own | frozenset(
            exact
            for exact, masked in zip(page.exacts, self._templates, strict=True)
            if exact == masked and exact in self.counts
        )
        exacts = page.exacts
        self.skipped_sentences = frozenset(
            exact
            for exact, masked, chrome in zip(exacts, self._templates, page.chrome, strict=True)
            if chrome or masked in self.own
        )
        self._with: dict[str, frozenset[int]] = {}
        self._exacts = page.exacts
        self._shown: frozenset[int] | None = None

    def of(self, candidate: str) -> frozenset[int]:
        """The template blocks to leave out when the page is compared with ``candidate``."""
        host = host_of(candidate)
        if host == self.host:
            return self.own
        if host not in self._with:
            self._with[host] = self.known | self._blocks.template(host, self._templates)
        return self._with[host]

    def shown_for(self, candidate: str) -> frozenset[int]:
        """Against a page of another host: the exact hashes of the page's blocks that a
        stored page of its own host showed outside the text it was judged by (read once)."""
        if not self.host or host_of(candidate) == self.host:
            return frozenset()
        if self._shown is None:
            self._shown = frozenset(self._blocks.counts(shown_host(self.host), self._exacts))
        return self._shown
