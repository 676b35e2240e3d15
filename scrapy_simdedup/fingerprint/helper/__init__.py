"""The fingerprint helper process, as one unit.

Scrapy runs everything in one thread; cutting and hashing a page's words is most of what
ContentSeenPipeline adds to it. So, when a core is free, a helper process does that work
and the crawl's process only looks up and decides:

* ``protocol``: the frames that carry texts out and fingerprints back;
* ``worker``: the helper process (``python -m scrapy_simdedup.fingerprint.helper.worker``);
* ``client``: the helper seen from the crawl, on its asyncio loop;
* ``policy``: when to start one.
"""
