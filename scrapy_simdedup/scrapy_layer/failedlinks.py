"""``FailedLinks``: links that brought no page on an original, followed on its mirrors.

A mirror's page skipped as a copy had the same links as its counterpart on the original,
and those are followed there. One that brings no page on the original (non-2xx after
retries, a download error, a request another component ignored) is requested on each
mirror whose pages this crawl skipped as copies of that host: plain Scrapy would have
followed it from the skipped page. So is a link whose page came but is not what its path
promised (a soft 404: a copy of another page of its host or of its mirror, "this story is
no longer available"), and that other page's: the mirror may still carry the story. A
link that failed before the mirror made its first bet is remembered (the latest
``MAX_FAILED_LINKS``) and followed then.

Bets are held per process: on a store several workers share, a link that failed on one
worker is followed for the pages that worker skipped, not for another's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from scrapy.http.request import NO_CALLBACK

from scrapy_simdedup import stats as keys
from scrapy_simdedup.errors import UrlNotCheckedError
from scrapy_simdedup.url.parts import UrlParts, url_parts

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_simdedup.scrapy_layer.verdictlog import CrawlVerdictLog
    from scrapy_simdedup.url.judge import UrlJudge
    from scrapy_simdedup.url.rules import Rule

logger = logging.getLogger(__name__)

MIRROR_OF = "simdedup_mirror_of"
"""``Request.meta`` key of a request for a mirror's copy of a link that failed on the
original: the failed URL (canonical). Such a request is never skipped."""
MAX_FAILED_LINKS = 10_000
"""Failed links remembered for a mirror that makes its first bet later, and soft 404s
apart as many; the oldest go."""


class FailedLinks:
    """Follows failed links on the mirrors betting on their host: each copy is requested
    once, routed as the spider made the failed request (callback, errback, arguments,
    priority, its own meta) without its headers, with ``meta["simdedup_mirror_of"]``;
    counted under ``simdedup/url/requested_on_mirror``. ``routed(request)`` gives that
    routing; ``guarded(action, *args)`` runs a store read, a store failure closing the
    spider (and giving None)."""

    def __init__(
        self,
        crawler: Crawler,
        judge: UrlJudge,
        betting: Callable[[str], bool],
        verdicts: CrawlVerdictLog,
        *,
        routed: Callable[[Request], Request],
        guarded: Callable[..., Any],
    ) -> None:
        self.crawler = crawler
        self.judge = judge
        self.betting = betting
        self.verdicts = verdicts
        self._routed = routed
        self._guarded = guarded
        # canonical URL -> (link, its request routed), for links that failed and, apart
        # (so that many soft 404s never push a failed link out), for soft 404s
        self._remembered: dict[bool, dict[str, tuple[UrlParts, Request]]] = {False: {}, True: {}}

    def failed(self, request: Request) -> None:
        """``request`` brought no page: remember its link, and follow it on the mirrors
        betting on its host now. A redirect's first URL is the link the pages held."""
        link = _link_of(request)
        if link is None:
            return
        parts, url = link
        routed = self._routed(request)
        if url != routed.url:
            routed = routed.replace(url=url)
        self._remember(parts, routed, came=False)

    def unpredicted(self, request: Request, urls: tuple[str, ...]) -> None:
        """``request`` brought a soft 404 (see ``UrlJudge.observe``); ``urls`` (canonical)
        are the pages found so. Each is followed on the mirrors betting on its host as a
        failed link is, routed as ``request`` was (the other page's link was made by the
        same site: the spider routes it alike)."""
        link = _link_of(request)
        if link is None:
            return
        routed = self._routed(request)
        for url in urls:
            try:
                parts = url_parts(url)
            except UrlNotCheckedError:
                continue
            spelled = link[1] if parts.url == link[0].url else url  # as its page linked it
            self._remember(parts, routed.replace(url=spelled), came=True)

    def _remember(self, parts: UrlParts, routed: Request, *, came: bool) -> None:
        remembered = self._remembered[came]
        remembered.pop(parts.url, None)
        if len(remembered) >= MAX_FAILED_LINKS:
            del remembered[next(iter(remembered))]
        remembered[parts.url] = parts, routed
        for rule in self._guarded(self.judge.copying_mirrors, parts.host, self.betting) or ():
            self._follow(parts, rule, came=came)

    def first_bet(self, rule: Rule) -> None:
        """The mirror rule ``rule`` made its first bet: the links that failed on its
        original before (or were soft 404s) were on the pages it skips."""
        for came, remembered in self._remembered.items():
            for parts, _ in list(remembered.values()):
                if parts.host == rule.other:
                    self._follow(parts, rule, came=came)

    def _follow(self, parts: UrlParts, rule: Rule, *, came: bool) -> None:
        entry = self._remembered[came].get(parts.url)
        if entry is None:
            return
        failed = entry[1]
        copy = self.judge.wanted_copy(parts, rule, came=came)
        if copy is None:
            return
        again = failed.replace(url=_on_host(failed.url, rule.host))
        again.meta[MIRROR_OF] = parts.url
        self.judge.enqueue(copy)  # at hand: not requested twice (it is never judged)
        self.crawler.stats.inc_value(keys.URL_REQUESTED_ON_MIRROR)
        self.verdicts.requested_on_mirror(again.url, parts.url, rule)
        logger.debug(
            "simdedup: %s %s; requested %s (%s)", parts.url,
            "is a soft 404" if came else "failed", again.url, rule.describe(),
        )  # fmt: skip
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(again)


def _link_of(request: Request) -> tuple[UrlParts, str] | None:
    """The canonical parts and the spelling of the link ``request`` followed (a redirect's
    first URL); None for what no page of a mirror links: a component's own download
    (``NO_CALLBACK``: images, files, robots.txt), a method other than GET, a copy already
    requested on a mirror, a URL that cannot be judged."""
    if request.method != "GET" or request.callback is NO_CALLBACK or request.meta.get(MIRROR_OF):
        return None
    url = (request.meta.get("redirect_urls") or [request.url])[0]
    try:
        return url_parts(url), url
    except UrlNotCheckedError:
        return None


def _on_host(url: str, host: str) -> str:
    """``url`` on ``host`` (with its port), spelled otherwise as it was; no user info."""
    return urlunsplit(urlsplit(url)._replace(netloc=host))
