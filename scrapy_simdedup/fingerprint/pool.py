"""Fingerprints made in worker processes, so a crawl's own process keeps its core.

Cutting words and hashing them is most of an item's cost, and a crawl's process is bound
to one core by the GIL. A ``FingerprintPool`` runs ``fingerprint_page`` in separate
processes (started by ``spawn``: no fork of a process that holds threads and open stores)
and hands back futures. Workers ignore SIGINT (the crawl's process decides when to stop)
and exit by themselves when that process dies.
Only the text goes to a worker and only numbers come back.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

from scrapy_simdedup.errors import TextTooShortError
from scrapy_simdedup.fingerprint.nshash import sentence_hashes
from scrapy_simdedup.fingerprint.textprint import TextFingerprint, fingerprint_text
from scrapy_simdedup.fingerprint.tokens import Tokenizer

PARENT_CHECK_SECONDS = 0.5
_WARM_UP_TEXT = "近重复检测 warms up the word cutter"


@dataclass(frozen=True)
class PageFingerprint:
    """Everything the pipeline needs from a text: its fingerprint and its sentence hashes."""

    text: TextFingerprint
    sentences: frozenset[int]


def fingerprint_page(text: str, tokenizer_name: str, seed: int) -> PageFingerprint:
    """The fingerprint (with sketch) and nshash sentence hashes of ``text``."""
    tokenizer = Tokenizer.from_name(tokenizer_name)
    try:
        sentences = sentence_hashes(text, seed=seed)
    except TextTooShortError:
        sentences = frozenset()
    fingerprint = fingerprint_text(text, tokenizer=tokenizer, seed=seed, with_sketch=True)
    return PageFingerprint(fingerprint, sentences)


def _start_worker() -> None:
    """Leave SIGINT to the crawl, and exit when the crawl's process is gone (``kill -9``
    never lets it shut the pool down, and a worker waiting for work would wait forever)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="simdedup-parent-watch", daemon=True).start()


class FingerprintPool:
    """``workers`` processes making ``fingerprint_page`` for one tokenizer and seed."""

    def __init__(self, workers: int, tokenizer: Tokenizer, seed: int) -> None:
        self.workers = workers
        self.tokenizer_name = tokenizer.name
        self.seed = seed
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
        )

    def warm_up(self) -> None:
        """Start every worker and load its word dictionary now, not on the first page."""
        for _ in range(self.workers):
            self.submit(_WARM_UP_TEXT)

    def submit(self, text: str) -> Future[PageFingerprint]:
        return self._executor.submit(fingerprint_page, text, self.tokenizer_name, self.seed)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
