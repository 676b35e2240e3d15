"""Fingerprints made in worker processes equal those made in the crawl's process."""

from __future__ import annotations

from benchmarks.corpora import chinese_articles, english_articles
from scrapy_simdedup.fingerprint.pool import FingerprintPool, fingerprint_page
from scrapy_simdedup.fingerprint.tokens import Tokenizer


def test_a_worker_fingerprints_as_the_crawl_would() -> None:
    texts = [*english_articles()[:5], *chinese_articles()[:5], "short", "", "lone \ud800 x " * 40]
    pool = FingerprintPool(2, Tokenizer(), seed=424242)
    try:
        made = [future.result(timeout=120) for future in [pool.submit(t) for t in texts]]
    finally:
        pool.close()
    assert made == [fingerprint_page(t, Tokenizer().name, 424242) for t in texts]
    assert made[0].text.sketch is not None and made[0].sentences
    assert made[5].text.simhash is not None  # Chinese, cut by the worker's own jieba
