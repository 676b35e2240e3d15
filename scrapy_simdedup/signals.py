"""The plugin's own Scrapy signal: how the content pipeline tells the URL middleware."""

content_verdict = object()
"""Sent by ContentSeenPipeline for every checked item with a key: ``key`` (the page's URL)
and ``original`` (the key of the page it duplicates, or None when it is new)."""
