"""The helper process itself: ``python -m scrapy_simdedup.fingerprint.helper.worker TOKENIZER
SEED`` reads texts from stdin and writes their fingerprints to stdout, in order, until
stdin closes (frames: see ``protocol.py``)."""

from __future__ import annotations

import signal
import sys
from typing import BinaryIO

from scrapy_simdedup.fingerprint.fingerprinted import fingerprinted
from scrapy_simdedup.fingerprint.helper.protocol import LENGTH, decode_request, encode_reply
from scrapy_simdedup.fingerprint.tokens import Tokenizer


def serve(requests: BinaryIO, replies: BinaryIO, tokenizer: Tokenizer, seed: int) -> None:
    """Answer every request until ``requests`` ends."""
    while True:
        head = requests.read(LENGTH.size)
        if len(head) < LENGTH.size:
            return
        (size,) = LENGTH.unpack(head)
        raw = requests.read(size)
        if len(raw) < size:  # the crawl's process stopped in the middle of a request
            return
        text, exact = decode_request(raw)
        reply = encode_reply(fingerprinted(text, tokenizer, seed, exact=exact))
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
