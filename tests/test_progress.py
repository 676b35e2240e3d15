"""Progress lines of long passes over a store, and of repair, verify and reset."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_simdedup.index import progress as progress_module
from scrapy_simdedup.index.maintenance import repair_index, reset_index
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.index.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_every_so_many_keys_and_one_at_the_end() -> None:
    lines: list[str] = []
    clock = Clock()
    counted = Progress(lines.append, "repair: documents", 200, every_keys=100, clock=clock)
    for _ in range(200):
        clock.now += 0.1
        counted.step()
    counted.done()
    assert lines == [
        "repair: documents: 100 of 200 (50%) so far, 10 s",
        "repair: documents: 200 of 200 (100%) done, 20 s",
    ]


def test_a_line_every_so_many_seconds_when_keys_come_slowly() -> None:
    lines: list[str] = []
    clock = Clock()
    counted = Progress(lines.append, "verify", every_seconds=5, look_every=1, clock=clock)
    for _ in range(12):
        clock.now += 1
        counted.step()
    assert lines == ["verify: 5 so far, 5 s", "verify: 10 so far, 10 s"]


def test_a_short_pass_says_nothing() -> None:
    lines: list[str] = []
    counted = Progress(lines.append, "verify", 10)
    for _ in range(10):
        counted.step()
    counted.done()
    assert lines == []
    Progress(None, "silent").step()  # no report: only counts


@pytest.fixture
def every_100_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "EVERY_KEYS", 100)


def _filled(location: str | Path, pages: int = 300, **kwargs: str) -> None:
    with open_index(location, **kwargs) as index:  # type: ignore[arg-type]
        for n in range(pages):
            index.add((n * 0x9E3779B97F4A7C15) % 2**64, f"https://a.example/{n}")


@pytest.mark.usefixtures("every_100_keys")
def test_verify_and_repair_of_a_folder_report_their_progress(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    _filled(folder)
    lines: list[str] = []
    with open_index(folder) as index:
        assert index.verify(lines.append).consistent
    assert [line.split(",")[0] for line in lines[:3]] == [
        "documents read: 100 of 300 (33%) so far",
        "documents read: 200 of 300 (67%) so far",
        "documents read: 300 of 300 (100%) done",
    ]
    assert lines[-1].startswith("table entries checked: 1,200 of 1,200 (100%) done, ")
    assert len(lines) == 3 + 12  # each milestone once: the last is the done line
    lines.clear()
    repair_index(folder, progress=lines.append)
    assert lines[0].startswith(f"repair: copying {folder} aside (")
    assert "repair: content documents re-validated: 300 of 300 (100%) done, " in "\n".join(lines)
    assert lines[-1].startswith("repair: content table entries checked: 1,200 of 1,200 (100%)")


def test_reset_of_a_redis_index_says_how_much_it_removes(redis_url: str) -> None:
    _filled(redis_url, 50, prefix="simdedup:pages")
    lines: list[str] = []
    assert reset_index(redis_url, prefix="simdedup:pages", progress=lines.append)
    assert len(lines) == 1
    assert lines[0].startswith("reset: removing ")
    assert lines[0].endswith(" entries of " + redis_url + " prefix simdedup:pages")
    assert not reset_index(redis_url, prefix="simdedup:pages")
