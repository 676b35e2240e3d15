"""A real 3-master Redis Cluster for the tests, on 127.0.0.1, in a temporary folder.

Three ``redis-server --cluster-enabled yes`` processes joined by ``redis-cli --cluster
create ... --cluster-replicas 0``; skipped like ``redisserver`` when the binaries are not
installed (an error with ``SIMDEDUP_REQUIRE_REDIS=1``).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import redis
import redis.cluster

from tests.support import processes
from tests.support.redisserver import free_port, redis_binary

START_TIMEOUT = 30.0


class RedisCluster:
    """Three masters; ``url`` names one of them (the client finds the others)."""

    def __init__(self, folder: Path, masters: int = 3) -> None:
        self.folder = folder
        self.masters = masters
        self.ports: list[int] = []
        self.bus_ports: list[int] = []
        self.url = ""
        self.servers: list[subprocess.Popen[bytes]] = []
        self.commands: list[list[str]] = []

    def start(self, attempts: int = 3) -> None:
        """Start the masters on fresh ports and join them; a node that exits at once (its
        port taken meanwhile) makes the next attempt choose other ports."""
        for attempt in range(1, attempts + 1):
            self._launch_nodes()
            exited = self._wait_for_nodes()
            if not exited:
                break
            self.stop()
            if attempt == attempts:
                raise RuntimeError(
                    f"redis-server exited at start on port(s) {exited} in {attempts} attempts; "
                    f"see the logs under {self.folder}"
                )
        cli = shutil.which("redis-cli") or "redis-cli"
        processes.run(
            [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            timeout=START_TIMEOUT, check=True, capture_output=True,
        )  # fmt: skip
        for port in self.ports:
            _wait(lambda p=port: _cluster_ok(p), f"cluster_state:ok on port {port}")  # type: ignore[misc]

    def _launch_nodes(self) -> None:
        server = redis_binary()
        self.ports = [free_port() for _ in range(self.masters)]
        self.bus_ports = [free_port() for _ in range(self.masters)]  # else port + 10000
        self.url = f"redis://127.0.0.1:{self.ports[0]}/0"
        self.commands = []
        for port, bus in zip(self.ports, self.bus_ports, strict=True):
            node = self.folder / str(port)
            node.mkdir(parents=True, exist_ok=True)
            command = [
                server, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(node),
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-port", str(bus), "--logfile", str(node / "redis.log"),
                "--save", "", "--appendonly", "yes", "--appendfsync", "always",
            ]  # fmt: skip
            self.commands.append(command)
            self.servers.append(_launch(command))

    def _wait_for_nodes(self) -> list[int]:
        """The ports whose server exited before it answered (none: all answer)."""
        deadline = time.monotonic() + START_TIMEOUT
        waiting = dict(zip(self.ports, self.servers, strict=True))
        exited: list[int] = []
        while waiting:
            for port, process in list(waiting.items()):
                if _ping(port):
                    del waiting[port]
                elif process.poll() is not None:
                    exited.append(port)
                    del waiting[port]
            if waiting and time.monotonic() > deadline:
                raise RuntimeError(
                    f"gave up after {START_TIMEOUT:g} s waiting for redis-server on "
                    f"port(s) {sorted(waiting)}; see the logs under {self.folder}"
                )
            time.sleep(0.05 if waiting else 0)
        return exited

    def master_of(self, key: str) -> int:
        """Which of ``ports`` serves the slot of ``key``."""
        client = redis.cluster.RedisCluster(host="127.0.0.1", port=self.ports[0])
        try:
            return self.ports.index(client.get_node_from_key(key).port)
        finally:
            client.close()

    def kill(self, node: int) -> None:
        """SIGKILL one master: a crash, or the OOM killer."""
        self.servers[node].kill()
        self.servers[node].wait(timeout=10)

    def restart(self, node: int) -> None:
        """The killed master again, same folder: it replays its append-only file."""
        self.servers[node] = _launch(self.commands[node])
        for port in self.ports:
            _wait(lambda p=port: _cluster_ok(p), f"cluster_state:ok on port {port}")  # type: ignore[misc]

    def flush(self) -> None:
        for port in self.ports:
            redis.Redis(port=port).flushall()

    def stop(self) -> None:
        for process in self.servers:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
        self.servers = []


def _launch(command: list[str]) -> subprocess.Popen[bytes]:
    return processes.popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _ping(port: int) -> bool:
    try:
        return bool(redis.Redis(port=port, socket_timeout=1).ping())
    except redis.RedisError:
        return False


def _cluster_ok(port: int) -> bool:
    try:
        info = redis.Redis(port=port, socket_timeout=1).cluster("info")
    except redis.RedisError:
        return False
    if isinstance(info, dict):  # parsed by redis-py
        return str(info.get("cluster_state")) == "ok"
    return "cluster_state:ok" in (info.decode() if isinstance(info, bytes) else str(info))


def _wait(condition: object, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise RuntimeError(f"gave up after {START_TIMEOUT:g} s waiting for {what}")
        time.sleep(0.05)
