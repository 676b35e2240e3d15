"""What the content judge needs of a text, made in one call: the same in either process."""

from __future__ import annotations

from dataclasses import dataclass

from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.blocks import packed_text_blocks, sentence_exacts
from scrapy_simdedup.fingerprint.chrome import chrome_lines, without_chrome
from scrapy_simdedup.fingerprint.linklines import is_link_line
from scrapy_simdedup.fingerprint.nshash import sentence_hashes, split_sentences
from scrapy_simdedup.fingerprint.packedblocks import PackedBlocks
from scrapy_simdedup.fingerprint.payload import MAX_OUTSIDE, payload_of
from scrapy_simdedup.fingerprint.textprint import TextFingerprint, exact_hash, fingerprint_text
from scrapy_simdedup.fingerprint.tokens import Tokenizer


@dataclass(frozen=True, slots=True)
class Fingerprinted:
    """What the content judge needs of a text: its fingerprints, its nshash sentence
    hashes and its blocks (to tell its host's template from its own content), and
    ``payload``, what is stored with a new page's SimHash (``payload_of``), made where the
    rest was: the helper's reply carries it as it is stored."""

    fingerprint: TextFingerprint
    sentences: frozenset[int]
    blocks: PackedBlocks
    payload: bytes


def _read_sentences(content: str) -> list[str]:
    """The sentences a reader reads: lines of links (a menu, a "related" list) are not
    where a page's longest sentences are looked for, unless the page is all links."""
    read = [line for line in content.splitlines() if not is_link_line(line)]
    return split_sentences("\n".join(read) if read else content)


LONGEST_SENTENCES = 8
"""The sentences a page is looked up by when its SimHash finds nothing (nshash's five, and
three more): on real pages a reprint's edits, or its original's longer boilerplate, took
the shared sentences out of the five longest of one side (a cut reprint on another real
site: 53% dropped with five, 60% with eight, on the held-out half)."""


def fingerprinted(
    text: str, tokenizer: Tokenizer, seed: int, *, exact: int | None = None, outside: str = ""
) -> Fingerprinted:
    """The work itself, the same in either process (``exact``: see ``fingerprint_text``).
    The SimHash, sketch and longest sentences leave the page's chrome lines out (see
    ``chrome.py``); the exact hash and the blocks are of the whole text. ``outside``: the
    lines of the page the text left out (``maincontent.main_content``), kept as hashes in
    the payload (``payload.py``)."""
    if exact is None:
        exact = exact_hash(text, seed)
    chrome = chrome_lines(text.splitlines())  # for the fingerprints and the blocks alike
    content = without_chrome(text, chrome=chrome)
    fingerprint = fingerprint_text(
        content, tokenizer=tokenizer, seed=seed, with_sketch=True, exact=exact
    )
    try:
        sentences = sentence_hashes(
            content, n=LONGEST_SENTENCES, seed=seed, split=_read_sentences(content)
        )
    except TextTooShortError:
        sentences = frozenset()
    blocks = packed_text_blocks(text, seed, chrome=chrome)
    shown: tuple[int, ...] = ()
    if outside:
        own = frozenset(blocks.exacts)
        shown = tuple(sentence_exacts(outside, seed, most=MAX_OUTSIDE, leave_out=own))
    return Fingerprinted(
        fingerprint, sentences, blocks, payload_of(fingerprint.sketch, blocks, shown)
    )
