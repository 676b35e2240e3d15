"""Which host of a mirror pair is the copy: chosen once, by evidence, and kept.

Two hosts that copy each other have a mirror rule each way; only one may skip. The copy
is, in order: the host already a copy in another chosen pair, unless the other one is (no
original is made a copy, no copy is copied: a bet on a bet); the partial copy (far fewer
known paths, nearly all among the other's: taken for the original, the full site's pages
it lacks would be bets on pages that never come); the host with clearly fewer of the
pair's common pages sent to the downloader; the host that copied more often (or, as often,
first). The first use decides, for good (a race between the two hosts' fetches must not
flip it), and workers sharing a crawl agree on one choice (``choose``, issue 35).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from scrapy_simdedup.url.rules import Rule

if TYPE_CHECKING:
    from scrapy_simdedup.url.rulebook import Rulebook
    from scrapy_simdedup.url.sitesize import SiteSizes


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
        settled = self._settled_side(rule)
        if settled is False:
            if reverse is None:
                reverse = self._add(Rule("mirror", rule.other, other=rule.host))
            if reverse is not None:
                reverse.chosen = True
                self.book.save_soon(reverse)
                self._changed()
            return True
        chosen = True if settled or reverse is None else self._proposed(rule, reverse)
        if chosen and not rule.chosen:  # the first use decides, for good
            rule.chosen = True
            self.book.save_soon(rule)
            self._changed()  # the reverse's host is outvoted from now on
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
        settled = self._settled_side(rule)
        mine = reverse is None or self._proposed(rule, reverse) if settled is None else settled
        copy = self.choose(rule.host, rule.other, rule.host if mine else rule.other)
        if copy == rule.host:
            winner: Rule | None = rule
        else:
            winner = reverse or self._add(Rule("mirror", rule.other, other=rule.host))
        if winner is not None and not winner.chosen:
            winner.chosen = True
            self.book.save_soon(winner)
            self._changed()
        return copy != rule.host

    def _proposed(self, rule: Rule, reverse: Rule) -> bool:
        """Whether ``rule.host`` should be the copy when the roles and sizes of
        ``_settled_side`` do not tell: the host that copied more often, or as often, first."""
        if rule.duplicates != reverse.duplicates:
            return reverse.duplicates < rule.duplicates
        return self.book.rank(reverse.identity) > self.book.rank(rule.identity)

    def _settled_side(self, rule: Rule) -> bool | None:
        """Whether ``rule.host`` is the copy of ``rule.other`` by the roles they already
        play in other chosen pairs, or else by their known paths, or else by how many of
        the pages both have each had sent to the downloader (the copy is the one crawled
        less: its pages still to come are the ones a skip saves); None when none tells."""
        host_original = self.is_original(rule.host, rule.other)
        other_original = self.is_original(rule.other, rule.host)
        if host_original != other_original:
            return other_original
        host_copy = self.is_copy(rule.host, rule.other)
        other_copy = self.is_copy(rule.other, rule.host)
        if host_copy != other_copy:
            return host_copy
        partial = self.sizes.partial_copy(rule.host, rule.other)
        if partial is not None:
            return partial
        return self.sizes.crawled_less(rule.host, rule.other)
