"""The shards of a sharded Redis store, and the one way to run a script on them.

A look-up and the add it decides (``redis_adding.py``) are several steps, each one script
on one shard; the sharded store's own writes go shard by shard. Both run them here: on one
shard (``run``), or on several in one pipeline (``run_all``), each command sent to its
shard's node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import redis
from redis.cluster import RedisCluster

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index.stores.atomic import GuardedWrite
from scrapy_simdedup.index.stores.redis_routing import shard_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redis.commands.core import Script

    from scrapy_simdedup.index.stores.redis import RedisStore

Call = tuple["Script", "RedisStore", list[bytes | int]]
"""A script, the shard it runs on, and its arguments."""


class ShardRunner:
    """Runs scripts and commands on ``shards`` (one ``RedisStore`` per hash tag) through
    ``client``; ``location`` names the store in errors."""

    def __init__(
        self, shards: list[RedisStore], client: redis.Redis | RedisCluster, location: str
    ) -> None:
        self.shards = shards
        self.location = location
        self._client: redis.Redis | RedisCluster | None = client

    def open(self) -> redis.Redis | RedisCluster:
        """The client; raises ``StoreError`` once closed."""
        if self._client is None:
            raise StoreError(f"{self.location} is closed")
        return self._client

    def close(self) -> None:
        """No more runs (the caller closes the client it owns)."""
        self._client = None

    def of(self, key: bytes) -> RedisStore:
        """The shard holding ``key``."""
        return self.shards[shard_of(key)]

    def register(self, source: str) -> Script:
        return self.open().register_script(source)

    def run(self, script: Script, shard: RedisStore, args: Sequence[bytes | int]) -> object:
        """``script`` on ``shard``: one atomic step."""
        self.open()
        try:
            return script(keys=[shard.key_set, shard.value_hash], args=args)
        except redis.RedisError as exc:
            raise StoreError(f"looking up and adding in {self.location} failed: {exc}") from exc

    def run_all(self, calls: Sequence[Call]) -> list:  # type: ignore[type-arg]
        """Scripts on several shards in one pipeline (each still atomic on its shard); only
        for steps that may run twice, since a script the server lost is loaded and all of
        them are sent again."""
        if len(calls) <= 1:
            return [self.run(*call) for call in calls]
        client = self.open()
        for attempt in range(2):
            commands = [
                (shard, ("EVALSHA", script.sha, 2, shard.key_set, shard.value_hash, *args))
                for script, shard, args in calls
            ]  # EVALSHA's own method is refused in a cluster pipeline
            try:
                return self.pipelined(commands)
            except redis.ResponseError as exc:
                if attempt:  # else most likely a script this server has not loaded yet
                    raise StoreError(
                        f"looking up and adding in {self.location} failed: {exc}"
                    ) from exc
                for script in {call[0] for call in calls}:
                    client.script_load(script.script)
            except redis.RedisError as exc:
                raise StoreError(f"looking up and adding in {self.location} failed: {exc}") from exc
        raise AssertionError("unreachable")

    def pipelined(self, commands: Sequence[tuple[RedisStore, tuple[object, ...]]]) -> list:  # type: ignore[type-arg]
        """Commands on several shards in one pipeline, each sent to its shard's node (else
        redis-py asks the server for each command's keys first)."""
        client = self.open()
        pipe = client.pipeline(transaction=False)
        for shard, command in commands:
            if isinstance(client, RedisCluster):
                node = client.get_node_from_key(shard.key_set)  # type: ignore[no-untyped-call]
                pipe.execute_command(*command, target_nodes=node)
            else:
                pipe.execute_command(*command)
        return pipe.execute()

    def count(self, counter: bytes, delta: int) -> None:
        """Add ``delta`` to the number at ``counter``, on its shard."""
        self.of(counter).write_if(GuardedWrite({}, counter=counter, delta=delta))
