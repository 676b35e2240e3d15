"""What a look-up of the permuted index returns: the stored documents near a page."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Match:
    """A stored document within the distance bound: its key, fingerprint, distance, payload."""

    key: str
    fingerprint: int
    distance: int
    payload: bytes = b""


@dataclass(frozen=True)
class QueryOrAdd:
    """The outcome of ``query_or_add``: the matches found, and whether the document was
    added; ``owners``, when nothing was near: the stored documents owning one of the given
    sentences (distance 0: the caller measures it); ``claimed``: the added document took
    its sentences in the same step (else ``record_sentences`` still has to)."""

    matches: list[Match]
    added: bool
    owners: list[Match] = field(default_factory=list)
    claimed: bool = False
