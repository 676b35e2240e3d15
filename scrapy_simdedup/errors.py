"""The exceptions scrapy-simdedup raises, in one small tree::

    SimDedupError
    ├── SettingError           a SIMDEDUP_* setting is unknown or has a wrong value
    ├── TextTooShortError      text has too few features for a reliable SimHash
    ├── UndecodablePageError   bytes that are not text (binary) or whose encoding cannot be told
    └── StoreError             the index's storage cannot be used as asked
        ├── StoreLockedError       another process holds the folder
        ├── StoreMismatchError     the store was made with other parameters
        ├── ForeignFolderError     the folder holds something that is not our store
        ├── StoreDamagedError      the store's files are damaged
        └── StoreFullError         a bounded store reached its limit

Both leaves also derive from ``ValueError``: they describe bad input, not a broken plugin.
"""

from __future__ import annotations


class SimDedupError(Exception):
    """Base class of every error this package raises on purpose."""


class SettingError(SimDedupError, ValueError):
    """A ``SIMDEDUP_*`` setting is unknown (a typo) or has a value out of its range; the
    message names the setting, the value and what is allowed."""


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


class UrlNotCheckedError(SimDedupError, ValueError):
    """A URL the URL fingerprint cannot judge; ``reason`` is the stats key suffix.

    Reasons: ``not_http`` (another scheme), ``no_host``, ``too_long``, ``malformed``.
    Such requests are always fetched, never skipped.
    """

    def __init__(self, reason: str, url: str) -> None:
        super().__init__(f"URL not checked ({reason}): {url[:200]!r}")
        self.reason = reason


class StoreError(SimDedupError):
    """The index's storage failed or cannot be used as asked; the message names it."""


class StoreLockedError(StoreError):
    """Another process has the store open (LevelDB allows one writer per folder)."""


class StoreMismatchError(StoreError):
    """The store was created with other parameters; ``differences`` maps name -> (stored, asked)."""

    def __init__(self, location: str, differences: dict[str, tuple[object, object]]) -> None:
        self.differences = differences
        listed = "; ".join(
            f"{name}: stored {old!r}, asked {new!r}" for name, (old, new) in differences.items()
        )
        super().__init__(
            f"{location} was created with other parameters ({listed}). Open it with the stored "
            "values, or give these settings a new folder (or reset the store)."
        )


class ForeignFolderError(StoreError):
    """The folder exists and holds data that is not a scrapy-simdedup store."""


class StoreDamagedError(StoreError):
    """The store's files are damaged; nothing was written or re-created."""


class StoreFullError(StoreError):
    """A bounded (memory) store is full."""
