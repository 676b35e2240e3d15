"""One spelling per URL: the parts a URL fingerprint is built from.

Equivalent spellings must give the same fingerprint: scheme and host case, IDN and its
punycode, ``%7E`` and ``~``, the order of query parameters, a default port. w3lib's
``canonicalize_url`` (what Scrapy's own request fingerprints use) does most of it; the
default port and the checks for what cannot be judged are done here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from w3lib.url import canonicalize_url

from scrapy_simdedup.errors import UrlNotCheckedError

MAX_URL_CHARS = 8192
"""Longer URLs are fetched unchecked: no real page needs one, and traps do."""
CACHED_URLS = 16_384
"""Spellings whose parts are remembered: a crawl meets the same link on many pages, and
canonicalising is most of what the URL middleware costs per link (a few MB at most). They
are kept as plain tuples of strings, which the garbage collector stops tracking: every full
collection of a crawl walks each object it tracks, so a cache of ``UrlParts`` objects made
each of them longer (issue 15)."""

_DEFAULT_PORTS = {"http": "80", "https": "443"}
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
CANONICAL_ALREADY = re.compile(
    rf"https?://{_LABEL}(?:\.{_LABEL})*(?::([1-9][0-9]{{0,4}}))?"
    r"(?:/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*)?)+"
)
"""URLs ``canonicalize_url`` returns as they are (a test checks it on generated ones): a
lower-case host, a port without leading zeros, a path of unreserved characters without
dot segments, no query, no fragment. Most links of a site are; canonicalising was about
half of what a new link cost the URL middleware."""
_MAX_PORT = 65535


@dataclass(frozen=True, slots=True)
class UrlParts:
    """A canonical URL (``url``) and its pieces; ``host`` keeps a non-default port.

    Segments and parameters stay percent-encoded as in ``url``, so rules learned from
    them rebuild exactly the spelling another request would have.
    """

    url: str
    scheme: str
    host: str
    segments: tuple[str, ...]
    params: tuple[tuple[str, str], ...]

    @property
    def path_and_query(self) -> str:
        """The URL without scheme and host: what a path-preserving mirror keeps."""
        return self.url[len(self.scheme) + 3 + len(self.host) :]

    def with_host(self, host: str) -> str:
        """This URL on another host (its counterpart on a mirror)."""
        return f"{self.scheme}://{host}{self.path_and_query}"

    def without_params(self, names: frozenset[str]) -> str:
        """This URL without the query parameters in ``names`` (spelling kept otherwise)."""
        base, _, query = self.url.partition("?")
        kept = "&".join(p for p in query.split("&") if p and p.partition("=")[0] not in names)
        return f"{base}?{kept}" if kept else base


def url_parts(url: str) -> UrlParts:
    """Canonical parts of ``url``; raises ``UrlNotCheckedError`` for what cannot be judged."""
    if len(url) > MAX_URL_CHARS:
        raise UrlNotCheckedError("too_long", url)
    return UrlParts(*_parts(url))


def canonical_url(url: str) -> str:
    """``url_parts(url).url``, without building the parts: what a link met again needs."""
    if len(url) > MAX_URL_CHARS:
        raise UrlNotCheckedError("too_long", url)
    return _parts(url)[0]


_Parts = tuple[str, str, str, tuple[str, ...], tuple[tuple[str, str], ...]]


@lru_cache(maxsize=CACHED_URLS)
def _parts(url: str) -> _Parts:
    plain = CANONICAL_ALREADY.fullmatch(url)
    try:
        if plain is not None and int(plain.group(1) or 0) <= _MAX_PORT:
            canonical = url
        else:
            canonical = canonicalize_url(url.strip())
        split = urlsplit(canonical)
        scheme = split.scheme.lower()
        hostname = split.hostname
        port = split.port
    except (ValueError, UnicodeError):
        raise UrlNotCheckedError("malformed", url) from None
    if scheme not in _DEFAULT_PORTS:
        raise UrlNotCheckedError("not_http", url)
    if not hostname:
        raise UrlNotCheckedError("no_host", url)
    netloc = split.netloc.rpartition("@")[2].lower()
    if port is not None and str(port) == _DEFAULT_PORTS[scheme]:
        netloc = netloc[: -len(f":{port}")]
    path = split.path or "/"
    canonical = f"{scheme}://{netloc}{path}" + (f"?{split.query}" if split.query else "")
    segments = tuple(segment for segment in path.split("/") if segment)
    params = tuple(
        (name, value)
        for name, _, value in (piece.partition("=") for piece in split.query.split("&"))
        if name
    )
    return canonical, scheme, netloc, segments, params


def canonical_or_none(url: str) -> str | None:
    """``canonical_url(url)``, or None for a URL that cannot be judged."""
    try:
        return canonical_url(url)
    except UrlNotCheckedError:
        return None


def parts_or_none(url: str | None) -> UrlParts | None:
    """``url_parts(url)``, or None for no URL or one that cannot be judged (a link's
    source, a held request's URL)."""
    if not url:
        return None
    try:
        return url_parts(url)
    except (UrlNotCheckedError, ValueError):
        return None
