"""The plugin's own Scrapy signal: how the content pipeline tells the URL middleware."""

content_verdict = object()
"""Sent by ContentSeenPipeline for every checked item with a key: ``key`` (the page's URL)
and ``original`` (the key of the page it duplicates, or None when it is new)."""

content_released = object()
"""Sent by ContentSeenPipeline when a later pipeline dropped an item it had stored: ``key``
no longer counts as fetched for the URL middleware."""
