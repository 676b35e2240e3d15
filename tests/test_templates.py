"""``host_of``: the site whose template a page shares, as ``urlsplit`` tells it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_simdedup.judges.templates import host_of, split_host


@pytest.mark.parametrize(
    ("key", "host"),
    [
        ("http://A.Example/x", "a.example"),
        ("https://a.example:8443/x?y#z", "a.example:8443"),
        ("http://127.0.0.1:41234/doc/1.html", "127.0.0.1:41234"),
        ("http://a.example:0080/", "a.example:80"),
        ("http://a.example:0/x", "a.example"),
        ("http://a.example:99999/x", ""),  # out of range: no host
        ("http://a.example:/x", "a.example"),
        ("http://user:pw@a.example:81/x", "a.example:81"),
        ("http://[::1]:8080/x", "::1:8080"),
        ("http://a.ex\tample/x", "a.example"),
        ("  http://a.example/x", "a.example"),
        ("text:0123456789abcdef", ""),
        ("a.example/x", ""),
        ("", ""),
    ],
)
def test_host_of(key: str, host: str) -> None:
    assert host_of(key) == host == split_host(key)


@settings(max_examples=400, deadline=None)
@given(
    st.from_regex(
        r"\A[A-Za-z][A-Za-z0-9+.-]{0,5}://[A-Za-z0-9.\-@:\[\] \t%]{0,20}"
        r"([:/?#][\x00-\x7f]{0,10})?\Z"
    )
)
def test_host_of_agrees_with_urlsplit(key: str) -> None:
    assert host_of(key) == split_host(key)
