"""The demo crawl spread over many processes or machines: scrapy-redis shares the queue and
the exact-URL dupefilter, scrapy-simdedup shares the near-duplicate index, on one Redis.

    pip install scrapy-redis 'scrapy-simdedup[redis]'
    SCRAPY_SETTINGS_MODULE=simdedup_demo.settings_distributed scrapy crawl pages -a start_urls=...

Run the same command on every worker; each page is fetched by one worker (scrapy-redis) and
each content is kept once across all of them (scrapy-simdedup). See docs/scrapy-redis.md.
"""

from simdedup_demo.settings import *  # noqa: F403

REDIS_URL = "redis://localhost:6379/0"

# scrapy-redis: one request queue and one exact-URL dupefilter for all workers.
SCHEDULER = "scrapy_redis.scheduler.Scheduler"
DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
SCHEDULER_PERSIST = True

# scrapy-simdedup: one near-duplicate index (and the URL rules it learns) for all workers.
# A Redis URL alone selects the Redis store.
SIMDEDUP_REDIS_URL = REDIS_URL
SIMDEDUP_REDIS_PREFIX = "simdedup:pages"
