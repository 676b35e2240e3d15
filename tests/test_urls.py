"""URL parts and the URL SimHash: one fingerprint per spelling, distances that mean something."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from w3lib.url import canonicalize_url

from scrapy_simdedup import UrlNotCheckedError, hamming_distance, url_parts, url_simhash
from scrapy_simdedup.url.features import path_template
from scrapy_simdedup.url.parts import CANONICAL_ALREADY
from scrapy_simdedup.url.shapes import value_shape


def _fp(url: str) -> int:
    return url_simhash(url_parts(url), seed=7)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("HTTP://Example.COM/a/b", "http://example.com/a/b"),
        ("http://example.com/%7Euser/", "http://example.com/~user/"),
        ("http://bücher.example/x", "http://xn--bcher-kva.example/x"),
        ("http://example.com/x?b=2&a=1", "http://example.com/x?a=1&b=2"),
        ("http://example.com:80/x", "http://example.com/x"),
        ("https://example.com:443/x#part", "https://example.com/x"),
    ],
)
def test_equivalent_spellings_give_one_url_and_fingerprint(one: str, other: str) -> None:
    assert url_parts(one).url == url_parts(other).url
    assert _fp(one) == _fp(other)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("mailto:someone@example.com", "not_http"),
        ("ftp://example.com/file", "not_http"),
        ("http:///path-only", "no_host"),
        ("http://example.com:99999/", "malformed"),
        ("http://example.com/" + "a" * 100_000, "too_long"),
        ("http://example.com/\ud800lone-surrogate", "malformed"),
    ],
)
def test_urls_that_cannot_be_judged_say_why(url: str, reason: str) -> None:
    with pytest.raises(UrlNotCheckedError) as caught:
        url_parts(url)
    assert caught.value.reason == reason


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/a\x00b\x07c",
        "http://[fe80::1%25eth0]:8080/x",
        "http://example.com/%zz%/bad-escape",
        "http://例え.テスト/パス?キー=値",
    ],
)
def test_odd_urls_are_fingerprinted(url: str) -> None:
    parts = url_parts(url)
    assert parts.url.isascii()
    assert 0 <= url_simhash(parts) < 2**64


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_no_text_raises_anything_but_the_documented_error(tail: str) -> None:
    for url in (tail, "http://example.com/" + tail, "https://" + tail):
        with contextlib.suppress(UrlNotCheckedError):
            url_simhash(url_parts(url))


def test_the_host_is_the_scope_not_a_feature() -> None:
    assert _fp("http://a.example/docs/x.html") == _fp("http://b.example/docs/x.html")
    # The trap seed 003's weights fall into: unrelated pages of one host must not coincide.
    assert (
        hamming_distance(_fp("http://a.example/about"), _fp("http://a.example/products/42/reviews"))
        >= 12
    )


def test_variants_of_a_url_are_nearer_than_other_pages() -> None:
    base = "http://a.example/docs/lexical.html"
    variants = [
        base + "?sid=9f86d081884c7d65",
        base + "?sort=title",
        "http://a.example/docs/lexical.htm",
    ]
    others = ["about", "shop/cart", "news/2026/11/ferry", "docs/", "index.php?id=7"]
    near = [hamming_distance(_fp(base), _fp(v)) for v in variants]
    far = [hamming_distance(_fp(base), _fp(f"http://a.example/{p}")) for p in others]
    assert sum(near) / len(near) < sum(far) / len(far)


def test_shapes_and_templates() -> None:
    assert [value_shape(v) for v in ("17", "2026-11", "9f86d081884c7d65", "sort", "")] == [
        "num", "date", "hex", "word", "empty",
    ]  # fmt: skip
    assert path_template(url_parts("http://a.example/events/2026-11.html")) == (
        "a.example/events/{date}"
    )
    assert path_template(url_parts("http://a.example/docs/lexical.html")) == (
        "a.example/docs/lexical.html"
    )


def test_counterparts_keep_the_spelling() -> None:
    parts = url_parts("http://a.example/x?b=&sid=1&c=2")
    assert parts.without_params(frozenset({"sid"})) == "http://a.example/x?b=&c=2"
    assert parts.with_host("m.example:8080") == "http://m.example:8080/x?b=&c=2&sid=1"


def test_remembered_parts_are_objects_the_garbage_collector_stops_walking() -> None:
    """A crawl's full collections walk every tracked object: the URL cache's entries are
    plain tuples of strings, untracked after a collection (a cache of ``UrlParts`` made
    each full collection of a crawl longer). Each collection untracks one level of
    nesting; a crawl collects its young objects every few milliseconds."""
    import gc

    from scrapy_simdedup.url.parts import _parts

    url = "http://example.com/a/b?sid=1&page=2"
    parts = url_parts(url)
    assert parts.params == (("page", "2"), ("sid", "1"))
    for _ in range(3):
        gc.collect()
    cached = _parts(url)
    assert not gc.is_tracked(cached)
    assert url_parts(url) == parts  # built again from the cache, equal


@settings(max_examples=600, deadline=None)
@given(st.from_regex(CANONICAL_ALREADY, fullmatch=True))
def test_urls_taken_as_canonical_are_what_canonicalize_url_returns(url: str) -> None:
    """The short cut past ``canonicalize_url``: stored keys (fetched marks, parked
    requests, rules) must be spelled as they always were."""
    port = CANONICAL_ALREADY.fullmatch(url).group(1)  # type: ignore[union-attr]
    if port is not None and int(port) > 65535:
        with pytest.raises(UrlNotCheckedError):
            url_parts(url)
        return
    assert canonicalize_url(url) == url
