"""scrapy-simdedup: near-duplicate detection for Scrapy crawls.

The names a user writes (in settings.py or a script) are re-exported here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
    from scrapy_simdedup.fingerprint.maincontent import main_text
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
    from scrapy_simdedup.scrapy_layer.addon import Addon
    from scrapy_simdedup.scrapy_layer.middleware import UrlSimHashMiddleware
    from scrapy_simdedup.scrapy_layer.pipeline import ContentSeenPipeline, NearDuplicateItem
    from scrapy_simdedup.url.features import url_features, url_simhash
    from scrapy_simdedup.url.parts import UrlParts, url_parts

__version__ = "0.1.0"

# Everything loads on first use: scripts using only the fingerprints and the index never
# import Scrapy, and the fingerprint helper process imports only the fingerprint modules
# (not lxml, plyvel or the index): its imports take half the time.
_EXPORTS = {
    "Addon": "scrapy_simdedup.addon",
    "ContentSeenPipeline": "scrapy_simdedup.pipeline",
    "NearDuplicateItem": "scrapy_simdedup.pipeline",
    "UrlSimHashMiddleware": "scrapy_simdedup.middleware",
    "ForeignFolderError": "scrapy_simdedup.errors",
    "Match": "scrapy_simdedup.index.permuted",
    "QueryOrAdd": "scrapy_simdedup.index.permuted",
    "RepairReport": "scrapy_simdedup.index.maintenance",
    "SentenceGroups": "scrapy_simdedup.fingerprint.nshash",
    "SimDedupError": "scrapy_simdedup.errors",
    "SimHashIndex": "scrapy_simdedup.index.handle",
    "StoreDamagedError": "scrapy_simdedup.errors",
    "StoreError": "scrapy_simdedup.errors",
    "StoreFullError": "scrapy_simdedup.errors",
    "StoreLocation": "scrapy_simdedup.index.location",
    "StoreLockedError": "scrapy_simdedup.errors",
    "StoreMismatchError": "scrapy_simdedup.errors",
    "TextFingerprint": "scrapy_simdedup.fingerprint.textprint",
    "TextTooShortError": "scrapy_simdedup.errors",
    "Tokenizer": "scrapy_simdedup.fingerprint.tokens",
    "UndecodablePageError": "scrapy_simdedup.errors",
    "UrlNotCheckedError": "scrapy_simdedup.errors",
    "UrlParts": "scrapy_simdedup.url.parts",
    "decode_page": "scrapy_simdedup.fingerprint.pagetext",
    "fingerprint_text": "scrapy_simdedup.fingerprint.textprint",
    "hamming_distance": "scrapy_simdedup.fingerprint.simhash",
    "keyword_fingerprint": "scrapy_simdedup.fingerprint.keywords",
    "open_index": "scrapy_simdedup.index.opening",
    "open_stored_index": "scrapy_simdedup.index.opening",
    "page_text": "scrapy_simdedup.fingerprint.pagetext",
    "main_text": "scrapy_simdedup.fingerprint.maincontent",
    "repair_index": "scrapy_simdedup.index.maintenance",
    "reset_index": "scrapy_simdedup.index.maintenance",
    "sentence_hashes": "scrapy_simdedup.fingerprint.nshash",
    "simhash": "scrapy_simdedup.fingerprint.simhash",
    "simhash_weights": "scrapy_simdedup.fingerprint.simhash",
    "similarity": "scrapy_simdedup.fingerprint.simhash",
    "top_keywords": "scrapy_simdedup.fingerprint.keywords",
    "url_features": "scrapy_simdedup.url.features",
    "url_parts": "scrapy_simdedup.url.parts",
    "url_simhash": "scrapy_simdedup.url.features",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:  # a submodule, as `scrapy_simdedup.errors` was before names were lazy
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
        raise AttributeError(f"module 'scrapy_simdedup' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


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
    "main_text",
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
