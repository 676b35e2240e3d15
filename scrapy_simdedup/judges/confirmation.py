"""Confirmation: a second, independent signal before a page is called a copy.

A SimHash or sentence match only proposes a candidate; its sketch (see
``fingerprint/sketch.py``) must agree: similar shingles and comparable length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.fingerprint.sketch import Sketch

if TYPE_CHECKING:
    from scrapy_simdedup.fingerprint.worker import Fingerprinted


@dataclass(frozen=True)
class Confirmation:
    """The comparison of a page with one stored candidate."""

    similarity: float  # estimated Jaccard similarity of their shingles; 0.0 without sketches
    copy: bool


NO_SKETCH = Confirmation(0.0, copy=False)


def confirm(done: Fingerprinted, payload: bytes, min_similarity: float) -> Confirmation:
    """Compare a page with a stored candidate's payload (its sketch)."""
    mine, theirs = done.fingerprint.sketch, Sketch.from_bytes(payload)
    if mine is None or theirs is None:
        return NO_SKETCH
    return Confirmation(mine.similarity(theirs), mine.confirms(theirs, min_similarity))
