"""What a URL judge remembers of its crawl, as the learner asks it: ``url in`` views.

``Covered``: a URL the crawl has at hand (queued, brought, held on a bet); ``Awaited``: one
it may still bring; ``Judged``: a page the content index knows. Each reads the judge's sets
when asked, so nothing is copied or kept in step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy_simdedup.url.judge import UrlJudge


class Covered:
    """``url in`` what the crawl has at hand, without building a union of sets."""

    def __init__(self, judge: UrlJudge, fetched_before: bool) -> None:
        self.judge = judge
        self.fetched_before = fetched_before

    def __contains__(self, url: object) -> bool:
        judge = self.judge
        if not isinstance(url, str):
            return False
        if url in judge.queued or judge.brought(url) or url in judge.held:
            return True
        if judge.peers.was_queued(url):  # by another worker
            return True
        return self.fetched_before and judge.was_fetched(url)


class Awaited:
    """``url in``: a URL this crawl may still bring, though not queued yet. Its host is
    crawled (a page of it was fetched in this crawl: a crawl of the mirror alone never
    reaches the original) and it has not failed, been dropped or been released."""

    def __init__(self, judge: UrlJudge) -> None:
        self.judge = judge

    def __contains__(self, url: object) -> bool:
        judge = self.judge
        return (
            isinstance(url, str) and url not in judge.lost_now and host_of(url) in judge.hosts_now
        )


class Judged:
    """Whether a URL's page is known to the content index: judged in this crawl, or
    fetched by an earlier one. A page fetched but not yet judged is no evidence yet (two
    copies fetched at once would otherwise both look new)."""

    def __init__(self) -> None:
        self.judge: UrlJudge | None = None

    def __call__(self, url: str) -> bool:
        judge = self.judge
        assert judge is not None, "set as soon as the judge is made"
        if url in judge.fetched_now:
            return url in judge.judged_now
        if judge.peers.was_fetched(url):  # by another worker
            return judge.peers.was_judged(url)
        return judge.was_fetched(url)

    def copy_of(self, url: str) -> str | None:
        """The page ``url``'s page was judged a copy of in this crawl, on any worker."""
        judge = self.judge
        assert judge is not None, "set as soon as the judge is made"
        if url in judge.fetched_now:
            return judge.copies_now.get(url)
        return judge.peers.judged_copy_of(url)


def host_of(url: str) -> str:
    """The host of a URL, cut from its text without parsing it."""
    return url.split("://", 1)[-1].split("/", 1)[0]
