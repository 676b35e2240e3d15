"""``Crew``: how many workers share the crawl, and this one's place among them.

Scrapy-redis workers share one queue, so each sends its share of a rule's probes
(``url/probing.py``) and a worker alone waits for nothing at idle (``url/idling.py``). The
Scrapy layer updates it from the workers' heartbeats; 1 on a store of its own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Crew:
    """``size``: the workers, this one included, as their heartbeats last said; ``rank``:
    this worker's place among them (their names' order)."""

    size: int = 1
    rank: int = 0
