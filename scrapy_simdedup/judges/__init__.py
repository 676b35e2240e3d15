"""The content decisions, without Scrapy: is this text a copy of a stored page? The
pipeline and ``scrapy simdedup query`` ask the same judge, so they cannot disagree. (May
this request be skipped is the URL side's: ``scrapy_simdedup.url``.)"""
