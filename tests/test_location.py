"""A store's kind is read once, from what the user typed or from the settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_simdedup.config import SimDedupConfig
from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index.location import StoreLocation
from scrapy_simdedup.index.maintenance import reset_index
from scrapy_simdedup.index.opening import open_index, stored_params
from scrapy_simdedup.scrapy_layer.state import index_location


def test_a_typed_location_is_parsed_into_its_kind(tmp_path: Path) -> None:
    assert StoreLocation.parse("memory") == StoreLocation("memory")
    redis = StoreLocation.parse("rediss://h:6380/2", prefix="p:crawl")
    assert (redis.kind, redis.address, redis.prefix) == ("redis", "rediss://h:6380/2", "p:crawl")
    folder = StoreLocation.parse(tmp_path / "a" / ".." / "index")
    assert folder == StoreLocation("leveldb", str(tmp_path / "index"))
    assert StoreLocation.parse(folder) is folder


@pytest.mark.parametrize("bad", ["", "  ", "a\x00b"])
def test_a_folder_that_cannot_be_one_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="non-empty path without NUL"):
        StoreLocation.parse(bad)


def test_a_redis_password_never_reaches_a_message() -> None:
    where = StoreLocation.redis("redis://user:secret@h:6379/0", "simdedup:s")
    assert str(where) == "redis://user:***@h:6379/0 prefix simdedup:s"
    with pytest.raises(ValueError) as refused:
        StoreLocation.redis("http://user:secret@h/")
    assert "secret" not in str(refused.value)


def test_the_settings_name_the_kind_whatever_the_folder_is_called(tmp_path: Path) -> None:
    """A SIMDEDUP_DIR folder called "memory" or "redis:" is still a folder."""
    for name in ("memory", "redis:"):
        config = SimDedupConfig(dir=str(tmp_path / name))
        where = index_location(config, name)
        assert where.kind == "leveldb"
        assert where.address == str(tmp_path / name / name)
    redis = index_location(SimDedupConfig(store="redis", redis_url="redis://h/1"), "shop")
    assert (redis.kind, redis.prefix) == ("redis", "simdedup:shop")
    assert index_location(SimDedupConfig(store="memory"), "shop").kind == "memory"


def test_a_folder_named_memory_opens_as_a_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    where = StoreLocation.folder("memory")
    with open_index(where) as index:
        assert index.location == str(tmp_path / "memory")
    assert stored_params(where).max_distance == 3
    assert reset_index(where)
    assert not (tmp_path / "memory").exists()


def test_a_memory_index_has_nothing_stored_to_read_or_reset() -> None:
    with pytest.raises(StoreError, match="only in the process"):
        stored_params("memory")
    assert not reset_index("memory")
