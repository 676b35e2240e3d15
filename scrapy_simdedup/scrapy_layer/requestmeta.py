"""What the URL middleware reads from a Scrapy request, and the meta keys it writes there.

A request is handed to the URL core as a ``Seen`` (its URL, depth, referrer, and why it is
never skipped, if so); a request sent again on the spider's behalf is ``routed`` as the
spider made it, without what the download added.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from scrapy import Request

from scrapy_simdedup.errors import UrlNotCheckedError
from scrapy_simdedup.scrapy_layer.failedlinks import MIRROR_OF
from scrapy_simdedup.scrapy_layer.reissue import REISSUED, SEEN
from scrapy_simdedup.url.actions import Seen
from scrapy_simdedup.url.parts import canonical_url

if TYPE_CHECKING:
    from collections.abc import Callable

OPT_OUT = "simdedup_dont_skip"
"""``Request.meta`` key: a request carrying it (true) is never skipped."""
SAMPLE = "simdedup_sample"
REVISIT_OF = "simdedup_revisit_of"
"""``Request.meta`` key of a page an earlier crawl kept, requested again because this crawl
met only its copies: the copy's URL."""
_DOWNLOAD_META = frozenset(
    ("download_latency", "download_slot", "download_timeout", "redirect_urls",
     "redirect_reasons", "redirect_times", "redirect_ttl", "retry_times", "proxy",
     "playwright_page", SAMPLE, REISSUED, SEEN, REVISIT_OF, MIRROR_OF)
)  # fmt: skip


def seen(
    request: Request, *, scheduling: bool, offsite: Callable[[Request], bool]
) -> Seen[Request]:
    """``request`` as the URL core meets it, scheduled or on its way to the downloader;
    ``offsite(request)`` is asked only when the core needs to know."""
    exempt = exemption(request)
    return Seen(
        request.url,
        request,
        depth=int(request.meta.get("depth", 0)),
        source=referrer(request),
        exempt=exempt,
        sampled=not scheduling and bool(request.meta.get(SAMPLE)),
        offsite_check=(partial(offsite, request) if scheduling and not exempt else None),
    )


def exemption(request: Request) -> str:
    """Why ``request`` is never skipped ("" when it may be)."""
    meta = request.meta
    if meta.get(REISSUED):
        return "reissued"
    if meta.get(MIRROR_OF):
        return "mirror_of"
    if request.dont_filter:
        return "dont_filter"
    if meta.get(OPT_OUT):
        return "opted_out"
    if meta.get("redirect_urls"):
        return "redirect"
    return ""


def routed(request: Request) -> Request:
    """``request`` as the spider routed it: callback, errback, arguments, priority and its
    own meta, without what the download added and without headers (a Cookie or an
    Authorization a middleware set for its host)."""
    meta = {k: v for k, v in request.meta.items() if k not in _DOWNLOAD_META}
    return Request(
        request.url, callback=request.callback, errback=request.errback,
        cb_kwargs=dict(request.cb_kwargs), priority=request.priority, meta=meta,
    )  # fmt: skip


def canonical(url: str) -> str:
    try:
        return canonical_url(url)
    except UrlNotCheckedError:
        return url


def referrer(request: Request) -> str | None:
    """The page that linked ``request`` (its ``Referer``, set by Scrapy's
    RefererMiddleware)."""
    raw = request.headers.get(b"Referer")
    if not raw:
        return None
    try:
        return raw.decode("latin-1")
    except ValueError:
        return None
