"""``UrlJudge``: may this request be skipped, and on which bet?

One object for strict and adaptive mode alike, without Scrapy: the middleware asks it
while a crawl runs, ``scrapy simdedup query --url`` asks it about a stored index, so the
two cannot disagree. It keeps what the crawl covers: URLs fetched (2xx) in this crawl and
URLs queued now. A URL fetched by an earlier crawl is not covered: its page is not in this
crawl's feed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.errors import UrlNotCheckedError
from scrapy_simdedup.index.marks import FetchedMarks
from scrapy_simdedup.url.features import url_simhash
from scrapy_simdedup.url.judgeviews import Awaited, Covered, host_of
from scrapy_simdedup.url.learner import SAMPLE_EVERY
from scrapy_simdedup.url.parts import UrlParts, canonical_or_none, url_parts
from scrapy_simdedup.url.peers import SOLO, Peers
from scrapy_simdedup.url.rules import FETCH, Decision, Rule

if TYPE_CHECKING:
    from collections.abc import Callable, Container

    from scrapy_simdedup.index.permuted import PermutedIndex
    from scrapy_simdedup.url.learner import UrlLearner

MAX_REMEMBERED = 5_000_000
"""Queued and fetched URLs remembered per crawl; beyond this, fewer skips, never more."""


class UrlJudge:
    """Decides requests (``decide``) from the URL index and the learned rules.

    ``mode`` is ``adaptive`` (rules learned from content verdicts, see
    ``scrapy_simdedup.url.learner``) or ``strict`` (a URL within the index's distance of a
    URL fetched on the same host is a copy). Every skip names its rule and counterpart.
    """

    def __init__(
        self,
        urls: PermutedIndex,
        learner: UrlLearner,
        *,
        mode: str,
        seed: int,
        sample_every: int = SAMPLE_EVERY,
        covers_fetched_before: bool = False,
    ) -> None:
        self.urls = urls
        self.marks = FetchedMarks(urls)  # adaptive mode's fetches: no URL fingerprint needed
        self.learner = learner
        self.mode = mode
        self.seed = seed
        self.sample_every = sample_every
        self.queued: set[str] = set()
        self.fetched_now: set[str] = set()
        self.judged_now: set[str] = set()  # fetched, and its content verdict arrived
        self.kept_now: set[str] = set()  # judged new or a re-visit: its page is in the feed
        self.copies_now: dict[str, str] = {}  # judged a copy: the page it copies
        self.barren: set[str] = set()  # fetched copies of pages this crawl did not keep
        # fetched pages not what their path promised (a soft 404): see unpredicted
        self.unpredicted_now: set[str] = set()
        # the last verdict's pages found not what their path promised (``observe``)
        self.found_unpredicted: tuple[str, ...] = ()
        # hash of (page copied, host): the first page of that host at another path that
        # copied it (a reprint's, mostly: the URL string is the one copies_now holds)
        self._first_copier: dict[int, str] = {}
        self.lost_now: set[str] = set()  # failed, dropped or released: never to bring a page
        self.hosts_now: set[str] = set()  # hosts with a page fetched (2xx) in this crawl
        self.held: Container[str] = ()  # URLs skipped on a bet still open (they will come)
        self.peers: Peers = SOLO  # a shared store: the other workers of the crawl (issue 35)
        self._strict_candidates = 0
        self._covered = Covered(self, covers_fetched_before)
        self._awaited = Awaited(self)

    def decide(
        self, url: str | UrlParts, *, tally: bool = True, source: UrlParts | None = None
    ) -> Decision:
        """Skip (on a rule and a counterpart), sample, or fetch. ``tally=False`` asks
        without counting the request towards the next sample; ``source``: the page that
        linked it. Raises ``UrlNotCheckedError`` for a URL that cannot be judged."""
        parts = url_parts(url) if isinstance(url, str) else url
        if self.mode == "strict":
            return self._strict(parts, tally=tally)
        return self.learner.decide(
            parts, self._covered, tally=tally, awaited=self._awaited, source=source
        )

    def gathering(
        self, parts: UrlParts, ready: Callable[[Rule], bool] | None = None
    ) -> Decision | None:
        """A skip on a rule still gathering evidence (``UrlLearner.gathering``);
        None in strict mode."""
        if self.mode == "strict":
            return None
        return self.learner.gathering(parts, self._covered, ready)

    def _strict(self, parts: UrlParts, *, tally: bool) -> Decision:
        for match in self.urls.near(url_simhash(parts, self.seed)):
            if match.key != parts.url and host_of(match.key) == parts.host:
                rule = Rule("strict", parts.host, other=match.key)
                if tally:
                    self._strict_candidates += 1
                    if self._strict_candidates % self.sample_every == 0:
                        return Decision(skip=False, rule=rule, sample=True, counterpart=match.key)
                return Decision(skip=True, rule=rule, counterpart=match.key)
        return FETCH

    def copying_mirrors(self, host: str, betting: Callable[[str], bool]) -> list[Rule]:
        """The mirror rules that take ``host`` for the original and skipped pages on this
        crawl's bets (``betting(rule)``: the rule holds some), learned or still learning
        (``UrlLearner.gathering``). A link that failed on ``host`` was on those skipped
        copies too: plain Scrapy would have followed it there."""
        if self.mode != "adaptive":
            return []
        return [rule for rule in self.learner.mirrors_of(host) if betting(rule.identity)]

    def wanted_copy(self, failed: UrlParts, mirror: Rule, *, came: bool = False) -> str | None:
        """``failed`` on the mirror of ``mirror``, unless this crawl has fetched, queued,
        parked or lost it already (or ``failed`` came back since, unless it ``came`` as
        a soft 404 to begin with)."""
        if failed.url in self.fetched_now and not came:
            return None
        copy = failed.with_host(mirror.host)
        if copy in self._covered or copy in self.fetched_now or copy in self.lost_now:
            return None
        return copy

    def was_fetched(self, url: str) -> bool:
        """Whether ``url`` was fetched, in this crawl or an earlier one on the index."""
        return url in self.marks or self.urls.document(url) is not None

    def covers(self, url: str) -> bool:
        """Whether this crawl fetched, has queued, or holds a bet on ``url`` (a counterpart
        at hand)."""
        return url in self._covered

    def skipped_in_crawl(self, url: str) -> str | None:
        """The counterpart of a bet some worker of this crawl skipped ``url`` on (not one
        held here), when no worker queued or fetched ``url`` (``CrawlRecord.bet_alone``):
        no dupefilter saw its request. None otherwise."""
        if url in self.held or url in self.queued or url in self.fetched_now:
            return None
        return self.peers.bet_alone(url)

    def may_bring(self, counterpart: str) -> bool:
        """Whether nothing this worker knows says ``counterpart`` will not bring the page a
        bet on it expects: it did not fail, was not released, is no soft 404 and no copy of
        a page this crawl did not keep (another worker may not know it yet)."""
        return (
            counterpart not in self.lost_now
            and counterpart not in self.unpredicted_now
            and counterpart not in self.barren
        )

    def enqueue(self, url: str) -> None:
        """``url`` is queued: requests whose counterpart it is may be skipped."""
        if len(self.queued) < MAX_REMEMBERED:
            self.queued.add(url)
        self.peers.queued(url)
        self.learner.sizes.add(url)

    def requested(self, url: str) -> None:
        """``url`` (canonical) goes to the downloader: its host is that much more crawled
        (of two copies, the one crawled less is skipped)."""
        self.learner.sizes.requested(url)

    def met(self, url: str) -> None:
        """A link to ``url`` (canonical) already at hand, perhaps queued by another worker
        of the crawl: its path counts towards its host's size here all the same. A crawl
        of one process counted it when it queued it."""
        if self.peers.shared:
            self.learner.sizes.add(url)

    def dequeue(self, url: str) -> None:
        """``url`` left the queue, skipped: a bet holds it now (``lost`` for a failure)."""
        self.queued.discard(url)

    def lost(self, url: str) -> None:
        """``url`` will not bring its page in this crawl (it failed, the dupefilter dropped
        it, or its page was not kept): no copy's skip waits for it any more."""
        self.queued.discard(url)
        if len(self.lost_now) < MAX_REMEMBERED:
            self.lost_now.add(url)

    def revisitable(self, url: str) -> bool:
        """Whether a page an earlier crawl kept at ``url`` may be requested again by this
        crawl: its host is crawled, and this crawl has not fetched, queued or lost it."""
        try:
            canonical = url_parts(url).url
        except UrlNotCheckedError:
            return False
        return (
            canonical in self._awaited
            and canonical not in self.fetched_now
            and canonical not in self.queued
        )

    def fetched(self, parts: UrlParts) -> None:
        """``parts`` answered 2xx: recorded in the URL index (adaptive mode: as a mark,
        without a fingerprint) and covered for this crawl."""
        self.queued.discard(parts.url)
        self.lost_now.discard(parts.url)
        if len(self.hosts_now) < MAX_REMEMBERED:
            self.hosts_now.add(parts.host)
        if len(self.fetched_now) < MAX_REMEMBERED:
            self.fetched_now.add(parts.url)
        self.learner.sizes.add(parts.url)
        self.peers.fetched(parts.url)
        if self.urls.document(parts.url) is not None:
            return
        if self.mode == "adaptive":
            self.marks.add(parts.url)
        else:
            self.urls.add(url_simhash(parts, self.seed), parts.url)
            self.marks.discard(parts.url)  # an adaptive crawl's mark: now a document

    def released(self, url: str) -> None:
        """``url``'s item was dropped later: its page no longer covers its copies (on any
        worker of the crawl). Raises ``StoreError``."""
        self.fetched_now.discard(url)
        self.kept_now.discard(url)
        self.copies_now.pop(url, None)
        self.urls.discard(url)
        self.marks.discard(url)
        self.lost(url)
        self.peers.released(url)

    def observe(self, key: str, original: str | None, samples: tuple[str, ...] = ()) -> list[Rule]:
        """A content verdict; returns the rules it weakened (and sets ``found_unpredicted``).
        ``samples``: the rules whose sample it settles (``UrlLearner.observe``). Raises
        ``UrlNotCheckedError``."""
        self.found_unpredicted = ()
        parts = url_parts(key)
        if len(self.judged_now) < MAX_REMEMBERED:
            self.judged_now.add(parts.url)
        if original is None or original == key:
            if len(self.kept_now) < MAX_REMEMBERED:
                self.kept_now.add(parts.url)
            return [] if original == key else self.learner.observe(parts, None, samples)
        copied = url_parts(original)
        if len(self.copies_now) < MAX_REMEMBERED:
            self.copies_now[parts.url] = copied.url
        if not self.kept(original) and len(self.barren) < MAX_REMEMBERED:
            self.barren.add(parts.url)
        elif copied.segments != parts.segments:
            # Two paths with one page: a soft 404 ("this story is no longer available" with
            # a 200), an error page, a redirect home. Neither brought the page a rule
            # predicted at its path: no bet settles on them, on any worker.
            found = self._elsewhere(parts, copied)
            if found:
                self.found_unpredicted = found
                self.unpredicted(*found)
        return self.learner.observe(parts, copied, samples)

    def _elsewhere(self, parts: UrlParts, copied: UrlParts) -> tuple[str, ...]:
        """The pages a copy at ``parts`` of ``copied`` (at another path) shows are not what
        their path promised: both, when ``copied`` is of the same host or of a host a
        mirror rule pairs with it (a diverged mirror's notice for a story it took down may
        be kept before the original's for another story); and when it is the second page
        of its host to copy ``copied`` (two paths of one host with one page: a third
        host's challenge page, a mirror's mirror), the first too. A reprint of an
        unrelated host's page, once, is what its path holds."""
        if self._one_site(parts.host, copied.host):
            return (parts.url, copied.url)
        key = hash((copied.url, parts.host))
        first = self._first_copier.get(key)
        if first is None:
            if len(self._first_copier) < MAX_REMEMBERED:
                self._first_copier[key] = parts.url
            return ()
        return (first, parts.url, copied.url) if first != parts.url else ()

    def _one_site(self, host: str, other: str) -> bool:
        """Whether the paths of the two hosts are meant to hold the same pages: one host,
        or two a mirror rule pairs."""
        return host == other or self.learner.paired(host, other)

    def predicted(self, url: str) -> bool:
        """Whether a bet may rely on ``url`` bringing the page its path promised: not a
        soft 404, nor a copy of another path of a host paired with its own since its
        verdict (the pair may be learned from later pages)."""
        if url in self.unpredicted_now:
            return False
        copied = self.copies_now.get(url)
        if copied is None:
            return True
        try:
            parts, copied_parts = url_parts(url), url_parts(copied)
        except UrlNotCheckedError:
            return False
        return parts.segments == copied_parts.segments or not self._one_site(
            parts.host, copied_parts.host
        )

    def unpredicted(self, *urls: str) -> None:
        """Pages fetched at ``urls`` that are not what their path promised: no mirror or
        parameter bet settles on them (a trap's do: its pages copy each other), on any
        worker of the crawl (told to the others at the next refresh)."""
        for url in urls:
            if url in self.fetched_now and len(self.unpredicted_now) < MAX_REMEMBERED:
                self.unpredicted_now.add(url)
        if self.mode == "adaptive":  # only adaptive crawls refresh
            self.learner.unpredicted(urls)

    def heard_unpredicted(self, url: str) -> None:
        """Another worker of the crawl found ``url``'s page not what its path promised."""
        if len(self.unpredicted_now) < MAX_REMEMBERED:
            self.unpredicted_now.add(url)

    def copied(self, url: str) -> str | None:
        """The page ``url``'s page was judged a copy of in this crawl (canonical), if so."""
        canonical = canonical_or_none(url)
        return self.copies_now.get(canonical) if canonical is not None else None

    def brought(self, url: str, *, judged_only: bool = False) -> bool:
        """Whether ``url`` was fetched in this crawl and its page (or the page it copies)
        is in this crawl's feed, as far as is known. ``judged_only``: a page fetched with
        no content verdict (yet, or ever: a response that yielded no item, an item with no
        text) brought nothing."""
        if url in self.fetched_now:
            if url in self.barren:
                return False
            return not judged_only or url in self.judged_now or self._judged_elsewhere(url)
        return self.peers.brought(url, judged_only=judged_only)

    def _judged_elsewhere(self, url: str) -> bool:
        """Whether another worker of the crawl has the verdict on ``url``'s page."""
        return self.peers.was_judged(url)

    def settles(self, url: str) -> bool:
        """Whether a bet relying on ``url`` may stand: ``url`` brought its page, or a
        parameter rule in force on its host would skip it on a page that was brought (and
        is what its path promised: no soft 404). A mirror crawled ahead bets its ``?sid=``
        pages on the original's ``?sid=`` pages, and the original's ``sid`` rule, learned
        later, skips those on its bare pages: the two rules chained say what a request for
        ``url`` would bring. Not final by it: each deadline and the crawl's idle ask again,
        with the rules then in force.

        In adaptive mode a fetched page settles only once its content verdict came: a bot
        wall or an app shell answers 200 with no text, the spider yields no item from it,
        and the page its path promised never reaches the feed (so the bets on it are
        re-issued at idle). Strict mode does not wait for verdicts: it learns none."""
        verdict_needed = self.mode == "adaptive"
        if self.brought(url, judged_only=verdict_needed):
            return True
        if "?" not in url or self.mode != "adaptive":
            return False
        try:
            parts = url_parts(url)
        except UrlNotCheckedError:
            return False
        decision = self.learner.decide(parts, self._covered, tally=False)
        rule, counterpart = decision.rule, decision.counterpart
        return (
            decision.skip
            and rule is not None
            and rule.kind == "pattern"
            and counterpart is not None
            and self.predicted(counterpart)
            and url not in self.unpredicted_now
            and self.brought(counterpart, judged_only=verdict_needed)
        )

    def judged(self, url: str) -> bool:
        """Whether ``url`` (canonical) was fetched and its content verdict is known, here
        or on another worker of the crawl, or it will bring none (it failed)."""
        if url in self.judged_now or url in self.lost_now:
            return True
        return self.peers.was_judged(url)

    def kept(self, url: str) -> bool:
        """Whether ``url``'s page is in this crawl's feed (judged new, or a re-visit)."""
        try:
            canonical = url_parts(url).url
        except UrlNotCheckedError:
            return False
        if canonical in self.kept_now:
            return True
        return self.peers.was_kept(canonical)

    def refresh(self) -> list[Rule]:
        """Exchange rules with the other workers on a shared store, every few seconds;
        returns the rules their evidence weakened here (re-issue their bets)."""
        return self.learner.refresh() if self.mode == "adaptive" else []

    def stands(self, rule: Rule) -> bool:
        """Whether a bet's rule still holds (strict rules always do)."""
        return rule.kind == "strict" or self.learner.stands(rule.identity)

    def learned_rules(self) -> list[Rule]:
        return self.learner.learned_rules()

    def save_rules(self) -> None:
        """Write the rules changed since the learner last wrote them (at a crawl's end)."""
        self.learner.save()

    def __len__(self) -> int:
        """URLs in the index (fetched by this crawl or earlier ones)."""
        return len(self.urls) + len(self.marks)


def fetched_before(judge: UrlJudge) -> int:
    """URLs fetched by earlier crawls: the index's, or on a crawl several workers share,
    what it held when the crawl started (not the other workers' fetches of this crawl)."""
    return judge.peers.fetched_before(len(judge))
