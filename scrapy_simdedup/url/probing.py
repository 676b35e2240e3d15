"""``Probing``: requests that teach a rule still gathering evidence, and bets waiting on them.

A parameter or mirror rule is learned from its first copies. While it is, the requests it
would skip are fetched until enough are on their way to learn it (``probes``: this
worker's share of them, ``Crew``); the rest wait on bets marked ``gathering``. Once the
rule is learned (or met a new page) those bets are confirmed a stage at a time, each stage
ending at the rule's next sample, or re-issued (``unconfirmed``).

The learner says which bet a rule still gathering evidence would make
(``url/gathering.py``); this module, the core's, says whether it is made or the request
goes to teach the rule, and what becomes of the bets once the rule is learned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from scrapy_simdedup import stats as keys
from scrapy_simdedup.errors import StoreError, UrlNotCheckedError
from scrapy_simdedup.url.actions import Reissue
from scrapy_simdedup.url.probes import Probes

if TYPE_CHECKING:
    from scrapy_simdedup.url.actions import Action
    from scrapy_simdedup.url.bets import Bet
    from scrapy_simdedup.url.context import CoreContext
    from scrapy_simdedup.url.deadlines import Progress
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.reissuing import Reissuer
    from scrapy_simdedup.url.rules import Decision, Rule

T = TypeVar("T")

SAMPLE_WAIT_SECONDS = 10.0
"""A rule's bets made while it gathered evidence are confirmed a stage at a time, each
stage ending at the rule's sample; the next stage waits this long at most for the sample's
verdict (fetched on another worker, it may never reach this one)."""


class Probing(Generic[T]):
    """The rules with bets made while they gathered evidence, their samples, and the
    requests on their way that teach them (``probes``)."""

    def __init__(self, context: CoreContext[T], reissuer: Reissuer[T]) -> None:
        self.judge = context.judge
        self.bets = context.bets
        self.reissuer = reissuer
        self.deadlines = context.deadlines
        self.tally = context.tally
        self.guard = context.guard
        self.crew = context.crew
        self.probes = Probes(context.clock)
        self._rules: set[str] = set()
        self._samples: dict[str, tuple[str, float]] = {}  # rule -> its sample, sent when

    def began(self, rule: Rule) -> None:
        """A bet was made on ``rule`` while it gathers evidence."""
        self._rules.add(rule.identity)

    def bet_or_probe(self, parts: UrlParts, decision: Decision, *, scheduling: bool) -> Decision:
        """A request no learned rule skips, of a kind a parameter rule is still learning
        (``UrlLearner.gathering``): skipped on a bet once as many requests of that kind
        are on their way as the rule needs to be learned, else fetched, and counted on
        its way (``probes``) when it goes to the downloader. Two workers, each fetching
        every ``?sid=`` page in flight until the rule stood, avoided fewer fetches than one
        (issue 35). The caller asks only when skipping (not in annotate mode, nor once the
        budget is nearly spent)."""
        if decision.skip or decision.sample:
            return decision
        # Scheduled, a request of such a kind only waits: the counterpart (perhaps a store
        # read) is asked for only once enough are on their way.
        gathering = self.judge.gathering(parts, self._enough_on_the_way if scheduling else None)
        if gathering is None or gathering.rule is None:
            return decision
        if scheduling or self._enough_on_the_way(gathering.rule):  # scheduled: asked above
            return gathering
        self.probe(gathering, parts)
        return decision

    def probe(self, gathering: Decision, parts: UrlParts) -> None:
        """``parts``' request goes to the downloader and teaches ``gathering``'s rule."""
        assert gathering.rule is not None
        self.probes.sent(gathering.rule.identity, parts.url)
        self.tally.inc_value(keys.URL_PROBES)

    def _enough_on_the_way(self, rule: Rule) -> bool:
        """Whether this worker's share of the requests ``rule`` needs to be learned is on
        its way (``_share``)."""
        return self.probes.on_the_way(rule.identity) >= self._share(rule)

    def _share(self, rule: Rule) -> int:
        """Of the requests ``rule`` needs on their way to be learned, this worker's: each
        of a crawl's workers sends its share, since their verdicts teach the rule on
        all of them (two workers sent six where three teach it). The first ``needs %
        workers`` by rank take one more (rounded up for every worker, two workers sent
        four of three, one copy fetched for nothing per rule); at least one each, as a
        worker that met no request of the kind sends none (the others then send what
        their share came back short of: ``_probe_gathered``)."""
        needs, workers = self.judge.learner.needs(rule), max(1, self.crew.size)
        return max(1, needs // workers + (self.crew.rank % workers < needs % workers))

    def confirm(self, progress: Progress, *, staged: bool = True) -> list[Action[T]]:
        """The bets made while their rule gathered evidence, once it was learned or met a
        new page: each stands if the rule, learned, skips its URL now (it then waits as
        any bet does); otherwise it is re-issued (``unconfirmed``): the rule's sample, a
        value the learned rule does not cover (``?ref=home`` copied three times says
        nothing of ``?ref=footer``), or a rule that met a new page.

        ``staged``: the bets of a learned rule are confirmed up to its next sample, and
        the rest wait for that sample's verdict (``SAMPLE_WAIT_SECONDS`` at most), as
        requests that come after a rule was learned meet its samples' verdicts between
        them. All at once, a hundred bets rested on three copies and one in six was
        fetched as a sample: two scrapy-redis workers gather twice as many requests while a
        rule is learned, and fetched twice as many samples (issue 35). At idle, all at
        once: none may be left gathering when the crawl ends."""
        if not self._rules:
            return []
        learner = self.judge.learner
        resolved: dict[str, bool] = {}  # rule -> learned (its bets may stand) or not
        short: list[Rule] = []  # still learning, with too few requests on their way
        for identity in list(self._rules):  # asked first: a store error takes out nothing
            rule = learner.rule(identity)
            if not self.bets.holds_under(identity):  # its bets were re-issued otherwise
                self._rules.discard(identity)
                self._samples.pop(identity, None)
            elif learner.refuted(identity) or (rule is not None and rule.uniques):
                resolved[identity] = False  # a request of its kind came back new
            elif rule is not None and learner.chosen_against(rule):
                resolved[identity] = False  # a mirror pair whose other host is the copy
            elif rule is not None and learner.stands(identity):
                if not (staged and self._sample_awaited(identity, progress)):
                    resolved[identity] = True
            elif rule is not None and rule.specific:
                resolved[identity] = False
            elif rule is not None and not self._enough_on_the_way(rule):
                short.append(rule)
        actions: list[Action[T]] = []
        for rule in short:
            actions += self._probe_gathered(rule)
        for identity, learned in resolved.items():
            self._rules.discard(identity)
            self._samples.pop(identity, None)
            unconfirmed = []
            gathered = self.bets.gathered_under(identity)
            for n, bet in enumerate(gathered):
                confirmed = self._skipped_now(bet) if learned else None
                if confirmed:
                    bet.gathering = False
                    bet.due_seconds, bet.due_pages = self.deadlines.due(progress, pending=False)
                    if self.bets.park(bet):
                        continue
                unconfirmed.append(bet)
                if confirmed is False and staged and n + 1 < len(gathered):
                    # The rule's sample: the rest wait for its verdict, still gathering.
                    self._samples[identity] = (bet.url, progress.seconds)
                    self._rules.add(identity)
                    due = self.deadlines.due(progress, pending=False)  # as they would now
                    for waits in gathered[n + 1 :]:
                        waits.due_seconds, waits.due_pages = due
                        if not self.bets.park(waits):
                            unconfirmed.append(waits)
                    break
            # Ahead: most were taken off the queue on their way to the downloader.
            actions += self.reissuer.reissue(unconfirmed, "unconfirmed", ahead=True)
        return actions

    def _probe_gathered(self, rule: Rule) -> list[Action[T]]:
        """Re-issue, as requests that teach ``rule``, as many of its waiting bets as its
        share of probes lacks (``probe``): those on their way came back and the rule still
        needs copies, or failed. A worker sends its share, counting on the others' (two
        workers, three copies needed: two and one), and a worker with no request of that kind
        sends none: the rule stood at two copies and every request waiting on it was
        fetched at idle (issue 35)."""
        lacking = self._share(rule) - self.probes.on_the_way(rule.identity)
        gathered = self.bets.gathered_under(rule.identity)
        probes = gathered[: max(0, lacking)]
        unparked = [bet for bet in gathered[len(probes) :] if not self.bets.park(bet)]
        actions = self.reissuer.reissue(probes + unparked, "probe", ahead=True)
        urls = {bet.url for bet in probes}
        for action in actions:  # sent: not one another worker fetched or re-issued
            if isinstance(action, Reissue) and action.bet.url in urls:
                self.probes.sent(rule.identity, action.bet.url)
                self.tally.inc_value(keys.URL_PROBES)
        return actions

    def _sample_awaited(self, identity: str, progress: Progress) -> bool:
        """Whether the rule ``identity``'s sample from its gathered bets is still on its
        way: no verdict on it, here or on another worker, and sent less than
        ``SAMPLE_WAIT_SECONDS`` ago."""
        sample = self._samples.get(identity)
        if sample is None:
            return False
        url, sent = sample
        if progress.seconds - sent < SAMPLE_WAIT_SECONDS and not self.judge.judged(url):
            return True
        del self._samples[identity]
        return False

    def _skipped_now(self, bet: Bet[T]) -> bool | None:
        """Whether the rules in force skip ``bet``'s URL now, on its rule and counterpart,
        counted as any request the rule meets: one that falls to be the rule's sample is
        fetched (as it would have been had it come after the rule was learned): False for
        the sample, None when the rules do not skip it so."""
        try:
            decision = self.judge.decide(bet.url, tally=False)
        except UrlNotCheckedError:
            return None
        except StoreError as exc:  # re-issued: the bets taken out must not be lost
            self.guard.report(exc)
            return None
        rule = decision.rule
        if not (
            decision.skip
            and rule is not None
            and rule.identity == bet.rule
            and decision.counterpart == bet.counterpart
        ):
            return None
        return not self.judge.learner.takes_sample(rule)
