"""Which host of a mirror pair is the copy: chosen once, by evidence, and kept.

Two hosts that copy each other have a mirror rule each way; only one may skip. The copy
is, in order: the host already a copy in another chosen pair, unless the other one is (no
original is made a copy, no copy is copied: a bet on a bet); the partial copy (far fewer
known paths, nearly all among the other's: taken for the original, the full site's pages
it lacks would be bets on pages that never come); the host that copied more often (its
pages came second); of two that copied as often, the host with clearly fewer of the
pair's common pages sent to the downloader (its pages still to come are the ones a skip
saves), else the first that copied. How much of each was crawled says which skip saves
more, not which host is the copy: chosen before the copies counted, it took an original
for the copy of its slower mirror, and a mirror that lags behind then stood in for the
original's newer pages (issue 60).

The first use decides, for good (a race between the two hosts' fetches must not flip it),
and workers sharing a crawl agree on one choice (``choose``, issue 35).

The chosen rule keeps why (``Rule.chosen_why``, stored with it), and the choice is logged
at INFO: a user who finds the original skipped reads which evidence chose it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from scrapy_simdedup.url.rules import Rule

if TYPE_CHECKING:
    from scrapy_simdedup.url.rulebook import Rulebook
    from scrapy_simdedup.url.sitesize import SiteSizes

logger = logging.getLogger(__name__)


class MirrorChoice:
    """Chooses a pair's copy. ``add`` finds or adds a rule in the learner (None when no
    more may be held); ``changed`` tells the learner its rules in force changed."""

    def __init__(
        self,
        book: Rulebook,
        sizes: SiteSizes,
        add: Callable[[Rule], Rule | None],
        changed: Callable[[], None],
    ) -> None:
        self.book, self.sizes = book, sizes
        self._add, self._changed = add, changed
        # Workers sharing a store: (host, other, proposed copy) -> the copy they agreed on.
        self.choose: Callable[[str, str, str], str] | None = None

    def reverse(self, mirror: Rule) -> Rule | None:
        """The mirror rule of the same two hosts the other way, if any."""
        return self.book.get(Rule("mirror", mirror.other, other=mirror.host).identity)

    def outvoted(self, rule: Rule) -> bool:
        """Whether ``rule`` (a mirror) may not skip: its reverse is the pair's chosen
        direction, or is chosen now. The original is never skipped."""
        if rule.kind != "mirror":
            return False
        reverse = self.reverse(rule)
        if rule.chosen:
            return False
        if reverse is not None and reverse.chosen:
            return True
        if self.choose is not None:  # several workers: one choice for all (issue 35)
            return self._agreed(rule, reverse)
        settled, why = self._settled_side(rule)
        if settled is False:
            if reverse is None:
                reverse = self._add(Rule("mirror", rule.other, other=rule.host))
            if reverse is not None:
                self._choose(reverse, why)
            return True
        chosen, why = (True, why) if settled else self._proposed(rule, reverse)
        if chosen and not rule.chosen:  # the first use decides, for good
            self._choose(rule, why)  # the reverse's host is outvoted from now on
        return not chosen

    def is_original(self, host: str, besides: str) -> bool:
        """Whether ``host`` is the original of a chosen pair with a host but ``besides``."""
        return any(copy.chosen and copy.host != besides for copy in self.book.mirrors_of(host))

    def is_copy(self, host: str, besides: str) -> bool:
        """Whether ``host`` is the copy of a chosen pair with a host but ``besides``."""
        return any(
            mirror.kind == "mirror" and mirror.chosen and mirror.other != besides
            for mirror in self.book.on_host(host)
        )

    def _agreed(self, rule: Rule, reverse: Rule | None) -> bool:
        """``outvoted``, the choice this worker would make proposed to the others first."""
        assert self.choose is not None
        settled, why = self._settled_side(rule)
        if settled is None:
            settled, why = self._proposed(rule, reverse)
        proposed = rule.host if settled else rule.other
        copy = self.choose(rule.host, rule.other, proposed)
        if copy == rule.host:
            winner: Rule | None = rule
        else:
            winner = reverse or self._add(Rule("mirror", rule.other, other=rule.host))
        if winner is not None and not winner.chosen:
            agreed = why if copy == proposed else "proposed by another worker of the crawl"
            self._choose(winner, f"{agreed} (workers sharing the crawl agreed)")
        return copy != rule.host

    def _choose(self, rule: Rule, why: str) -> None:
        """``rule``'s host is the pair's copy, for good."""
        rule.chosen, rule.chosen_why = True, why
        self.book.save_soon(rule)
        self._changed()
        logger.info("%s taken for the copy of %s: %s", rule.host, rule.other, why)

    def _proposed(self, rule: Rule, reverse: Rule | None) -> tuple[bool, str]:
        """Whether ``rule.host`` should be the copy when the roles and paths of
        ``_settled_side`` do not tell: the host that copied (more often); of two that
        copied as often, the one crawled less, or else the first; and why."""
        if reverse is None:
            return True, f"{rule.host} copied {rule.other}, never the other way yet"
        if rule.duplicates != reverse.duplicates:
            mine = reverse.duplicates < rule.duplicates
            more, fewer = (rule, reverse) if mine else (reverse, rule)
            return mine, (
                f"{more.host} copied {more.other} more often ({more.duplicates} copies against"
                f" {fewer.duplicates})"
            )
        less = self.sizes.crawled_less(rule.host, rule.other)
        if less is not None:
            copy, original = (rule.host, rule.other) if less else (rule.other, rule.host)
            return less, (
                f"copied as often; of the pages both have, {copy} had clearly fewer sent to"
                f" the downloader than {original}"
            )
        mine = self.book.rank(reverse.identity) > self.book.rank(rule.identity)
        first = rule if mine else reverse
        return mine, f"{first.host} copied {first.other} as often, and first"

    def _settled_side(self, rule: Rule) -> tuple[bool | None, str]:
        """Whether ``rule.host`` is the copy of ``rule.other`` by the roles they already
        play in other chosen pairs, or else by their known paths; None when neither tells.
        And why, as a user reads it."""
        host, other = rule.host, rule.other
        host_original = self.is_original(host, other)
        other_original = self.is_original(other, host)
        if host_original != other_original:
            original = other if other_original else host
            return other_original, f"{original} is the original of another mirror pair"
        host_copy = self.is_copy(host, other)
        other_copy = self.is_copy(other, host)
        if host_copy != other_copy:
            copy = host if host_copy else other
            return host_copy, f"{copy} is the copy of another mirror pair"
        partial = self.sizes.partial_copy(host, other)
        if partial is not None:
            copy, original = (host, other) if partial else (other, host)
            return partial, (
                f"{copy} is a partial copy (far fewer known paths, nearly all among {original}'s)"
            )
        return None, ""
