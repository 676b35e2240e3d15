"""The texts of a crawl's feed, read as the content pipeline reads items, so that the HTML
report can show the pages a verdict is about.

A feed is what ``scrapy crawl -o FILE`` wrote: JSON lines (``.jsonl``, ``.jl``) or one JSON
array (``.json``). Only items with a key are kept; the first item of a key wins.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from itemadapter import ItemAdapter

from scrapy_simdedup.itemtext import item_text

MAX_TEXT_CHARS = 300_000


def feed_texts(
    path: Path,
    fields: tuple[str, ...],
    key_field: str,
    *,
    html: str = "auto",
    main: bool = True,
) -> dict[str, str]:
    """Page key -> text, from the feed at ``path``. Raises ``ValueError`` naming the file
    when it is neither JSON lines nor a JSON array of objects."""
    texts: dict[str, str] = {}
    for item in _items(path):
        adapter = ItemAdapter(item)
        key = adapter.get(key_field)
        if not isinstance(key, str) or key in texts:
            continue
        found = item_text(adapter, fields, MAX_TEXT_CHARS, html, main=main)
        if found.skipped is None:
            texts[key] = found.text
    return texts


def _items(path: Path) -> list[dict[str, Any]]:
    raw = path.read_text("utf-8", errors="replace")
    try:
        if raw.lstrip().startswith("["):
            items = json.loads(raw)
        else:
            items = [json.loads(line) for line in raw.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path} is not a JSON-lines or JSON feed ({exc}); give the file "
            "scrapy crawl -o wrote, e.g. --feed items.jsonl"
        ) from None
    if not isinstance(items, list):
        raise ValueError(f"{path} holds no list of items; give the crawl's feed")
    return [item for item in items if isinstance(item, dict)]
