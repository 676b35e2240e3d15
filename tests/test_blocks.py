from __future__ import annotations

from pathlib import Path

import mmh3
import pytest

from scrapy_simdedup.fingerprint.block import NEAR_BITS, Block
from scrapy_simdedup.fingerprint.blocks import (
    MAX_BLOCK_CHARS,
    MAX_BLOCKS,
    packed_text_blocks,
    text_blocks,
)
from scrapy_simdedup.fingerprint.nshash import sentence_hashes
from scrapy_simdedup.fingerprint.packedblocks import (
    PackedBlocks,
    blocks_from_bytes,
    blocks_to_bytes,
)
from scrapy_simdedup.fingerprint.simhash import hamming_distance
from scrapy_simdedup.index.blockcounts import MAX_COUNT, TEMPLATE_PAGES
from scrapy_simdedup.index.opening import open_index

SENTENCE = "Orders placed before noon leave our warehouse on the same working day"


def test_blocks_are_sentences_of_four_words_or_more() -> None:
    text = f"Home\n{SENTENCE}. 安装 完成 后 请 重新 启动 系统。"
    blocks = text_blocks(text, seed=5)
    assert [block.words for block in blocks] == [12, 12]  # CJK: one word per character
    assert blocks[0].exact == mmh3.hash64(SENTENCE.encode(), 5, signed=False)[0]
    assert blocks[0].exact in sentence_hashes(SENTENCE + ".", seed=5)  # nshash's hash


def test_runs_of_short_lines_are_blocks_of_about_a_table_row() -> None:
    # A timetable's cells are lines of one or two words: together they are what tells one
    # route's page from another's, so they count as blocks of about a row each.
    route_7 = "Market Square\n07:42\nStation Road\n07:51\nHospital\n08:03"
    route_9 = "Harbour Gate\n06:15\nMill Lane\n06:22\nCastle Hill\n06:40"
    blocks = text_blocks(f"{SENTENCE}.\n{route_7}\nHome\n", seed=5)
    assert sum(block.words for block in blocks[1:]) == 12  # "07:42" is two words
    assert all(block.words >= 4 for block in blocks)
    others = text_blocks(route_9, seed=5)
    assert sum(block.words for block in others) == 12
    theirs = {block.exact for block in others}
    assert not any(
        block.exact in theirs or block.similar_words(o) for block in blocks[1:] for o in others
    )
    # A line edited changes the blocks up to the next cut only: the rest are as before.
    edited = text_blocks(route_7.replace("07:42", "07:43") + "\nHome\n", seed=5)
    assert edited[-1].exact == blocks[-1].exact and edited[0].exact != blocks[1].exact
    assert text_blocks("Home\nPrice: 12\n", seed=5) == ()  # a run under four words


def test_an_edited_sentence_is_near_and_another_far() -> None:
    (original,) = text_blocks(SENTENCE, seed=1)
    (edited,) = text_blocks(SENTENCE.replace("noon", "ten"), seed=1)
    (other,) = text_blocks("Every chair is made of oak from forests we replant", seed=1)
    assert hamming_distance(original.simhash, edited.simhash) <= NEAR_BITS
    assert hamming_distance(original.simhash, other.simhash) > NEAR_BITS


def test_blocks_round_trip_and_malformed_bytes_are_none() -> None:
    blocks = text_blocks(
        " ".join(f"Sentence number {n} has five words." for n in range(MAX_BLOCKS + 44)), 3
    )
    assert len(blocks) == MAX_BLOCKS
    raw = blocks_to_bytes(blocks)
    assert blocks_from_bytes(raw) == blocks
    assert blocks_from_bytes(raw[:-1]) is None
    assert blocks_from_bytes(b"") is None  # a page stored before blocks were recorded
    assert blocks_from_bytes(blocks_to_bytes(())) == ()


EDGE = (
    Block(
        2**64 - 1,
        0,
        2**64 - 1,
        0x0FFF,
        2**64 - 1,
        chrome=True,
        volatile=True,
        linked=True,
        cjk=True,
    ),
    Block(0, 2**64 - 1, 0, 4),
)


@pytest.mark.parametrize(
    "blocks",
    [
        text_blocks(" ".join(f"Sentence number {n} has five words." for n in range(300)), 3),
        text_blocks(f"{SENTENCE}. 安装 完成 后 请 重新 启动 系统。", 5),
        EDGE,
        (),
    ],
    ids=["many blocks", "cjk", "edge bits", "none"],
)
def test_packed_blocks_read_as_the_blocks_they_hold(blocks: tuple[Block, ...]) -> None:
    # What the helper's reply carries: the exact hashes are read without making a Block
    # of each, and must be the blocks' own, in order, whatever their bits.
    packed = PackedBlocks.of(blocks_to_bytes(blocks))
    assert packed is not None
    assert packed.exacts == tuple(block.exact for block in blocks)
    assert len(packed) == len(blocks) and tuple(packed) == blocks
    assert packed.decoded() == blocks and packed[-1:] == blocks[-1:]
    made_here = PackedBlocks.pack(blocks)  # fingerprinted in the crawl's own process
    assert packed == made_here and hash(packed) == hash(made_here)
    assert made_here.exacts == packed.exacts


def test_packed_blocks_of_malformed_bytes_are_none() -> None:
    raw = blocks_to_bytes(EDGE)
    assert PackedBlocks.of(raw[:-1]) is None and PackedBlocks.of(raw + b"\0") is None
    assert PackedBlocks.of(b"") is None and PackedBlocks.of(b"\1") is None


def test_block_counts_are_per_host_capped_and_kept_in_the_store(tmp_path: Path) -> None:
    with open_index(tmp_path / "pages") as index:
        counts = index.blocks
        for _ in range(TEMPLATE_PAGES - 1):
            counts.count_page("shop.example", [1, 2])
        counts.count_page("shop.example", [1])
        assert counts.template("shop.example", [1, 2, 3]) == frozenset({1})
        assert counts.template("other.example", [1, 2]) == frozenset()
        for _ in range(MAX_COUNT + 5):
            counts.count_page("busy.example", [7])
    with open_index(tmp_path / "pages") as index:  # a later run knows them
        counted = index.blocks.counts("shop.example", [1, 2])
        assert counted == {1: TEMPLATE_PAGES, 2: TEMPLATE_PAGES - 1}
        assert index.blocks.counts("busy.example", [7]) == {7: MAX_COUNT}
        with index.blocks.counting("busy.example", [7]) as puts:
            assert puts == {}  # settled: a host's template is not written again
        assert len(index) == 0  # counts are no pages


def test_block_counts_are_bounded_per_host_and_per_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scrapy_simdedup.index import blockcounts

    monkeypatch.setattr(blockcounts, "MAX_HOST_BLOCKS", 5)
    monkeypatch.setattr(blockcounts, "MAX_STORE_BLOCKS", 8)
    with open_index(tmp_path / "pages") as index:
        counts = index.blocks
        counts.count_page("a.example", range(1, 10))
        assert len(counts.counts("a.example", range(1, 10))) == 5  # the host's bound
        counts.count_page("b.example", range(1, 10))
        assert len(counts.counts("b.example", range(1, 10))) == 3  # the store's bound
        known = sorted(counts.counts("a.example", range(1, 10)))
        for _ in range(TEMPLATE_PAGES):
            counts.count_page("a.example", range(1, 10))  # counted blocks go on counting
        assert counts.template("a.example", range(1, 10)) == frozenset(known)


def test_a_payload_stored_before_masked_hashes_reads_as_exact_and_no_chrome() -> None:
    # Pages stored before the chrome work hold blocks of 26 bytes and a plain count.
    import struct

    old = [(11, 12, 13, 5), (21, 22, 23, 40)]
    raw = struct.pack("<H", len(old)) + b"".join(struct.pack("<QQQH", *b) for b in old)
    packed = PackedBlocks.of(raw)
    assert packed is not None and len(packed) == 2
    assert tuple(packed) == (Block(11, 12, 13, 5), Block(21, 22, 23, 40))
    assert packed.exacts == (11, 21) and packed.templates == (11, 21)
    assert packed.chrome == (False, False)
    assert PackedBlocks.of(raw[:-1]) is None


def test_a_banner_differing_in_its_figures_is_one_template_block_and_chrome_is_flagged() -> None:
    pages = [
        f"Snapshot {n} of the archive, taken 2026-0{n}-1{n} at 0{n}:3{n} by the crawler.\n"
        f"{SENTENCE} number {n}.\nEdited by Jane Smith.\n"
        for n in range(1, 4)
    ]
    blocks = [text_blocks(page, seed=5) for page in pages]
    banners = [page_blocks[0] for page_blocks in blocks]
    assert len({b.exact for b in banners}) == 3  # compared as they stand: three sentences
    assert len({b.template_hash for b in banners}) == 1  # counted as one template block
    assert [b.chrome for b in blocks[0]] == [False, False, True]
    packed = PackedBlocks.of(blocks_to_bytes(blocks[0]))
    assert packed is not None and packed.chrome == (False, False, True)
    assert packed.templates == tuple(b.template_hash for b in blocks[0])
    assert packed.exacts[2] == packed.templates[2]  # no figures: its exact hash


_PAGE = (
    "Home > News > World\n"
    "来源：新华社 | 发布时间：2026-11-28 09:30 | 浏览：12,345\n"
    "The council met on Tuesday and voted to widen the river path by two metres.\n"
    "/story/19.html\n/story/20.html\n"
    "Bus 12 leaves at 07:40 and 08:10.\nShort cell\nAnother cell here\n"
    "Copyright © 2026 Example News. All rights reserved.\n"
)


def _crossing_the_cut() -> str:
    """A page whose last line crosses ``MAX_BLOCK_CHARS``: cut there, it is a short
    copyright notice (chrome); whole, a paragraph of 300 words (content)."""
    rule = "-" * 99 + "\n"  # no words: no blocks
    head = _PAGE + rule * ((MAX_BLOCK_CHARS - 200 - len(_PAGE)) // len(rule))
    return head + "Copyright © 2026 Example News. " + " ".join(f"word{n}" for n in range(300))


@pytest.mark.parametrize(
    ("page", "packed_since_57"),
    [
        (_PAGE, "7b087817b3ea8b0d207b25a0c938bb1be3d9e758"),
        # past MAX_BLOCKS: with the sample of the rest (TAIL_LEVELS); a window of 512
        # blocks since the long-page fix of issue 57
        (_PAGE * 400, "d64aecdf014e48e24aa3c84e84e121a00b2cfe88"),
        (_crossing_the_cut(), "b8eed57e4549981258c356dff32ab767ed2647d3"),
    ],
    ids=["page", "past_max_blocks", "crossing_the_cut"],
)
def test_blocks_packed_straight_are_the_blocks_packed(page: str, packed_since_57: str) -> None:
    import hashlib

    from scrapy_simdedup.fingerprint.chrome import chrome_lines

    expected = PackedBlocks.pack(text_blocks(page, 7)).raw
    assert (
        hashlib.sha1(expected).hexdigest() == packed_since_57
    )  # as pinned (issue 57: CJK and link flags, tail)
    assert packed_text_blocks(page, 7).raw == expected
    flags = chrome_lines(page.splitlines())  # given by the caller, as fingerprinted() does
    assert packed_text_blocks(page, 7, chrome=flags).raw == expected
    assert text_blocks(page, 7, chrome=flags) == text_blocks(page, 7)
    assert any(block.chrome for block in text_blocks(page, 7))
