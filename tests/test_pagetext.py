from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.corpora import chinese_articles
from scrapy_simdedup.errors import UndecodablePageError
from scrapy_simdedup.fingerprint.pagetext import decode_page, page_text
from scrapy_simdedup.fingerprint.simhash import simhash

ARTICLE = chinese_articles()[3]


def _page(text: str, declared: str | None = None) -> str:
    meta = f'<meta charset="{declared}">' if declared else ""
    body = "".join(f"<p>{p}</p>" for p in text.split("\n"))
    return (
        f"<html><head>{meta}<title>站名</title></head><body>"
        f"<nav>首页 新闻 体育</nav><article>{body}</article><footer>版权所有</footer></body></html>"
    )


def test_furniture_scripts_and_comments_are_left_out() -> None:
    html = """<html><head><title>Title</title><style>p{}</style></head><body>
      <header>Site name</header><nav>Home | News</nav><div role="navigation">Skip</div>
      <main><h1>Headline</h1><!-- tracking comment --><p>First <b>bold</b> paragraph.</p>
      <script>var x = "script text";</script><template>tpl</template>
      <p hidden>hidden text</p><p>Second paragraph.</p></main>
      <aside>Related links</aside><form>Search <input></form><footer>Copyright</footer>
      </body></html>"""
    assert page_text(html) == "Headline\nFirst bold paragraph.\nSecond paragraph."


def test_tails_after_dropped_elements_are_kept() -> None:
    assert page_text("<p>before<script>x</script> after</p>") == "before after"


@pytest.mark.parametrize("encoding", ["utf-8", "gb18030", "gbk", "big5", "shift_jis", "euc-kr"])
@pytest.mark.parametrize("declared", ["same", None, "utf-8", "iso-8859-1", "windows-1252"])
def test_same_page_in_any_encoding_gives_the_same_fingerprint(
    encoding: str, declared: str | None
) -> None:
    text = ARTICLE.encode(encoding, "ignore").decode(encoding)  # what the encoding can carry
    reference = page_text(_page(text))
    body = _page(text, encoding if declared == "same" else declared).encode(encoding, "ignore")
    assert page_text(body) == reference
    assert simhash(page_text(body)) == simhash(reference)


def test_http_header_charset_is_used() -> None:
    body = _page(ARTICLE).encode("gb18030")
    decoded = decode_page(body, "text/html; charset=GBK")
    assert (decoded.encoding, decoded.source) == ("gb18030", "header")


@pytest.mark.parametrize("bom_encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_byte_order_mark_wins(bom_encoding: str) -> None:
    body = _page(ARTICLE, "iso-8859-1").encode(bom_encoding)
    assert decode_page(body, "text/html; charset=latin-1").source == "bom"
    assert page_text(body) == page_text(_page(ARTICLE))


@pytest.mark.parametrize(
    "body",
    [
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj",
        bytes(range(32)) * 100,
    ],
    ids=["png", "pdf", "control-bytes"],
)
def test_binary_bodies_are_refused(body: bytes) -> None:
    with pytest.raises(UndecodablePageError) as info:
        page_text(body)
    assert info.value.reason == "binary"


@pytest.mark.parametrize(
    "markup", ["", "   ", b"", "<html></html>", "<?xml version='1.0' encoding='utf-8'?><p>x</p>"]
)
def test_empty_and_odd_documents(markup: str | bytes) -> None:
    assert page_text(markup) in ("", "x")


def test_deeply_nested_html() -> None:
    html = "<div>" * 5000 + "deep text" + "</div>" * 5000
    assert "deep text" in page_text(html)


@given(st.text())
def test_any_str_gives_text(markup: str) -> None:
    assert isinstance(page_text(markup), str)


@given(st.binary())
def test_any_bytes_give_text_or_a_clear_refusal(body: bytes) -> None:
    try:
        assert isinstance(page_text(body), str)
    except UndecodablePageError as exc:
        assert exc.reason in ("binary", "undetectable")


def test_a_body_cut_inside_a_character_keeps_its_encoding() -> None:
    body = _page("中文的句子，" * 400).encode("utf-8")
    cut = body[: len(body) // 2 + 1]
    assert cut[-1] & 0xC0 == 0x80  # a continuation byte: the last character is incomplete
    decoded = decode_page(cut)
    assert decoded.encoding == "utf-8"
    assert decoded.source == "utf-8"
    assert decoded.text == body.decode("utf-8")[: len(decoded.text)]


def test_utf8_text_full_of_wide_digits_is_not_refused() -> None:
    # Sports news: full-width digits and colons everywhere. charset-normalizer's mess ratio
    # calls it 0.28 (garbage above 0.2); the page was refused as undecodable and lost.
    report = "辽宁队客场挑战济南队，直到终场前３分钟还落后５分，最终以６０∶５７拿下比赛。\n" * 3
    body = f"<html><body><h1>比分</h1><p>{report}</p></body></html>".encode()
    decoded = decode_page(body, "text/html; charset=utf-8")
    assert (decoded.encoding, decoded.source) == ("utf-8", "header")
    assert "６０∶５７" in page_text(body)
    # A single-byte codec still has to read well: GBK bytes labelled cp1252 fall through.
    gbk = f"<html><body><p>{ARTICLE}</p></body></html>".encode("gbk")
    assert decode_page(gbk, "text/html; charset=windows-1252").encoding != "cp1252"
