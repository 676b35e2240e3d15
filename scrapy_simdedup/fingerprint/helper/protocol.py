"""The helper's frames: a little-endian uint32 length and that many bytes.

* request: the text's exact hash (the crawl's process made it already), the text's length
  in bytes, the text, then the lines of its page it left out (``main_content``), both
  UTF-8 (lone surrogates pass through);
* reply: flags (1 = SimHash present), SimHash, exact hash, feature count, the number of
  sentence hashes and the hashes, then the page's payload as the index stores it: the
  sketch (``SKETCH_BYTES``) and the text's blocks (``blocks_to_bytes``; see
  ``Fingerprinted``).

Nothing is pickled: a reply is fixed-width numbers, checked as it is read. The payload is
kept as it came, so the crawl's process never encodes it again.
"""

from __future__ import annotations

import struct

from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted
from scrapy_simdedup.fingerprint.packedblocks import PackedBlocks
from scrapy_simdedup.fingerprint.payload import split_payload
from scrapy_simdedup.fingerprint.sketch import SKETCH_BYTES, Sketch
from scrapy_simdedup.fingerprint.textprint import TextFingerprint

LENGTH = struct.Struct("<I")
_HEAD = struct.Struct("<BQQI")
_SENTENCES = struct.Struct("<B")
_HASH = struct.Struct("<Q")


def take_frames(buffer: bytearray) -> list[bytes]:
    """The bodies of the whole frames at the start of ``buffer``, taken out of it (a frame
    not wholly read yet stays)."""
    frames: list[bytes] = []
    at = 0
    while len(buffer) - at >= LENGTH.size:
        (size,) = LENGTH.unpack_from(buffer, at)
        end = at + LENGTH.size + size
        if end > len(buffer):
            break
        frames.append(bytes(buffer[at + LENGTH.size : end]))
        at = end
    del buffer[:at]
    return frames


def encode_request(text: str, exact: int, outside: str = "") -> bytes:
    """A whole request frame, its length first."""
    data = text.encode("utf-8", "surrogatepass")
    rest = outside.encode("utf-8", "surrogatepass")
    size = _HASH.size + LENGTH.size + len(data) + len(rest)
    return LENGTH.pack(size) + _HASH.pack(exact) + LENGTH.pack(len(data)) + data + rest


def decode_request(raw: bytes) -> tuple[str, int, str]:
    """The text, its exact hash and the lines its page left out, in a request's bytes
    (after its length)."""
    (exact,) = _HASH.unpack_from(raw)
    (size,) = LENGTH.unpack_from(raw, _HASH.size)
    start = _HASH.size + LENGTH.size
    text = raw[start : start + size].decode("utf-8", "surrogatepass")
    return text, exact, raw[start + size :].decode("utf-8", "surrogatepass")


def encode_reply(done: Fingerprinted) -> bytes:
    fingerprint = done.fingerprint
    simhash, sketch = fingerprint.simhash, fingerprint.sketch
    assert sketch is not None, "fingerprinted() always asks for the sketch"
    head = _HEAD.pack(simhash is not None, simhash or 0, fingerprint.exact, fingerprint.features)
    hashes = b"".join(_HASH.pack(h) for h in sorted(done.sentences))
    return head + _SENTENCES.pack(len(done.sentences)) + hashes + done.payload


def decode_reply(raw: bytes) -> Fingerprinted:
    """The reply in ``raw``; ``ValueError`` when it is not one."""
    at = _HEAD.size + _SENTENCES.size
    if len(raw) < at:
        raise ValueError(f"a fingerprint reply of {len(raw)} bytes is too short")
    flags, simhash, exact, features = _HEAD.unpack_from(raw)
    (count,) = _SENTENCES.unpack_from(raw, _HEAD.size)
    end = at + count * _HASH.size
    payload = raw[end:]
    sketch = Sketch.from_bytes(payload[:SKETCH_BYTES])
    blocks = PackedBlocks.of(split_payload(payload).blocks)
    if sketch is None or blocks is None:
        raise ValueError(f"a fingerprint reply of {len(raw)} bytes holds {count} hashes")
    sentences = frozenset(h for (h,) in _HASH.iter_unpack(raw[at:end]))
    fingerprint = TextFingerprint(simhash if flags & 1 else None, exact, features, sketch)
    return Fingerprinted(fingerprint, sentences, blocks, payload)
