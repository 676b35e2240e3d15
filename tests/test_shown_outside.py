"""What a stored page showed outside the text it was judged by (issue 57): its extractor left
out a pull quote, a caption, an embedded post, which a reprint lays out as a paragraph of
its own. Kept as hashes in the stored payload, such a line makes no reprint "add content";
a line the original never showed still does.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from scrapy_simdedup.fingerprint.blocks import packed_text_blocks
from scrapy_simdedup.fingerprint.fingerprinted import fingerprinted
from scrapy_simdedup.fingerprint.helper.protocol import (
    LENGTH,
    decode_reply,
    decode_request,
    encode_request,
)
from scrapy_simdedup.fingerprint.maincontent import main_content
from scrapy_simdedup.fingerprint.packedblocks import PackedBlocks
from scrapy_simdedup.fingerprint.payload import MAX_OUTSIDE, payload_of, split_payload
from scrapy_simdedup.fingerprint.sketch import SKETCH_BYTES
from scrapy_simdedup.fingerprint.textprint import exact_hash
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from scrapy_simdedup.index.handle import SimHashIndex
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.judges.content import ContentJudge
from tests.test_chrome_evidence import ARTICLES, _paragraphs, _story

PULL_QUOTE = (
    "We will keep every ferry in port until the storm has passed and the harbour wall has "
    "been checked by our own engineers, the harbour master told the council late on Sunday."
)
TOKENIZER = Tokenizer()
NEVER_SHOWN = (
    "A second storm is expected on Thursday, and the coastguard has asked the owners of small "
    "boats along the northern shore to move them inland before the weekend begins."
)


@pytest.fixture
def index() -> Iterator[SimHashIndex]:
    with open_index("memory", seed=1) as opened:
        yield opened


def _original(paragraphs: list[str], aside: str) -> str:
    """A news page whose story carries a box (``aside``) its extractor leaves out."""
    return (
        "<html><head><title>News</title></head><body><article>"
        f"{_story(paragraphs[:3])}<aside><p>{aside}</p></aside>{_story(paragraphs[3:])}"
        "</article></body></html>"
    )


def _reprint(paragraphs: list[str], laid_out: str) -> str:
    """A portal's page: the story, with ``laid_out`` as a paragraph of it."""
    body = [*paragraphs[:3], laid_out, *paragraphs[3:]]
    return f"<html><head><title>Portal</title></head><body><div>{_story(body)}</div></body></html>"


def test_main_content_gives_the_lines_its_extract_left_out() -> None:
    paragraphs = _paragraphs(ARTICLES[0])
    found = main_content(_original(paragraphs, PULL_QUOTE))
    assert PULL_QUOTE not in found.text
    assert found.outside.splitlines() == [PULL_QUOTE]
    assert all(paragraph not in found.outside for paragraph in paragraphs)


def _original_stored(index: SimHashIndex) -> tuple[ContentJudge, list[str]]:
    """A judge holding the news page whose box carries ``PULL_QUOTE``, stored as the
    pipeline stores an HTML item (with what its extract left out); its paragraphs."""
    judge = ContentJudge(index)
    paragraphs = _paragraphs(ARTICLES[0])
    stored = main_content(_original(paragraphs, PULL_QUOTE))
    judge.judge(stored.text, "https://news.example/1", outside=stored.outside)
    return judge, paragraphs


def test_a_reprint_laying_out_what_its_original_showed_aside_is_a_copy(
    index: SimHashIndex,
) -> None:
    judge, paragraphs = _original_stored(index)
    reprint = main_content(_reprint(paragraphs, PULL_QUOTE)).text
    verdict = judge.judge(reprint, "https://portal.example/r/1")
    assert verdict.copy and verdict.original == "https://news.example/1", verdict
    assert verdict.confirmation is not None
    assert verdict.confirmation.novel_words == 0
    assert verdict.confirmation.shown_words == len(PULL_QUOTE.split())


def test_without_what_the_original_showed_the_same_reprint_adds_content(
    index: SimHashIndex,
) -> None:
    # The control: the pull quote is what made the reprint "add" words before.
    judge = ContentJudge(index)
    paragraphs = _paragraphs(ARTICLES[0])
    judge.judge(main_content(_original(paragraphs, PULL_QUOTE)).text, "https://news.example/1")
    verdict = judge.judge(
        main_content(_reprint(paragraphs, PULL_QUOTE)).text, "https://portal.example/r/1"
    )
    assert not verdict.copy and verdict.adds_content, verdict


def test_a_reprint_adding_a_paragraph_its_original_never_showed_is_kept(
    index: SimHashIndex,
) -> None:
    judge, paragraphs = _original_stored(index)
    added = main_content(_reprint(paragraphs, f"{PULL_QUOTE}</p><p>{NEVER_SHOWN}")).text
    verdict = judge.judge(added, "https://portal.example/r/2")
    assert not verdict.copy and verdict.adds_content, verdict


def test_an_article_teased_beside_a_stored_one_is_kept(index: SimHashIndex) -> None:
    # A stored page's sidebar quotes another article's first paragraph: that article,
    # met later on another site, holds no stored page's content and is kept.
    judge = ContentJudge(index)
    first, second = _paragraphs(ARTICLES[0]), _paragraphs(ARTICLES[1])
    stored = main_content(_original(first, second[0]))
    assert stored.outside.splitlines() == [second[0]]
    judge.judge(stored.text, "https://news.example/1", outside=stored.outside)
    verdict = judge.judge(main_content(_reprint(second, "")).text, "https://portal.example/a/2")
    assert not verdict.copy, verdict


def test_on_its_own_host_a_line_shown_aside_still_counts(index: SimHashIndex) -> None:
    # Two pages of one site differ by what they show: the same story with the box's quote
    # as a paragraph of its own, on the story's own host, is a page of its own.
    judge, paragraphs = _original_stored(index)
    verdict = judge.judge(
        main_content(_reprint(paragraphs, f"{PULL_QUOTE}</p><p>{NEVER_SHOWN}")).text,
        "https://news.example/1?print=1",
    )
    assert not verdict.copy, verdict


def test_the_payload_keeps_the_hashes_beside_the_sketch_and_blocks() -> None:
    text = "\n\n".join(_paragraphs(ARTICLES[2]))
    done = fingerprinted(text, TOKENIZER, 1, outside=PULL_QUOTE)
    parts = split_payload(done.payload)
    assert len(parts.sketch) == SKETCH_BYTES
    assert parts.blocks == done.blocks.raw
    assert len(parts.outside) == 1
    # The page's own sentences are never among them, and a payload without any reads as
    # before (stored by an earlier version).
    again = fingerprinted(text, TOKENIZER, 1, outside=text)
    assert split_payload(again.payload).outside == frozenset()
    plain = fingerprinted(text, TOKENIZER, 1)
    assert split_payload(plain.payload) == (parts.sketch, parts.blocks, frozenset())


def test_at_most_max_outside_hashes_are_kept() -> None:
    sentences = "\n".join(f"Line number {n} of a very long sidebar list here." for n in range(400))
    blocks = packed_text_blocks("One short page of four words.", 1)
    done = fingerprinted(
        "A page of its own, long enough to be judged.", TOKENIZER, 1,
        outside=sentences,
    )  # fmt: skip
    assert len(split_payload(done.payload).outside) == MAX_OUTSIDE
    sketch = done.fingerprint.sketch
    assert len(split_payload(payload_of(sketch, blocks, tuple(range(1000)))).outside) == MAX_OUTSIDE


@pytest.mark.parametrize("tail", [b"\x01", b"\x02\x00" + bytes(8), b"\x00\x00\x00"])
def test_a_malformed_trailer_gives_no_hashes_and_no_blocks(tail: bytes) -> None:
    done = fingerprinted("\n".join(_paragraphs(ARTICLES[2])), TOKENIZER, 1)
    parts = split_payload(done.payload + tail)
    assert parts.outside == frozenset()
    assert PackedBlocks.of(parts.blocks) is None  # compared by similarity alone, not misread


@pytest.mark.parametrize(
    ("text", "outside"), [("one text", ""), ("ünïcode \ud800 text", "a caption\nand \udfff")]
)
def test_a_request_carries_the_text_and_what_its_page_left_out(text: str, outside: str) -> None:
    frame = encode_request(text, 42, outside)
    (size,) = LENGTH.unpack_from(frame)
    assert decode_request(frame[LENGTH.size :]) == (text, 42, outside)
    assert size == len(frame) - LENGTH.size


def test_the_helper_process_keeps_the_hashes_as_the_crawls_process_would() -> None:
    text = "\n\n".join(_paragraphs(ARTICLES[3]))
    command = [
        sys.executable,
        "-m",
        "scrapy_simdedup.fingerprint.helper.worker",
        TOKENIZER.name,
        "7",
    ]
    done = subprocess.run(
        command, input=encode_request(text, exact_hash(text, 7), PULL_QUOTE),
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    (size,) = LENGTH.unpack_from(done.stdout)
    reply = decode_reply(done.stdout[LENGTH.size : LENGTH.size + size])
    assert reply == fingerprinted(text, TOKENIZER, 7, outside=PULL_QUOTE)
    assert len(split_payload(reply.payload).outside) == 1


def test_a_digest_of_the_story_and_the_article_its_box_carried_is_kept(
    index: SimHashIndex,
) -> None:
    # The stored story's box (left out by its extractor) carried a whole other article;
    # a digest on another site holds both: the second article is in no judged text, and
    # a run of paragraphs the stored page only showed aside counts beyond a caption's size.
    judge = ContentJudge(index)
    story, other = _paragraphs(ARTICLES[0]), _paragraphs(ARTICLES[1])
    box = "".join(f"<p>{p}</p>" for p in other[:4])
    html = (
        "<html><head><title>News</title></head><body><article>"
        f"{_story(story)}</article><aside class='recommended'>{box}</aside></body></html>"
    )
    stored = main_content(html)
    assert all(p in stored.outside for p in other[:4])
    judge.judge(stored.text, "https://news.example/1", outside=stored.outside)
    digest = main_content(_reprint(story + other[:4], "")).text
    verdict = judge.judge(digest, "https://portal.example/digest")
    assert not verdict.copy and verdict.adds_content, verdict


@pytest.mark.parametrize(
    "hidden", ["hidden", "aria-hidden='true'", "style='display:none'", "style='visibility: hidden'"]
)
def test_text_a_reader_never_saw_is_not_shown(hidden: str, index: SimHashIndex) -> None:
    # A paywall keeps the rest of the story in a hidden element: the full story, met on
    # another site, adds that rest.
    judge = ContentJudge(index)
    story = _paragraphs(ARTICLES[0])
    html = (
        "<html><head><title>News</title></head><body><article>"
        f"{_story(story[:2])}<div {hidden}>{_story(story[2:])}</div></article></body></html>"
    )
    stored = main_content(html)
    assert not any(p in stored.outside for p in story[2:])
    judge.judge(stored.text, "https://news.example/1", outside=stored.outside)
    verdict = judge.judge(main_content(_reprint(story, "")).text, "https://wire.example/1")
    assert not verdict.copy and verdict.adds_content, verdict
