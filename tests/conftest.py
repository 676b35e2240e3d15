from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# benchmarks/corpora.py is shared by tests and benchmarks: the real texts both use.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.redisserver import RedisServer
from tests.support.stores import REDIS, STORE_KINDS

CRAWLS = Path(__file__).resolve().parent / "crawl"
REDIS_FIXTURES = {
    "redis_server",
    "redis_url",
    "own_server",
    "cluster",
    "cluster_url",
    "own_cluster",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks each test by what it starts, from where it lives and what it asks for, so that
    no test can forget its mark: ``crawl`` (real ``scrapy crawl`` processes, under
    ``tests/crawl/``) and ``redis`` (a redis-server or a Redis Cluster). ``-m "not crawl
    and not redis"`` runs the rest."""
    for item in items:
        if CRAWLS in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.crawl)
        params = getattr(getattr(item, "callspec", None), "params", {})
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & REDIS_FIXTURES or params.get("kind") == "redis":
            item.add_marker(pytest.mark.redis)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server for the session, on 127.0.0.1; stopped when the tests end."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, emptied for this test."""
    redis_server.flush()
    return redis_server.url


@pytest.fixture(params=STORE_KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    """Each store kind in turn; asking for ``redis`` starts the session's redis-server."""
    if request.param == "redis" and not REDIS:
        REDIS.append(request.getfixturevalue("redis_server"))
    return str(request.param)
