"""The URL judges a crawl and a stored index get, their collaborators wired in.

``judge_for_crawl``: the judge a crawl asks while it runs, its learner told what the crawl
judged and, on a store several workers share, what the other workers queued, sent and
claimed. ``judge_for_stored``: a judge of what a stored index knows
(``scrapy simdedup query --url``).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.marks import FetchedMarks
from scrapy_simdedup.index.mirrorchoice import agreed_copy
from scrapy_simdedup.url.judge import UrlJudge
from scrapy_simdedup.url.judgeviews import Judged
from scrapy_simdedup.url.learner import UrlLearner
from scrapy_simdedup.url.news import RuleNews

if TYPE_CHECKING:
    from scrapy_simdedup.index.handle import SimHashIndex


def judge_for_crawl(
    index: SimHashIndex,
    *,
    mode: str,
    max_distance: int,
    expected_size: int,
    min_evidence: int,
    sample_every: int,
    risk: float = 0.0,
) -> UrlJudge:
    """The judge of a crawl: the URL index is made on first use, a different stored
    ``max_distance`` raises ``StoreMismatchError``; stored rules are on probation; on a
    store several workers share, rules are exchanged with them while they run.
    ``risk``: the share of a rule's skipped pages that may differ (``estimate.py``), on a
    store of its own: workers sharing a crawl do not share their samples yet, and a new
    page one of them saw ends the rule on all, as at no risk."""
    urls = index.companion(keyspace.URL_INDEX, max_distance, expected_size)
    judged = Judged()
    shared = urls.shared
    learner = UrlLearner(
        urls.store,
        judged,
        min_evidence=min_evidence,
        sample_every=sample_every,
        news=None if shared is None else RuleNews(shared),
        risk=risk,
    )
    if shared is not None:  # workers choose a mirror pair's copy together (issue 35)
        learner.choose = partial(agreed_copy, shared)
    judge = UrlJudge(urls, learner, mode=mode, seed=index.seed, sample_every=sample_every)
    judged.judge = judge
    learner.first_section = partial(_first_section, judge)
    learner.copy_of = judged.copy_of
    learner.sizes.shared = partial(_queued_by_all, judge)
    learner.sizes.shared_requested = partial(_requested_by_all, judge)
    return judge


def _queued_by_all(judge: UrlJudge, host: str, limit: int) -> list[str]:
    """At most ``limit`` URLs of ``host`` the workers of the crawl queued (none on a
    private store: its one process knows them all)."""
    return judge.peers.queued_urls(host, limit)


def _requested_by_all(judge: UrlJudge, host: str, limit: int) -> list[str]:
    """At most ``limit`` URLs of ``host`` the workers of the crawl sent to the
    downloader (none on a private store)."""
    return judge.peers.requested_urls(host, limit)


def _first_section(judge: UrlJudge, hosts: tuple[str, str], section: str) -> bool:
    """Whether this worker is the first of its crawl to have a mirror pair's evidence
    in a section (always, on a crawl of one worker): only the first fetches a sample
    there."""
    return judge.peers.claim_section(hosts, section)


def judge_for_stored(index: SimHashIndex, *, mode: str, min_evidence: int) -> UrlJudge | None:
    """A judge of what a stored index knows (None when no crawl recorded URLs there):
    rules as learned, and every URL fetched before counts as at hand."""
    urls = index.stored_companion(keyspace.URL_INDEX)
    if urls is None:
        return None
    marks = FetchedMarks(urls)
    learner = UrlLearner(
        urls.store,
        lambda url: url in marks or urls.document(url) is not None,
        min_evidence=min_evidence,
        probation=False,
    )
    return UrlJudge(urls, learner, mode=mode, seed=index.seed, covers_fetched_before=True)
