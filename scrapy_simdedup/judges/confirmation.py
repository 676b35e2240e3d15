"""Confirmation: is (almost) all of a page's content already in a stored candidate?

A SimHash or sentence match only proposes a candidate. The blocks (see
``fingerprint/blocks.py``) then say, as a reader would, what each page holds: its own
content, and apart from it its host's template (blocks on the host's other pages, volatile
tokens masked) and page chrome (source / time / views lines, notices, editor lines, share
and previous/next links). Content is compared both ways:

* ``novel_words``: the words of the page's content the candidate has neither as they are
  nor edited (characters or a word or two changed, two sentences joined);
* ``lacking_words``: the words of the candidate's content the page lacks, the same way;
* ``covers``: the share of the candidate's content words the page holds.

A page adds content (no copy, whatever its similarity) when it has ``NOVEL_MIN_WORDS``
novel words, however long it is: the full article after a cut reprint of it (one paragraph
of a long article is content), a merged article, a product with its own description beside
a shared block, two models of one product line. Chrome and template never count, an edited
sentence is no new one, and a new title in place of the old one is none either.

Against a page of another host (a reprint, a mirror), the evidence the pages and the crawl
give tells chrome from what a page adds, with no word list:

* **markup**: a line of links (``fingerprint/linklines.py``) before the content the page
  shares (a section's headlines, a "related" list above the story) adds nothing, and a
  menu (a breadcrumb, a share bar) is chrome wherever it sits; lines of links after the
  shared content count (a mirror's sources, a contents page's new chapters);
* **repetition**: a block that a stored page of the page's own host carries, as it is,
  adds nothing (``templates.PageTemplates.known``: a portal's cookie notice, its author's
  bio); nor does one the candidate's page showed outside the text it was judged by
  (``fingerprint/payload.py``: a caption, an embedded post its extractor left out, which a
  reprint lays out as a paragraph); nor, after the content the pages share, one a stored
  page of the page's own host showed so (``PageTemplates.shown_for``: its comment form's
  terms, its newsletter box);
* **place**: a cut reprint holds its original from the start (``_lead``: up to 80 words
  before it, a title, a byline, a caption; lines of links there do not count).

Short lines before or after the shared content are not called chrome by their place: on
real pages that added one copy in ninety (``benchmarks/reprint_quality.py --sets``), and
short forum replies after a copied thread, or a short specification table beside a
copied description, are content. Any line a page adds that no evidence calls chrome counts,
wherever it sits: the rest of an article after its cut reprint keeps a page.

On the page's own host every line counts as it is: two pages of one category differ by
their links.

Otherwise the page is a copy when it holds at least ``MIN_COVERS`` of the candidate's
content from its start (a cut reprint after its full original, however much shorter), or
``MIN_COVERS_ANYWHERE`` of it from anywhere, or when the sketches agree (estimated Jaccard
similarity of at least ``min_similarity``, lengths within 20%). A page that is a small part
of a larger one (one product after the category page that lists twenty, one article after
a digest, a section of a long page) is kept. Pages stored before blocks were kept are
compared by similarity alone.

The confirmation also estimates, from the sketches, how much of each page the other holds
(``contained``, ``contains``), so that a verdict can say which way containment went.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.fingerprint.block import CJK_CHARS_PER_WORD, Block
from scrapy_simdedup.fingerprint.packedblocks import blocks_from_bytes
from scrapy_simdedup.fingerprint.payload import split_payload
from scrapy_simdedup.fingerprint.sketch import Sketch
from scrapy_simdedup.judges.edits import (
    Unmatched,
    edited,
    edited_anywhere,
    joined,
    retitled,
    spare_sentences,
)

if TYPE_CHECKING:
    from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted

NOVEL_MIN_WORDS = 12
"""Against another host's page, counted as a reader counts words: twelve Chinese characters
are a breadcrumb, three or four words, and count as six (``Block.read_words``). On the
page's own host every character counts, as before."""
MIN_COVERS = 0.2
"""A page holding at least this share of a candidate's content words from its start, and
adding none of its own, is its copy however much shorter (a cut reprint keeps a fifth of
its original often enough). One article of a digest of six, or one product of a category
page's twenty, holds less."""
MIN_COVERS_ANYWHERE = 0.75
"""From anywhere in the candidate: a section that is most of its page, or the page in a
wrapper of another site's chrome (the candidate's own chrome the extractor kept, a
"related" teaser, is what it lacks). The share web-corpus pipelines call a copy at."""
MAX_LEAD_WORDS = 80
"""A page starts where the stored page starts when no more than this many words of the
stored page's content come before the first block the page holds: a title, a byline, a
standfirst, a caption the extractor kept; the first article of a digest is longer."""


@dataclass(frozen=True)
class Confirmation:
    """The comparison of a page with one stored candidate.

    ``contained``: the estimated share of the page found in the stored page; ``contains``:
    the share of the stored page found in this one. ``novel_words``: the words of the page's
    own sentences the stored page lacks. ``length_ratio``: the shorter text's tokens over
    the longer one's (a copy needs ``MIN_LENGTH_RATIO``, whatever its similarity).
    ``lacking_words``: the words of the stored page's own sentences this page lacks.
    ``covers``: the share of the stored page's content words this page holds.
    ``content_words``, ``chrome_words``, ``template_words``: what the page's words were
    judged to be (its content; page chrome; its host's template). ``added``: the template
    hashes of the page's blocks the stored page lacks (a copy's chrome, counted towards its
    host's template). ``untested_words``: once the page was sure to add content, the words
    of its sentences the stored page lacks as they are were no longer tested for edits
    (counted in ``novel_words``, and ``lacking_words`` counts the stored page's sentences
    as they are): on a distinct page, the tests found nothing to cost what they cost.
    ``shown_words``: the words of the page's blocks the stored page showed outside the text
    it was judged by (its captions, its embedded posts), counted as neither side's content.
    ``stricter``: the page was compared by a stricter extraction of its markup, its own
    extract having added content (``fingerprint/stricter.py``).
    """

    similarity: float
    copy: bool
    contained: float = 0.0
    contains: float = 0.0
    novel_words: int = 0
    adds_content: bool = False
    length_ratio: float = 1.0
    lacking_words: int = 0
    covers: float = 0.0
    content_words: int = 0
    chrome_words: int = 0
    template_words: int = 0
    added: frozenset[int] = frozenset()
    untested_words: int = 0
    shown_words: int = 0
    stricter: bool = False

    @property
    def direction(self) -> str:
        """Which way the containment went: "page_in_stored" (a copy: it adds nothing),
        "stored_in_page" (it carries the stored page and more), or "partial"."""
        if self.copy:
            return "page_in_stored"
        if self.contains > self.contained:
            return "stored_in_page"
        return "partial"


NO_SKETCH = Confirmation(0.0, copy=False)


def confirm(
    done: Fingerprinted,
    payload: bytes,
    min_similarity: float,
    template: frozenset[int] = frozenset(),
    *,
    same_host: bool = False,
    host_shown: frozenset[int] = frozenset(),
) -> Confirmation:
    """Compare a page with a stored candidate's payload; ``template``: the template hashes
    of the blocks its host shares across pages. ``same_host``: the candidate is a page of
    the page's own host, where a new first line is no new title (an event, a product, a
    job on a shared description) and a page that holds another without being like it
    (sketches) is a page of its own: only similarity confirms a copy there. ``host_shown``:
    the exact hashes of the page's blocks that a stored page of its own host showed outside
    the text it was judged by (``PageTemplates.shown_for``)."""
    parts = split_payload(payload)
    mine, theirs = done.fingerprint.sketch, Sketch.from_bytes(parts.sketch)
    if mine is None or theirs is None:
        return NO_SKETCH
    similarity = mine.similarity(theirs)
    contained = _containment(similarity, mine.tokens, theirs.tokens)
    contains = _containment(similarity, theirs.tokens, mine.tokens)
    longer = max(mine.tokens, theirs.tokens)
    ratio = min(mine.tokens, theirs.tokens) / longer if longer else 1.0
    similar = mine.confirms(theirs, min_similarity, similarity)
    stored_blocks = blocks_from_bytes(parts.blocks)
    if stored_blocks is None:  # stored before blocks were kept: similarity alone
        return Confirmation(similarity, similar, contained, contains, length_ratio=ratio)
    blocks = done.blocks.decoded()
    retitles = not same_host
    shown = parts.outside if retitles else frozenset()
    page = _compared(
        blocks,
        stored_blocks,
        template,
        retitles=retitles,
        enough=NOVEL_MIN_WORDS,
        shown=shown,
        host_shown=host_shown if retitles else frozenset(),
        bare=True,
    )
    adds = page.novel_read >= NOVEL_MIN_WORDS
    # A page sure to add content is no copy: the stored page's side is counted as it is.
    stored = _compared(
        stored_blocks,
        blocks,
        template,
        retitles=retitles,
        enough=0 if adds else None,
        with_added=False,
    )
    novel, lacking = page.novel + page.untested, stored.novel + stored.untested
    covers = (stored.content - lacking) / stored.content if stored.content else 0.0
    contained_in_stored = (
        not same_host
        and covers >= MIN_COVERS
        and (
            covers >= MIN_COVERS_ANYWHERE
            or _lead(stored_blocks, stored.first_held, template) <= MAX_LEAD_WORDS
        )
    )
    copy = not adds and (similar or contained_in_stored)
    return Confirmation(
        similarity, copy, contained, contains, novel, adds, ratio, lacking, covers,
        page.content, page.chrome, page.template, page.added, page.untested, page.shown,
    )  # fmt: skip


def _containment(similarity: float, mine: int, theirs: int) -> float:
    """|A & B| / |A| from the Jaccard similarity of A and B and their sizes."""
    if mine <= 0:
        return 1.0
    shared = similarity * (mine + theirs) / (1 + similarity)
    return min(1.0, shared / mine)


@dataclass(frozen=True)
class _Compared:
    """Words of a page's blocks against another page's, each block counted once however
    often the page repeats it (a footer above and below)."""

    novel: int  # content the other page lacks
    novel_read: int  # the same, as a reader counts words (``Block.read_words``), other hosts
    content: int  # all content
    chrome: int
    first_held: int  # the first block the other page holds (as is or edited), or past all
    template: int
    added: frozenset[int]  # template hashes of the blocks the other page lacks
    untested: int  # content the other page lacks as it is, not tested for edits
    shown: int  # blocks the other page showed outside its judged text


def _compared(
    mine: tuple[Block, ...],
    theirs: tuple[Block, ...],
    template: frozenset[int],
    *,
    retitles: bool = True,
    enough: int | None = None,
    shown: frozenset[int] = frozenset(),
    host_shown: frozenset[int] = frozenset(),
    with_added: bool = True,
    bare: bool = False,
) -> _Compared:
    """``retitles``: the pages are of two hosts, where a new first line is a new title and
    lines of links add nothing. ``enough``: once the page has this many novel words (as
    read) it adds content whatever the rest: its other sentences are then not tested for
    edits (the tests are most of a comparison's cost, and a distinct page has many).
    ``shown``: exact hashes of blocks the other page showed outside its judged text (see
    ``_Shown``). ``host_shown``: exact hashes of blocks a stored page of this page's host
    showed outside its judged text: after the first block the two pages share they are its
    host's (a comment form's terms, a newsletter box, a cookie notice at the foot); before
    it, a page's lead is what it adds to the other's text, and a site teases its own
    stories' first paragraphs on its other pages. ``with_added``: make ``added`` (only
    the page's side needs it). ``bare``: when all the page's content is its host's
    template, its lines counted there by their masked figures that the other page lacks as
    written are its content (``_dated``)."""
    there = {block.exact for block in theirs}  # what the other page holds, as it is
    content = chrome = templated = novel = chinese = untested = 0
    outside = _Shown(mine, there, shown) if shown else None
    shared_from = _first_held(mine, there) if host_shown else len(mine)
    counted: set[int] = set()
    held_at: list[int] = []  # where it has the other's content, as it is or edited
    linked_at: list[int] = []  # where it has lines of links the other lacks
    exacts = {block.exact for block in mine} if retitles else set()
    retitled_at = retitled(mine, theirs, template, exacts) if retitles else None
    tests: _EditTests | None = None  # made at the first sentence tested for an edit
    for at, block in enumerate(mine):
        exact = block.exact
        if exact in counted:
            continue
        counted.add(exact)
        if block.template_hash in template:
            templated += block.words
            continue
        matched = exact in there
        if not matched:
            if outside is not None and outside.takes(at, block):
                continue
            if at > shared_from and exact in host_shown:
                templated += block.words
                continue
        if block.chrome:
            chrome += block.words
            continue
        if retitles and block.linked and not matched:
            linked_at.append(at)
            continue
        content += block.words
        if matched:
            held_at.append(at)
        elif at == retitled_at:  # no new content, nor a sign of where the shared content is
            continue
        elif enough is not None and novel - chinese + chinese // CJK_CHARS_PER_WORD >= enough:
            untested += block.words
        else:
            if tests is None:
                tests = _EditTests(mine, theirs)
            if tests.edited(at):
                held_at.append(at)
            else:
                novel += block.words
                chinese += block.words if retitles and block.cjk else 0
    if bare and not content and (dated := _dated(mine, there, template)):
        return _compared(
            mine, theirs, template - dated, retitles=retitles, enough=enough, shown=shown,
            host_shown=host_shown, with_added=with_added,
        )  # fmt: skip
    links = _links_around(mine, linked_at, held_at[0] if held_at else 0)
    return _Compared(
        novel + links.novel,
        novel - chinese + chinese // CJK_CHARS_PER_WORD + links.novel_read,
        content + links.novel,
        chrome + links.chrome,
        held_at[0] if held_at else len(mine),
        templated,
        frozenset(block.template_hash for block in mine if block.exact not in there) - template
        if with_added
        else frozenset(),
        untested,
        outside.words if outside is not None else 0,
    )


def _dated(mine: tuple[Block, ...], there: set[int], template: frozenset[int]) -> frozenset[int]:
    """The masked hashes by which the template holds lines of ``mine`` the other page lacks
    as written: a line with a date or a counter, its figures masked, is its host's template
    once on two of its pages (a banner), and so is a daily report's only line of its own
    ("On 2026-11-05 the high was 12 degrees ..."). Where a page holds nothing but its
    host's template, such a line is what it says: judged as content, a banner's adds too
    few words to keep a page, a report's keeps it."""
    return frozenset(
        block.masked
        for block in mine
        if block.volatile and block.masked in template and block.exact not in there
    )


SHOWN_AROUND_MAX_WORDS = 60
"""Words the other page showed outside its judged text that a page may carry before or
after the content the two share, and still add nothing: a caption, an embedded post, a
box's few lines. A run of paragraphs there is an article of its own (a digest's next
story, which the stored page only teased or carried in a box)."""


class _Shown:
    """Which of a page's blocks the other page showed outside its judged text (its
    captions, embedded posts, boxes its extractor left out): any amid the content the two
    pages share (between the first and the last block they share as it is), and up to
    ``SHOWN_AROUND_MAX_WORDS`` words of them before or after it."""

    def __init__(self, mine: tuple[Block, ...], there: set[int], shown: frozenset[int]) -> None:
        self._shown = shown
        held = [at for at, block in enumerate(mine) if block.exact in there] if shown else []
        self._first, self._last = (held[0], held[-1]) if held else (0, -1)
        self._around = 0
        self.words = 0

    def takes(self, at: int, block: Block) -> bool:
        """Whether ``block`` (at ``at``, which the other page lacks) counts as shown."""
        if block.exact not in self._shown:
            return False
        if not self._first <= at <= self._last:
            if self._around + block.words > SHOWN_AROUND_MAX_WORDS:
                return False
            self._around += block.words
        self.words += block.words
        return True


def _first_held(mine: tuple[Block, ...], there: set[int]) -> int:
    """Where ``mine`` first has a block of the other page as it is (past all: nowhere)."""
    return next((at for at, block in enumerate(mine) if block.exact in there), len(mine))


class _EditTests:
    """What telling an edited sentence needs of the other page, made once per comparison
    and only when a sentence is tested (most of a distinct page's are never: see
    ``enough``)."""

    def __init__(self, mine: tuple[Block, ...], theirs: tuple[Block, ...]) -> None:
        self._mine, self._theirs = mine, theirs
        self._places = _places(theirs)
        # A sentence that differs from one of theirs in its figures alone (a price, a spec,
        # a score) says something new: no edit of it.
        self._figures = {block.masked for block in theirs if block.masked}
        # The other page's sentences this page has fewer times than it (each occurrence
        # used as it is can be no sentence this page edited): what an edited one may be.
        self._unmatched = Unmatched(theirs, spare_sentences(theirs, mine))

    def edited(self, at: int) -> bool:
        """``mine[at]``, which ``theirs`` lacks as it is, is one of its sentences edited:
        in place, anywhere, or two of them joined."""
        block = self._mine[at]
        if block.masked in self._figures:
            return False
        unmatched = self._unmatched
        return (
            edited(self._mine, at, self._theirs, self._places, unmatched.spare)
            or edited_anywhere(block, unmatched)
            or joined(block, unmatched)
        )


def _places(blocks: tuple[Block, ...]) -> dict[int, list[int]]:
    """Exact hash -> where the page has it."""
    places: dict[int, list[int]] = {}
    for there, block in enumerate(blocks):
        places.setdefault(block.exact, []).append(there)
    return places


@dataclass(frozen=True)
class _Links:
    chrome: int
    novel: int
    novel_read: int


def _links_around(mine: tuple[Block, ...], linked_at: list[int], start: int) -> _Links:
    """The words of the page's lines of links the other page lacks: before the content the
    page shares (a menu, a breadcrumb, a section's headlines above the story) they are
    chrome; after it, they may be what a copy adds (its sources, a reply that links the
    fix, a contents page's new chapters) and count as content."""
    before = [mine[at] for at in linked_at if at < start]
    after = [mine[at] for at in linked_at if at >= start]
    return _Links(
        sum(block.words for block in before),
        sum(block.words for block in after),
        sum(block.read_words for block in after),
    )


def _lead(mine: tuple[Block, ...], first_held: int, template: frozenset[int]) -> int:
    """The words of ``mine``'s content before the first block the other page holds, as it
    is or edited: a cut reprint holds its original's lead, a section of a long page or the
    third article of a digest starts in its middle. Lines of links (a menu the extractor
    kept) are no content there; a paragraph of short sentences is (counting only long ones
    made the second section of a reference page, after a first of short sentences, its cut
    reprint). A block the page repeats counts each time: a digest repeats its disclaimer
    under each story, and its third story alone is no cut reprint of it (counting it once
    dropped one; it won two cut reprints whose original's gallery repeats a caption)."""
    return sum(
        block.words
        for block in mine[:first_held]
        if not (block.chrome or block.linked or block.template_hash in template)
    )
