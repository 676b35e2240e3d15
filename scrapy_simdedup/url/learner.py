"""Adaptive URL skipping: rules learned online from what the content pipeline found.

The DUST idea (Bar-Yossef et al. 2007) and Bharat & Broder's mirror detection, inside one
crawl. Every content verdict ("page A duplicates page B", or "A is new") is evidence for
one of three kinds of rule:

* **mirror**: host A serves copies of host B's pages under the same path and query. The
  copies either way between two hosts count (fetched at once, either may come second);
  among them ``min_evidence`` copies of content pages (``is_content_page``), since shared
  boilerplate (``/terms``, ``/about``) is no mirror. One host of the pair is chosen as the
  copy when the rule is first used, and the choice is stored and kept (``mirrors.py``).
* **pattern**: on host A, a query parameter (session id, tracking, sort order) that
  changes nothing: copies differed from their originals in it. One rule per parameter and
  section (``section_template``: ``/article/`` and ``/forum/thread/`` are learned apart,
  since a CMS's "page 1 of 1" says nothing of a forum's pages), and until copies showed
  ``GENERAL_VALUES`` values of it, only for the values they showed (``?page=1`` leading
  to the page itself says nothing of ``?page=2``).
* **trap**: pages of one path template (``/calendar/{date}``) are copies of each other, an
  endless calendar or pager. This rule needs twice the evidence; its counterpart is the page
  the latest copies copied (its ``exemplar``), which must be in this crawl's feed: a
  calendar kept by last week's crawl is not. A page of the template that comes back new
  stops the rule for the rest of the crawl (``Rule.stopped``): the exemplar says nothing of
  a day that has events of its own. So does going idle, unless the trap is endless by its
  structure (``stop_finite_traps``): most of its skips were links found on pages of its own
  template (a next-day or next-page chain that keeps producing URLs ahead of the crawl). A
  template listed from outside it (a calendar's index of 1,216 days) is finite, however
  long: fetched in full, its skips only come last.

A host learned to mirror another also follows that host's pattern and trap rules. A
request is skipped only when its counterpart (the same path on the original, the URL
without the learned parameters) is in ``covered``: the caller's URLs at hand.

A rule skips only after ``min_evidence`` copies in a row (twice that for a trap) with at
least ``MIN_DUPLICATE_SHARE`` of its verdicts copies. A sample of the requests it would skip
is fetched, more while its evidence is thin; a page that comes back new where the rule
predicted a copy resets its run (``observe`` returns the rules so weakened, so that their
bets can be re-issued). Rules are kept in the store under ``L`` keys; loaded by a later
crawl they are on probation (their run starts at zero). Workers sharing a store while they
run also exchange their rules (``refresh``, ``url/news.py``) with the copies and new pages
each saw itself, which the others add to theirs once (``url/evidence.py``): a crawl's
evidence counts once whichever worker saw it, so two workers learn as soon as one would.

The learner is a front door over parts with one job each, so that each can be read, and
tested, without the others:

* ``standing.py``: which rules are learned, and in force on a host (with ``rulebook.py``,
  ``mirrors.py`` and ``sampling.py``, which it builds);
* ``deciding.py``: the decision the rules in force make on a request, through
  ``counterparts.py`` (the page a rule says a request copies);
* ``observe.py``: content verdicts taken in as evidence, and the rules they weaken;
* ``gathering.py``: bets on rules still gathering evidence, and the rules refuted so;
* ``sharing.py``: rules, tallies and findings exchanged with the other workers;
* ``switchers.py``, ``places.py`` and ``verdicts.py``: what this crawl saw of switchers,
  of where rules held, and of the pages judged.

Callers (``url/judge.py``, ``url/core.py``, ``scrapy simdedup``) ask ``UrlLearner`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import TYPE_CHECKING

from scrapy_simdedup.url.counterparts import Counterparts
from scrapy_simdedup.url.deciding import Decisions
from scrapy_simdedup.url.gathering import GatheringBets
from scrapy_simdedup.url.observe import Observer
from scrapy_simdedup.url.places import PlacesSeen
from scrapy_simdedup.url.rulebook import Rulebook
from scrapy_simdedup.url.sharing import RuleSharing
from scrapy_simdedup.url.sitesize import SiteSizes
from scrapy_simdedup.url.standing import Standing
from scrapy_simdedup.url.switchers import Switchers
from scrapy_simdedup.url.verdicts import Verdicts

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.index.stores.base import Store
    from scrapy_simdedup.url.findings import Findings
    from scrapy_simdedup.url.news import RuleNews
    from scrapy_simdedup.url.parts import UrlParts
    from scrapy_simdedup.url.rules import Decision, Rule

MIN_EVIDENCE = 3
SAMPLE_EVERY = 20


class UrlLearner:
    """Learns rules from content verdicts (``observe``) and applies them (``decide``).

    ``fetched(url)`` says whether a canonical URL's response came back (in this crawl or an
    earlier one on the same store): only then is a new page evidence against a rule.
    ``store`` may be None (nothing persists). Rules loaded from the store are on probation
    (``probation=True``): their run of copies starts at zero, so they skip nothing until
    this crawl has confirmed them with fresh evidence. With ``news`` (a store several
    workers share), ``refresh`` exchanges the rules in force with the other workers.
    """

    def __init__(
        self,
        store: Store | None,
        fetched: Callable[[str], bool],
        *,
        min_evidence: int = MIN_EVIDENCE,
        sample_every: int = SAMPLE_EVERY,
        probation: bool = True,
        news: RuleNews | None = None,
        sizes: SiteSizes | None = None,
        risk: float = 0.0,
    ) -> None:
        if min_evidence < 1 or sample_every < 2:
            raise ValueError("min_evidence must be at least 1 and sample_every at least 2")
        if not 0.0 <= risk < 1.0:
            raise ValueError(f"risk must be at least 0 and below 1, got {risk}")
        # Workers sharing a store do not share their samples yet: a new page one of them
        # saw ends a rule on all, as at no risk.
        self.risk = risk if news is None else 0.0
        self.store = store
        self.news = news
        self.sizes = sizes or SiteSizes()
        self.min_evidence = min_evidence
        self.sample_every = sample_every
        self.book = Rulebook(store, probation=probation)
        self.standing = Standing(
            self.book,
            self.sizes,
            min_evidence=min_evidence,
            sample_every=sample_every,
            risk=self.risk,
        )
        self.mirrors, self.sampling = self.standing.mirrors, self.standing.sampling
        self.verdicts = Verdicts(fetched)
        self.places = PlacesSeen()
        self.switchers = Switchers()
        counterparts = Counterparts(self.switchers, self.places)
        self.decisions = Decisions(self.standing, counterparts, self.places, self.verdicts)
        self.gathering_bets = GatheringBets(
            self.standing, self.places, self.switchers, counterparts
        )
        self.sharing = RuleSharing(news, self.standing, self.switchers, self.gathering_bets)
        self.observer = Observer(
            self.standing, self.places, counterparts, self.verdicts, self.sharing
        )

    @property
    def choose(self) -> Callable[[str, str, str], str] | None:
        """Workers sharing a store: (host, other, proposed copy) -> the copy they agreed on
        (``MirrorChoice.choose``)."""
        return self.mirrors.choose

    @choose.setter
    def choose(self, choose: Callable[[str, str, str], str] | None) -> None:
        self.mirrors.choose = choose

    @property
    def first_section(self) -> Callable[[tuple[str, str], str], bool] | None:
        """Workers of one crawl: (a mirror's two hosts, section) -> whether this worker is
        the first with evidence there (``PlacesSeen.first_section``)."""
        return self.places.first_section

    @first_section.setter
    def first_section(self, first: Callable[[tuple[str, str], str], bool] | None) -> None:
        self.places.first_section = first

    @property
    def copy_of(self) -> Callable[[str], str | None]:
        """The page a judged URL's page was found a copy of (``Verdicts.copy_of``)."""
        return self.verdicts.copy_of

    @copy_of.setter
    def copy_of(self, copy_of: Callable[[str], str | None]) -> None:
        self.verdicts.copy_of = copy_of

    @property
    def fetched(self) -> Callable[[str], bool]:
        return self.verdicts.fetched

    @property
    def malformed(self) -> int:
        """Stored rule records that could not be read (ignored)."""
        return self.book.malformed

    @property
    def overflow(self) -> int:
        """Rules not learned because ``MAX_RULES`` were held."""
        return self.book.overflow

    def rules(self) -> list[Rule]:
        """Every rule with evidence, learned or not."""
        return self.book.all()

    def learned_rules(self) -> list[Rule]:
        return self.standing.learned_rules()

    def samples(self, rule: Rule) -> tuple[int, int]:
        """(samples of ``rule`` judged, of them new) (``sampling.py``)."""
        return self.sampling.samples(rule)

    def estimate(self, rule: Rule) -> str:
        """What ``rule``'s samples say, as a user reads it (``estimate.describe_bound``)."""
        return self.sampling.estimate(rule)

    def sampled(self, identity: str, url: str | None = None) -> None:
        """A request the rule ``identity`` would have skipped, fetched as its sample
        (``url``), was judged a copy, as the rule predicted. (A sample that came back new
        where the rule predicted a copy counts as one that differed:
        ``Sampling.differed``.)"""
        rule = self.book.get(identity)
        if rule is not None:
            self.sampling.sampled(rule, url)

    def sample_differed(self, identity: str, weakened: list[Rule], url: str | None = None) -> None:
        """A sample of the rule ``identity``, judged new before its counterpart, differs
        from it (the counterpart came back new, or a copy of another page): counted, unless
        the counterpart's verdict counted it already, weakening the rule (a mirror's)."""
        rule = self.book.get(identity)
        if rule is None:
            return
        reverse = self.standing.reverse(rule) if rule.kind == "mirror" else None
        names = {rule.identity, *((reverse.identity,) if reverse is not None else ())}
        if all(other.identity not in names for other in weakened):
            self.sampling.differed([rule], (identity,), url)

    def rule(self, identity: str) -> Rule | None:
        """The rule called ``identity`` (a bet names its rule so), None when unknown."""
        return self.book.get(identity)

    def stands(self, identity: str) -> bool:
        """Whether the rule ``identity`` is still learned (and, for a mirror, chosen)."""
        return self.standing.stands(identity)

    def mirrors_of(self, host: str) -> list[Rule]:
        """The mirror rules that take ``host`` for the original, learned or not (one still
        learning may hold bets: ``gathering``)."""
        return list(self.book.mirrors_of(host))

    def paired(self, host: str, other: str) -> bool:
        """Whether a mirror rule, learned or still learning, either way, saw a content page
        of one host copied at the same path of the other: their paths are meant to hold the
        same pages. (Sites of one platform that share only ``/privacy`` are no pair.)"""
        return any(
            rule.content_duplicates and rule.host == copy
            for original, copy in ((host, other), (other, host))
            for rule in self.book.mirrors_of(original)
        )

    def decide(
        self,
        parts: UrlParts,
        covered: Container[str],
        *,
        tally: bool = True,
        awaited: Container[str] = (),
        source: UrlParts | None = None,
    ) -> Decision:
        """Skip ``parts`` when a learned rule predicts a duplicate whose original is
        ``covered`` (or, a mirror's pending bet, ``awaited``): ``Decisions.decide``."""
        return self.decisions.decide(parts, covered, tally=tally, awaited=awaited, source=source)

    def takes_sample(self, rule: Rule) -> bool:
        """One more request ``rule`` would skip: whether it is fetched as the rule's sample
        instead (``Sampling.takes_sample``)."""
        return self.sampling.takes_sample(rule)

    def linked(self, parts: UrlParts, source: UrlParts | None) -> list[tuple[str, str]]:
        """A link from the page ``source`` to ``parts`` was met. A page that links one path
        under several values of a parameter (``?lang=fr``, ``de``, ``es``; a sort or tab
        switcher) offers variants to its reader: which one has content of its own cannot be
        told from other paths (a real translation among fallbacks), so no pattern rule
        skips that parameter in that section from now on, on any host (a mirror inherits
        its original's rules). Returns the switchers found now, as (section, parameter):
        the bets made on them before the second value showed them are to be re-issued."""
        found = self.switchers.linked(parts, source)
        if found:
            self.standing.changed()
            self.sharing.found_switchers(found)
        return found

    def unpredicted(self, urls: Iterable[str]) -> None:
        """Pages at ``urls`` were not what their path promised (a soft 404 and the page it
        copies): announced to the other workers, whose bets on them must not settle."""
        self.sharing.found_unpredicted(urls)

    def heard(self) -> Findings:
        """What the other workers found since the last call (``refresh``) and this worker
        did not know: its bets on switchers and on pages not what their path promised are
        to be re-issued, as on its own findings. A worker does not parse the page that
        shows a switcher it takes from the shared queue, nor judge every page its bets
        rely on (issue 35)."""
        return self.sharing.heard()

    def switches(self, parts: UrlParts, names: Iterable[str]) -> bool:
        """Whether one of ``names`` is a switcher in ``parts``' section (see ``linked``)."""
        return self.switchers.switches(parts, names)

    def stop_finite_traps(self) -> list[Rule]:
        """At idle: every trap that is not endless by its structure stops (its bets are
        then re-issued, and its template fetched from now on): fewer than half its skips in
        this crawl were links found on pages of its own template. Its empty pages say
        nothing of a page of its own that it skipped (a calendar's busy day): a finite
        template is fetched in full, its skips only come last. Returns the rules stopped."""
        stopped = [
            rule
            for rule in self.book.all()
            if rule.kind == "trap"
            and not rule.stopped
            and 2 * rule.chained_here < rule.skipped_here
        ]
        for rule in stopped:
            rule.stopped = True
        if stopped:
            self.standing.changed()
        return stopped

    def gathering(
        self,
        parts: UrlParts,
        covered: Container[str],
        ready: Callable[[Rule], bool] | None = None,
    ) -> Decision | None:
        """A bet made while a rule's first pages are on their way (``Probing.bet_or_probe``);
        None when none applies (``GatheringBets.bet``)."""
        return self.gathering_bets.bet(parts, covered, ready)

    def refute(self, identity: str) -> None:
        """A request fetched while the rule ``identity`` gathered evidence came back new:
        no more bets on it before it is learned, in this crawl."""
        self.gathering_bets.refute(identity)
        self.sharing.found_refuted(identity)

    def refuted(self, identity: str) -> bool:
        return self.gathering_bets.refuted(identity)

    def needs(self, rule: Rule) -> int:
        """Copies in a row ``rule`` still needs to be learned (``GatheringBets.needs``)."""
        return self.gathering_bets.needs(rule)

    def chosen_against(self, rule: Rule) -> bool:
        """Whether the mirror pair of ``rule`` is learned with the other host as the copy:
        a bet made on ``rule`` while it gathered evidence cannot stand."""
        return self.gathering_bets.chosen_against(rule)

    def observe(
        self, parts: UrlParts, original: UrlParts | None, samples: tuple[str, ...] = ()
    ) -> list[Rule]:
        """A content verdict: ``parts`` duplicated ``original``, or was new (None).
        Returns the rules this evidence weakened (``Observer.observe``)."""
        return self.observer.observe(parts, original, samples)

    def contradicted(self, identity: str, url: str | None = None) -> list[Rule]:
        """A request (``url``) skipped on the rule ``identity`` waited for a counterpart
        that never came, was re-issued, and its page came back new
        (``Observer.contradicted``). Returns the rule, or nothing when it is unknown."""
        return self.observer.contradicted(identity, url)

    def section_bound(self, rule: Rule, section: str) -> float:
        """At most this share of ``rule``'s would-be skips in ``section`` differ
        (``Sampling.section_bound``)."""
        return self.sampling.section_bound(rule, section)

    def section_estimate(self, rule: Rule, section: str) -> str:
        """What ``rule``'s samples in ``section`` say, as a user reads it."""
        return self.sampling.section_estimate(rule, section)

    def refresh(self) -> list[Rule]:
        """Every few seconds, on a store several workers share: exchange rules with the
        other workers (``RuleSharing.refresh``). Returns the rules that stood here and no
        longer do, because another worker saw one fail."""
        return self.sharing.refresh()

    def save(self) -> None:
        """Write every rule changed since the last write (a crawl calls it when it ends)."""
        self.book.save()
