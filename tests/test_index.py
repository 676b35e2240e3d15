from __future__ import annotations

import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_simdedup.errors import (
    ForeignFolderError,
    StoreDamagedError,
    StoreError,
    StoreLockedError,
    StoreMismatchError,
)
from scrapy_simdedup.fingerprint.tokens import Tokenizer
from scrapy_simdedup.index.opening import open_index
from tests.support import processes
from tests.support.stores import index_location
from tests.support.waits import read_line

ROOT = Path(__file__).resolve().parent.parent


def _flip(fingerprint: int, bits: int, rng: random.Random) -> int:
    for bit in rng.sample(range(64), bits):
        fingerprint ^= 1 << bit
    return fingerprint


@pytest.mark.parametrize("max_distance", range(7))
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1))
def test_answers_equal_brute_force(kind: str, max_distance: int, seed: int) -> None:
    rng = random.Random(seed)
    centres = [rng.getrandbits(64) for _ in range(20)]
    stored = {f"random-{i}": rng.getrandbits(64) for i in range(300)}
    for c, centre in enumerate(centres):
        for distance in range(max_distance + 3):  # planted at 0..k+2 bits
            stored[f"near-{c}-{distance}"] = _flip(centre, distance, rng)
    with tempfile.TemporaryDirectory() as folder:
        location = index_location(kind, Path(folder))
        with open_index(location, max_distance=max_distance, expected_size=100_000) as index:
            for key, fingerprint in stored.items():
                index.add(fingerprint, key)
            for query in [*centres, rng.getrandbits(64)]:
                expected = {
                    (key, (fp ^ query).bit_count())
                    for key, fp in stored.items()
                    if (fp ^ query).bit_count() <= max_distance
                }
                found = index.query(query)
                assert {(m.key, m.distance) for m in found} == expected
                assert [m.distance for m in found] == sorted(m.distance for m in found)
                assert all(stored[m.key] == m.fingerprint for m in found)


def test_a_page_its_candidates_did_not_confirm_meets_a_page_stored_meanwhile(
    kind: str, tmp_path: Path
) -> None:
    """A page near a stored one that is not its original (an index page beside one of its
    entries) is added once its judge has confirmed that; the add passes the judged pages
    by, but still sees a page stored meanwhile: a racing copy on another worker, which was
    kept beside it when the add was a plain write (CI kept such a page twice)."""
    with open_index(index_location(kind, tmp_path)) as index:
        assert index.query_or_add(0xF0F0, "https://a.example/entry", b"e", [1]).added
        page = index.query_or_add(0xF0F1, "https://a.example/index", b"p", [2])
        assert [m.key for m in page.matches] == ["https://a.example/entry"]
        judged = ["https://a.example/entry"]
        # Meanwhile another worker judged a copy of the page the same way, and added it.
        copy = index.query_or_add(0xF0F3, "https://b.example/index", b"p", [2], judged=judged)
        assert copy.added
        again = index.query_or_add(0xF0F1, "https://a.example/index", b"p", [2], judged=judged)
        assert not again.added and [m.key for m in again.matches] == ["https://b.example/index"]
        judged.append("https://b.example/index")  # confirmed not a copy either: added now
        last = index.query_or_add(0xF0F1, "https://a.example/index", b"p", [2], judged=judged)
        assert last.added and last.matches == []
        assert len(index) == 3 and index.verify().consistent


def test_a_page_whose_sentences_a_longer_page_owns_is_met_by_its_own_reprint(
    kind: str, tmp_path: Path
) -> None:
    """A section page whose longest sentences all appear on a longer page is kept beside
    it (not a copy), and owns its sentences second; so a mirror's copy of the section page,
    far from it in SimHash, still meets it (before, it met only the longer page, which it
    is not a copy of, and was kept twice)."""
    with open_index(index_location(kind, tmp_path)) as index:
        assert index.query_or_add(0x0F0F_0F0F_0F0F_0F0F, "long", b"l", [1, 2, 3]).added
        section = index.query_or_add(0xF0F0_F0F0_F0F0_F0F0, "section", b"s", [1, 2])
        assert [m.key for m in section.owners] == ["long"]
        kept = index.query_or_add(0xF0F0_F0F0_F0F0_F0F0, "section", b"s", [1, 2], judged=["long"])
        assert kept.added
        assert index.sentence_owners([1]) == ["long", "section"]
        mirror = index.query_or_add(0xFF00_FF00_FF00_FF00, "mirror/section", b"s", [1, 2])
        assert not mirror.added and mirror.matches == []
        assert sorted(m.key for m in mirror.owners) == ["long", "section"]
        third = index.query_or_add(
            0x00FF_00FF_00FF_00FF, "third", b"t", [2], judged=["long", "section"]
        )
        assert third.added  # a sentence keeps two owners: the third owns nothing more
        assert index.sentence_owners([2]) == ["long", "section"]


def test_a_page_sharing_a_sentence_is_not_added_beside_its_owner(kind: str, tmp_path: Path) -> None:
    """Far in SimHash, a reprint still shares sentences: the look-up that adds a page also
    claims its sentences, so a second page sharing one sees the first in the same step,
    even before the first page's judge has finished (two workers racing on one store)."""
    with open_index(index_location(kind, tmp_path)) as index:
        first = index.query_or_add(0x0F0F_0F0F_0F0F_0F0F, "https://a.example/1", b"o", [11, 12])
        assert first.added and first.owners == []
        assert index.sentence_owners([11, 12]) == ["https://a.example/1"]
        reprint = index.query_or_add(0xF0F0_F0F0_F0F0_F0F0, "https://b.example/1", b"r", [12, 13])
        assert not reprint.added and reprint.matches == []
        assert [(m.key, m.fingerprint, m.payload) for m in reprint.owners] == [
            ("https://a.example/1", 0x0F0F_0F0F_0F0F_0F0F, b"o")
        ]
        assert index.sentence_owners([13]) == []  # not added: owns nothing
        other = index.query_or_add(0xFF00_FF00_FF00_FF00, "https://c.example/1", b"c", [14])
        assert other.added and other.owners == []
        # An owner whose page was taken out again is no reason to hold a page back.
        assert index.discard("https://a.example/1")
        again = index.query_or_add(0xF0F0_F0F0_F0F0_F0F0, "https://b.example/1", b"r", [12, 13])
        assert again.added and again.owners == []
        assert index.sentence_owners([13]) == ["https://b.example/1"]
        assert index.verify().consistent


def test_add_query_or_add_and_replace(kind: str, tmp_path: Path) -> None:
    with open_index(index_location(kind, tmp_path)) as index:
        first = index.query_or_add(0xFFFF_0000_FFFF_0000, "https://a.example/1", b"sketch")
        assert first.added and first.matches == []
        copy = index.query_or_add(0xFFFF_0000_FFFF_0007, "https://b.example/1")
        assert not copy.added
        assert [(m.key, m.distance, m.payload) for m in copy.matches] == [
            ("https://a.example/1", 3, b"sketch")
        ]
        assert len(index) == 1
        # A page re-added with a new fingerprint moves: the old one no longer matches.
        index.add(0x1234_5678_9ABC_DEF0, "https://a.example/1")
        assert index.query(0xFFFF_0000_FFFF_0000) == []
        assert [m.key for m in index.query(0x1234_5678_9ABC_DEF0)] == ["https://a.example/1"]
        assert len(index) == 1
        # Looked up and added again far from its stored fingerprint, a page moves too.
        moved = index.query_or_add(0xFFFF_FFFF_0000_FFFF, "https://a.example/1", b"later")
        assert moved.added and moved.matches == []
        assert index.query(0x1234_5678_9ABC_DEF0) == []
        assert [(m.key, m.payload) for m in index.query(0xFFFF_FFFF_0000_FFFF)] == [
            ("https://a.example/1", b"later")
        ]
        assert len(index) == 1
        assert index.verify().consistent
        # A companion's entries carry its namespace; the top bucket of every table too.
        urls = index.companion(b"u", max_distance=2)
        assert urls.query_or_add(2**64 - 1, "https://a.example/top").added
        assert urls.query_or_add(2**64 - 2, "https://a.example/copy").matches[0].distance == 1
        assert (len(urls), len(index)) == (1, 1)
        assert urls.verify().consistent and urls.verify().documents == 1


def test_sentence_owners_are_every_first_owner_once(kind: str, tmp_path: Path) -> None:
    with open_index(index_location(kind, tmp_path)) as index:
        index.record_sentences([5, 9], "https://a.example/other")
        index.record_sentences([5, 7, 8], "https://a.example/story")  # 5 is taken
        assert index.sentence_owners([9, 8, 7, 5, 1]) == [
            "https://a.example/other",  # 5
            "https://a.example/story",  # 7 and 8
        ]
        assert index.sentence_owner([8, 9]) == "https://a.example/story"
        assert index.sentence_owners([1, 2]) == [] and index.sentence_owner([1]) is None


def test_companion_index_shares_the_store_not_the_entries(kind: str, tmp_path: Path) -> None:
    with open_index(index_location(kind, tmp_path)) as index:
        urls = index.companion(b"u", max_distance=2)
        index.add(0xAAAA_0000_AAAA_0000, "https://a.example/page")
        urls.add(0xAAAA_0000_AAAA_0001, "https://a.example/page")
        urls.add(0x0F0F_0F0F_0F0F_0F0F, "https://a.example/other")
        assert [m.distance for m in urls.near(0xAAAA_0000_AAAA_0000)] == [1]
        assert [m.key for m in index.query(0x0F0F_0F0F_0F0F_0F0F)] == []
        assert (len(index), len(urls)) == (1, 2)
        assert urls.discard("https://a.example/other") and len(urls) == 1
        assert index.verify().consistent and urls.verify().consistent
        assert urls.verify().documents == 1 and index.verify().documents == 1
        with pytest.raises(StoreMismatchError, match=r"u\.max_distance: stored 2, asked 4"):
            index.companion(b"u", max_distance=4)
        with pytest.raises(ValueError, match="not a companion"):
            index.companion(b"d", max_distance=2)


def test_keys_with_lone_surrogates_round_trip(tmp_path: Path) -> None:
    with open_index(tmp_path / "index") as index:
        index.add(42, "https://a.example/\udcff")
        assert index.query(42)[0].key == "https://a.example/\udcff"


@pytest.mark.parametrize("bad", [-1, 2**64, "12"])
def test_fingerprints_must_be_64_bit_ints(bad: object) -> None:
    with open_index("memory") as index, pytest.raises((ValueError, TypeError)):
        index.add(bad, "k")  # type: ignore[arg-type]


def test_persists_across_processes_with_its_own_seed(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    rng = random.Random(3)
    stored = {f"doc-{i}": rng.getrandbits(64) for i in range(500)}
    with open_index(folder) as index:
        for key, fingerprint in stored.items():
            index.add(fingerprint, key)
        seed = index.seed
        expected = {key: [m.key for m in index.query(fp ^ 0b101)] for key, fp in stored.items()}
    code = (
        "import json, sys; from scrapy_simdedup import open_index\n"
        "stored = json.loads(sys.stdin.read())\n"
        "with open_index(sys.argv[1]) as index:\n"
        "    print(json.dumps([index.seed, len(index),"
        " {k: [m.key for m in index.query(fp ^ 0b101)] for k, fp in stored.items()}]))\n"
    )
    import json

    run = processes.run(
        [sys.executable, "-c", code, str(folder)],
        input=json.dumps(stored), capture_output=True, text=True, check=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert json.loads(run.stdout) == [seed, 500, expected]


def test_each_store_draws_its_own_seed(tmp_path: Path) -> None:
    with open_index(tmp_path / "a") as a, open_index(tmp_path / "b") as b:
        assert a.seed != b.seed
        text = "Ferries cross the harbour every twenty minutes " * 3 + " ".join(
            f"word{i}" for i in range(30)
        )
        assert a.fingerprint_text(text).simhash != b.fingerprint_text(text).simhash


def test_killed_writer_loses_no_acknowledged_add(tmp_path: Path) -> None:
    rng = random.Random(11)
    folder = tmp_path / "index"
    acknowledged: dict[str, int] = {}
    for round_ in range(4):
        writer = processes.popen(
            [sys.executable, "-m", "tests.support.index_writer", str(folder), str(round_)],
            stdout=subprocess.PIPE, text=True, cwd=ROOT,
        )  # fmt: skip
        assert writer.stdout is not None
        assert read_line(writer.stdout, 60, "the writer to open").strip() == "ready"
        for _ in range(rng.randint(50, 400)):
            key, fingerprint = read_line(writer.stdout, 60, "an acknowledged add").split()
            acknowledged[key] = int(fingerprint)
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        writer.stdout.close()
    with open_index(folder) as index:
        verification = index.verify()
        assert verification.consistent, verification
        assert verification.documents >= len(acknowledged)
        for key, fingerprint in acknowledged.items():
            assert key in {m.key for m in index.query(fingerprint)}


def test_parameter_mismatch_names_each_difference(tmp_path: Path) -> None:
    with open_index(tmp_path / "index", seed=7):
        pass
    with pytest.raises(StoreMismatchError) as info:
        open_index(tmp_path / "index", max_distance=4, tokenizer=Tokenizer(cjk="bigrams"), seed=8)
    assert set(info.value.differences) == {"max_distance", "blocks", "tokenizer", "seed"}
    assert "max_distance: stored 3, asked 4" in str(info.value)
    assert str(tmp_path / "index") in str(info.value)


def test_shared_handle_in_one_process(tmp_path: Path) -> None:
    first = open_index(tmp_path / "index")
    second = open_index(str(tmp_path / "index") + "/")
    first.add(99, "k")
    first.close()
    assert [m.key for m in second.query(99)] == ["k"]
    second.close()
    with pytest.raises(StoreError, match="is closed"):
        second.query(99)
    with open_index(tmp_path / "index") as again:  # the last close really released it
        assert len(again) == 1


def test_foreign_folders_are_never_written(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "cat.jpg").write_bytes(b"\xff\xd8\xff")
    with pytest.raises(ForeignFolderError, match="holds other files"):
        open_index(folder)
    assert [p.name for p in folder.iterdir()] == ["cat.jpg"]
    from scrapy_simdedup.index.stores.leveldb_binding import plyvel

    other = plyvel.DB(str(tmp_path / "other-db"), create_if_missing=True)
    other.put(b"theirs", b"1")
    other.close()
    before = sorted(p.name for p in (tmp_path / "other-db").iterdir())
    with pytest.raises(ForeignFolderError, match="LevelDB database of another program"):
        open_index(tmp_path / "other-db")
    assert sorted(p.name for p in (tmp_path / "other-db").iterdir()) == before


def test_folder_locked_by_another_process(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    holder = processes.popen(
        [sys.executable, "-m", "tests.support.index_writer", str(folder), "0"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        assert read_line(holder.stdout, 60, "the holder to open").strip() == "ready"
        with pytest.raises(StoreLockedError, match="open in another process") as info:
            open_index(folder)
        assert str(folder) in str(info.value)
        assert info.value.__cause__ is None and info.value.__suppress_context__
    finally:
        holder.kill()
        holder.wait(timeout=30)
        if holder.stdout:
            holder.stdout.close()


def _filled(folder: Path) -> None:
    with open_index(folder) as index:
        for i in range(2000):
            index.add(random.Random(i).getrandbits(64), f"doc-{i}", payload=b"x" * 100)


def test_missing_current_file_is_damage_not_a_new_store(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    _filled(folder)
    (folder / "CURRENT").unlink()
    before = _data_files(folder)
    with pytest.raises(StoreDamagedError, match="damaged store"):
        open_index(folder)
    assert _data_files(folder) == before


def _data_files(folder: Path) -> dict[str, bytes]:
    """Everything but LevelDB's own text log and lock, which opening always touches."""
    skip = {"LOG", "LOG.old", "LOCK"}
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.name not in skip}


def test_corrupted_log_is_reported(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    _filled(folder)
    log = max(folder.glob("*.log"), key=lambda p: p.stat().st_size)
    data = bytearray(log.read_bytes())
    data[len(data) // 2] ^= 0xFF
    log.write_bytes(bytes(data))
    with pytest.raises(StoreDamagedError, match=str(folder)):
        open_index(folder)


@pytest.mark.parametrize("path", ["", "   ", "a\x00b"])
def test_empty_and_nul_paths_are_refused(path: str) -> None:
    with pytest.raises(ValueError, match="non-empty path without NUL"):
        open_index(path)


def test_home_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    with open_index("~/dedup") as index:
        assert index.location == str(tmp_path / "dedup")
    assert (tmp_path / "dedup").is_dir()


def test_redis_locations_are_not_mistaken_for_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError, match=r"cannot reach Redis at redis://127\.0\.0\.1:1/0"):
        open_index("redis://127.0.0.1:1/0")
    assert list(tmp_path.iterdir()) == []
