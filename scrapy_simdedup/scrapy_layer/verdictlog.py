"""The crawl's verdict log (``SIMDEDUP_VERDICT_LOG``), shared by the pipeline and the middleware.

An adapter over ``scrapy_simdedup.audit``: the first component opens the file named by the
setting (``%(name)s``: the spider's name, ``%(time)s``: the crawl's start) and writes a
``crawl`` line with the settings the verdicts depend on; the last one closes it, writing
what is buffered. A path that cannot be opened stops the crawl at start with one ERROR; a
write that fails later is one ERROR, and the crawl goes on without its log.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, ClassVar
from weakref import WeakKeyDictionary

from scrapy_simdedup.audit.log import VerdictLog, log_path
from scrapy_simdedup.audit.records import (
    content_record,
    crawl_record,
    url_reissued_record,
    url_requested_record,
    url_rule_record,
    url_skipped_record,
)
from scrapy_simdedup.errors import SettingError
from scrapy_simdedup.scrapy_layer.startup import config_for, report_setting_error

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_simdedup.audit.records import Record
    from scrapy_simdedup.judges.verdict import Verdict
    from scrapy_simdedup.url.rules import Rule

logger = logging.getLogger(__name__)


class CrawlVerdictLog:
    """One per crawler (``for_crawler``); each component ``acquire``s it and ``release``s it."""

    _by_crawler: ClassVar[WeakKeyDictionary[Crawler, CrawlVerdictLog]] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler, template: str | None) -> None:
        self.crawler = crawler
        self.template = template
        self.log: VerdictLog | None = None
        self._users = 0

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> CrawlVerdictLog:
        shared = cls._by_crawler.get(crawler)
        if shared is None:
            shared = cls._by_crawler[crawler] = cls(crawler, config_for(crawler).verdict_log)
        return shared

    def acquire(self) -> None:
        """The first call opens the log (when the setting names one)."""
        self._users += 1
        if self._users == 1 and self.template:
            self._open(self.template)

    def _open(self, template: str) -> None:
        spider = getattr(self.crawler.spider, "name", None) or "default"
        path = log_path(template, spider)
        try:
            self.log = VerdictLog(path)
        except OSError as exc:
            self._users -= 1
            error = SettingError(
                f"SIMDEDUP_VERDICT_LOG names {path}, which cannot be opened for writing "
                f"({exc.strerror or exc}); give a writable path"
            )
            report_setting_error(error)
            raise error from None
        config = config_for(self.crawler)
        self._write(
            crawl_record(
                spider,
                confirm_similarity=config.confirm_similarity,
                content_max_distance=config.content_max_distance,
                drop=config.drop,
                url_mode=config.url_mode,
            )
        )
        logger.info("simdedup: verdict log at %s", path)

    def release(self) -> None:
        """The last call writes what is buffered and closes the log."""
        self._users -= 1
        if self._users == 0 and self.log is not None:
            log, self.log = self.log, None
            try:
                log.close()
            except OSError as exc:
                self._failed(log, exc)

    def verdict(self, verdict: Verdict, event: str) -> None:
        """A content verdict: ``dropped``, ``annotated`` or ``unconfirmed``."""
        if self.log is not None:
            self._write(content_record(verdict, event))

    def skipped(
        self, url: str, rule: Rule, counterpart: str | None, *, pending: bool = False
    ) -> None:
        if self.log is not None:
            self._write(url_skipped_record(url, rule, counterpart, pending=pending))

    def reissued(self, url: str, why: str, rule: Rule | None, counterpart: str | None) -> None:
        if self.log is not None:
            self._write(url_reissued_record(url, why, rule, counterpart))

    def rule(self, rule: Rule, samples: int, new: int) -> None:
        """A URL rule in force at the crawl's end, with what its counts say."""
        if self.log is not None:
            self._write(url_rule_record(rule, samples, new))

    def requested_on_mirror(self, url: str, failed: str, rule: Rule) -> None:
        if self.log is not None:
            self._write(url_requested_record(url, failed, rule))

    def _write(self, record: Record) -> None:
        log = self.log
        if log is None:
            return
        try:
            log.write(record)
        except OSError as exc:
            self.log = None
            self._failed(log, exc)

    @staticmethod
    def _failed(log: VerdictLog, exc: OSError) -> None:
        logger.error(
            "simdedup: writing the verdict log %s failed (%s); the crawl goes on without it",
            log.path, exc,
        )  # fmt: skip
