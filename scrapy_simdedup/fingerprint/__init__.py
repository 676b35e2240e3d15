"""Fingerprints of text, independent of Scrapy: SimHash, keyword fingerprint, nshash."""

from __future__ import annotations
