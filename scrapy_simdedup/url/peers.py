"""The other workers of a crawl, as the URL side asks them: ``Peers``.

Workers sharing a store (Redis) share one crawl: its record (``index/crawls.py``) tells each
what the others queued, fetched, judged and kept, and lets one claim a fetch, a re-issue or
a section's sample for the whole crawl. A worker alone has nobody to ask, and ``SOLO``
answers as a crawl of one worker would (nothing elsewhere, every claim its own), so the URL
judge and core ask their peers without asking first whether there are any. ``shared``
tells the few decisions that differ in kind on a shared crawl (a worker alone waits for
nothing at idle: what did not come will not).
"""

from __future__ import annotations

from typing import Protocol


class Peers(Protocol):
    """What the URL judge and core ask of the other workers of their crawl."""

    @property
    def shared(self) -> bool:
        """Whether other workers may share the crawl."""
        ...

    def queued(self, url: str) -> None: ...
    def was_queued(self, url: str) -> bool: ...
    def queued_urls(self, host: str, limit: int) -> list[str]: ...
    def requested_urls(self, host: str, limit: int) -> list[str]: ...
    def fetched(self, url: str) -> None: ...
    def failed(self, url: str) -> None: ...
    def was_fetched(self, url: str) -> bool: ...
    def on_its_way(self, url: str) -> bool: ...
    def awaits_verdict(self, url: str) -> bool: ...
    def was_judged(self, url: str) -> bool: ...
    def judged_copy_of(self, url: str) -> str | None: ...
    def was_kept(self, url: str) -> bool: ...
    def released(self, url: str) -> None: ...
    def brought(self, url: str, *, judged_only: bool = False) -> bool: ...
    def bet(self, url: str, counterpart: str) -> None: ...
    def bet_alone(self, url: str) -> str | None: ...
    def fetched_before(self, now: int) -> int: ...
    def claim_fetch(self, url: str) -> bool: ...
    def claim_reissue(self, url: str) -> bool: ...
    def claim_section(self, hosts: tuple[str, str], section: str) -> bool: ...


class Solo:
    """A crawl of one worker: no other worker queued, fetched or judged anything, and
    every claim is this worker's."""

    shared = False

    def queued(self, url: str) -> None:
        pass

    def was_queued(self, url: str) -> bool:
        return False

    def queued_urls(self, host: str, limit: int) -> list[str]:
        return []  # this worker knows its own

    def requested_urls(self, host: str, limit: int) -> list[str]:
        return []

    def fetched(self, url: str) -> None:
        pass

    def failed(self, url: str) -> None:
        pass

    def was_fetched(self, url: str) -> bool:
        return False

    def on_its_way(self, url: str) -> bool:
        return False

    def awaits_verdict(self, url: str) -> bool:
        return False

    def was_judged(self, url: str) -> bool:
        return False

    def judged_copy_of(self, url: str) -> str | None:
        return None

    def was_kept(self, url: str) -> bool:
        return False

    def released(self, url: str) -> None:
        pass

    def brought(self, url: str, *, judged_only: bool = False) -> bool:
        return False

    def bet(self, url: str, counterpart: str) -> None:
        pass

    def bet_alone(self, url: str) -> str | None:
        return None

    def fetched_before(self, now: int) -> int:
        return now  # every URL the index holds was fetched before this crawl

    def claim_fetch(self, url: str) -> bool:
        return True

    def claim_reissue(self, url: str) -> bool:
        return True

    def claim_section(self, hosts: tuple[str, str], section: str) -> bool:
        return True


SOLO = Solo()
