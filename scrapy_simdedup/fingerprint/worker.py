"""Fingerprinting in a helper process, so a crawl's own process only decides.

Scrapy runs everything in one thread; cutting and hashing a page's words is most of what
ContentSeenPipeline adds to it. ``python -m scrapy_simdedup.fingerprint.worker TOKENIZER
SEED`` reads texts from stdin and writes their fingerprints to stdout, in order, until
stdin closes. Frames are a little-endian uint32 length and that many bytes:

* request: the text, UTF-8 (lone surrogates pass through);
* reply: flags (1 = SimHash present), SimHash, exact hash, feature count, the sketch
  (``SKETCH_BYTES``), the number of sentence hashes and the hashes, then the text's blocks
  (``blocks_to_bytes``; see ``Fingerprinted``).

Nothing is pickled: a reply is fixed-width numbers, checked as it is read.
"""

from __future__ import annotations

import signal
import struct
import sys
from dataclasses import dataclass
from typing import BinaryIO

from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.blocks import (
    Block,
    blocks_from_bytes,
    blocks_to_bytes,
    text_blocks,
)
from scrapy_simdedup.fingerprint.nshash import sentence_hashes
from scrapy_simdedup.fingerprint.sketch import SKETCH_BYTES, Sketch
from scrapy_simdedup.fingerprint.textprint import TextFingerprint, fingerprint_text
from scrapy_simdedup.fingerprint.tokens import Tokenizer

LENGTH = struct.Struct("<I")
_HEAD = struct.Struct("<BQQI")
_SENTENCES = struct.Struct("<B")
_HASH = struct.Struct("<Q")


@dataclass(frozen=True)
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


def encode_reply(done: Fingerprinted) -> bytes:
    fingerprint = done.fingerprint
    simhash, sketch = fingerprint.simhash, fingerprint.sketch
    assert sketch is not None, "fingerprinted() always asks for the sketch"
    head = _HEAD.pack(simhash is not None, simhash or 0, fingerprint.exact, fingerprint.features)
    hashes = b"".join(_HASH.pack(h) for h in sorted(done.sentences))
    counted = _SENTENCES.pack(len(done.sentences))
    return head + sketch.to_bytes() + counted + hashes + blocks_to_bytes(done.blocks)


def decode_reply(raw: bytes) -> Fingerprinted:
    """The reply in ``raw``; ``ValueError`` when it is not one."""
    at = _HEAD.size + SKETCH_BYTES
    if len(raw) < at + 1:
        raise ValueError(f"a fingerprint reply of {len(raw)} bytes is too short")
    flags, simhash, exact, features = _HEAD.unpack_from(raw)
    (count,) = _SENTENCES.unpack_from(raw, at)
    end = at + 1 + count * _HASH.size
    blocks = blocks_from_bytes(raw[end:])
    if len(raw) < end or blocks is None:
        raise ValueError(f"a fingerprint reply of {len(raw)} bytes holds {count} hashes")
    sentences = frozenset(h for (h,) in _HASH.iter_unpack(raw[at + 1 : end]))
    sketch = Sketch.from_bytes(raw[_HEAD.size : at])
    fingerprint = TextFingerprint(simhash if flags & 1 else None, exact, features, sketch)
    return Fingerprinted(fingerprint, sentences, blocks)


def serve(requests: BinaryIO, replies: BinaryIO, tokenizer: Tokenizer, seed: int) -> None:
    """Answer every request until ``requests`` ends."""
    while True:
        head = requests.read(LENGTH.size)
        if len(head) < LENGTH.size:
            return
        (size,) = LENGTH.unpack(head)
        text = requests.read(size).decode("utf-8", "surrogatepass")
        reply = encode_reply(fingerprinted(text, tokenizer, seed))
        replies.write(LENGTH.pack(len(reply)) + reply)
        replies.flush()


def main(argv: list[str]) -> None:
    # Ctrl-C reaches the whole process group; the crawl decides when this process ends
    # (by closing its stdin), so it finishes what it was given.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tokenizer, seed = Tokenizer.from_name(argv[0]), int(argv[1])
    serve(sys.stdin.buffer, sys.stdout.buffer, tokenizer, seed)


if __name__ == "__main__":
    main(sys.argv[1:])
