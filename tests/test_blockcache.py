from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_simdedup.index import blockcache
from scrapy_simdedup.index.blockcounts import MAX_COUNT, BlockCounts
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.index.permuted import PermutedIndex
from scrapy_simdedup.judges.content import ContentJudge
from scrapy_simdedup.judges.templates import host_of
from tests.support import processes
from tests.support.blockwriter import pages
from tests.support.stores import index_location
from tests.support.waits import read_line

ROOT = Path(__file__).resolve().parent.parent


def _uncached(index: object) -> BlockCounts:
    """The same counts read straight from the store, as on Redis."""
    from scrapy_simdedup.index.handle import SimHashIndex

    assert isinstance(index, SimHashIndex)
    return BlockCounts(PermutedIndex(index.store, index.design), index.seed)


def _page_blocks(
    judge: ContentJudge, texts: list[tuple[str, str]]
) -> list[tuple[str, tuple[int, ...]]]:
    return [
        (host_of(key), tuple(judge.fingerprinted(text).blocks.templates)) for key, text in texts
    ]


def test_cached_counts_are_the_stores_after_judging_and_after_reopening(tmp_path: Path) -> None:
    texts = pages(90)
    with open_index(tmp_path / "index") as index:
        judge = ContentJudge(index)
        for key, text in texts[:60]:
            judge.judge(text, key)
        seen = _page_blocks(judge, texts)
        for host, blocks in seen:
            assert index.blocks.counts(host, blocks) == _uncached(index).counts(host, blocks)
    with open_index(tmp_path / "index") as index:  # a later run reads the store again
        judge = ContentJudge(index)
        for key, text in texts[60:]:
            judge.judge(text, key)
        for host, blocks in seen:
            cached = index.blocks.counts(host, blocks)
            assert cached == _uncached(index).counts(host, blocks)
            assert max(cached.values()) == min(30, MAX_COUNT)  # its template, on each page


@pytest.mark.parametrize("bound", [40, 400])
def test_counts_stay_exact_within_the_memory_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: int
) -> None:
    monkeypatch.setattr(blockcache, "MAX_CACHED_BLOCKS", bound)
    monkeypatch.setattr(blockcache, "IDLE_READS", 5)
    rng = random.Random(2)
    hosts = [f"host{n}.example" for n in range(8)]
    expected: dict[str, dict[int, int]] = {host: {} for host in hosts}
    with open_index(tmp_path / "index") as index:
        held = []
        for _ in range(600):
            host = rng.choice(hosts[: rng.choice([2, 8])])  # a few busy hosts, then all
            blocks = rng.sample(range(60), rng.randint(1, 12))
            index.blocks.count_page(host, blocks)
            for block in blocks:
                expected[host][block] = min(MAX_COUNT, expected[host].get(block, 0) + 1)
            assert index.blocks.counts(host, range(60)) == expected[host]
            held.append(index.blocks.held_in_memory)
        assert max(held) <= bound
        assert max(held) > 0  # the copy was used
    with open_index(tmp_path / "index") as index:
        for host in hosts:
            assert index.blocks.counts(host, range(60)) == expected[host]


def test_a_killed_judge_leaves_counts_of_exactly_the_pages_it_stored(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    writer = processes.popen(
        [sys.executable, "-m", "tests.support.blockwriter", str(folder)],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert writer.stdout is not None
        assert read_line(writer.stdout, 60, "the judge to open").strip() == "ready"
        acknowledged = [read_line(writer.stdout, 60, "a judged page").strip() for _ in range(150)]
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        rest = writer.stdout.read()  # what it acknowledged while the lines above were read
        acknowledged += [line for line in rest.split("\n")[:-1] if line]
    finally:
        writer.kill()
        writer.wait(timeout=30)
        if writer.stdout:
            writer.stdout.close()
    texts = pages(len(acknowledged) + 2_000)
    with open_index(folder) as index:
        judge = ContentJudge(index)
        stored = [(k, t) for k, t in texts if index.exact_owner(judge.exact_hash(t)) == k]
        assert [k for k, _ in stored[: len(acknowledged)]] == acknowledged
        assert len(stored) <= len(acknowledged) + 1  # at most the page in flight
        expected: dict[str, dict[int, int]] = {}
        for host, blocks in _page_blocks(judge, stored):
            counted = expected.setdefault(host, {})
            for block in set(blocks):
                counted[block] = min(MAX_COUNT, counted.get(block, 0) + 1)
        for host, blocks in _page_blocks(judge, texts[: len(stored) + 3]):
            want = {b: n for b, n in expected.get(host, {}).items() if b in blocks}
            assert index.blocks.counts(host, blocks) == want
            assert _uncached(index).counts(host, blocks) == want


def test_a_shared_store_is_read_afresh_by_every_worker(kind: str, tmp_path: Path) -> None:
    # On Redis another worker's counts must show at once: no copy may hide them. The
    # stores one process owns are opened once per process; their handles share one copy.
    location = index_location(kind, tmp_path)
    if kind == "memory":
        pytest.skip("a memory index is private to the handle that opened it")
    with open_index(location) as first, open_index(location) as second:
        assert first.blocks.counts("shop.example", [1, 2]) == {}
        second.blocks.count_page("shop.example", [1, 2])
        assert first.blocks.counts("shop.example", [1, 2]) == {1: 1, 2: 1}
        assert first.blocks.held_in_memory == (2 if kind == "leveldb" else 0)
