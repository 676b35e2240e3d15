"""The helper's frames: a little-endian uint32 length and that many bytes.

* request: the text, UTF-8 (lone surrogates pass through);
* reply: flags (1 = SimHash present), SimHash, exact hash, feature count, the sketch
  (``SKETCH_BYTES``), the number of sentence hashes and the hashes, then the text's blocks
  (``blocks_to_bytes``; see ``Fingerprinted``).

Nothing is pickled: a reply is fixed-width numbers, checked as it is read.
"""

from __future__ import annotations

import struct

from scrapy_simdedup.fingerprint.blocks import blocks_from_bytes, blocks_to_bytes
from scrapy_simdedup.fingerprint.fingerprinted import Fingerprinted
from scrapy_simdedup.fingerprint.sketch import SKETCH_BYTES, Sketch
from scrapy_simdedup.fingerprint.textprint import TextFingerprint

LENGTH = struct.Struct("<I")
_HEAD = struct.Struct("<BQQI")
_SENTENCES = struct.Struct("<B")
_HASH = struct.Struct("<Q")


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
