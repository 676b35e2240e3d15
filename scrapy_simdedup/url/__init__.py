"""URL fingerprints and the adaptive skip rules learned from content verdicts (no Scrapy)."""
