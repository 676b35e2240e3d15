"""Which host of a mirror pair is the copy, agreed once by every worker sharing a store.

The URL learner chooses, for two hosts that copy each other, the one whose pages are
skipped; "the first use decides, for good". Workers sharing a store (Redis) each learn on
their own and exchange rules every few seconds, so two of them could choose opposite sides
in that window: each then skips the pages the other fetches, neither settles, and the bets
are all re-issued at idle (issue 35). ``agreed_copy`` makes the choice one atomic
put-if-absent per pair: the first proposal stands for every worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_simdedup.index import keyspace

if TYPE_CHECKING:
    from scrapy_simdedup.index.stores.atomic import AtomicStore


def agreed_copy(store: AtomicStore, host: str, other: str, proposed: str) -> str:
    """The copy of the pair ``host``/``other``: ``proposed`` unless a worker chose first.
    Raises ``StoreError``."""
    first, second = sorted((host, other))
    key = keyspace.MIRROR_CHOICE + f"{first}\x00{second}".encode("utf-8", "surrogatepass")
    present = store.put_absent({key: proposed.encode("utf-8", "surrogatepass")})
    chosen = present.get(key)
    if chosen is None:
        return proposed
    decoded = chosen.decode("utf-8", "surrogatepass")
    return decoded if decoded in (host, other) else proposed
