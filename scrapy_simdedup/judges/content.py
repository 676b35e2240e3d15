"""The content judge: is this text a copy of a stored page, and of which?

Plain Python over an opened ``SimHashIndex``: the pipeline, ``scrapy simdedup query`` and
scripts call the same judge, so they cannot disagree. It owns the order of the checks
(one item per key in a run, exact text, SimHash, the owners of shared sentences, then
confirmation: similarity and one-way containment, the site's template left out) and the
order of the writes that keeps the store consistent after a crash: a page's fingerprint
and its sentences first (one batch on a store this process owns), then its template counts
and last its exact entry (one batch there too), so that no exact entry ever points to a
page that is not stored.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted, fingerprinted
from scrapy_simdedup.fingerprint.payload import outside_of
from scrapy_simdedup.fingerprint.simhash import hamming_distance
from scrapy_simdedup.fingerprint.textprint import exact_hash
from scrapy_simdedup.index.permuted import QueryOrAdd
from scrapy_simdedup.judges.candidates import best_candidates
from scrapy_simdedup.judges.confirmation import Confirmation, confirm
from scrapy_simdedup.judges.templates import SHOWN_COUNTED, PageTemplates, host_of, shown_host
from scrapy_simdedup.judges.verdict import Verdict

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy_simdedup.index.handle import SimHashIndex
    from scrapy_simdedup.index.permuted import Match

MAX_RECHECKS = 8
"""Look-ups that find new candidates, each confirmed, before a page is added regardless."""
MAX_RELEASABLE = 1_000_000
"""Keys remembered for ``release`` (and for one item per key in one run)."""
TEXT_KEY = "text:"  # the key of a page without one: its text's exact hash


class ContentJudge:
    """Decides, and (with ``record=True``) stores what it kept, in a crash-safe order."""

    def __init__(self, index: SimHashIndex, *, confirm_similarity: float = 0.8) -> None:
        self.index = index
        self.confirm_similarity = confirm_similarity
        # Keys stored in this run (bounded by MAX_RELEASABLE) -> their text's exact hash.
        self._stored: dict[str, int] = {}

    def key_for(self, key: str | None, exact: int) -> str:
        """``key``, or a key made of the text's exact hash for pages without one."""
        return key if key else f"{TEXT_KEY}{exact:016x}"

    def exact_hash(self, text: str) -> int:
        return exact_hash(text, self.index.seed)

    def fingerprinted(
        self, text: str, exact: int | None = None, outside: str = ""
    ) -> Fingerprinted:
        """``outside``: the lines of the page its text left out (``main_content``)."""
        return fingerprinted(
            text, self.index.tokenizer, self.index.seed, exact=exact, outside=outside
        )

    def judge(
        self,
        text_or_fingerprinted: str | Fingerprinted,
        key: str | None,
        *,
        record: bool = True,
        outside: str = "",
    ) -> Verdict:
        """The verdict on a page; with ``record`` a new page is stored. ``outside``: the
        lines of the page a text left out (``main_content``)."""
        given = text_or_fingerprinted
        done = None if isinstance(given, str) else given
        exact = self.exact_hash(given) if isinstance(given, str) else given.fingerprint.exact
        page_key = self.key_for(key, exact)
        early = self.shortcut(exact, page_key)
        if early is not None:
            return early
        if isinstance(given, str):
            done = self.fingerprinted(given, exact, outside)
        assert done is not None
        return self.decide(done, page_key, record=record)

    def explain(self, text: str, key: str | None = None) -> Verdict:
        """What ``judge`` would decide now, without storing anything."""
        return self.judge(text, key, record=False)

    def shortcut(self, exact: int, key: str) -> Verdict | None:
        """The verdict found before any fingerprinting: a second item with ``key`` in this
        run, or a stored page with exactly this text (whitespace aside; one read). None
        when neither, or when ``key`` has a stored page of its own (a re-visit of a changed
        page is decided by its fingerprint)."""
        if key in self._stored:  # one run, one page per key: a re-visit is a later run's
            return Verdict(key, key, found_by="same_key")
        owner = self.index.exact_owner(exact)
        if owner is None or (owner != key and self.index.document(key) is not None):
            return None
        return Verdict(key, owner, found_by="exact", revisit=owner == key)

    def decide(
        self,
        done: Fingerprinted,
        key: str,
        *,
        record: bool = True,
        stricter: Callable[[], Fingerprinted | None] | None = None,
    ) -> Verdict:
        """The verdict from the page's fingerprints; with ``record`` a new page is stored.
        ``stricter``: the fingerprints of a stricter extraction of the page (its markup
        read again: ``fingerprint/stricter.py``), made only when the page adds content to
        a candidate of another host; a copy of one such candidate by that text is a copy."""
        if key in self._stored:  # stored meanwhile, while this item was fingerprinted
            return Verdict(key, key, found_by="same_key")
        fingerprint = done.fingerprint
        if fingerprint.simhash is None:
            return self._decide_exactly(fingerprint.exact, key, record)
        payload = done.payload
        templates = PageTemplates(self.index.blocks, done.blocks, key)
        found = self._candidates(done, key, payload, templates, record)
        if found.revisit:
            return Verdict(key, key, found_by="simhash", revisit=True)
        confirmations = self._confirm_best(done, found.matches, templates)
        copied = next(((m, c) for m, c in confirmations if c.copy), None)
        if copied is None and stricter is not None:
            copied = self._stricter_copy(stricter, key, confirmations, templates.host)
        if record and copied is None and confirmations and not found.added:
            again, more = self._add_unless_new(done, key, payload, templates, found.matches)
            confirmations += more
            copied = next(((m, c) for m, c in more if c.copy), None)
            found = replace(found, added=again.added, claimed=again.claimed)
        if record:
            self._record(done, key, payload, templates, found, copied=copied[1] if copied else None)
        if copied is not None:
            match, confirmation = copied
            return Verdict(key, match.key, match.distance, found.by, confirmation)
        if not confirmations:
            return Verdict(key)
        nearest, closest = max(confirmations, key=_similarity)
        return Verdict(
            key,
            distance=nearest.distance,
            found_by=found.by,
            confirmation=closest,
            unconfirmed=True,
            adds_content=any(c.adds_content for _, c in confirmations),
            candidate=nearest.key,
        )

    def _candidates(
        self,
        done: Fingerprinted,
        key: str,
        payload: bytes,
        templates: PageTemplates,
        record: bool,
    ) -> _Candidates:
        """The stored pages to confirm against: SimHash neighbours (with ``record`` the page
        is added at once when it has none), else the owners of its longest sentences."""
        simhash = done.fingerprint.simhash
        assert simhash is not None
        if not record:
            matches = self.index.query(simhash)
            if any(match.key == key for match in matches):
                return _Candidates("simhash", [], added=False, revisit=True)
            if matches:
                return _Candidates("simhash", matches, added=False)
            owners = self.sentence_candidates(done, key, templates.skipped_sentences)
            return _Candidates("sentences", owners, added=False)
        # One atomic step: of two racing copies (on two workers of one shared store), the
        # later sees the earlier, near by SimHash or owning one of its sentences.
        own = done.sentences - templates.skipped_sentences
        result = self.index.query_or_add(simhash, key, payload, own)
        if any(match.key == key for match in result.matches):
            return _Candidates("simhash", [], result.added, result.claimed, revisit=True)
        if result.matches:
            return _Candidates("simhash", result.matches, result.added, result.claimed)
        # SimHash saw nothing within k bits; a reprint still shares its longest sentences
        # (nshash), so their owners get the same confirmation.
        owners = [_distance_to(owner, simhash) for owner in result.owners]
        return _Candidates("sentences", owners, result.added, result.claimed)

    def _add_unless_new(
        self,
        done: Fingerprinted,
        key: str,
        payload: bytes,
        templates: PageTemplates,
        judged: list[Match],
    ) -> tuple[QueryOrAdd, list[tuple[Match, Confirmation]]]:
        """A page its candidates did not confirm as a copy is added in one atomic step that
        passes those candidates by, so a page stored meanwhile (by another worker: a racing
        copy of the same original) is found and confirmed against, not kept beside it.
        Returns the last look-up (whether it added the page), and the confirmations against
        pages found meanwhile (one of them a copy, or ``MAX_RECHECKS`` rounds found new
        pages each time)."""
        simhash = done.fingerprint.simhash
        assert simhash is not None
        own = done.sentences - templates.skipped_sentences
        passed_by = {match.key for match in judged}
        more: list[tuple[Match, Confirmation]] = []
        again = QueryOrAdd([], added=False)
        for _ in range(MAX_RECHECKS):
            again = self.index.query_or_add(simhash, key, payload, own, judged=passed_by)
            if again.added:
                return again, more
            fresh = again.matches or [_distance_to(o, simhash) for o in again.owners]
            fresh = [m for m in fresh if m.key != key and m.key not in passed_by]
            if not fresh:
                break
            confirmed = self._confirm_best(done, fresh, templates)
            more += confirmed
            if confirmed and confirmed[-1][1].copy:
                return again, more
            passed_by.update(match.key for match in fresh)
        return again, more

    def _stricter_copy(
        self,
        stricter: Callable[[], Fingerprinted | None],
        key: str,
        confirmations: list[tuple[Match, Confirmation]],
        host: str,
    ) -> tuple[Match, Confirmation] | None:
        """The candidate of another host the page's stricter text is a copy of, among those
        its text added content to; None when none (or no stricter text)."""
        added_to = [m for m, c in confirmations if c.adds_content and host_of(m.key) != host]
        if not added_to or not host:
            return None
        strict = stricter()
        if strict is None or strict.fingerprint.simhash is None:
            return None
        templates = PageTemplates(self.index.blocks, strict.blocks, key)
        for match, confirmation in self._confirm_best(strict, added_to, templates):
            if confirmation.copy:
                return match, replace(confirmation, stricter=True)
        return None

    def _confirm_best(
        self, done: Fingerprinted, matches: list[Match], templates: PageTemplates
    ) -> list[tuple[Match, Confirmation]]:
        """The confirmations of the best ``MAX_CONFIRMED`` candidates, in order, up to the
        first that confirms a copy."""
        confirmations: list[tuple[Match, Confirmation]] = []
        for match in best_candidates(done, matches, templates):
            confirmation = self.confirmation(done, match, templates)
            confirmations.append((match, confirmation))
            if confirmation.copy:
                break
        return confirmations

    def confirmation(
        self, done: Fingerprinted, match: Match, templates: PageTemplates
    ) -> Confirmation:
        """The confirmation against one candidate, its host's template and what its host's
        stored pages showed left out: the one the verdict takes (``scrapy simdedup query``
        explains each candidate by it)."""
        template = templates.of(match.key)
        same_host = host_of(match.key) == templates.host
        return confirm(
            done,
            match.payload,
            self.confirm_similarity,
            template,
            same_host=same_host,
            host_shown=templates.shown_for(match.key),
        )

    def _decide_exactly(self, exact: int, key: str, record: bool) -> Verdict:
        """Too short for a SimHash: the exact text hash is the only look-up."""
        if record:
            first = self.index.exact_or_add(exact, key)
            if first is None:
                self._remember(key, exact)
        else:
            first = self.index.exact_owner(exact)
        return Verdict(key, first, found_by="exact", revisit=first == key, exact_fallback=True)

    def templates(self, done: Fingerprinted, key: str | None) -> PageTemplates:
        """The page's blocks that its site's template holds (learned from stored pages)."""
        return PageTemplates(self.index.blocks, done.blocks, key)

    def sentence_candidates(
        self, done: Fingerprinted, key: str | None, skipped: frozenset[int] = frozenset()
    ) -> list[Match]:
        """The stored pages that share one of the page's longest sentences (nshash), but
        for ``skipped`` (its host's template and its chrome, which find no candidates)."""
        shared = self.index.sentence_owners(done.sentences - skipped)
        owners = [owner for owner in shared if owner != key]
        stored = [doc for owner in owners if (doc := self.index.document(owner)) is not None]
        assert done.fingerprint.simhash is not None
        return [_distance_to(doc, done.fingerprint.simhash) for doc in stored]

    def _record(
        self,
        done: Fingerprinted,
        key: str,
        payload: bytes,
        templates: PageTemplates,
        found: _Candidates,
        *,
        copied: Confirmation | None,
    ) -> None:
        """Store a new page in crash-safe order: the page, its sentences, its blocks' counts
        (a template is what distinct pages share: of a copy, only the blocks it adds to its
        original are counted), then its exact entry. A copy found after ``query_or_add``
        stored it is taken out again."""
        fingerprint = done.fingerprint
        assert fingerprint.simhash is not None
        blocks = self.index.blocks
        if copied is not None:
            if found.added:
                self.index.discard(key)
            # What a copy adds to its original is its host's chrome (a banner, an editor
            # line): counted, so that it is the host's template from its third page on.
            if copied.added:
                blocks.count_page(templates.host, copied.added, templates.counts)
            return
        if not found.added:
            self.index.add(fingerprint.simhash, key, payload)
        if not found.claimed:  # else the look-up that stored it took them at once
            self.index.record_sentences(done.sentences - templates.skipped_sentences, key)
        self._remember(key, fingerprint.exact)
        shown = outside_of(payload)[:SHOWN_COUNTED]
        if shown and templates.host:
            blocks.count_page(shown_host(templates.host), shown)
        with blocks.counting(templates.host, done.blocks.templates, templates.counts) as counts:
            # Last, with the counts (one batch): never an exact entry without its page.
            self.index.exact_or_add(fingerprint.exact, key, along=counts)

    def _remember(self, key: str, exact: int) -> None:
        if len(self._stored) < MAX_RELEASABLE:
            self._stored[key] = exact

    def keep_moved(self, done: Fingerprinted, key: str) -> None:
        """Store a page the site moved to ``key`` since an earlier crawl stored it under
        another URL: its fingerprint under ``key`` too, so a later crawl finds it there (a
        re-visit). Raises ``StoreError``."""
        simhash = done.fingerprint.simhash
        if simhash is not None and key not in self._stored:
            self.index.add(simhash, key, done.payload)
            if len(self._stored) < MAX_RELEASABLE:
                self._stored[key] = done.fingerprint.exact

    def release(self, key: str) -> bool:
        """Forget a page stored in this run (a later pipeline dropped it), so it never blocks
        a copy of a page that was not really scraped. False when this run did not store it."""
        exact = self._stored.pop(key, None)
        if exact is None:
            return False
        # The exact entry goes first: after a crash in between, a stored fingerprint
        # without it is harmless, an exact entry without its page would drop copies.
        released = self.index.discard_exact(exact, key)
        return self.index.discard(key) or released


@dataclass(frozen=True)
class _Candidates:
    by: str
    matches: list[Match]
    added: bool  # the page was stored by the look-up (query_or_add)
    claimed: bool = False  # and its sentences claimed with it
    revisit: bool = False


def _distance_to(stored: Match, fingerprint: int) -> Match:
    return replace(stored, distance=hamming_distance(stored.fingerprint, fingerprint))


def _similarity(compared: tuple[Match, Confirmation]) -> float:
    return compared[1].similarity
