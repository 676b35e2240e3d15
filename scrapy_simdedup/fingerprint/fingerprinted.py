"""What the content judge needs of a text, made in one call: the same in either process."""

from __future__ import annotations

from dataclasses import dataclass

from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.blocks import Block, text_blocks
from scrapy_simdedup.fingerprint.nshash import sentence_hashes
from scrapy_simdedup.fingerprint.textprint import TextFingerprint, fingerprint_text
from scrapy_simdedup.fingerprint.tokens import Tokenizer


@dataclass(frozen=True, slots=True)
class Fingerprinted:
    """What the content judge needs of a text: its fingerprints, its nshash sentence
    hashes and its blocks (to tell its host's template from its own content)."""

    fingerprint: TextFingerprint
    sentences: frozenset[int]
    blocks: tuple[Block, ...] = ()


def fingerprinted(
    text: str, tokenizer: Tokenizer, seed: int, *, exact: int | None = None
) -> Fingerprinted:
    """The work itself, the same in either process (``exact``: see ``fingerprint_text``)."""
    fingerprint = fingerprint_text(
        text, tokenizer=tokenizer, seed=seed, with_sketch=True, exact=exact
    )
    try:
        sentences = sentence_hashes(text, seed=seed)
    except TextTooShortError:
        sentences = frozenset()
    return Fingerprinted(fingerprint, sentences, text_blocks(text, seed))
