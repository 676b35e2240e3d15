"""The demo crawl: Scrapy's defaults plus the lines README.md shows."""

BOT_NAME = "simdedup_demo"
SPIDER_MODULES = ["simdedup_demo.spiders"]
NEWSPIDER_MODULE = "simdedup_demo.spiders"

ITEM_PIPELINES = {"scrapy_simdedup.ContentSeenPipeline": 100}
DOWNLOADER_MIDDLEWARES = {"scrapy_simdedup.UrlSimHashMiddleware": 60}
SIMDEDUP_DIR = ".simdedup"

ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
CONCURRENT_REQUESTS_PER_DOMAIN = 16
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
