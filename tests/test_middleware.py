"""UrlSimHashMiddleware built as Scrapy builds it: what it never skips, and what it counts."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.misc import build_from_crawler

from scrapy_simdedup import UrlSimHashMiddleware, hamming_distance, url_parts, url_simhash
from scrapy_simdedup.scrapy_layer.parking import ParkingLot
from scrapy_simdedup.scrapy_layer.workers import COUNT_WORKERS_SECONDS
from tests.support.components import memory_crawler

ORIGINAL = "http://a.example"
MIRROR = "http://m.example"


class RecordingEngine:
    """Stands in for Scrapy's engine: records the requests sent to ``crawl``, and with
    ``scheduling``, schedules them as the engine does (the ``request_scheduled`` signal)."""

    def __init__(self, middleware: UrlSimHashMiddleware, *, scheduling: bool = False) -> None:
        self.middleware = middleware
        self.scheduling = scheduling
        self.crawled: list[Request] = []

    def crawl(self, request: Request) -> None:
        self.crawled.append(request)
        if self.scheduling:
            with suppress(IgnoreRequest):
                self.middleware.request_scheduled(request)


@contextmanager
def opened_middleware(settings: dict[str, Any] | None = None) -> Iterator[UrlSimHashMiddleware]:
    middleware = build_from_crawler(UrlSimHashMiddleware, memory_crawler(settings))
    middleware.crawler.engine = RecordingEngine(middleware)  # type: ignore[assignment]
    middleware.spider_opened()
    try:
        yield middleware
    finally:
        middleware.spider_closed()


def _fetch(middleware: UrlSimHashMiddleware, url: str, status: int = 200) -> None:
    request = Request(url)
    middleware.process_response(request, HtmlResponse(url, status=status, body=b"<p>x</p>"))


def _skipped(middleware: UrlSimHashMiddleware, request: Request) -> bool:
    try:
        middleware.request_scheduled(request)
        middleware.process_request(request)
    except IgnoreRequest:
        return True
    return False


def _engine(middleware: UrlSimHashMiddleware) -> RecordingEngine:
    engine = middleware.crawler.engine
    assert isinstance(engine, RecordingEngine)
    return engine


def _stats(middleware: UrlSimHashMiddleware) -> dict[str, Any]:
    stats = middleware.crawler.stats
    assert stats is not None
    return {k: v for k, v in stats.get_stats().items() if k.startswith("simdedup/url/")}


SAMPLED_FIRST = ("new", "own", "q", "story", "w")
"""Sections whose first would-be skip ``_teach_mirror`` fetches as a sample."""


def _teach_mirror(middleware: UrlSimHashMiddleware, pages: int = 5) -> None:
    for n in range(pages):
        _fetch(middleware, f"{ORIGINAL}/p/{n}.html")
        _fetch(middleware, f"{MIRROR}/p/{n}.html")
        middleware.content_verdict(f"{MIRROR}/p/{n}.html", f"{ORIGINAL}/p/{n}.html")
    for n in range(100, 120):
        _fetch(middleware, f"{ORIGINAL}/p/{n}.html")
    # The first would-be skip in a section where the mirror has no evidence yet is fetched
    # as a sample (its links may lead to pages only the mirror has).
    for section in SAMPLED_FIRST:
        first = Request(f"{MIRROR}/{section}/first.html")
        assert not _skipped(middleware, first)
        assert first.meta.get("simdedup_sample") == "mirror"


def test_learned_mirror_skips_and_exemptions_are_never_skipped() -> None:
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        _teach_mirror(middleware)
        assert _skipped(middleware, Request(f"{MIRROR}/p/100.html"))
        assert not _skipped(middleware, Request(f"{MIRROR}/p/101.html", dont_filter=True))
        redirected = Request(f"{MIRROR}/p/102.html", meta={"redirect_urls": [f"{MIRROR}/x"]})
        assert not _skipped(middleware, redirected)
        opted_out = Request(f"{MIRROR}/p/103.html", meta={"simdedup_dont_skip": True})
        assert not _skipped(middleware, opted_out)
        assert not _skipped(middleware, Request(f"{ORIGINAL}/p/104.html"))
        assert not _skipped(middleware, Request("ftp://m.example/p/105.html"))
        assert _engine(middleware).crawled == []
    stats = _stats(middleware)  # rules are counted while crawling every second, and at close
    assert stats["simdedup/url/skipped/mirror"] == 1
    assert stats["simdedup/url/mirror_hosts"] == 1
    for reason in ("dont_filter", "redirect", "opted_out", "not_http"):
        assert stats[f"simdedup/url/unchecked/{reason}"] == 1


def test_a_mirror_page_ahead_of_its_original_waits_for_it() -> None:
    """The copy host ran ahead along the links: the copy is skipped, and its bet waits for
    the original's own link; nothing is requested in its place. The copy comes back when
    the original fails, is refused by the dupefilter, or never comes before idle."""
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        engine = _engine(middleware)
        _teach_mirror(middleware)
        copies = [Request(f"{MIRROR}/new/{n}.html") for n in range(5)]
        for copy in copies:
            assert _skipped(middleware, copy)
        assert engine.crawled == []
        originals = [Request(f"{ORIGINAL}/new/{n}.html") for n in range(5)]
        for original in originals[:4]:  # their own links, later
            middleware.request_scheduled(original)
        missing, unreachable, seen, found, _never = originals
        middleware.process_response(missing, HtmlResponse(missing.url, status=404, body=b""))
        middleware.process_exception(unreachable, TimeoutError())
        middleware.request_dropped(seen)
        middleware.process_request(found)
        _fetch(middleware, found.url)
        middleware.content_verdict(found.url, None)
        assert [r.url for r in engine.crawled] == [c.url for c in copies[:3]]
        with pytest.raises(DontCloseSpider):  # the last original never came
            middleware.spider_idle()
        assert engine.crawled[-1].url == copies[4].url
        assert not any(r.dont_filter for r in engine.crawled)  # never seen by the dupefilter
        middleware.spider_idle()
    stats = _stats(middleware)  # closed: the bet left is final
    assert stats["simdedup/url/skipped/mirror"] == 5
    assert stats["simdedup/url/pending"] == 5
    assert stats["simdedup/url/reissued/counterpart_failed"] == 2
    assert stats["simdedup/url/reissued/counterpart_dropped"] == 1
    assert stats["simdedup/url/reissued/unsettled"] == 1
    assert stats["simdedup/url/final"] == 1


def test_a_page_that_waited_in_vain_and_came_back_new_suspends_its_rule() -> None:
    """The "copy" host has a section of its own (or is the full site taken for the copy of
    its partial mirror): its pages wait for counterparts that never come. The first one
    re-issued at idle that comes back new ends the rule's run of copies: what it parked is
    re-issued at once, the host's next pages are fetched, and once copies bring the rule
    back it skips only copies whose original is at hand."""
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        engine = _engine(middleware)
        _teach_mirror(middleware)
        own = [Request(f"{MIRROR}/own/{n}.html") for n in range(3)]
        for request in own:
            assert _skipped(middleware, request)  # pending: the original's link may come
        with pytest.raises(DontCloseSpider):  # none came
            middleware.spider_idle()
        assert sorted(r.url for r in engine.crawled) == [r.url for r in own]
        first = engine.crawled[0]
        middleware.process_request(first)
        _fetch(middleware, first.url)
        assert _skipped(middleware, Request(f"{MIRROR}/own/9.html"))  # no verdict yet
        middleware.content_verdict(first.url, None)  # new: the mirror rule was wrong here
        assert engine.crawled[-1].url == f"{MIRROR}/own/9.html"  # its bet re-issued
        assert not _skipped(middleware, Request(f"{MIRROR}/own/10.html"))
        # The rule was suspended, not reversed: a new run of copies brings it back.
        for n in range(200, 205):
            _fetch(middleware, f"{ORIGINAL}/p/{n}.html")
            _fetch(middleware, f"{MIRROR}/p/{n}.html")
            middleware.content_verdict(f"{MIRROR}/p/{n}.html", f"{ORIGINAL}/p/{n}.html")
        assert _skipped(middleware, Request(f"{MIRROR}/p/110.html"))
        # ...but it waits for no original that is not queued any more in this crawl.
        assert not _skipped(middleware, Request(f"{MIRROR}/own/11.html"))
    stats = _stats(middleware)
    assert stats["simdedup/url/reissued/unsettled"] == 3
    assert stats["simdedup/url/reissued/rule_weakened"] == 1


def test_a_mirror_page_waits_only_for_a_host_this_crawl_fetches() -> None:
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        _teach_mirror(middleware)
        # A mirror of a host this crawl never fetched: its original will not come.
        for n in range(5):
            middleware.content_verdict(
                f"http://n.example/p/{n}.html", f"http://z.example/p/{n}.html"
            )
        assert not _skipped(middleware, Request("http://n.example/p/9.html"))
        _fetch(middleware, "http://z.example/p/0.html")  # now it does: the bet may wait
        assert _skipped(middleware, Request("http://n.example/p/10.html"))
        _fetch(middleware, f"{ORIGINAL}/gone.html", status=404)  # failed in this crawl
        assert not _skipped(middleware, Request(f"{MIRROR}/gone.html"))


def test_a_request_skipped_after_the_dupefilter_saw_it_is_reissued_past_it() -> None:
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        engine = _engine(middleware)
        waiting = Request(f"{MIRROR}/w/1.html")
        middleware.request_scheduled(waiting)  # no rule yet: queued, the dupefilter saw it
        _teach_mirror(middleware)
        counterpart = Request(f"{ORIGINAL}/w/1.html")
        middleware.request_scheduled(counterpart)
        with pytest.raises(IgnoreRequest):
            middleware.process_request(waiting)  # skipped on its way to the downloader
        middleware.process_response(counterpart, HtmlResponse(counterpart.url, status=404))
        assert [(r.url, r.dont_filter) for r in engine.crawled] == [(waiting.url, True)]


def test_a_copy_of_a_page_an_earlier_crawl_kept_requests_that_page_again(tmp_path: Path) -> None:
    """This crawl met only copies of a page the last crawl kept (its own link may lead
    through pages skipped here): the page is requested again, to be re-visited."""
    settings = {
        "SIMDEDUP_URL_SAMPLE_EVERY": 1000, "SIMDEDUP_STORE": "leveldb",
        "SIMDEDUP_DIR": str(tmp_path),
    }  # fmt: skip
    with opened_middleware(settings) as first:
        assert not first.revisits  # a first crawl: no earlier page to re-visit
        _fetch(first, f"{ORIGINAL}/kept-before.html?b=2&a=1")
    with opened_middleware(settings) as middleware:
        assert middleware.revisits
        engine = _engine(middleware)
        _teach_mirror(middleware)  # pages of the original host are fetched in this crawl
        assert middleware.crawler.spider is not None
        parse = middleware.crawler.spider.parse
        earlier = {
            f"{ORIGINAL}/kept-before.html?b=2&a=1": f"{ORIGINAL}/copy/1.html",
            "http://elsewhere.example/kept-before.html": f"{ORIGINAL}/copy/2.html",  # not crawled
            f"{ORIGINAL}/p/0.html": f"{ORIGINAL}/copy/3.html",  # fetched in this crawl
        }
        for original, copy in earlier.items():
            request = Request(
                copy, callback=parse, meta={"depth": 2, "download_latency": 0.1},
                headers={"Authorization": "Basic c2VjcmV0"},
            )  # fmt: skip
            middleware.process_response(request, HtmlResponse(copy, body=b"<p>x</p>"))
            middleware.content_verdict(copy, original)
        assert [r.url for r in engine.crawled] == [f"{ORIGINAL}/kept-before.html?b=2&a=1"]
        again = engine.crawled[0]
        assert (again.callback, again.dont_filter) == (parse, False)
        assert again.meta == {"depth": 2, "simdedup_revisit_of": f"{ORIGINAL}/copy/1.html"}
        assert "Authorization" not in again.headers  # routed as the copy, not credentialed
        stats = _stats(middleware)
    assert stats["simdedup/url/revisits_requested"] == 1


def test_each_judged_request_is_checked_once() -> None:
    """``simdedup/url/checked``: requests decided on, skipped or sent to download, once."""
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        _teach_mirror(middleware)
        assert not _skipped(middleware, Request(f"{ORIGINAL}/p/200.html"))
        middleware.request_scheduled(Request(f"{ORIGINAL}/p/200.html"))  # queued already
        assert _skipped(middleware, Request(f"{MIRROR}/p/100.html"))
        # Read back from a JOBDIR queue: never scheduled in this run.
        middleware.process_request(Request(f"{ORIGINAL}/p/201.html"))
        start = Request(f"{ORIGINAL}/", dont_filter=True)
        assert not _skipped(middleware, start)
        stats = _stats(middleware)
    assert stats["simdedup/url/checked"] == 3 + len(SAMPLED_FIRST)  # the samples, and these
    assert stats["simdedup/url/unchecked/dont_filter"] == 1


def test_adaptive_mode_without_the_pipeline_warns_that_it_learns_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    alone = {"DOWNLOADER_MIDDLEWARES": {"scrapy_simdedup.UrlSimHashMiddleware": 60}}
    with opened_middleware(alone):
        pass
    warnings = [m for _, level, m in caplog.record_tuples if level == logging.WARNING]
    assert warnings == [
        "simdedup: scrapy_simdedup.UrlSimHashMiddleware runs in adaptive mode, but "
        "scrapy_simdedup.ContentSeenPipeline is not in ITEM_PIPELINES: it learns its rules "
        "from the pipeline's verdicts, so it will skip nothing. Enable the pipeline (or "
        'ADDONS = {"scrapy_simdedup.Addon": 0}), or set SIMDEDUP_URL_MODE.'
    ]
    caplog.clear()
    both = {**alone, "ITEM_PIPELINES": {"scrapy_simdedup.ContentSeenPipeline": 100}}
    with opened_middleware(both), opened_middleware({**alone, "SIMDEDUP_URL_MODE": "strict"}):
        pass
    assert not [m for _, level, m in caplog.record_tuples if "learns its rules" in m]


def test_only_successful_responses_count_as_fetched() -> None:
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        _teach_mirror(middleware)
        _fetch(middleware, f"{ORIGINAL}/gone.html", status=404)
        assert not _skipped(middleware, Request(f"{MIRROR}/gone.html"))


def test_a_link_seen_again_is_counted_once() -> None:
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        _teach_mirror(middleware)
        for _ in range(3):
            assert _skipped(middleware, Request(f"{MIRROR}/p/110.html"))
        assert _stats(middleware)["simdedup/url/skipped/mirror"] == 1


def test_strict_mode_skips_exactly_within_its_distance_on_the_same_host() -> None:
    fetched = [
        f"{ORIGINAL}/docs/lexical.html?sid=9f86d081884c7d65",
        f"{ORIGINAL}/item/17",
        f"{ORIGINAL}/product?id=17",
    ]
    asked = (
        [f"{ORIGINAL}/docs/lexical.html?sid={n:016x}" for n in range(0, 2**64 - 1, 2**59 + 7)]
        + [f"{ORIGINAL}/item/{n}" for n in range(18, 40)]
        + [f"{ORIGINAL}/product?id={n}" for n in range(18, 40)]  # near whatever the seed
        + [f"{ORIGINAL}/about.html"]
    )
    strict = {
        "SIMDEDUP_URL_MODE": "strict",
        "SIMDEDUP_URL_MAX_DISTANCE": 6,
        "SIMDEDUP_URL_SAMPLE_EVERY": 10_000,
    }
    with opened_middleware(strict) as mw:
        seed = mw.state.open().seed
        mw.state.release()
        for url in fetched:
            _fetch(mw, url)
        prints = [url_simhash(url_parts(url), seed) for url in fetched]
        for url in asked:
            nearest = min(hamming_distance(url_simhash(url_parts(url), seed), p) for p in prints)
            assert _skipped(mw, Request(url)) == (nearest <= 6), url
            # Another host is another scope: never skipped by this host's URLs.
            assert not _skipped(mw, Request(url.replace(ORIGINAL, MIRROR)))
        skipped = _stats(mw).get("simdedup/url/skipped/strict", 0)
    assert 0 < skipped < len(asked)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("SIMDEDUP_URL_MODE", "clever", "SIMDEDUP_URL_MODE must be one of"),
        ("SIMDEDUP_URL_MAX_DISTANCE", 9, "SIMDEDUP_URL_MAX_DISTANCE must be between"),
        ("SIMDEDUP_URL_SAMPLE_EVERY", 1, "SIMDEDUP_URL_SAMPLE_EVERY must be between"),
    ],
)
def test_invalid_url_settings_are_refused(name: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message), opened_middleware({name: value}):
        pass


def test_a_parked_request_is_reissued_when_its_counterpart_fails(tmp_path: Path) -> None:
    log = tmp_path / "verdicts.jsonl"
    settings = {"SIMDEDUP_URL_SAMPLE_EVERY": 1000, "SIMDEDUP_VERDICT_LOG": str(log)}
    with opened_middleware(settings) as middleware:
        engine = _engine(middleware)
        _teach_mirror(middleware)
        counterparts = [Request(f"{ORIGINAL}/q/{n}.html") for n in range(5)]
        for n, counterpart in enumerate(counterparts):
            middleware.request_scheduled(counterpart)  # queued: the copy may rely on it
            assert _skipped(middleware, Request(f"{MIRROR}/q/{n}.html"))
        middleware.process_response(
            counterparts[0], HtmlResponse(counterparts[0].url, status=404, body=b"")
        )
        middleware.process_exception(counterparts[1], TimeoutError())
        middleware.request_dropped(counterparts[2])  # the dupefilter had seen it
        _fetch(middleware, counterparts[3].url)
        middleware.content_verdict(counterparts[3].url, None)
        middleware.content_released(counterparts[3].url)  # a later pipeline dropped it
        assert [r.url for r in engine.crawled] == [f"{MIRROR}/q/{n}.html" for n in range(4)]
        # Skipped when scheduled, they never reached the dupefilter: re-issued through it.
        assert not any(r.dont_filter for r in engine.crawled)
        # The last one's counterpart never came back: re-issued before the spider idles.
        with pytest.raises(DontCloseSpider):
            middleware.spider_idle()
        assert engine.crawled[-1].url == f"{MIRROR}/q/4.html"
        middleware.spider_idle()  # nothing left: the spider may close
        stats = _stats(middleware)
    assert {k: v for k, v in stats.items() if "/reissued/" in k} == {
        "simdedup/url/reissued/counterpart_failed": 2,
        "simdedup/url/reissued/counterpart_dropped": 1,
        "simdedup/url/reissued/counterpart_released": 1,
        "simdedup/url/reissued/unsettled": 1,
    }
    # The verdict log: a line per skip and per re-issue, naming rule and counterpart, and
    # the rule in force at the end with its samples (none: every would-be skip was one).
    lines = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert [line["event"] for line in lines] == ["crawl"] + ["url_skipped"] * 5 + [
        "url_reissued"
    ] * 5 + ["url_rule"]
    assert lines[-1]["rule"] == "mirror" and lines[-1]["bound"] == 1.0, lines[-1]
    for n, line in enumerate(lines[1:6]):
        assert (line["url"], line["counterpart"], line["rule"]) == (
            f"{MIRROR}/q/{n}.html", f"{ORIGINAL}/q/{n}.html", "mirror",
        )  # fmt: skip
        assert line["rule_name"] == "m.example mirrors a.example"
    assert [(line["url"], line["why"], line["rule"]) for line in lines[6:-1]] == [
        (f"{MIRROR}/q/0.html", "counterpart_failed", "mirror"),
        (f"{MIRROR}/q/1.html", "counterpart_failed", "mirror"),
        (f"{MIRROR}/q/2.html", "counterpart_dropped", "mirror"),
        (f"{MIRROR}/q/3.html", "counterpart_released", "mirror"),
        (f"{MIRROR}/q/4.html", "unsettled", "mirror"),
    ]


def _parse(response: Any) -> None:
    """A spider callback (the requests below are routed to it)."""


def test_a_link_that_fails_on_the_original_is_requested_on_the_mirror_skipped(
    tmp_path: Path,
) -> None:
    log = tmp_path / "verdicts.jsonl"
    job = tmp_path / "job"  # an earlier run of this JOBDIR saw requests
    job.mkdir()
    (job / "requests.seen").write_text("0123456789abcdef\n")
    settings = {
        "SIMDEDUP_URL_SAMPLE_EVERY": 1000, "SIMDEDUP_VERDICT_LOG": str(log), "JOBDIR": str(job)
    }  # fmt: skip
    with opened_middleware(settings) as middleware:
        engine = _engine(middleware)
        _teach_mirror(middleware)
        early = Request(
            f"{ORIGINAL}/a/early?b=2&a=1", callback=_parse, cb_kwargs={"section": "news"},
            headers={"Cookie": "s=1", "Authorization": "Basic eDp5"},
            meta={"depth": 3, "download_slot": "a.example", "retry_times": 2},
        )  # fmt: skip
        image = Request(f"{ORIGINAL}/a/logo.png", callback=NO_CALLBACK)
        form = Request(f"{ORIGINAL}/a/search", method="POST", body=b"q=x", callback=_parse)
        for request in (early, image, form):  # before the mirror skipped anything
            middleware.request_scheduled(request)
            middleware.process_response(request, HtmlResponse(request.url, status=404))
        assert engine.crawled == []  # no mirror page skipped yet: its links came along
        middleware.request_scheduled(Request(f"{ORIGINAL}/q/0.html"))
        assert _skipped(middleware, Request(f"{MIRROR}/q/0.html"))  # the first bet
        [copy] = engine.crawled  # the earlier failure, followed; not the image or the form
        assert copy.url == f"{MIRROR}/a/early?b=2&a=1" and copy.method == "GET"
        assert copy.callback is _parse and copy.cb_kwargs == {"section": "news"}
        assert not copy.headers and not copy.dont_filter  # no credentials of the original
        assert copy.meta == {"depth": 3, "simdedup_mirror_of": f"{ORIGINAL}/a/early?a=1&b=2"}
        assert not _skipped(middleware, copy)  # it is never skipped
        canonical = f"{MIRROR}/a/early?a=1&b=2"
        assert middleware.judge is not None and middleware.judge.covers(canonical)
        middleware.request_dropped(copy)  # the dupefilter had seen it: it will not come
        assert not middleware.judge.covers(canonical)
        # While the mirror's bet is held: at once, a redirect's first URL being the link.
        moved = Request(
            f"{ORIGINAL}/b/2", callback=_parse, meta={"redirect_urls": [f"{ORIGINAL}/a/late"]}
        )
        middleware.process_exception(moved, TimeoutError())
        middleware.process_exception(moved, TimeoutError())  # again: requested once
        gone = Request(f"{ORIGINAL}/a/gone", callback=_parse)
        middleware.request_scheduled(gone)
        middleware.request_dropped(gone)  # an earlier run of its JOBDIR saw it, none fetched
        kept = Request(f"{ORIGINAL}/p/100.html", callback=_parse)
        middleware.request_dropped(kept)  # fetched: its page came
        assert [r.url for r in engine.crawled[1:]] == [f"{MIRROR}/a/late", f"{MIRROR}/a/gone"]
        stats = _stats(middleware)
    assert stats["simdedup/url/requested_on_mirror"] == 3
    assert stats["simdedup/url/unchecked/mirror_of"] == 1
    lines = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    requested = [line for line in lines if line["event"] == "url_requested"]
    assert [(line["url"], line["failed"]) for line in requested] == [
        (f"{MIRROR}/a/early?b=2&a=1", f"{ORIGINAL}/a/early?a=1&b=2"),
        (f"{MIRROR}/a/late", f"{ORIGINAL}/a/late"),
        (f"{MIRROR}/a/gone", f"{ORIGINAL}/a/gone"),
    ]
    assert {line["rule_name"] for line in requested} == {"m.example mirrors a.example"}


def test_a_failed_link_is_followed_only_where_a_mirror_skips_pages() -> None:
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        _teach_mirror(middleware)  # learned, but nothing skipped: the mirror's links come
        failed = Request(f"{ORIGINAL}/a/1", callback=_parse)
        middleware.process_response(failed, HtmlResponse(failed.url, status=500))
        middleware.process_response(
            Request(f"{MIRROR}/a/2"), HtmlResponse(f"{MIRROR}/a/2", status=404)
        )
        assert _engine(middleware).crawled == []
        # A fresh crawl (no earlier run of a JOBDIR): a link the dupefilter refuses waits
        # in the queue, another request for it went first; it failed nowhere.
        middleware.request_scheduled(Request(f"{ORIGINAL}/q/0.html"))
        assert _skipped(middleware, Request(f"{MIRROR}/q/0.html"))  # the mirror bets now
        [followed] = _engine(middleware).crawled  # the failure before, not the copy's own
        assert followed.url == f"{MIRROR}/a/1"
        pending = Request(f"{ORIGINAL}/a/3", callback=_parse)
        middleware.request_scheduled(pending)
        middleware.request_dropped(pending)
        assert len(_engine(middleware).crawled) == 1
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000, "SIMDEDUP_DROP": False}) as mw:
        _teach_mirror(mw)
        mw.request_scheduled(Request(f"{ORIGINAL}/q/0.html"))
        assert not _skipped(mw, Request(f"{MIRROR}/q/0.html"))  # annotate mode skips nothing
        mw.process_response(failed, HtmlResponse(failed.url, status=500))
        assert _engine(mw).crawled == []


def test_annotate_mode_counts_what_it_would_skip_and_fetches_it() -> None:
    with opened_middleware({"SIMDEDUP_DROP": False, "SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as mw:
        _teach_mirror(mw)
        assert not _skipped(mw, Request(f"{MIRROR}/p/100.html"))
        stats = _stats(mw)
    assert stats["simdedup/url/would_skip/mirror"] == 1
    assert "simdedup/url/skipped/mirror" not in stats


def test_strict_mode_warns_at_start(caplog: pytest.LogCaptureFixture) -> None:
    with opened_middleware({"SIMDEDUP_URL_MODE": "strict"}):
        pass
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "skipped for good, without evidence" in warnings[0]


def test_a_link_offsite_middleware_drops_is_no_counterpart() -> None:
    # Scrapy's OffsiteMiddleware drops it in its own request_scheduled handler, and no
    # request_dropped follows: were it taken for queued, mirror pages would wait on it.
    from types import SimpleNamespace

    from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware

    from scrapy_simdedup.url.parts import canonical_url

    with opened_middleware() as middleware:
        spider = middleware.crawler.spider
        assert spider is not None and middleware.judge is not None
        spider.allowed_domains = ["m.example"]
        offsite = OffsiteMiddleware(middleware.crawler.stats)
        offsite.crawler = middleware.crawler
        offsite.spider_opened(spider)
        engine = _engine(middleware)
        engine.downloader = SimpleNamespace(middleware=SimpleNamespace(middlewares=(offsite,)))  # type: ignore[attr-defined]
        middleware.request_scheduled(Request(f"{ORIGINAL}/p/300.html"))
        assert not middleware.judge.covers(canonical_url(f"{ORIGINAL}/p/300.html"))
        allowed = Request(f"{ORIGINAL}/p/301.html", meta={"allow_offsite": True})
        middleware.request_scheduled(allowed)
        assert middleware.judge.covers(canonical_url(allowed.url))
        middleware.request_scheduled(Request(f"{MIRROR}/p/302.html"))
        assert middleware.judge.covers(canonical_url(f"{MIRROR}/p/302.html"))


def test_bets_on_a_soft_404_are_reissued() -> None:
    """The original answers 200 "this story is no longer available" for stories its mirror
    still carries: the mirror's copies were skipped on those counterparts, which brought a
    page of another path of their host, not the story. Both notices' bets are re-issued
    (a bet settled on any 200: 4 of 4 stories lost, issue 34)."""
    with opened_middleware({"SIMDEDUP_URL_SAMPLE_EVERY": 1000}) as middleware:
        _teach_mirror(middleware)
        for n in (3, 5, 7):
            _fetch(middleware, f"{ORIGINAL}/story/{n}")
        for n in (3, 5, 7):
            assert _skipped(middleware, Request(f"{MIRROR}/story/{n}"))
        middleware.content_verdict(f"{ORIGINAL}/story/3", None)  # the first notice: new
        middleware.content_verdict(f"{ORIGINAL}/story/7", None)  # a real story
        assert _engine(middleware).crawled == []
        middleware.content_verdict(f"{ORIGINAL}/story/5", f"{ORIGINAL}/story/3")
        reissued = sorted(request.url for request in _engine(middleware).crawled)
        assert reissued == [f"{MIRROR}/story/3", f"{MIRROR}/story/5"]
        assert _stats(middleware)["simdedup/url/reissued/counterpart_not_predicted"] == 2
        # A copy under the same path (a session id, a sort order) is no soft 404.
        _fetch(middleware, f"{ORIGINAL}/story/7?sort=new")
        assert _skipped(middleware, Request(f"{MIRROR}/story/7?sort=new"))
        middleware.content_verdict(f"{ORIGINAL}/story/7?sort=new", f"{ORIGINAL}/story/7")
        assert len(_engine(middleware).crawled) == 2


class _ClosingSlot:
    closing = object()  # Scrapy's engine slot while it closes the spider: a Deferred


def test_a_bet_lost_while_the_engine_closes_is_parked_for_the_next_crawl(tmp_path: Path) -> None:
    """A response still on its way when the crawl ends (a budget) can weaken a rule; the
    requests parked on it were re-issued into a scheduler about to be closed, which
    dropped them with its queue, and their records were gone: the next crawl on the index
    knew nothing of them. They are parked for it now."""
    settings = {
        "SIMDEDUP_STORE": "leveldb", "SIMDEDUP_DIR": str(tmp_path),
        "SIMDEDUP_URL_SAMPLE_EVERY": 1000,
    }  # fmt: skip
    waiting = f"{MIRROR}/own/9.html"
    with opened_middleware(settings) as middleware:
        engine = _engine(middleware)
        _teach_mirror(middleware)
        own = [Request(f"{MIRROR}/own/{n}.html") for n in range(3)]
        for request in own:
            assert _skipped(middleware, request)
        with pytest.raises(DontCloseSpider):
            middleware.spider_idle()
        first = engine.crawled[0]
        middleware.process_request(first)
        _fetch(middleware, first.url)
        assert _skipped(middleware, Request(waiting))
        sent = len(engine.crawled)
        engine._slot = _ClosingSlot()  # type: ignore[attr-defined]
        middleware.content_verdict(first.url, None)  # new: the rule is weakened now
        assert len(engine.crawled) == sent  # nothing sent into the closing scheduler
    with opened_middleware(settings) as again:
        assert again.core is not None and waiting in again.core.bets
        with pytest.raises(DontCloseSpider):
            again.spider_idle()  # the interrupted crawl's bet, re-issued
        assert waiting in [r.url for r in _engine(again).crawled]


@pytest.mark.parametrize(
    "when", ["crawling", "budget_nearly_spent", "engine_closing", "idle_budget_nearly_spent"]
)
def test_a_dead_workers_parked_request_is_taken_over_while_crawling_not_while_closing(
    redis_url: str, when: str
) -> None:
    asyncio.run(_take_over_when(redis_url, when))  # the heartbeat's looping call needs a loop


async def _take_over_when(redis_url: str, when: str) -> None:
    """On Redis, a worker known dead (a record whose worker has no heartbeat: it closed, or
    was buried) leaves its parked request to a running worker, which re-issues it at its
    next heartbeat, ahead of what is queued (a crawl ending on a budget never goes idle).
    Not once the budget is nearly spent or the engine closes the spider: a request sent
    then may never be fetched, and its record would be gone; it stays for the next crawl."""
    settings: dict[str, Any] = {
        "SIMDEDUP_STORE": "redis", "SIMDEDUP_REDIS_URL": redis_url,
        "SIMDEDUP_REDIS_PREFIX": f"takeover-{when}",
    }  # fmt: skip
    if when.endswith("budget_nearly_spent"):
        settings["CLOSESPIDER_PAGECOUNT"] = 1  # its whole budget is the reserve
    url = f"{MIRROR}/p/parked.html"
    with opened_middleware(settings) as middleware:
        assert middleware.heartbeats is not None and middleware.core is not None
        store = middleware.core.judge.urls.store
        dead = ParkingLot(store, middleware.crawler.spider, owner="dead")  # type: ignore[arg-type]
        assert dead.park(url, Request(url))  # after this worker opened: no leftover of its
        engine = _engine(middleware)
        if when == "engine_closing":
            engine._slot = _ClosingSlot()  # type: ignore[attr-defined]
        if when.startswith("idle"):
            assert middleware.core.tick(force=True) == []  # a moment of the crawl: closing
            middleware.spider_idle()  # nothing to stay open for: no DontCloseSpider
        else:
            middleware.workers.pulse()  # type: ignore[union-attr]
        holder = dead.holder(url)
        if when == "crawling":
            assert [(r.url, r.meta["simdedup_reissued"]) for r in engine.crawled] == [
                (url, "abandoned")
            ]
            assert engine.crawled[0].priority > 0  # ahead of what is queued
            assert holder is None  # claimed, sent, removed
        else:
            assert middleware.core.closing == when.endswith("budget_nearly_spent")
            assert engine.crawled == [] and holder == "dead"


def test_workers_sharing_a_crawl_count_each_other(redis_url: str) -> None:
    asyncio.run(_count_workers(redis_url))  # the heartbeat's looping call needs a loop


async def _count_workers(redis_url: str) -> None:
    """Each worker sends its share of the requests a parameter rule learns from, so it
    knows how many workers share the crawl: counted at open, then at most every
    ``COUNT_WORKERS_SECONDS`` as requests go to the downloader (a worker that started a
    moment later is counted within a second; one that closed leaves the count)."""
    settings: dict[str, Any] = {
        "SIMDEDUP_STORE": "redis", "SIMDEDUP_REDIS_URL": redis_url,
        "SIMDEDUP_REDIS_PREFIX": "workers-counted",
    }  # fmt: skip
    with opened_middleware(settings) as first:
        assert first.core is not None and first.core.crew.size == 1
        assert first.workers is not None
        with opened_middleware(settings) as second:
            assert second.core is not None and second.core.crew.size == 2
            first.process_request(Request(f"{ORIGINAL}/p/1.html"))
            assert first.core.crew.size == 1  # counted less than a second ago
            first.workers.counted_at -= COUNT_WORKERS_SECONDS
            first.process_request(Request(f"{ORIGINAL}/p/2.html"))
            assert first.core.crew.size == 2
        first.workers.counted_at -= COUNT_WORKERS_SECONDS
        first.process_request(Request(f"{ORIGINAL}/p/3.html"))
        assert first.core.crew.size == 1
