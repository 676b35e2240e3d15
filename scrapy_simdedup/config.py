"""Every ``SIMDEDUP_*`` setting, read and validated in one place.

A wrong value stops the crawl at start with a ``SettingError`` (a ``ValueError``) naming the
setting, the value and what is allowed; an unknown ``SIMDEDUP_*`` name (a typo) does too,
because a misspelt setting must never mean a crawl that silently keeps duplicates.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from scrapy_simdedup.audit.log import log_path
from scrapy_simdedup.errors import SettingError
from scrapy_simdedup.index.handle import DEFAULT_EXPECTED_SIZE
from scrapy_simdedup.index.heartbeats import DEFAULT_TIMEOUT
from scrapy_simdedup.index.location import REDIS_SCHEMES, STORE_KINDS, redacted
from scrapy_simdedup.index.memtables import DEFAULT_TABLE_MEMORY
from scrapy_simdedup.index.stores.memory import DEFAULT_MAX_KEYS
from scrapy_simdedup.index.tables import MAX_DISTANCE
from scrapy_simdedup.url.deadlines import Budget
from scrapy_simdedup.url.learner import MIN_EVIDENCE, SAMPLE_EVERY

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings
    from typing_extensions import Self

_KINDS = {bool: "True or False", int: "a whole number", float: "a number", tuple: "a list"}
CJK_MODES = ("jieba", "bigrams")
URL_MODES = ("adaptive", "strict", "off")
HTML_MODES = ("auto", "html", "text")  # SIMDEDUP_CONTENT_HTML: are str fields HTML?
HTML_CONTENTS = ("main", "page")  # SIMDEDUP_HTML_CONTENT: what of an HTML field is judged
WEIGHTINGS = ("tf", "idf")
DEFAULT_REDIS_URL = "redis://localhost:6379/0"
_CRAWL_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
MAX_URL_DISTANCE = 6
"""Strict mode's bound: beyond 6 bits (about 90% similarity) URLs of different pages meet."""


@dataclass(frozen=True)
class SimDedupConfig:
    """The plugin's settings; the attribute ``x_y`` is the setting ``SIMDEDUP_X_Y``."""

    enabled: bool = True
    """``False`` turns the pipeline and the middleware off (``NotConfigured``)."""
    store: str = "leveldb"
    """``"leveldb"`` (a folder), ``"memory"`` (bounded by ``SIMDEDUP_MEMORY_LIMIT`` keys,
    gone at close) or ``"redis"`` (shared by many workers;
    ``pip install 'scrapy-simdedup[redis]'``)."""
    dir: str | None = None
    """The LevelDB index folder; the spider's name is appended. Default:
    ``JOBDIR/simdedup``, else ``.scrapy/simdedup/<spider>``."""
    reset: bool = False
    """Start a fresh index (also ``-a simdedup_reset=1``); only the plugin's own files or
    keys are removed."""
    content_fields: tuple[str, ...] = ("title", "text")
    """Item fields that hold the content; an item with none of them is kept and counted,
    never judged on its title alone."""
    content_html: str = "auto"
    """Whether str fields are HTML: ``"auto"`` (when they look like a document or a fragment
    of one), ``"html"`` or ``"text"``."""
    html_content: str = "main"
    """What of an HTML field is judged: ``"main"``, its main content (menus, sidebars, share
    bars and footers laid out in plain ``div`` elements left out, by resiliparse's extractor;
    the whole text when the extract is under 20 words or a quarter of the page), or
    ``"page"``, all its readable text."""
    stricter_reading: bool = True
    """Whether an HTML page whose main content adds content to another site's stored page
    is read again by a stricter extraction (trafilatura's precision mode, what it leaves out
    bounded), and dropped when that text is a copy: a reprint inside a portal's comment
    form, newsletter box and headlines met for the first time. It costs about four times the
    main content's extraction, on such pages only. With ``SIMDEDUP_HTML_CONTENT = "page"``
    pages are never read again."""
    key_field: str = "url"
    """The item field naming the page (its URL); an item without one is keyed by its text's
    hash."""
    content_max_distance: int = 3
    """k: the SimHash bits two texts may differ in to be candidates, 0 to 8. Recorded in the
    store: changing it needs a new index."""
    drop: bool = True
    """``False``: keep copies and annotate them (``simdedup_cluster``,
    ``simdedup_distance``) instead of dropping; the URL middleware then skips nothing and
    counts ``would_skip``."""
    confirm_similarity: float = 0.8
    """The estimated Jaccard similarity of 3-token shingles a candidate needs to be
    confirmed as a copy, 0 to 1."""
    max_text_chars: int = 300_000
    """Text cap per item (markup is cut at 8x before parsing); longer texts are judged on
    their start and counted as truncated."""
    expected_pages: int = DEFAULT_EXPECTED_SIZE
    """Sizes the table design: 4 tables of 16-bit prefixes up to about 16M pages at k = 3,
    more beyond."""
    cjk: str = "jieba"
    """How Chinese is cut into words: ``"jieba"`` (rjieba's dictionary words) or
    ``"bigrams"`` (character bigrams, no dictionary; no faster than rjieba, several times
    faster than jieba itself)."""
    weighting: str = "tf"
    """Feature weights: ``"tf"`` (term frequency) or ``"idf"`` (times jieba's IDF table)."""
    memory_limit: int = DEFAULT_MAX_KEYS
    """Keys the memory store may hold; past it the spider closes with
    ``simdedup_store_error``."""
    table_memory_mb: int = DEFAULT_TABLE_MEMORY // 2**20
    """MB the content index's permuted tables may take in memory (and as much the URL
    index's), 0 for none: on LevelDB and the memory store look-ups search sorted arrays
    there (8 bytes per entry, 32 per page with 4 tables; 10M pages about 320 MB), not the
    store's buckets. An index that outgrows it scans the store again, as on Redis."""
    sync: bool = False
    """Flush every add to disk, so adds survive a power loss, not only a crash."""
    fingerprint_process: bool = True
    """Cut and hash page text in a helper process when the machine has a second core and the
    crawl runs Scrapy's default asyncio reactor; ``False`` does everything in the crawl's
    process."""
    gc_freeze: bool = True
    """Leave the objects that exist when the engine starts (modules, classes, settings) out
    of garbage collection until the crawl ends (``gc.freeze()``): every full collection
    walked them, and the crawl's process spends about 10% less CPU per page. ``False``
    leaves Python's collector as it is (when the process's own code manages it)."""
    redis_url: str | None = None
    """The Redis (or Redis Cluster node) to share the index on: ``redis://``, ``rediss://``
    or ``unix://``, with password or ACL user. Given alone, it selects the Redis store;
    given with another ``SIMDEDUP_STORE``, the crawl stops at start (each worker would keep
    a private index). Without it, ``SIMDEDUP_STORE = "redis"`` uses
    ``redis://localhost:6379/0``."""
    redis_prefix: str | None = None
    """The prefix of every Redis key of the index. Default: ``simdedup:<spider>``."""
    crawl_id: str | None = None
    """Redis: the crawl its workers share. Default: a worker that opens while another of the
    same index runs joins its crawl; one that opens alone starts a new crawl (and the last
    crawl's records go)."""
    url_mode: str = "adaptive"
    """The URL middleware: ``"adaptive"`` (skips on rules learned from the pipeline's
    verdicts, every skip a bet), ``"strict"`` (skips URLs near a fetched one, for good) or
    ``"off"``."""
    url_max_distance: int = 3
    """Strict mode's bound in URL SimHash bits, 0 to 6. Recorded in the store: another value
    is refused at start (the crawl exits non-zero before fetching, naming
    ``u.max_distance``; reset the index or use a new folder)."""
    url_min_evidence: int = MIN_EVIDENCE
    """Copies in a row before a URL rule skips anything (twice this for traps)."""
    url_sample_every: int = SAMPLE_EVERY
    """At most one in this many would-be skips is fetched to check its rule (more while
    evidence is thin)."""
    url_risk: float = 0.0
    """The share of a URL rule's skipped pages that may differ from their counterparts,
    0 to 0.5. A page that comes back new where a rule predicted a copy ends the rule (all
    its skips re-issued) unless its samples still bound that share within this, at 95%
    confidence (``url/estimate.py``): then only the skips of that page's section are
    re-issued. With a risk, a rule samples one in two of its would-be skips until its
    samples could stand one new page. 0, the default, ends a rule at its first new page.
    Not applied on a store several workers share (a WARNING at start says so)."""
    verdict_log: str | None = None  # a JSON-lines file; %(name)s and %(time)s as in FEEDS
    """A JSON-lines file, one line per verdict worth auditing; ``%(name)s`` is the spider's
    name, ``%(time)s`` the crawl's start. Off by default."""
    worker_timeout: float = DEFAULT_TIMEOUT  # Redis: a worker silent this long is dead
    """On Redis: seconds a worker's heartbeat may stand still before it counts as dead and
    what it parked is re-issued by another (1 to 86,400)."""

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> Self:
        known = {f"SIMDEDUP_{f.name.upper()}": f.name for f in fields(cls)}
        _refuse_unknown(settings, known)
        values: dict[str, Any] = {}
        for name, attribute in known.items():
            if settings.get(name) is not None:
                values[attribute] = _read(settings, name, getattr(cls, attribute))
        if "redis_url" in values and "store" not in values:
            values["store"] = "redis"  # a Redis URL is how a user says "share the index"
        config = cls(**values)
        config.validate()
        return config

    @property
    def redis_address(self) -> str:
        """The Redis URL of the Redis store: SIMDEDUP_REDIS_URL, or Redis on localhost."""
        return self.redis_url or DEFAULT_REDIS_URL

    def validate(self) -> None:
        _choice("SIMDEDUP_STORE", self.store, STORE_KINDS)
        _choice("SIMDEDUP_CJK", self.cjk, CJK_MODES)
        _choice("SIMDEDUP_WEIGHTING", self.weighting, WEIGHTINGS)
        _choice("SIMDEDUP_CONTENT_HTML", self.content_html, HTML_MODES)
        _choice("SIMDEDUP_HTML_CONTENT", self.html_content, HTML_CONTENTS)
        _range("SIMDEDUP_CONTENT_MAX_DISTANCE", self.content_max_distance, 0, MAX_DISTANCE)
        _range("SIMDEDUP_CONFIRM_SIMILARITY", self.confirm_similarity, 0.0, 1.0)
        _range("SIMDEDUP_MAX_TEXT_CHARS", self.max_text_chars, 1_000, 100_000_000)
        _range("SIMDEDUP_EXPECTED_PAGES", self.expected_pages, 1, 10**12)
        _range("SIMDEDUP_MEMORY_LIMIT", self.memory_limit, 1_000, 10**10)
        _range("SIMDEDUP_TABLE_MEMORY_MB", self.table_memory_mb, 0, 10**7)
        _choice("SIMDEDUP_URL_MODE", self.url_mode, URL_MODES)
        _shared_index(self)
        if self.redis_prefix is not None and (
            not self.redis_prefix or "{" in self.redis_prefix or "}" in self.redis_prefix
        ):
            raise SettingError(
                "SIMDEDUP_REDIS_PREFIX must be non-empty, without braces; "
                f"got {self.redis_prefix!r}"
            )
        _range("SIMDEDUP_URL_MAX_DISTANCE", self.url_max_distance, 0, MAX_URL_DISTANCE)
        _range("SIMDEDUP_URL_MIN_EVIDENCE", self.url_min_evidence, 1, 10_000)
        _range("SIMDEDUP_URL_SAMPLE_EVERY", self.url_sample_every, 2, 10_000)
        _range("SIMDEDUP_URL_RISK", self.url_risk, 0.0, 0.5)
        _range("SIMDEDUP_WORKER_TIMEOUT", self.worker_timeout, 1.0, 86_400.0)
        names = self.content_fields
        if not names or not all(isinstance(name, str) and name for name in names):
            raise SettingError(
                f"SIMDEDUP_CONTENT_FIELDS must be a non-empty list of item field names, "
                f"got {self.content_fields!r}"
            )
        if self.verdict_log is not None:
            _log_template(self.verdict_log)
        if self.dir is not None and (not self.dir.strip() or "\x00" in self.dir):
            raise SettingError(
                f"SIMDEDUP_DIR must be a non-empty path without NUL bytes, got {self.dir!r}"
            )


def _shared_index(config: SimDedupConfig) -> None:
    """A Redis URL means one index shared by every worker: given with another store kind,
    each worker would silently keep a private index instead (issue 35)."""
    url = config.redis_url
    if url is not None and not url.startswith(REDIS_SCHEMES):
        raise SettingError(
            f"SIMDEDUP_REDIS_URL must be a redis://, rediss:// or unix:// URL, "
            f"got {redacted(url)!r}"
        )
    if url is not None and config.store != "redis":
        raise SettingError(
            f"SIMDEDUP_REDIS_URL is set but SIMDEDUP_STORE is {config.store!r}: each worker "
            "would keep a private index. Remove SIMDEDUP_STORE (a Redis URL selects the "
            "Redis store) or remove SIMDEDUP_REDIS_URL."
        )
    crawl = config.crawl_id
    if crawl is not None and (not _CRAWL_ID.fullmatch(crawl)):
        raise SettingError(
            "SIMDEDUP_CRAWL_ID must be 1 to 64 letters, digits, '.', '_', ':' or '-'; "
            f"got {crawl!r}"
        )
    if crawl is not None and config.store != "redis":
        raise SettingError(
            f"SIMDEDUP_CRAWL_ID names a crawl its workers share on Redis, but SIMDEDUP_STORE "
            f"is {config.store!r}. Set SIMDEDUP_REDIS_URL, or remove SIMDEDUP_CRAWL_ID."
        )


def _log_template(template: str) -> None:
    if not template.strip() or "\x00" in template:
        raise SettingError(
            f"SIMDEDUP_VERDICT_LOG must be a file path without NUL bytes, got {template!r}"
        )
    try:
        log_path(template, "spider")
    except ValueError as exc:
        raise SettingError(f"SIMDEDUP_VERDICT_LOG: {exc}") from None


def _refuse_unknown(settings: BaseSettings, known: dict[str, str]) -> None:
    for name in settings:
        if isinstance(name, str) and name.startswith("SIMDEDUP_") and name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise SettingError(f"{name} is not a scrapy-simdedup setting{hint}")


def _read(settings: BaseSettings, name: str, default: object) -> object:
    raw = settings.get(name)
    try:
        if isinstance(default, bool):
            return settings.getbool(name)
        if isinstance(default, int):
            if isinstance(raw, float) and not raw.is_integer():
                raise ValueError
            return settings.getint(name)
        if isinstance(default, float):
            return settings.getfloat(name)
        if isinstance(default, tuple):
            return tuple(settings.getlist(name))
    except (TypeError, ValueError):
        kind = _KINDS[type(default)]
        raise SettingError(f"{name} must be {kind}, got {raw!r}") from None
    if not isinstance(raw, str):
        raise SettingError(f"{name} must be a string, got {raw!r}")
    return raw


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise SettingError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")


def _range(name: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise SettingError(f"{name} must be between {low:,} and {high:,}; got {value!r}")


def crawl_budget(settings: BaseSettings) -> Budget:
    """What the crawl allows before CloseSpider ends it (``CLOSESPIDER_TIMEOUT``,
    ``CLOSESPIDER_PAGECOUNT``, ``CLOSESPIDER_ITEMCOUNT``; Scrapy's settings, read here as
    every setting the plugin depends on is): its bets must settle inside it."""
    try:
        return Budget(
            pages=max(0, settings.getint("CLOSESPIDER_PAGECOUNT", 0)),
            seconds=max(0.0, settings.getfloat("CLOSESPIDER_TIMEOUT", 0.0)),
            items=max(0, settings.getint("CLOSESPIDER_ITEMCOUNT", 0)),
        )
    except ValueError:  # Scrapy's CloseSpider refuses such a value itself
        return Budget()


def depth_limit(settings: BaseSettings) -> int:
    """Scrapy's ``DEPTH_LIMIT`` (0: none): a copy is skipped only for a counterpart no
    deeper than itself, or the links it holds may lie beyond the limit on the original."""
    try:
        return max(0, settings.getint("DEPTH_LIMIT", 0))
    except ValueError:  # Scrapy's DepthMiddleware refuses such a value itself
        return 0
