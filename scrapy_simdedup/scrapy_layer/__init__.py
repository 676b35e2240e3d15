"""The Scrapy layer: every module that imports Scrapy, adapting the core to a crawl.

Components built with ``from_crawler`` (the pipeline, the URL middleware, the add-on), the
``scrapy simdedup`` command, and what they share per crawl (the index's state, the
settings read once, the verdict log). The decisions themselves live in the core below
(``fingerprint``, ``url``, ``index``, ``judges``, ``audit``), which never imports Scrapy.
"""
