"""Which candidates to confirm: the few most likely to be the page's original.

A page of a templated host (a shop, a forum, a catalogue) has dozens of SimHash neighbours,
its siblings, which share the host's template and little else. Each confirmation compares
two pages block by block, so a decision confirmed against every neighbour cost as much as
the neighbours were many. A page is confirmed against ``MAX_CONFIRMED`` of them at most,
stopping at the first that confirms a copy, chosen by the content they share with it.
Confirming fewer keeps more copies, never fewer pages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.fingerprint.block import NEAR_BITS, Block
from scrapy_simdedup.fingerprint.packedblocks import PackedBlocks
from scrapy_simdedup.fingerprint.payload import split_payload

if TYPE_CHECKING:
    from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted
    from scrapy_simdedup.index.permuted import Match
    from scrapy_simdedup.judges.templates import PageTemplates

MAX_CONFIRMED = 6
"""Candidates confirmed per look-up, at most."""
MAX_NEAR_TESTS = 8
"""Sentences of a candidate the page does not hold as they are, looked at for an edit of
one of the page's (``MAX_NEAR_TESTS`` of each side at most): an item's URL variant with a
word edited is told from its siblings by that sentence alone."""


def best_candidates(
    done: Fingerprinted, matches: list[Match], templates: PageTemplates
) -> list[Match]:
    """At most ``MAX_CONFIRMED`` of ``matches``: as found when they are few, else those
    with the largest share of their content (their host's template left out) that the page
    holds, as it is or a sentence edited (an original's, all of it; a templated sibling's,
    none), the nearer SimHash first among equals. Per candidate: set operations on its
    sentences' hashes, and ``MAX_NEAR_TESTS`` squared comparisons at most."""
    if len(matches) <= MAX_CONFIRMED:
        return matches
    mine = frozenset(done.blocks.exacts)
    own_template = templates.own
    page_blocks: tuple[Block, ...] | None = None

    def share(match: Match) -> float:
        nonlocal page_blocks
        theirs = PackedBlocks.of(split_payload(match.payload).blocks)
        if theirs is None or not len(theirs):
            return 0.0
        exacts = theirs.exacts
        theirs_set = set(exacts)
        content = theirs_set - templates.of(match.key)
        if not content:
            return 0.0
        unheld = content - mine
        if not unheld or len(unheld) > MAX_NEAR_TESTS:
            return 1 - len(unheld) / len(content)
        if page_blocks is None:
            page_blocks = done.blocks.decoded()
        mine_unheld = [
            block
            for block in page_blocks
            if block.exact not in theirs_set and block.template_hash not in own_template
        ][:MAX_NEAR_TESTS]
        edited = sum(
            1
            for at, exact in enumerate(exacts)
            if exact in unheld and any(_near(theirs.at(at), block) for block in mine_unheld)
        )
        return 1 - (len(unheld) - min(edited, len(unheld))) / len(content)

    return sorted(matches, key=lambda match: (-share(match), match.distance))[:MAX_CONFIRMED]


def _near(block: Block, other: Block) -> bool:
    """One sentence, a word or two edited (the test ``edits.edited`` makes first)."""
    return (block.simhash ^ other.simhash).bit_count() <= NEAR_BITS or block.similar_words(other)
