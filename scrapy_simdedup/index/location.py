"""``StoreLocation``: where an index lives, its store kind a value read once.

A user names an index by a string (a folder, ``memory``, a Redis URL). It is parsed here,
once; everything past this point asks ``location.kind`` instead of guessing from the text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

StoreKind = Literal["leveldb", "memory", "redis"]
STORE_KINDS: tuple[StoreKind, ...] = ("leveldb", "memory", "redis")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
DEFAULT_REDIS_PREFIX = "simdedup"


@dataclass(frozen=True)
class StoreLocation:
    """A store's kind and address: a resolved folder (LevelDB), a Redis URL with the key
    prefix of its index, or nothing (memory, private to the process that opens it)."""

    kind: StoreKind
    address: str = ""
    prefix: str = DEFAULT_REDIS_PREFIX

    @classmethod
    def parse(
        cls,
        location: StoreLocation | str | os.PathLike[str],
        *,
        prefix: str = DEFAULT_REDIS_PREFIX,
    ) -> StoreLocation:
        """``memory``, a ``redis://``, ``rediss://`` or ``unix://`` URL (keys under
        ``prefix``), or else a folder."""
        if isinstance(location, StoreLocation):
            return location
        text = os.fspath(location)
        if text == "memory":
            return cls("memory")
        if text.startswith(REDIS_SCHEMES):
            return cls.redis(text, prefix)
        return cls.folder(text)

    @classmethod
    def folder(cls, path: str | os.PathLike[str]) -> StoreLocation:
        """A LevelDB folder, resolved so that two spellings of it are one location."""
        text = os.fspath(path)
        if not text.strip() or "\x00" in text:
            raise ValueError(
                f"an index folder must be a non-empty path without NUL bytes, got {text!r}"
            )
        return cls("leveldb", str(Path(text).expanduser().resolve()))

    @classmethod
    def redis(cls, url: str, prefix: str = DEFAULT_REDIS_PREFIX) -> StoreLocation:
        if not url.startswith(REDIS_SCHEMES):
            raise ValueError(
                f"a Redis store needs a redis://, rediss:// or unix:// URL, got {redacted(url)!r}"
            )
        return cls("redis", url, prefix)

    def __str__(self) -> str:
        if self.kind == "redis":
            return f"{redacted(self.address)} prefix {self.prefix}"
        return self.address or self.kind


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")
    user = netloc[0].partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[2]}"))
