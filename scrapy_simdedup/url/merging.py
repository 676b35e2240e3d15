"""Another worker's rule, taken into this worker's (a shared crawl: ``url/news.py``).

What the other worker saw itself since its last announcement adds to this worker's
counts, and a new page it saw ends the run here too (``url/evidence.py``); a worker of an
earlier version, which sends no tally, has the larger of the two counts taken. What it
found a rule may not skip (a value that brought a page, a trap that met a page of its own,
a bet that waited in vain) holds here at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.url.rules import MAX_SPECIFIC_VALUES

if TYPE_CHECKING:
    from scrapy_simdedup.url.evidence import Merged
    from scrapy_simdedup.url.rules import Rule


def merge_into(local: Rule, remote: Rule, added: Merged | None) -> None:
    """``remote`` (another worker's ``local``) taken into ``local``; ``added``: what its
    worker's tally adds here (``CrawlEvidence.take``), None without one."""
    if added is not None:
        local.duplicates += added.duplicates
        local.uniques += added.uniques
        local.content_duplicates += added.content_duplicates
        local.streak = added.streak if added.ended else local.streak + added.streak
    else:  # a worker of an earlier version: the larger count of the two
        _take_larger(local, remote)
    for value in remote.values:
        local.saw_value(value)
    local.waits = local.waits and remote.waits  # its bet waited in vain: none here
    local.stopped = local.stopped or remote.stopped  # its trap met a page of its own
    local.specific = local.specific or remote.specific  # a value of it brought a page
    for value in remote.denied:
        if value not in local.denied and len(local.denied) < MAX_SPECIFIC_VALUES:
            local.denied = (*local.denied, value)
    for path in remote.paths:
        if path not in local.paths and len(local.paths) < MAX_SPECIFIC_VALUES:
            local.paths = (*local.paths, path)


def _take_larger(local: Rule, remote: Rule) -> None:
    """Another worker's counts without its own tally: a failure it saw and this worker
    did not (more new pages) ends the run here too; with the same failures, the longer
    run counts."""
    if remote.uniques > local.uniques:
        local.uniques, local.streak = remote.uniques, remote.streak
    elif remote.uniques == local.uniques:
        local.streak = max(local.streak, remote.streak)
    local.duplicates = max(local.duplicates, remote.duplicates)
    local.content_duplicates = max(local.content_duplicates, remote.content_duplicates)
