from __future__ import annotations

from typing import Any

import pytest
from scrapy.settings import Settings

from scrapy_simdedup.config import SimDedupConfig


def test_defaults() -> None:
    config = SimDedupConfig.from_settings(Settings())
    assert (config.enabled, config.store, config.content_max_distance, config.drop) == (
        True, "leveldb", 3, True,
    )  # fmt: skip
    assert config.content_fields == ("title", "text")


def test_values_are_read_with_their_types() -> None:
    config = SimDedupConfig.from_settings(
        Settings({
            "SIMDEDUP_CONTENT_MAX_DISTANCE": "4",
            "SIMDEDUP_DROP": "False",
            "SIMDEDUP_CONTENT_FIELDS": "body,headline",
            "SIMDEDUP_CONFIRM_SIMILARITY": "0.5",
            "SIMDEDUP_DIR": "~/dedup",
            "SIMDEDUP_FINGERPRINT_PROCESS": "0",
        })
    )  # fmt: skip
    assert config.content_max_distance == 4
    assert config.drop is False
    assert config.content_fields == ("body", "headline")
    assert config.confirm_similarity == 0.5
    assert config.dir == "~/dedup"
    assert config.fingerprint_process is False


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"SIMDEDUP_CONTENT_MAX_DISTANCE": 9},
            "SIMDEDUP_CONTENT_MAX_DISTANCE must be between 0 and 8; got 9",
        ),
        (
            {"SIMDEDUP_CONTENT_MAX_DISTANCE": "three"},
            "SIMDEDUP_CONTENT_MAX_DISTANCE must be a whole number, got 'three'",
        ),
        ({"SIMDEDUP_CONTENT_MAX_DISTANCE": 2.5}, "must be a whole number, got 2.5"),
        (
            {"SIMDEDUP_STORE": "sqlite"},
            "SIMDEDUP_STORE must be one of 'leveldb', 'memory', 'redis'; got 'sqlite'",
        ),
        ({"SIMDEDUP_DROP": "maybe"}, "SIMDEDUP_DROP must be True or False, got 'maybe'"),
        (
            {"SIMDEDUP_CONFIRM_SIMILARITY": 1.5},
            "SIMDEDUP_CONFIRM_SIMILARITY must be between 0.0 and 1.0",
        ),
        ({"SIMDEDUP_CONTENT_FIELDS": []}, "SIMDEDUP_CONTENT_FIELDS must be a non-empty list"),
        (
            {"SIMDEDUP_CONTENT_HTML": "yes"},
            "SIMDEDUP_CONTENT_HTML must be one of 'auto', 'html', 'text'; got 'yes'",
        ),
        (
            {"SIMDEDUP_HTML_CONTENT": "article"},
            "SIMDEDUP_HTML_CONTENT must be one of 'main', 'page'; got 'article'",
        ),
        ({"SIMDEDUP_DIR": ""}, "SIMDEDUP_DIR must be a non-empty path"),
        (
            {"SIMDEDUP_TABLE_MEMORY_MB": -1},
            "SIMDEDUP_TABLE_MEMORY_MB must be between 0 and 10,000,000; got -1",
        ),
        ({"SIMDEDUP_DIR": 5}, "SIMDEDUP_DIR must be a string, got 5"),
        ({"SIMDEDUP_CONTENT_MAX_DISTANSE": 2}, "did you mean SIMDEDUP_CONTENT_MAX_DISTANCE"),
        ({"SIMDEDUP_FOO": 1}, "SIMDEDUP_FOO is not a scrapy-simdedup setting"),
        ({"SIMDEDUP_VERDICT_LOG": ""}, "SIMDEDUP_VERDICT_LOG must be a file path"),
        (
            {"SIMDEDUP_VERDICT_LOG": "%(spider)s.jsonl"},
            "SIMDEDUP_VERDICT_LOG: '%(spider",
        ),
    ],
)
def test_wrong_values_are_named(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        SimDedupConfig.from_settings(Settings(settings))


def test_a_redis_url_selects_the_redis_store() -> None:
    config = SimDedupConfig.from_settings(Settings({"SIMDEDUP_REDIS_URL": "redis://h:6379/2"}))
    assert config.store == "redis"
    assert config.redis_address == "redis://h:6379/2"
    assert SimDedupConfig.from_settings(Settings({"SIMDEDUP_STORE": "redis"})).redis_address == (
        "redis://localhost:6379/0"
    )


@pytest.mark.parametrize("store", ["leveldb", "memory"])
def test_a_redis_url_with_another_store_is_refused(store: str) -> None:
    settings = Settings({"SIMDEDUP_REDIS_URL": "redis://h:6379/2", "SIMDEDUP_STORE": store})
    with pytest.raises(ValueError, match=f"SIMDEDUP_STORE is '{store}': each worker would keep"):
        SimDedupConfig.from_settings(settings)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"SIMDEDUP_CRAWL_ID": "nightly 7"}, "SIMDEDUP_CRAWL_ID must be 1 to 64 letters"),
        ({"SIMDEDUP_CRAWL_ID": "nightly-7"}, "SIMDEDUP_CRAWL_ID names a crawl its workers share"),
    ],
)
def test_a_crawl_id_is_checked(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SimDedupConfig.from_settings(Settings(settings))
    redis = {**settings, "SIMDEDUP_REDIS_URL": "redis://h/0", "SIMDEDUP_CRAWL_ID": "nightly-7"}
    assert SimDedupConfig.from_settings(Settings(redis)).crawl_id == "nightly-7"
