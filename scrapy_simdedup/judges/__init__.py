"""The decisions, without Scrapy: is this text a copy of a stored page, and may this
request be skipped? The pipeline, the middleware and ``scrapy simdedup query`` ask the
same judges, so they cannot disagree."""
