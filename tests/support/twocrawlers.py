"""Two crawlers of the demo spider in one process, on one index folder.

Run as ``python -m tests.support.twocrawlers START_URL FOLDER FEED_A FEED_B``; prints each crawler's
finish reason and scraped count as JSON, and exits 1 when Scrapy saw a crawler fail to start.
"""

from __future__ import annotations

import json
import os
import sys
import warnings

from scrapy.crawler import CrawlerProcess
from scrapy.exceptions import ScrapyDeprecationWarning
from scrapy.utils.project import get_project_settings


def main() -> int:
    warnings.simplefilter("error", ScrapyDeprecationWarning)
    start_url, folder, *feeds = sys.argv[1:]
    os.chdir(os.path.join(os.path.dirname(__file__), "..", "..", "demo_project"))
    settings = get_project_settings()
    settings.set("SIMDEDUP_DIR", folder)
    settings.set("DOWNLOAD_DELAY", 0.05)
    process = CrawlerProcess(settings)
    crawlers = []
    for feed in feeds:
        crawler = process.create_crawler("pages")
        crawler.settings.set("FEEDS", {feed: {"format": "jsonl"}})
        process.crawl(crawler, start_urls=start_url)
        crawlers.append(crawler)
    process.start()
    outcome = [
        {
            "finish_reason": (crawler.stats.get_value("finish_reason") if crawler.stats else None),
            "scraped": crawler.stats.get_value("item_scraped_count", 0) if crawler.stats else 0,
            "requests": (
                crawler.stats.get_value("downloader/request_count", 0) if crawler.stats else 0
            ),
        }
        for crawler in crawlers
    ]
    print(json.dumps(outcome))
    return 1 if process.bootstrap_failed else 0


if __name__ == "__main__":
    sys.exit(main())
