"""What the URL core answers to each event of a crawl: fetch, skip on a bet, re-issue.

The core (``url/core.py``) decides; the Scrapy layer carries the answers out (raises the
skip, sends a re-issued request to the engine, writes the verdict log). Each answer is a
plain value, so the decisions can be tested without a crawl.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.url.bets import Bet
    from scrapy_simdedup.url.rules import Rule

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Seen(Generic[T]):
    """A request met on its way in (scheduled) or out (to the downloader).

    ``ticket`` is what the crawl holds (a Scrapy ``Request``); ``exempt`` the reason it is
    never skipped ("" when it may be); ``offsite``: another component drops it when it is
    scheduled, so it is never queued (or ``offsite_check`` says so, asked only when the
    URL is not one met before: most links a page yields are); ``source``: the URL of the
    page that linked it."""

    url: str
    ticket: T
    depth: int = 0
    source: str | None = None
    exempt: str = ""
    offsite: bool = False
    sampled: bool = False  # judged when scheduled and fetched as a sample of its rule
    offsite_check: Callable[[], bool] | None = None

    def is_offsite(self) -> bool:
        return self.offsite or (self.offsite_check is not None and self.offsite_check())


@dataclass(frozen=True, slots=True)
class Fetch:
    """Let the request go on. ``sample``: a rule's kind, when it would have skipped the
    request and fetches it to check itself; ``queued``: the request was judged and its URL
    counts as queued (a dupefilter dropping it next takes it out again)."""

    sample: str = ""
    queued: bool = False


FETCH = Fetch()


@dataclass(frozen=True, slots=True)
class Skip:
    """Drop the request: a bet on ``rule`` that ``counterpart`` brings its page (pending:
    the counterpart is not queued yet). ``first``: the rule's first bet held (a mirror's:
    links that failed on its original before are followed on it now)."""

    rule: Rule | None  # None only for a link again to a bet whose rule is no longer known
    counterpart: str | None
    pending: bool = False
    first: bool = False
    already_parked: bool = False  # a link again to a request held on a bet

    @property
    def reason(self) -> str:
        if self.already_parked or self.rule is None:
            return "already parked"
        return self.rule.kind


@dataclass(frozen=True, slots=True)
class Reissue(Generic[T]):
    """Send ``bet``'s request again: its bet lost (``why``). ``ahead``: late (a deadline or
    the budget), it goes before what is queued; ``rule``: the rule it was skipped on."""

    bet: Bet[T]
    why: str
    ahead: bool = False
    rule: Rule | None = None


@dataclass(frozen=True, slots=True)
class Revisit(Generic[T]):
    """Request ``original`` again, routed as ``copy`` was: an earlier crawl kept it, this
    one met only its copy (its own links may lead only through skipped pages)."""

    copy: T
    original: str


@dataclass(frozen=True, slots=True)
class FollowFailed:
    """The link that failed (or was dropped after failing in an earlier run) is followed on
    the mirrors whose pages this crawl skipped as copies of its host."""


FOLLOW_FAILED = FollowFailed()


@dataclass(frozen=True, slots=True)
class FollowUnpredicted(Generic[T]):
    """The pages at ``urls`` came but are not what their paths promised (a soft 404 and
    the page it copies, see ``UrlJudge.observe``): their links are followed on the
    mirrors whose pages this crawl skipped as copies of their host, routed as ``ticket``
    (the soft 404's request) was. Plain Scrapy would have followed them from the skipped
    pages."""

    ticket: T
    urls: tuple[str, ...]


Action = Reissue[T] | Revisit[T] | FollowFailed | FollowUnpredicted[T]
