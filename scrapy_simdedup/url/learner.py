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
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import TYPE_CHECKING

from scrapy_simdedup.url.evidence import CrawlEvidence
from scrapy_simdedup.url.features import path_template, section_template
from scrapy_simdedup.url.findings import Findings
from scrapy_simdedup.url.merging import merge_into
from scrapy_simdedup.url.mirrors import MirrorChoice
from scrapy_simdedup.url.parts import UrlParts
from scrapy_simdedup.url.rulebook import MAX_RULES, Rulebook
from scrapy_simdedup.url.rules import (
    FETCH,
    Decision,
    Rule,
    path_key,
    template_path,
)
from scrapy_simdedup.url.sampling import Sampling
from scrapy_simdedup.url.shapes import is_variable
from scrapy_simdedup.url.sitesize import SiteSizes

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy_simdedup.index.stores.base import Store
    from scrapy_simdedup.url.evidence import Tally
    from scrapy_simdedup.url.news import RuleNews

MIN_EVIDENCE = 3
MAX_OFFERED = 200_000
"""Links with query parameters remembered by page, to tell a page that offers several values
of one parameter for one path (a switcher); the oldest go."""
MAX_SWITCHERS = 10_000
MAX_FOUND = 100_000
"""Findings of one kind waiting to be announced (a store that keeps failing); past it,
the others are not told of more."""
MAX_REANNOUNCED = 500
"""Switchers announced again with every learned rule, the most recent first, for a worker
that joined late; older ones it learns only from pages it parses."""
MAX_SECTIONS_SAMPLED = 1_000
"""Sections per mirror rule whose first would-be skip is fetched as a sample."""
MAX_PAGED_PATHS = 100_000
"""Paths remembered where a page past the first copied (``_paged_here``); beyond, pages
past the first of other paths are fetched."""
MAX_PAGE_DIGITS = 6
"""A page number or offset (``?page=2``, ``?start=40``) has at most this many digits; a
longer number is an id or a timestamp, not a place in a pager."""
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
        self.evidence = CrawlEvidence()  # what this worker saw itself, and the others
        self.fetched = fetched
        # The page a judged URL's page was found a copy of (None: new, or not known).
        self.copy_of: Callable[[str], str | None] = lambda url: None
        self.sizes = sizes or SiteSizes()
        self.min_evidence = min_evidence
        self.sample_every = sample_every
        self.book = Rulebook(store, probation=probation)
        self.mirrors = MirrorChoice(self.book, self.sizes, self._find_or_add, self._changed)
        self.sampling = Sampling(
            self.mirrors.reverse, self._changed, sample_every=sample_every, risk=self.risk
        )
        self._in_force_of: dict[str, list[Rule]] = {}  # host -> _in_force, until a change
        # (linking page, target without the parameter, parameter) -> the first value seen
        self._offered: dict[tuple[str, str, str], str] = {}
        # (section, parameter): a page offered several values of it for one path
        # Switchers (section, parameter) by when they were found. On a shared store, what
        # forbids skips is announced to the other workers (``found``), and what they found
        # is taken in here, then handed to the URL core for its bets (``heard``).
        self._switchers: dict[tuple[str, str], None] = {}
        self._found = Findings()
        self._heard = Findings()
        # a mirror's two hosts -> the sections where this crawl has evidence of the pair
        self._sections_here: dict[tuple[str, str], set[str]] = {}
        # A mirror pair's two hosts -> the sections where a content page was seen copied.
        self._copied_sections: dict[tuple[str, str], set[str]] = {}
        # (pattern rule, path): a page past the first copied there in this crawl
        self._paged_here: set[tuple[str, str]] = set()
        # parameter rules a request fetched while they gathered evidence came back new
        # for: no more bets before they are learned (``gathering``), in this crawl
        self._refuted: set[str] = set()
        # Workers of one crawl: (a mirror's two hosts, section) -> whether this worker is
        # the first with evidence there (its sample is the crawl's one, issue 35).
        self.first_section: Callable[[tuple[str, str], str], bool] | None = None

    @property
    def choose(self) -> Callable[[str, str, str], str] | None:
        """Workers sharing a store: (host, other, proposed copy) -> the copy they agreed on
        (``MirrorChoice.choose``)."""
        return self.mirrors.choose

    @choose.setter
    def choose(self, choose: Callable[[str, str, str], str] | None) -> None:
        self.mirrors.choose = choose

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
        return [rule for rule in self.book.all() if self._learned(rule)]

    def _learned(self, rule: Rule) -> bool:
        """``rule.learned``; for a mirror, from the copies either way between its two hosts
        (fetched at once, either host's copy may come second)."""
        reverse = self._reverse(rule) if rule.kind == "mirror" else None
        subject = rule if reverse is None else _pair(rule, reverse)
        if subject.learned(self.min_evidence):
            return True
        return (  # with a risk: standing on its samples (the bound, worked out last)
            self.risk > 0.0
            and subject.proven
            and subject.may_stand(self.min_evidence)
            and self.sampling.bound(rule) <= self.risk
        )

    def samples(self, rule: Rule) -> tuple[int, int]:
        """(samples of ``rule`` judged, of them new) (``sampling.py``)."""
        return self.sampling.samples(rule)

    def estimate(self, rule: Rule) -> str:
        """What ``rule``'s samples say, as a user reads it (``estimate.describe_bound``)."""
        return self.sampling.estimate(rule)

    def sampled(self, identity: str) -> None:
        """A request the rule ``identity`` would have skipped, fetched as its sample, was
        judged a copy, as the rule predicted. (A sample that came back new where the rule
        predicted a copy counts as one that differed: ``Sampling.differed``.)"""
        rule = self.book.get(identity)
        if rule is not None:
            self.sampling.sampled(rule)

    def sample_differed(self, identity: str, weakened: list[Rule]) -> None:
        """A sample of the rule ``identity``, judged new before its counterpart, differs
        from it (the counterpart came back new, or a copy of another page): counted, unless
        the counterpart's verdict counted it already, weakening the rule (a mirror's)."""
        rule = self.book.get(identity)
        if rule is None:
            return
        reverse = self._reverse(rule) if rule.kind == "mirror" else None
        names = {rule.identity, *((reverse.identity,) if reverse is not None else ())}
        if all(other.identity not in names for other in weakened):
            self.sampling.differed([rule], (identity,))

    def rule(self, identity: str) -> Rule | None:
        """The rule called ``identity`` (a bet names its rule so), None when unknown."""
        return self.book.get(identity)

    def stands(self, identity: str) -> bool:
        """Whether the rule ``identity`` is still learned (and, for a mirror, chosen)."""
        rule = self.book.get(identity)
        return rule is not None and rule in self._in_force(rule.host)

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
        """Skip ``parts`` when a learned rule predicts a duplicate whose original is here.

        The original (the counterpart) must be in ``covered``: URLs this crawl fetched or
        has queued. A mirror's copy may also wait for an original that is not yet queued but
        ``awaited`` (its host is crawled, and it did not fail): the skip is then ``pending``,
        a bet that the original's own link brings it. ``tally=False`` asks without counting
        the request (it is never sampled). ``source``: the page that linked it (its
        referrer), which tells a trap's chain from a listing.
        """
        in_force = self._in_force(parts.host)
        waiting: tuple[Rule, str] | None = None  # a mirror's skip on an original awaited
        unproven: tuple[Rule, str] | None = None  # a page past the first, see below
        # A parameter rule the host inherits from its original speaks only for pages the
        # original has too (``_shared``). A section of the mirror's own, paged with
        # ``?page=`` as the original's one-page tags are, is not the original's to judge:
        # once the mirror rule stopped waiting for pages the original lacks, the inherited
        # rule cut its pager's chain at the first page.
        for rule in in_force:
            counterpart = self._counterpart(rule, parts, in_force)
            if rule.kind == "trap":
                applies = (
                    template_path(path_template(parts)) == template_path(rule.template)
                    and counterpart in covered
                )
            else:
                applies = counterpart is not None and counterpart in covered
                if (
                    not applies
                    and waiting is None
                    and counterpart is not None
                    and rule.kind == "mirror"
                    and rule.waits
                    and counterpart in awaited
                ):
                    waiting = (rule, counterpart)
            if applies and rule.kind == "pattern" and not self._paged_copy_seen(rule, parts):
                assert counterpart is not None
                unproven, applies = unproven or (rule, counterpart), False
            if applies and rule.host != parts.host:  # inherited
                assert counterpart is not None
                theirs = _on_host(counterpart, parts, rule.host)
                applies = self._shared(counterpart, theirs, covered)
            if applies and (waiting is None or rule.host == parts.host):
                assert counterpart is not None
                return self._decided(rule, parts, counterpart, tally, source, pending=False)
        # A pending bet only when none of the host's own rules has its counterpart at hand:
        # a mirror's calendar page whose original was never linked (the original's trap
        # skips the chain that would link it) is a copy of the mirror's own trap, once its
        # months showed one. Not of a rule it inherits: none of its pages was seen to copy
        # there (a section of its own, paged with ``?page=`` as the original's is).
        if waiting is not None:
            rule, counterpart = waiting
            return self._decided(rule, parts, counterpart, tally, source, pending=True)
        if unproven is not None:  # fetched as the rule's sample on this path
            rule, counterpart = unproven
            return Decision(skip=False, rule=rule, sample=tally, counterpart=counterpart)
        return FETCH

    def _paged_copy_seen(self, rule: Rule, parts: UrlParts) -> bool:
        """Whether ``rule`` may judge ``parts`` for the page number it asks for: a page
        past the first (``?page=2``) only on a path where one was seen to copy in this
        crawl. A blog's one-page tags whose pager shows "next" on a server that clamps
        (``?page=2`` answers with page 1) teach that ``page`` changes nothing; a tag that
        really has a second page looks the same from its URL, and skipping its page 2
        cut its pager's chain. One fetch per path finds out (and a new page there denies
        the path, ``Rule.deny``). The first page (``?page=1``) needs no such proof."""
        if not _past_first_page(rule, parts):
            return True
        return (rule.identity, path_key(parts)) in self._paged_here

    def _shared(self, mine: str, theirs: str, covered: Container[str]) -> bool:
        """Whether the mirror's page ``mine`` is its original's page ``theirs``: that one
        is at hand, and ``mine`` was not fetched (a bet on it, or on its way) or was found
        its copy. A page of the same path that came back otherwise (new, or not judged
        yet) has grown apart: its variants are not the original's rule's to skip."""
        if theirs not in covered:
            return False
        return not self.fetched(mine) or self.copy_of(mine) == theirs

    def _decided(
        self,
        rule: Rule,
        parts: UrlParts,
        counterpart: str,
        tally: bool,
        source: UrlParts | None,
        *,
        pending: bool,
    ) -> Decision:
        """The skip ``rule`` makes of ``parts``, or the sample it fetches instead."""
        if not tally:
            return Decision(True, rule, counterpart=counterpart, pending=pending)
        if self._first_in_section(rule, parts):
            return Decision(skip=False, rule=rule, sample=True, counterpart=counterpart)
        if self.takes_sample(rule):
            return Decision(skip=False, rule=rule, sample=True, counterpart=counterpart)
        if rule.kind == "trap":
            rule.skipped_here += 1
            rule.chained_here += _chained(rule, parts, source)
        return Decision(True, rule, counterpart=counterpart, pending=pending)

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
        if source is None or not parts.params:
            return []
        found = []
        names: set[str] = set()
        for name, value in parts.params:
            if name in names:  # ``?a=1&a=2``: one link, not two variants
                continue
            names.add(name)
            key = (source.url, parts.without_params(frozenset((name,))), name)
            first = self._offered.get(key)
            if first is None:
                if len(self._offered) >= MAX_OFFERED:
                    del self._offered[next(iter(self._offered))]
                self._offered[key] = value
                continue
            switcher = (template_path(section_template(parts)), name)
            known = switcher in self._switchers
            if first != value and not known and len(self._switchers) < MAX_SWITCHERS:
                self._switchers[switcher] = None
                self._changed()
                found.append(switcher)
        if found and self.news is not None:
            self._found.switchers += found
        return found

    def unpredicted(self, urls: Iterable[str]) -> None:
        """Pages at ``urls`` were not what their path promised (a soft 404 and the page it
        copies): announced to the other workers, whose bets on them must not settle."""
        if self.news is not None and len(self._found.unpredicted) < MAX_FOUND:
            self._found.unpredicted += urls

    def heard(self) -> Findings:
        """What the other workers found since the last call (``refresh``) and this worker
        did not know: its bets on switchers and on pages not what their path promised are
        to be re-issued, as on its own findings. A worker does not parse the page that
        shows a switcher it takes from the shared queue, nor judge every page its bets
        rely on (issue 35)."""
        heard, self._heard = self._heard, Findings()
        return heard

    def switches(self, parts: UrlParts, names: Iterable[str]) -> bool:
        """Whether one of ``names`` is a switcher in ``parts``' section (see ``linked``)."""
        if not self._switchers:
            return False
        section = template_path(section_template(parts))
        return any((section, name) in self._switchers for name in names)

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
            self._changed()
        return stopped

    def _first_in_section(self, rule: Rule, parts: UrlParts) -> bool:
        """Whether ``parts`` is in a section (``section_template``) where a mirror rule has
        no evidence in this crawl: no copy seen there, no would-be skip fetched there. Its
        first would-be skip there is fetched as a sample, and its links followed: a
        mirror's section of its own is often linked from a page of a section that is
        unlike the rest (an ``/about/`` that links the mirror's local events). Elsewhere
        one in ``Sampling.interval`` is: a section linked from ``m`` skipped pages of
        sections with evidence is missed with probability ``(1 - 1/interval) ** m``. A
        pattern rule has one section; a trap one template."""
        if rule.kind != "mirror":
            return False
        return self._evidence_in(rule, parts)

    def _evidence_in(self, mirror: Rule, parts: UrlParts) -> bool:
        """Note that the pair of hosts of ``mirror`` has evidence in ``parts``' section in
        this crawl (a copy seen there, or a sample fetched); whether it had none before."""
        pair = _pair_of(mirror)
        sections = self._sections_here.setdefault(pair, set())
        section = template_path(section_template(parts))
        if section in sections or len(sections) >= MAX_SECTIONS_SAMPLED:
            return False
        sections.add(section)
        return self.first_section is None or self.first_section(pair, section)

    def _copied_in(self, mirror: Rule, parts: UrlParts) -> None:
        """Note that a content page of ``parts``' section was found copied between the two
        hosts of ``mirror`` in this crawl: the section where their requests may wait while
        the rule is learned (``_gathering_mirror``)."""
        sections = self._copied_sections.setdefault(_pair_of(mirror), set())
        if len(sections) < MAX_SECTIONS_SAMPLED:
            sections.add(template_path(section_template(parts)))

    def _in_force(self, host: str) -> list[Rule]:
        """The learned rules of ``host``, then the parameter rules it inherits from each
        host it mirrors (a mirror copies its original's URL scheme too; not its traps: a
        mirror's month the original has is the mirror rule's, and one it lacks is not the
        original's to judge). Worked out once per host until evidence changes a rule
        (``_changed``)."""
        found = self._in_force_of.get(host)
        if found is None:
            if len(self._in_force_of) >= MAX_RULES:
                self._in_force_of.clear()
            found = self._in_force_of[host] = self._work_out_in_force(host)
        return found

    def _work_out_in_force(self, host: str) -> list[Rule]:
        own = [
            rule
            for rule in self.book.on_host(host)
            if not rule.stopped and self._learned(rule) and not self.mirrors.outvoted(rule)
        ]
        inherited = [
            rule
            for mirror in own
            if mirror.kind == "mirror"
            for rule in self.book.on_host(mirror.other)
            if rule.kind == "pattern" and self._learned(rule)
        ]
        return own + inherited

    def _counterpart(self, rule: Rule, parts: UrlParts, in_force: list[Rule]) -> str | None:
        if rule.kind == "mirror":
            return parts.with_host(rule.other)
        if rule.kind == "trap":
            return rule.exemplar or None
        present = {name for name, _ in parts.params}
        if rule.kind != "pattern" or not present.issuperset(rule.names):
            return None
        section = template_path(section_template(parts))
        if not _covers(rule, parts, section) or self.switches(parts, rule.names):
            return None
        return self._without_learned(rule, parts, in_force, present, section)

    def _without_learned(
        self, rule: Rule, parts: UrlParts, in_force: list[Rule], present: set[str], section: str
    ) -> str:
        """``parts`` without ``rule``'s parameters and every other one learned to change
        nothing here: ``?sid=..&sort=..`` leads to the bare page once both are learned.
        Never without a switcher: ``?lang=de&sid=..`` leads to ``?lang=de``."""
        learned = {
            name
            for other in in_force
            if other.kind == "pattern"
            and _covers(other, parts, section)
            and not self.switches(parts, other.names)
            and self._paged_copy_seen(other, parts)  # ``?page=2&sid=..`` is not page 1
            for name in other.names
        }
        return parts.without_params(frozenset(rule.names) | (learned & present))

    def gathering(
        self,
        parts: UrlParts,
        covered: Container[str],
        ready: Callable[[Rule], bool] | None = None,
    ) -> Decision | None:
        """A bet made while a rule's first pages are on their way (``UrlCore._gathered``):
        on a parameter rule (``_gathering_parameter``), else on a mirror rule
        (``_gathering_mirror``); None when neither applies."""
        if parts.params:
            found = self._gathering_parameter(parts, covered, ready)
            if found is not None:
                return found
        return self._gathering_mirror(parts, covered, ready)

    def _gathering_mirror(
        self,
        parts: UrlParts,
        covered: Container[str],
        ready: Callable[[Rule], bool] | None,
    ) -> Decision | None:
        """A skip of ``parts`` on the mirror rule of its host not learned yet, whose pages
        so far all came back copies of the other host's pages at the same path (of its
        content pages, more came second than of the other host's): the bet, as a
        parameter rule's, that its pages on their way say so too. A mirror linked from its
        home page sends its sections to the downloader before three copies teach the
        rule, twice as many with two workers (issue 35). Never final while the rule is not
        learned: once it is, a bet stands if the rule in force skips its URL (this host
        chosen as the copy), else it is re-issued; a new page of the host (``refute``)
        or its deadline re-issues it. Only in a section below the top level where a
        content page was seen copied (a section of the mirror's own, or one where it
        diverged, has its first page fetched, as a learned rule's sample; one shared
        ``/terms`` says nothing of a site's hubs), and not on a host that is another
        pair's original, nor one whose other host is another pair's copy."""
        section = template_path(section_template(parts))
        if not section:  # a site's top level: its hubs, /about, /terms
            return None
        for rule in self.book.on_host(parts.host):
            if rule.kind != "mirror" or rule.host != parts.host or rule.uniques or rule.stopped:
                continue
            reverse = self._reverse(rule)
            if (
                rule.identity in self._refuted
                or (reverse is not None and (reverse.uniques or reverse.chosen))
                or rule.content_duplicates
                <= (reverse.content_duplicates if reverse is not None else 0)
                or section not in self._copied_sections.get(_pair_of(rule), ())
                or self.mirrors.is_original(rule.host, rule.other)
                or self.mirrors.is_copy(rule.other, rule.host)  # the other host is the copy then
                or self._learned(rule)  # learned: ``decide`` judged it
                or (ready is not None and not ready(rule))
            ):
                continue
            counterpart = parts.with_host(rule.other)
            if counterpart in covered:
                return Decision(True, rule, counterpart=counterpart, gathering=True)
        return None

    def _gathering_parameter(
        self,
        parts: UrlParts,
        covered: Container[str],
        ready: Callable[[Rule], bool] | None,
    ) -> Decision | None:
        """A skip of ``parts`` on a parameter rule of its host not learned yet, whose
        copies so far all said the parameter changes nothing here: a bet, made while the
        rule's first pages are on their way, that they will say so too (``UrlCore`` makes
        it only once enough of them are on their way to learn the rule). Two workers have
        twice the requests in flight while a ``?sid=`` rule is learned, and fetched each
        (issue 35). Such a bet is never final while the rule is not learned: once it is,
        the bet stands if the rule skips its URL, else it is re-issued; a new page under
        the rule (``refute``), or its deadline, re-issues it. A parameter with no rule yet
        is such a rule with no evidence: its first requests are on their way. None when no
        such rule applies: a value or path that brought a new page, a switcher, a page
        past the first; or ``ready`` says the rule does not skip yet (asked before the
        counterpart, which may cost a store read)."""
        template = section_template(parts)
        section = template_path(template)
        present = {name for name, _ in parts.params}
        in_force: list[Rule] | None = None
        for name in sorted(present):
            probe = Rule("pattern", parts.host, names=(name,), template=template)
            rule = self._find(probe) or probe
            if (
                rule.identity in self._refuted
                or rule.uniques
                or rule.specific
                or rule.denied
                or rule.paths
                or self._learned(rule)  # learned: ``decide`` judged it
                or _past_first_page(rule, parts)
                or self.switches(parts, rule.names)
                or (ready is not None and not ready(rule))
            ):
                continue
            if in_force is None:
                in_force = self._in_force(parts.host)
            counterpart = self._without_learned(rule, parts, in_force, present, section)
            if counterpart in covered:
                return Decision(True, rule, counterpart=counterpart, gathering=True)
        return None

    def refute(self, identity: str) -> None:
        """A request fetched while the rule ``identity`` gathered evidence came back new:
        no more bets on it before it is learned, in this crawl."""
        if len(self._refuted) < MAX_RULES:
            self._refuted.add(identity)
        if self.news is not None and len(self._found.refuted) < MAX_FOUND:
            self._found.refuted.append(identity)

    def refuted(self, identity: str) -> bool:
        return identity in self._refuted

    def needs(self, rule: Rule) -> int:
        """Copies in a row ``rule`` still needs to be learned (at least one); a mirror's,
        of content pages, counted either way between its two hosts."""
        if rule.kind != "mirror":
            return max(1, self.min_evidence - rule.streak)
        reverse = self._reverse(rule)
        streak, content = rule.streak, rule.content_duplicates
        if reverse is not None:
            streak, content = streak + reverse.streak, content + reverse.content_duplicates
        return max(1, self.min_evidence - min(streak, content))

    def chosen_against(self, rule: Rule) -> bool:
        """Whether the mirror pair of ``rule`` is learned with the other host as the copy:
        a bet made on ``rule`` while it gathered evidence cannot stand."""
        if rule.kind != "mirror":
            return False
        reverse = self._reverse(rule)
        return reverse is not None and reverse.chosen and not rule.chosen

    def observe(
        self, parts: UrlParts, original: UrlParts | None, samples: tuple[str, ...] = ()
    ) -> list[Rule]:
        """A content verdict: ``parts`` duplicated ``original``, or was new (None).
        ``samples``: the rules whose sample this verdict settles (the page was fetched as
        one, or is the counterpart a sample judged before it waited for).

        Returns the rules this evidence weakened (a new page where they predicted a copy).
        """
        if original is None:
            return self._observe_new(parts, samples)
        content_page = is_content_page(parts)
        for rule in self._rules_for_pair(parts, original):
            self._record(rule, duplicate=True, content_page=content_page)
            # A page past the first copied here: the pager clamps on this path (beyond
            # MAX_PAGED_PATHS, such pages of paths not remembered are fetched).
            paged = rule.kind == "pattern" and _past_first_page(rule, parts)
            if paged and len(self._paged_here) < MAX_PAGED_PATHS:
                self._paged_here.add((rule.identity, path_key(parts)))
            if rule.kind == "trap":
                rule.exemplar = original.url
            elif rule.kind == "mirror":
                self._evidence_in(rule, parts)
                if content_page:
                    self._copied_in(rule, parts)
            self._save(rule)
        self._changed()
        return []

    def _observe_new(self, parts: UrlParts, samples: tuple[str, ...]) -> list[Rule]:
        rules = self.book.on_host(parts.host)
        # Most new pages are on hosts without rules: nothing to work out for them.
        weakened = self._contradicted_on_host(parts, rules) if rules else []
        # A new page on an original whose mirror's copy was judged: they differ.
        for rule in self.book.mirrors_of(parts.host):
            if self._judged_apart(parts.with_host(rule.host), parts):
                weakened.append(rule)
        for rule in weakened:
            self._record(rule, duplicate=False)
            self._save(rule)
        self.sampling.differed(weakened, samples)
        if weakened:
            self._changed()
        if self.news is not None and weakened:  # at once: the others stop betting on it
            self._announce(weakened, learned=False)
        return weakened

    def _contradicted_on_host(self, parts: UrlParts, rules: Iterable[Rule]) -> list[Rule]:
        """The rules of ``parts``' host that its new page contradicts: a trap on its path
        template, a skip whose counterpart was fetched."""
        template, in_force = path_template(parts), self._in_force(parts.host)
        # and the parameter rules it inherits, on a page the original has too: a mirror's
        # tag that grew pages of its own under the path of the original's one-page tag
        inherited = [rule for rule in in_force if rule.host != parts.host]
        weakened = []
        for rule in (*rules, *inherited):
            if rule.kind == "trap":
                relevant = rule.template == template
                rule.stopped = rule.stopped or relevant
            else:
                counterpart = self._counterpart(rule, parts, in_force)
                relevant = counterpart is not None and self._judged_apart(counterpart, parts)
                if relevant and rule.host != parts.host:  # a page the original has too
                    assert counterpart is not None
                    relevant = self.fetched(_on_host(counterpart, parts, rule.host))
                if relevant and rule.kind == "pattern":
                    rule.specific = True  # this value is no copy: nor is any value
                    rule.deny(parts)  # nor this value in the section, nor any on this path
            if relevant:
                weakened.append(rule)
        return weakened

    def _judged_apart(self, other: str, new: UrlParts) -> bool:
        """Whether ``other``'s page was judged and is not ``new``'s: ``new`` came back new
        beside it, so the two differ. On one worker a page's verdict follows the verdicts
        judged before it. Another worker may have judged ``other`` a copy of ``new`` in
        the moment between ``new``'s verdict and this worker hearing of it: the two are
        one page then, and no rule relying on it failed (a mirror rule so weakened re-issued
        192 requests of a crawl of two workers, issue 35)."""
        return self.fetched(other) and self.copy_of(other) != new.url

    def contradicted(self, identity: str) -> list[Rule]:
        """A request skipped on the rule ``identity`` waited for a counterpart that never
        came, was re-issued, and its page came back new: the rule bet on a copy of a page
        its other host lacks (a site taken for the copy of its own partial mirror, a section
        only this host has). Evidence against it, as a new page beside a fetched
        counterpart is: its run of copies ends and it skips nothing until a new run. A
        mirror also stops waiting for this crawl: once back in force (its other pages are
        copies), it skips only copies whose original is fetched or queued. Returns the rule
        (its bets are re-issued), or nothing when it is unknown. Announced to the other
        workers sharing the store, which stop waiting too."""
        rule = self.book.get(identity)
        if rule is None:
            return []
        rule.waits = False
        self._record(rule, duplicate=False)
        self.sampling.differed([rule], (rule.identity,))  # a skip of it, fetched after all
        self._save(rule)
        self._changed()
        if self.news is not None:
            self._announce([rule], learned=False)
        return [rule]

    def refresh(self) -> list[Rule]:
        """Every few seconds, on a store several workers share: announce the rules in force
        here and take in the others' (``url/news.py``). Returns the rules that stood here
        and no longer do, because another worker saw one fail."""
        if self.news is None or not self.news.due():
            return []
        changed = [rule for i in self.evidence.changed() if (rule := self.book.get(i))]
        # The rules whose evidence changed here, the most recent first, then now and then
        # every learned rule (in force at once on a worker that joined late); what one
        # entry cannot hold goes next time.
        learned = self.learned_rules() if self.news.learned_due() else []
        # Switchers found since, and with every learned rule all of them (the most recent
        # first): a worker that joined late must not skip what the others know switches.
        if learned:
            self._found.switchers = list(reversed(self._switchers))[:MAX_REANNOUNCED]
        self._announce([*reversed(changed), *learned], learned=True, findings=self._found)
        weakened = []
        for announcement in self.news.read():
            self._take_in(announcement.findings)
            for remote in announcement.rules:
                known = self._find(remote)
                stood = known is not None and self._learned(known)
                tally = announcement.tallies.get(remote.identity)
                local = self._merge(remote, announcement.author, tally)
                if stood and local is not None and not self._learned(local):
                    weakened.append(local)
        self._changed()
        return weakened

    def _take_in(self, findings: Findings) -> None:
        """Another worker's findings: switchers and refuted rules in force here at once,
        what is new here handed to the URL core (``heard``)."""
        for switcher in findings.switchers:
            if switcher not in self._switchers and len(self._switchers) < MAX_SWITCHERS:
                self._switchers[switcher] = None
                self._heard.switchers.append(switcher)
                self._changed()
        for identity in findings.refuted:
            if len(self._refuted) < MAX_RULES:
                self._refuted.add(identity)  # its waiting bets: re-issued at the next tick
        self._heard.unpredicted += findings.unpredicted  # the URL core takes them at once

    def _merge(self, remote: Rule, author: str, tally: Tally | None) -> Rule | None:
        """Another worker's rule, taken in (``merging.merge_into``). Not saved: its worker
        saved its own evidence."""
        probe = Rule(remote.kind, remote.host, remote.other, remote.names, remote.template)
        local = self._find_or_add(probe)
        if local is None:
            return None
        added = None
        if tally is not None:
            stored = self.book.was_stored(local.identity)
            added = self.evidence.take(author, local.identity, tally, stored=stored)
        merge_into(local, remote, added)
        if remote.chosen and not local.chosen:  # its direction, unless this one chose
            reverse = self._reverse(local)
            local.chosen = reverse is None or not reverse.chosen
        return local

    def _with_reverses(self, rules: Iterable[Rule]) -> list[Rule]:
        """The rules and, for mirrors, their reverses: a mirror is learned from both."""
        found = {rule.identity: rule for rule in rules}
        for rule in list(found.values()):
            reverse = self._reverse(rule)
            if rule.kind == "mirror" and reverse is not None:
                found.setdefault(reverse.identity, reverse)
        return list(found.values())

    def _rules_for_pair(self, copy: UrlParts, original: UrlParts) -> list[Rule]:
        if copy.host != original.host:
            if copy.with_host(original.host).partition("?")[0] != original.url.partition("?")[0]:
                # Another path on another host: a reprint, nothing to learn; unless the two
                # hosts are mirrors, one site, and the copies repeat one page: the
                # calendar's first month came from the other host, and its months here copy
                # each other as they copy that month (a mirror that numbers its pages
                # otherwise copies a page each, and teaches no trap).
                known = self._find(Rule("trap", copy.host, template=path_template(copy)))
                if not self._mirrored(copy, original) or (
                    known is not None and known.exemplar not in ("", original.url)
                ):
                    return []
                return self._trap(copy, original)
            if copy.path_and_query != original.path_and_query:
                # The same path on another host with other parameters: those parameters
                # change nothing on the copy's host (its URL without them is the page).
                return self._patterns(copy, original)
            found = self._find_or_add(Rule("mirror", copy.host, other=original.host))
            return [found] if found else []
        if copy.url.partition("?")[0] == original.url.partition("?")[0]:
            return self._patterns(copy, original)
        return self._trap(copy, original)

    def _trap(self, copy: UrlParts, original: UrlParts) -> list[Rule]:
        """The trap rule of ``copy``'s template, when ``original`` is another page of it."""
        template = path_template(copy)
        if template_path(template) != template_path(path_template(original)):
            return []
        found = self._find_or_add(Rule("trap", copy.host, template=template))
        return [found] if found else []

    def _mirrored(self, copy: UrlParts, original: UrlParts) -> bool:
        """Whether a mirror rule between the two hosts (either way) is learned."""
        return any(
            rule is not None and self._learned(rule)
            for rule in (
                self._find(Rule("mirror", copy.host, other=original.host)),
                self._find(Rule("mirror", original.host, other=copy.host)),
            )
        )

    def _patterns(self, copy: UrlParts, original: UrlParts) -> list[Rule]:
        """One rule per parameter the copy has and the original lacks (or has otherwise),
        in the copy's section, with the value the copy showed."""
        theirs = dict(original.params)
        differing = {n: v for n, v in copy.params if theirs.get(n) != v}
        section = section_template(copy)
        found = []
        for name in sorted(differing):
            rule = self._find_or_add(Rule("pattern", copy.host, names=(name,), template=section))
            if rule is not None:
                rule.saw_value(differing[name])
                found.append(rule)
        return found

    def _find(self, probe: Rule) -> Rule | None:
        return self.book.get(probe.identity)

    def _reverse(self, mirror: Rule) -> Rule | None:
        return self.mirrors.reverse(mirror)

    def _find_or_add(self, probe: Rule) -> Rule | None:
        found = self._find(probe)
        if found is None:
            found = self.book.admit(probe)
            if found is not None:
                self._changed()
        return found

    def _announce(
        self, rules: list[Rule], *, learned: bool, findings: Findings | None = None
    ) -> None:
        """Announce ``rules`` (and the reverses of mirrors) with this worker's tallies, and
        what ``findings`` one announcement holds."""
        assert self.news is not None
        own = self.evidence.own
        left = self.news.announce(
            self._with_reverses(rules), learned=learned, tally=own, findings=findings
        )
        self.evidence.changed_again([rule.identity for rule in left])

    def _record(self, rule: Rule, *, duplicate: bool, content_page: bool = False) -> None:
        """A verdict this worker saw: in the rule's counts, and in its own tally for the
        other workers (``refresh``)."""
        rule.record(duplicate, content_page=content_page)
        if duplicate and self.risk > 0.0 and not rule.proven:  # only a risk asks it
            rule.proven = self._learned(rule)
        if self.news is not None:
            self.evidence.record(rule.identity, duplicate=duplicate, content_page=content_page)

    def _changed(self) -> None:
        """Evidence changed a rule: which rules are in force is worked out afresh."""
        self._in_force_of.clear()

    def _save(self, rule: Rule) -> None:
        self.book.save_soon(rule)

    def save(self) -> None:
        """Write every rule changed since the last write (a crawl calls it when it ends)."""
        self.book.save()


def _pair(mirror: Rule, reverse: Rule) -> Rule:
    """A mirror and its reverse as one rule: the copies either way between two hosts."""
    return Rule(
        "mirror", mirror.host, other=mirror.other,
        duplicates=mirror.duplicates + reverse.duplicates,
        uniques=mirror.uniques + reverse.uniques,
        streak=mirror.streak + reverse.streak,
        content_duplicates=mirror.content_duplicates + reverse.content_duplicates,
        proven=mirror.proven or reverse.proven,
    )  # fmt: skip


def is_content_page(parts: UrlParts) -> bool:
    """A page below the top level or with a generated id (``/docs/intro.html``,
    ``/item/42``), unlike the boilerplate every site of a platform shares (``/terms``,
    ``/privacy``, ``/about``): only copies of such pages show that a host is a mirror."""
    return len(parts.segments) >= 2 or any(is_variable(s) for s in parts.segments)


def _covers(rule: Rule, parts: UrlParts, section: str) -> bool:
    """A pattern rule applies in its section (without the host: a mirror inherits its
    original's rules) and to the values it covers; one without a section (an earlier
    version's, learned host-wide) applies nowhere."""
    return (
        bool(rule.template)
        and template_path(rule.template) == section
        and rule.covers_values(parts)
    )


def _past_first_page(rule: Rule, parts: UrlParts) -> bool:
    """Whether ``parts`` gives one of ``rule``'s parameters a page number or offset past
    the first page (``2``, ``40``; not ``0``, ``1``, nor a long number: an id, a
    timestamp)."""
    return any(
        name in rule.names
        and 0 < len(value) <= MAX_PAGE_DIGITS
        and value.isascii()
        and value.isdigit()
        and int(value) > 1
        for name, value in parts.params
    )


def _on_host(url: str, parts: UrlParts, host: str) -> str:
    """``url``, a URL on ``parts.host``, on ``host`` instead."""
    return f"{parts.scheme}://{host}{url[len(parts.scheme) + 3 + len(parts.host) :]}"


def _pair_of(mirror: Rule) -> tuple[str, str]:
    """A mirror rule's two hosts, in one order whichever way the rule goes."""
    first, second = sorted((mirror.host, mirror.other))
    return first, second


def _chained(trap: Rule, parts: UrlParts, source: UrlParts | None) -> bool:
    """Whether ``parts`` was linked from a page of ``trap``'s own template (its next day,
    its next page): what an endless template does, ahead of the crawl."""
    return (
        source is not None
        and source.host == parts.host
        and template_path(path_template(source)) == template_path(trap.template)
    )
