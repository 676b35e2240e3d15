"""The verdict log's writer and reader, on real files."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from scrapy_simdedup.audit.log import VerdictLog, log_path, read_log


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_lines_wait_in_memory_until_the_batch_is_full(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "verdicts.jsonl"  # the folder is made
    log = VerdictLog(path, flush_lines=3, flush_seconds=60, clock=Clock())
    log.write({"event": "dropped", "key": "a"})
    log.write({"event": "dropped", "key": "b"})
    assert path.read_text() == ""
    log.write({"event": "dropped", "key": "c"})
    assert [line["key"] for line in _lines(path)] == ["a", "b", "c"]
    log.write({"event": "dropped", "key": "d"})
    log.close()
    assert [line["key"] for line in _lines(path)] == ["a", "b", "c", "d"]
    assert log.written == 4


def test_lines_older_than_the_interval_are_written_with_the_next(tmp_path: Path) -> None:
    clock = Clock()
    log = VerdictLog(tmp_path / "v.jsonl", flush_lines=1000, flush_seconds=5, clock=clock)
    log.write({"event": "dropped", "key": "a"})
    clock.now = 5.0
    log.write({"event": "dropped", "key": "b"})
    assert len(_lines(tmp_path / "v.jsonl")) == 2
    log.close()


def test_a_log_is_appended_to_and_never_written_twice(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    for key in ("first", "second"):
        log = VerdictLog(path)
        log.write({"event": "dropped", "key": key})
        log.close()
        log.close()
        log.write({"event": "dropped", "key": "after close"})  # dropped, not raised
    assert [line["key"] for line in _lines(path)] == ["first", "second"]


def test_a_failed_write_loses_its_batch_but_never_repeats_it(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    log = VerdictLog(path, flush_lines=2)
    log.write({"event": "dropped", "key": "a"})
    with pytest.raises(TypeError):
        log.write({"event": "dropped", "key": object()})  # not JSON: nothing buffered
    log.write({"event": "dropped", "key": "b"})
    log.close()
    assert [line["key"] for line in _lines(path)] == ["a", "b"]


def test_a_path_that_cannot_be_written_raises_oserror(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError):
        VerdictLog(tmp_path / "file" / "v.jsonl")  # a file where a folder must be


def test_text_is_written_as_utf8(tmp_path: Path) -> None:
    log = VerdictLog(tmp_path / "v.jsonl")
    log.write({"event": "dropped", "key": "https://例子.cn/新闻"})
    log.close()
    assert "例子.cn/新闻" in (tmp_path / "v.jsonl").read_text("utf-8")


def test_reading_skips_a_cut_last_line(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text('{"event": "dropped", "key": "a"}\n\n[1, 2]\n{"event": "drop', "utf-8")
    contents = read_log(path)
    assert contents.records == [{"event": "dropped", "key": "a"}]
    assert contents.malformed == 2


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("verdicts-%(name)s.jsonl", "verdicts-news.jsonl"),
        ("logs/%(name)s/%(time)s.jsonl", "logs/news/2026-11-23T10-02-10+00-00.jsonl"),
        ("100%%-%(name)s.jsonl", "100%-news.jsonl"),
        ("plain.jsonl", "plain.jsonl"),
    ],
)
def test_log_paths_take_the_spider_name_and_start_time(template: str, expected: str) -> None:
    started = datetime(2026, 11, 23, 10, 2, 10, 123456, tzinfo=timezone.utc)
    assert log_path(template, "news", started) == Path(expected)


@pytest.mark.parametrize("template", ["%(spider)s.jsonl", "100%.jsonl", "%(name)d.jsonl"])
def test_other_path_fields_are_refused(template: str) -> None:
    with pytest.raises(ValueError, match=r"may use %\(name\)s and %\(time\)s"):
        log_path(template, "news")
