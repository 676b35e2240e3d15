"""``MovedPages``: which page a second crawl keeps at its new URL (``scrapy_layer/moved.py``)."""

from __future__ import annotations

from scrapy import Request

from scrapy_simdedup.scrapy_layer.moved import MAX_EARLIER, MOVED_FROM, MovedPages

OLD, NEW = "https://news.example/article/1", "https://news.example/posts/1"


def test_a_page_reached_by_a_redirect_from_its_earlier_url_arrives_once() -> None:
    moved = MovedPages()
    moved.awaits(NEW, "http://news.example/article/1", OLD)  # every hop of the chain
    assert moved.arrived(NEW, "https://news.example/article/2") == ""  # another page's copy
    assert moved.arrived(NEW, OLD) == "moved"
    assert moved.arrived(NEW, OLD) == ""  # awaited once


def test_several_old_links_redirecting_to_one_page_each_count() -> None:
    moved = MovedPages()
    for n in range(MAX_EARLIER + 4):  # a flood of soft-404 redirects to one page
        moved.awaits(NEW, f"https://news.example/old/{n}")
    moved.awaits(NEW, OLD)  # past the bound: not awaited
    assert moved.arrived(NEW, OLD) == ""
    moved.awaits(NEW, OLD)
    assert moved.arrived(NEW, "https://news.example/old/3") == "moved"


def test_a_page_is_requested_again_once_and_down_is_not_gone() -> None:
    moved = MovedPages()
    routed = Request(OLD, meta={"own": 1}, priority=3)
    again = moved.request_again(routed, NEW, OLD, gone=False)
    assert again is not None and again.url == NEW and again.dont_filter
    assert again.meta == {"own": 1, MOVED_FROM: OLD} and again.priority == 3
    assert moved.request_again(routed, NEW, OLD) is None
    assert moved.arrived(NEW, OLD) == "down"  # kept in the feed, not stored there


def test_a_url_redirecting_to_itself_is_no_move() -> None:
    moved = MovedPages()
    moved.awaits(NEW, NEW)
    assert moved.arrived(NEW, NEW) == ""
