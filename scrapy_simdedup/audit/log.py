"""``VerdictLog``: the verdict log's writer, one JSON line per event, buffered within bounds.

Lines are appended (a resumed crawl continues its log) and written in batches: at most
``flush_lines`` lines, or the lines of ``flush_seconds``, wait in memory, and ``close``
writes the rest. A line leaves the buffer before it is written, so an event is never
written twice, even when a write fails; a ``kill -9`` loses at most the buffered lines.
"""

from __future__ import annotations

import glob
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy_simdedup.audit.records import Record

FLUSH_LINES = 100
FLUSH_SECONDS = 5.0
PATH_FIELDS = ("name", "time")
"""What a log path may hold, as in FEEDS URIs: %(name)s (the spider's name), %(time)s."""


def log_path(template: str, name: str, started: datetime | None = None) -> Path:
    """The file ``template`` names for spider ``name`` (``~`` expanded). ``%(time)s`` is the
    crawl's start in UTC, as FEEDS writes it (``2026-11-23T10-02-10+00-00``). Raises
    ``ValueError`` for other ``%`` fields."""
    started = started or datetime.now(timezone.utc)
    stamp = started.replace(microsecond=0).isoformat().replace(":", "-")
    try:
        return Path(template % {"name": name, "time": stamp}).expanduser()
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(
            f"{template!r} may use %(name)s and %(time)s (write %% for a percent sign); "
            f"{type(exc).__name__}: {exc}"
        ) from None


def log_files(template: str, name: str) -> list[Path]:
    """The logs ``template`` names for spider ``name`` that exist, the newest last (with
    ``%(time)s``, one per crawl)."""
    if "%(time)s" not in template:
        path = log_path(template, name)
        return [path] if path.exists() else []
    pattern = template.replace("%(time)s", "%(star)s") % {"name": glob.escape(name), "star": "*"}
    found = [Path(found) for found in glob.glob(str(Path(pattern).expanduser()))]
    return sorted(found, key=lambda path: (path.stat().st_mtime, str(path)))


class VerdictLog:
    """Appends records to ``path`` as JSON lines (its folder is made when missing).

    Raises ``OSError`` when the file cannot be opened or written."""

    def __init__(
        self,
        path: Path,
        *,
        flush_lines: int = FLUSH_LINES,
        flush_seconds: float = FLUSH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.flush_lines = flush_lines
        self.flush_seconds = flush_seconds
        self.written = 0
        self._clock = clock
        self._file: IO[str] | None = path.open("a", encoding="utf-8")
        self._lines: list[str] = []
        self._since = clock()

    def write(self, record: Record) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        self._lines.append(line + "\n")
        full = len(self._lines) >= self.flush_lines
        if full or self._clock() - self._since >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        lines, self._lines = self._lines, []
        self._since = self._clock()
        if lines and self._file is not None:
            self._file.write("".join(lines))
            self.written += len(lines)
            self._file.flush()

    def close(self) -> None:
        """Write what is buffered and close the file; later writes are dropped."""
        if self._file is None:
            return
        try:
            self.flush()
        finally:
            self._file.close()
            self._file = None

    @property
    def closed(self) -> bool:
        return self._file is None


@dataclass
class LogContents:
    """The records of a verdict log; ``malformed``: lines that were not JSON objects (a
    last line cut by a killed crawl)."""

    records: list[Record] = field(default_factory=list)
    malformed: int = 0


def read_log(path: Path) -> LogContents:
    """Every record of the log at ``path``. Raises ``OSError`` when it cannot be read."""
    contents = LogContents()
    with path.open(encoding="utf-8", errors="replace") as file:
        for record in _records(file):
            if record is None:
                contents.malformed += 1
            else:
                contents.records.append(record)
    return contents


def _records(lines: IO[str]) -> Iterator[Record | None]:
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            yield None
            continue
        yield record if isinstance(record, dict) and "event" in record else None
