"""The URL side, without Scrapy: URL fingerprints, the rules learned from content verdicts
(``learner``), the judge that applies them (``judge``), and the core that owns each skip's
life as a bet (``core``), answering each event of a crawl with an action (``actions``)."""
