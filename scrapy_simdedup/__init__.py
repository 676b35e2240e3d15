"""scrapy-simdedup: near-duplicate detection for Scrapy crawls.

The names a user writes (in settings.py or a script) are re-exported here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import (
    ForeignFolderError,
    SimDedupError,
    StoreDamagedError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreMismatchError,
    TextTooShortError,
    UndecodablePageError,
    UrlNotCheckedError,
)
from scrapy_simdedup.fingerprint.keywords import keyword_fingerprint, top_keywords
from scrapy_simdedup.fingerprint.nshash import SentenceGroups, sentence_hashes
from scrapy_simdedup.fingerprint.pagetext import decode_page, page_text
from scrapy_simdedup.fingerprint.simhash import (
    hamming_distance,
    simhash,
    simhash_weights,
    similarity,
)
from scrapy_simdedup.fingerprint.textprint import TextFingerprint, fingerprint_text
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from scrapy_simdedup.index.handle import SimHashIndex
from scrapy_simdedup.index.location import StoreLocation
from scrapy_simdedup.index.maintenance import RepairReport, repair_index, reset_index
from scrapy_simdedup.index.opening import open_index, open_stored_index
from scrapy_simdedup.index.permuted import Match, QueryOrAdd
from scrapy_simdedup.url.features import url_features, url_simhash
from scrapy_simdedup.url.parts import UrlParts, url_parts

if TYPE_CHECKING:
    from scrapy_simdedup.addon import Addon
    from scrapy_simdedup.middleware import UrlSimHashMiddleware
    from scrapy_simdedup.pipeline import ContentSeenPipeline, NearDuplicateItem

__version__ = "0.1.0"

# The Scrapy components load on first use, so that scripts using only the fingerprints and
# the index never import Scrapy.
_SCRAPY_COMPONENTS = {
    "Addon": "scrapy_simdedup.addon",
    "ContentSeenPipeline": "scrapy_simdedup.pipeline",
    "NearDuplicateItem": "scrapy_simdedup.pipeline",
    "UrlSimHashMiddleware": "scrapy_simdedup.middleware",
}


def __getattr__(name: str) -> object:
    module = _SCRAPY_COMPONENTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scrapy_simdedup' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "Addon",
    "ContentSeenPipeline",
    "ForeignFolderError",
    "Match",
    "NearDuplicateItem",
    "QueryOrAdd",
    "RepairReport",
    "SentenceGroups",
    "SimDedupError",
    "SimHashIndex",
    "StoreDamagedError",
    "StoreError",
    "StoreFullError",
    "StoreLocation",
    "StoreLockedError",
    "StoreMismatchError",
    "TextFingerprint",
    "TextTooShortError",
    "Tokenizer",
    "UndecodablePageError",
    "UrlNotCheckedError",
    "UrlParts",
    "UrlSimHashMiddleware",
    "decode_page",
    "fingerprint_text",
    "hamming_distance",
    "keyword_fingerprint",
    "open_index",
    "open_stored_index",
    "page_text",
    "repair_index",
    "reset_index",
    "sentence_hashes",
    "simhash",
    "simhash_weights",
    "similarity",
    "top_keywords",
    "url_features",
    "url_parts",
    "url_simhash",
]
