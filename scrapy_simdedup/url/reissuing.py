"""``Reissuer``: taking bets out and sending their requests after all.

Every bet the core loses ends here, whatever the reason (its counterpart failed or was
dropped, its rule was weakened, its deadline passed, idle came): its record leaves the
index, the re-issue is counted by why, and on a crawl several workers share the first
worker to claim the URL sends it. One place, so no path re-issues without forgetting the
record or counting it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.url.actions import FOLLOW_FAILED, FollowUnpredicted, Reissue, Revisit
from scrapy_simdedup.url.bets import Bet
from scrapy_simdedup.url.features import section_template
from scrapy_simdedup.url.parts import canonical_or_none, parts_or_none
from scrapy_simdedup.url.rules import kind_of, template_path
from scrapy_simdedup.url.sections import section_of

if TYPE_CHECKING:
    from scrapy_simdedup.url.actions import Action
    from scrapy_simdedup.url.context import CoreContext
    from scrapy_simdedup.url.rules import Rule

T = TypeVar("T")

# The core's logger: its lines keep the name users filter them by.
logger = logging.getLogger("scrapy_simdedup.url.core")

MAX_CONTESTED = 10_000
"""Bets re-issued at idle remembered until their verdict (it tells whether the rule held)."""


class Reissuer(Generic[T]):
    """Takes bets out of ``bets`` and makes them ``Reissue`` actions."""

    def __init__(self, context: CoreContext[T]) -> None:
        self.judge = context.judge
        self.bets = context.bets
        self.parking = context.parking
        self.tally = context.tally
        self.guard = context.guard
        # Re-issued at idle, their counterpart never came: URL -> the rule they relied on.
        self._contested: dict[str, str] = {}

    def reissue(self, bets: list[Bet[T]], why: str, *, ahead: bool = False) -> list[Action[T]]:
        """The bets taken out, their records forgotten, each counted and made an action."""
        if not bets:
            return []
        self.guard(self.parking.forget, [bet.url for bet in bets])
        actions: list[Action[T]] = []
        for bet in bets:
            if not self.claimed(bet):
                continue
            rule = self.judge.learner.rule(bet.rule) if bet.rule else None
            self.tally.inc_value(keys.url_reissued(why))
            if why == "unsettled" and bet.rule:  # its verdict tells whether the rule held
                if len(self._contested) >= MAX_CONTESTED:  # the oldest goes
                    del self._contested[next(iter(self._contested))]
                self._contested[bet.url] = bet.rule
            self.guard(self.judge.enqueue, bet.url)  # what relies on it may be skipped again
            actions.append(Reissue(bet, why, ahead=ahead, rule=rule))
        return actions

    def claimed(self, bet: Bet[T]) -> bool:
        """On a crawl several workers share, whether this worker re-issues ``bet``: the
        first to claim its URL does, past any dupefilter (scrapy-redis's has seen every
        worker's requests), and a URL fetched or re-issued by another worker is not sent
        again (``simdedup/url/reissued_elsewhere``)."""
        peers = self.judge.peers
        if not peers.shared:
            return True
        try:
            claimed = peers.claim_reissue(bet.url)
        except StoreError as exc:  # unknown: sent, a copy fetched twice at worst
            self.guard.report(exc)
            claimed = True
        if not claimed:
            self.tally.inc_value(keys.URL_REISSUED_ELSEWHERE)
            self.guard(self.judge.enqueue, bet.url)  # at hand: another worker brings it
            return False
        bet.past_filter = True
        return True

    def adopted(self, url: str, ticket: T) -> Reissue[T] | None:
        """A dead worker's parked request, claimed by this one: re-issued here, ahead of
        what is queued (it is late, and a crawl with a budget must fetch it before the
        end), unless another worker of the crawl fetches it (its record is removed by
        whoever claimed it, once the request is sent)."""
        bet = Bet(canonical_or_none(url) or url, "", None, ticket)
        if not self.claimed(bet):
            return None
        self.tally.inc_value(keys.url_reissued("abandoned"))
        self.guard(self.judge.enqueue, bet.url)  # what relies on it may be skipped again
        return Reissue(bet, "abandoned", ahead=True)

    def lost(self, url: str, why: str, *, follow: bool = False) -> list[Action[T]]:
        """``url`` will not bring its page: the bets relying on it are re-issued (and its
        link followed on mirrors, when ``follow``)."""
        self.judge.lost(url)
        actions = self.reissue(self.bets.relying_on(url), why)
        if follow:
            actions.append(FOLLOW_FAILED)
        return actions

    def dropped(self, url: str, *, resumed: bool) -> list[Action[T]]:
        """The dupefilter refused ``url``'s request, queued here: its bets are re-issued.
        ``resumed``: a job's later run whose failed links are followed on mirrors; a link
        that brought no page in an earlier run is followed (``_failed_before``)."""
        failed_before = resumed and self._failed_before(url)
        return self.lost(url, "counterpart_dropped", follow=failed_before)

    def _failed_before(self, url: str) -> bool:
        """Whether the dupefilter dropped a link that brought no page in an earlier run of
        this job. Queued here first (this crawl had not queued, fetched or parked it), so
        the dupefilter saw it in that run; no crawl fetched it (or it still waits in the
        job's queue: its copy on a mirror is then fetched once more than needed)."""
        judge = self.judge
        if url in judge.fetched_now or url in judge.lost_now:
            return False
        return self.guard(judge.was_fetched, url) is False

    def contested(self, url: str) -> str | None:
        """The rule a bet re-issued at idle relied on (its verdict, now come, tells whether
        the rule held), or None."""
        return self._contested.pop(url, None)

    def contradicted(self, rule: Rule, key: str, url: str) -> list[Action[T]]:
        """``url``'s page came back new where ``rule`` predicted a copy. A rule whose counts
        still bound the share of its differing pages within ``SIMDEDUP_URL_RISK`` stands.
        So do the bets of the page's section (``section_template``) while the rule's
        samples there bound its differing pages within the risk as well
        (``url/sections.py``): the page is one of the differing few the user accepts
        (re-issuing every bet of a site of one section at each of them saved nothing on a
        mirror a thirtieth of whose pages lag behind). Otherwise the bets of its section
        are re-issued, the section where pages differ; and a rule that no longer stands is
        weakened, and all of its bets go."""
        # At no risk every skip of a rule a new page contradicted goes, as it always did
        # (a mirror pair may stand on the copies the other way).
        learner = self.judge.learner
        section = section_of(url) if learner.risk > 0 else None
        if section is not None and self.judge.stands(rule):
            self.tally.inc_value(keys.URL_RULES_HELD)
            if learner.section_bound(rule, section) <= learner.risk:
                self.tally.inc_value(keys.URL_SECTIONS_HELD)
                if logger.isEnabledFor(logging.DEBUG):
                    logger.debug(
                        "simdedup: %s is new: %s stands (%s), and in /%s (%s)",
                        key, rule.describe(), learner.estimate(rule), section,
                        learner.section_estimate(rule, section),
                    )  # fmt: skip
                return []
            bets = self.bets.under_if(rule.identity, lambda bet: section_of(bet.url) == section)
            actions = self.reissue(bets, "rule_contradicted")
            if logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "simdedup: %s is new: %s stands (%s), %d parked requests of /%s re-issued",
                    key, rule.describe(), learner.estimate(rule), len(bets), section,
                )  # fmt: skip
            return actions
        bets = self.bets.under(rule.identity)
        actions = self.reissue(bets, "rule_weakened")
        if bets:  # a debug line per new page would cost the crawl more than its work
            logger.debug(
                "simdedup: %s is new: %s weakened, %d parked requests re-issued",
                key, rule.describe(), len(bets),
            )  # fmt: skip
        return actions

    def copied(
        self, url: str, key: str, original: str, ticket: T | None, *, revisits: bool, follows: bool
    ) -> list[Action[T]]:
        """``url``'s page (``key``) came back a copy of ``original``, another page: a copy
        of a page this crawl did not keep (an earlier crawl's) brings nothing into the
        feed, so the bets relying on it are re-issued, and with ``revisits`` the page it
        copies is asked for again (``ticket``: the request as routed); a copy of another
        path of its own host or of its mirror, or the second of its host to copy one page
        (a soft 404), settles no bet that expected its path's page, and with ``follows``
        its links are followed on mirrors."""
        actions: list[Action[T]] = []
        if not self.judge.kept(original):
            actions += self.lost(url, "counterpart_not_kept")
            if ticket is not None and revisits and self.judge.revisitable(original):
                self.tally.inc_value(keys.URL_REVISITS_REQUESTED)
                actions.append(Revisit(ticket, original))
            return actions
        unpredicted = []
        # What this verdict found (a soft 404, its first, the page copied), and the
        # page and its original when known so before (another worker found them).
        found = (*self.judge.found_unpredicted, url, canonical_or_none(original))
        for fetched in dict.fromkeys(found):
            if fetched is not None and fetched in self.judge.unpredicted_now:
                unpredicted.append(fetched)
                bets = self.bets.relying_on_its_page(fetched)
                actions += self.reissue(bets, "counterpart_not_predicted")
        if unpredicted and ticket is not None and follows:
            actions.append(FollowUnpredicted(ticket, tuple(unpredicted)))
        return actions

    def heard(self) -> tuple[list[Action[T]], int]:
        """Rules other workers of the crawl changed, taken in: the bets on a rule they saw
        fail, on a parameter they found to be a switcher, or on a page they found to be a
        soft 404 are re-issued. The actions, and how many rules were weakened."""
        weakened = self.guard(self.judge.refresh) or []
        actions: list[Action[T]] = []
        heard = self.judge.learner.heard()  # found on other workers of the crawl
        for section, name in heard.switchers:
            actions += self.switcher(section, name)
        for url in heard.unpredicted:
            self.judge.heard_unpredicted(url)
            actions += self.reissue(self.bets.relying_on_its_page(url), "counterpart_not_predicted")
        for rule in weakened:
            bets = self.bets.under(rule.identity)
            actions += self.reissue(bets, "rule_weakened")
            logger.debug(
                "simdedup: another worker saw %s fail, %d parked requests re-issued",
                rule.describe(), len(bets),
            )  # fmt: skip
        return actions, len(weakened)

    def switcher(self, section: str, name: str) -> list[Action[T]]:
        """The pattern bets on ``name`` in ``section``, now known to be a switcher."""

        def on_switcher(bet: Bet[T]) -> bool:
            if kind_of(bet.rule) != "pattern":
                return False
            held = parts_or_none(bet.url)
            return (
                held is not None
                and any(param == name for param, _ in held.params)
                and template_path(section_template(held)) == section
            )

        return self.reissue(self.bets.take_where(on_switcher), "switcher")
