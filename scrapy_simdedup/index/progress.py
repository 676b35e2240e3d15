"""Progress of a long pass over a store (repair, verify): a line every so many keys or seconds.

A store of ten million pages holds some fifty million keys; ``scrapy simdedup repair`` and
``inspect --verify`` read them all, for minutes. ``Progress`` hands a line to ``report``
(the command prints it to stderr) every ``every_keys`` keys or ``every_seconds`` seconds,
whichever comes first, and one when the pass ends, so a person sees it move.
"""

from __future__ import annotations

import time
from collections.abc import Callable

EVERY_KEYS = 1_000_000
EVERY_SECONDS = 10.0

Report = Callable[[str], None]


class Progress:
    """Counts the keys of one pass (``what``: "repair: content documents"); ``total`` when
    known, for a share."""

    def __init__(
        self,
        report: Report | None,
        what: str,
        total: int | None = None,
        *,
        every_keys: int | None = None,
        every_seconds: float | None = None,
        look_every: int = 1_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.report = report
        self.what = what
        self.total = total
        self.count = 0
        self.every_keys = every_keys or EVERY_KEYS  # read now: a test may lower them
        self.every_seconds = every_seconds or EVERY_SECONDS
        self.look_every = look_every  # steps between two looks at the clock
        self._clock = clock
        self._started = self._last_time = clock()
        self._last_count = self._looked = 0

    def step(self, keys: int = 1) -> None:
        self.count += keys
        if self.report is None or (self.total is not None and self.count >= self.total):
            return  # the end is for done() to say
        if self.count - self._last_count >= self.every_keys:
            self._line()
        elif self.count - self._looked >= self.look_every:
            self._looked = self.count
            if self._clock() - self._last_time >= self.every_seconds:
                self._line()

    def done(self) -> None:
        """The last line: the pass is over (nothing when nothing was reported before and
        the pass was short)."""
        if self.report is not None and self._last_count:
            self._line(done=True)

    def _line(self, *, done: bool = False) -> None:
        assert self.report is not None
        now = self._clock()
        share = f" of {self.total:,} ({self.count / self.total:.0%})" if self.total else ""
        state = "done" if done else "so far"
        elapsed = now - self._started
        self.report(f"{self.what}: {self.count:,}{share} {state}, {elapsed:,.0f} s")
        self._last_time, self._last_count = now, max(self.count, 1)
