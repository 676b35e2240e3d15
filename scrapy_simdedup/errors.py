"""The exceptions scrapy-simdedup raises, in one small tree.

    SimDedupError
    ├── TextTooShortError      text has too few features for a reliable SimHash
    └── UndecodablePageError   bytes that are not text (binary) or whose encoding cannot be told

Both leaves also derive from ``ValueError``: they describe bad input, not a broken plugin.
"""

from __future__ import annotations


class SimDedupError(Exception):
    """Base class of every error this package raises on purpose."""


class TextTooShortError(SimDedupError, ValueError):
    """The text has fewer features than a fingerprint needs to be trusted.

    Two different short texts can land a few bits apart by chance, so callers compare them
    with an exact hash instead (see ``fingerprint_text``).
    """

    def __init__(self, features: int, needed: int, what: str = "SimHash") -> None:
        self.features = features
        self.needed = needed
        super().__init__(
            f"text has {features} distinct weighted features; a {what} needs at least {needed} "
            "to be reliable. Compare short texts by exact hash (fingerprint_text(text).exact)."
        )


class UndecodablePageError(SimDedupError, ValueError):
    """A page body is binary or in an encoding that cannot be told with confidence.

    ``reason`` is ``"binary"`` or ``"undetectable"``; it doubles as a stats reason.
    """

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        super().__init__(detail)
