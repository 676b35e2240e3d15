"""The helper process itself: ``python -m scrapy_simdedup.fingerprint.helper.worker TOKENIZER
SEED`` reads texts from stdin and writes their fingerprints to stdout, in order, until
stdin closes (frames: see ``protocol.py``)."""

from __future__ import annotations

import signal
import sys
from typing import BinaryIO, Protocol, cast

from scrapy_simdedup.fingerprint.fingerprinted import fingerprinted
from scrapy_simdedup.fingerprint.helper.protocol import (
    LENGTH,
    decode_request,
    encode_reply,
    take_frames,
)
from scrapy_simdedup.fingerprint.tokens import Tokenizer

READ_SIZE = 1 << 16


class Chunks(Protocol):
    """A pipe read as its bytes arrive (``sys.stdin.buffer``)."""

    def read1(self, size: int = ..., /) -> bytes:
        """What has arrived, up to ``size`` bytes (waits only when nothing has)."""


def serve(requests: Chunks, replies: BinaryIO, tokenizer: Tokenizer, seed: int) -> None:
    """Answer every request until ``requests`` ends. The texts that arrived together are
    answered together, in one write: a wake-up and a write per batch, not per text."""
    buffer = bytearray()
    while chunk := requests.read1(READ_SIZE):
        buffer += chunk
        answers: list[bytes] = []
        for raw in take_frames(buffer):
            text, exact, outside = decode_request(raw)
            reply = encode_reply(fingerprinted(text, tokenizer, seed, exact=exact, outside=outside))
            answers += (LENGTH.pack(len(reply)), reply)
        if answers:
            replies.write(b"".join(answers))
            replies.flush()
    # Input ended (in the middle of a request, when the crawl's process stopped): done.


def main(argv: list[str]) -> None:
    # Ctrl-C reaches the whole process group; the crawl decides when this process ends
    # (by closing its stdin), so it finishes what it was given.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tokenizer, seed = Tokenizer.from_name(argv[0]), int(argv[1])
    serve(cast(Chunks, sys.stdin.buffer), sys.stdout.buffer, tokenizer, seed)


if __name__ == "__main__":
    main(sys.argv[1:])
