"""Index speed and size: our LevelDB and memory stores beside three baselines, same data.

    python3 benchmarks/index.py --sizes 100000,1000000,10000000 [--queries 5000]

``leveldb`` answers look-ups from its permuted tables held in memory (``memtables.py``),
``leveldb-scan`` from the store's buckets, as before issue 37 (``SIMDEDUP_TABLE_MEMORY_MB =
0``); both are closed after the adds and reopened before the queries (``open s``: reading
the tables into memory at open).

Every implementation runs in its own process (so peak RSS is its own), stores the same N
random 64-bit fingerprints and answers the same queries: half are stored fingerprints with
0-3 bits flipped, half random. Each prints a checksum of its answers; the table says whether
all agree. Baselines: a brute-force numpy XOR + popcount scan, numpy sorted permuted tables
(the in-RAM reference), and the ``simhash`` package's ``SimhashIndex``.

``--only leveldb,redis-1-clients,redis-4-clients,redis-8-clients`` measures the Redis store
(a redis-server started on 127.0.0.1 without persistence) with 1, 4 and 8 client processes
sharing one index, LevelDB in the same run; ``cluster-4-clients`` (any count) does the same
on a 3-master Redis Cluster started on 127.0.0.1 (the index sharded over its slots).

After the adds and the queries, every store also runs one look-up-and-add (``query_or_add``,
what the pipeline does per page) for each query, under a new key: ``qadds/s`` is their total
rate (all clients, wall clock) and ``qa p99`` the 99th percentile of one call's latency over
all clients.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scrapy_simdedup.index.handle import SimHashIndex

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

K = 3
IMPLEMENTATIONS = (
    "leveldb", "leveldb-scan", "memory", "numpy-tables", "numpy-scan", "simhash-package",
)  # fmt: skip
REDIS_IMPLEMENTATIONS = ("redis", "redis-1-clients", "redis-4-clients", "redis-8-clients")
# In-process stores that also look up and add:
QUERY_OR_ADD = ("leveldb", "leveldb-scan", "memory", "redis")


def data(size: int, queries: int) -> tuple[np.ndarray, list[int]]:
    rng = np.random.default_rng(size)
    stored = rng.integers(0, 2**64, size=size, dtype=np.uint64)
    pick = random.Random(size)
    asked = []
    for i in range(queries):
        if i % 2:
            asked.append(pick.getrandbits(64))
        else:
            fp = int(stored[pick.randrange(size)])
            for bit in pick.sample(range(64), pick.randint(0, K)):
                fp ^= 1 << bit
            asked.append(fp)
    return stored, asked


def run_one(name: str, size: int, queries: int, scan_queries: int) -> dict[str, object]:
    stored, asked = data(size, queries)
    folder = Path(tempfile.mkdtemp(prefix="simdedup-bench-"))
    if name.startswith(("redis-", "cluster-")) and name.endswith("-clients"):
        clients = int(name.split("-")[1])
        start = _redis_cluster if name.startswith("cluster-") else _redis_server
        try:
            return _redis_clients(stored, asked, start(folder), clients, head=scan_queries)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    try:
        build, query, close, query_or_add = _implementation(name, folder, size)
        start = time.perf_counter()
        build(stored)
        add_seconds = time.perf_counter() - start
        open_seconds = reopen() if (reopen := _REOPEN.pop(name, None)) else float("nan")
        if name == "numpy-scan":
            asked = asked[:scan_queries]
        latencies, digest, head = [], hashlib.sha256(), ""
        for n, fp in enumerate(asked, 1):
            t0 = time.perf_counter_ns()
            answer = query(fp)
            latencies.append(time.perf_counter_ns() - t0)
            digest.update(json.dumps(sorted(answer)).encode())
            if n == scan_queries:
                head = digest.hexdigest()[:12]
        qa = [] if query_or_add is None else _timed(query_or_add, asked)
        close()
        disk = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    lat = np.array(latencies) / 1e6
    return {
        "adds_per_s": size / add_seconds,
        "queries_per_s": len(asked) / (lat.sum() / 1e3),
        "p50_ms": float(np.percentile(lat, 50)),
        "p99_ms": float(np.percentile(lat, 99)),
        **_query_or_add_figures(qa, sum(qa) / 1e9),
        "open_s": open_seconds,
        "disk_mb": disk / 2**20,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "checksum": digest.hexdigest()[:12],
        "head_checksum": head,
    }


Impl = tuple[
    Callable[[np.ndarray], None],
    Callable[[int], list[int]],
    Callable[[], None],
    Callable[[int, str], object] | None,
]


def _timed(
    query_or_add: Callable[[int, str], object], asked: list[int], prefix: str = "new/"
) -> list[int]:
    """Nanoseconds of one look-up-and-add per query, each under a key never stored (by
    any client: each has its own ``prefix``, as each page has its own URL)."""
    latencies = []
    for n, fp in enumerate(asked):
        t0 = time.perf_counter_ns()
        query_or_add(fp, f"{prefix}{n}")
        latencies.append(time.perf_counter_ns() - t0)
    return latencies


def _query_or_add_figures(latencies: list[int], seconds: float) -> dict[str, float]:
    if not latencies:
        return {"qadds_per_s": float("nan"), "qadd_p99_ms": float("nan")}
    return {
        "qadds_per_s": len(latencies) / seconds,
        "qadd_p99_ms": float(np.percentile(np.array(latencies) / 1e6, 99)),
    }


_REOPEN: dict[str, Callable[[], float]] = {}
"""Per implementation that can: close the index and open it again; the seconds it took."""


def _implementation(name: str, folder: Path, size: int) -> Impl:
    if name in ("leveldb", "leveldb-scan", "memory", "redis"):
        from scrapy_simdedup.index.opening import open_index

        location = str(folder / "index") if name.startswith("leveldb") else "memory"
        server = None
        if name == "redis":
            server = _redis_server(folder)
            location = server[1]
        scan = {"table_memory": 0} if name == "leveldb-scan" else {}  # else the default

        def opened() -> SimHashIndex:
            return open_index(location, max_distance=K, memory_limit=10 * size + 10, **scan)

        held = [opened()]

        def build(stored: np.ndarray) -> None:
            for i, fp in _fingerprints(stored):
                held[0].add(fp, str(i))

        def reopen() -> float:
            held[0].close()
            start = time.perf_counter()
            held[0] = opened()
            return time.perf_counter() - start

        if name.startswith("leveldb"):
            _REOPEN[name] = reopen

        def close() -> None:
            held[0].close()
            if server:
                server[0][0].terminate()
                server[0][0].wait()

        def query(fp: int) -> list[int]:
            return [int(m.key) for m in held[0].query(fp)]

        def query_or_add(fp: int, key: str) -> object:
            return held[0].query_or_add(fp, key)

        return build, query, close, query_or_add
    if name == "numpy-scan":
        held: list[np.ndarray] = []

        def scan(fp: int) -> list[int]:
            distances = np.bitwise_count(held[0] ^ np.uint64(fp))
            return np.flatnonzero(distances <= K).tolist()

        return held.append, scan, lambda: None, None
    if name == "numpy-tables":
        return _numpy_tables()
    from simhash import Simhash, SimhashIndex

    package_index = SimhashIndex([], f=64, k=K)

    def build_package(stored: np.ndarray) -> None:
        for i, fp in _fingerprints(stored):
            package_index.add(str(i), Simhash(fp))

    def query_package(fp: int) -> list[int]:
        return [int(key) for key in package_index.get_near_dups(Simhash(fp))]

    return build_package, query_package, lambda: None, None


Servers = tuple[list[subprocess.Popen[bytes]], str]


def _redis_server(folder: Path, *options: str) -> Servers:
    """A redis-server on a free loopback port, no persistence (RSS is the server's own)."""
    import redis

    port = _free_port()
    process = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder),
         "--save", "", "--appendonly", "no", *options],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(200):
        try:
            redis.Redis.from_url(url).ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    return [process], url


def _redis_cluster(folder: Path, masters: int = 3) -> Servers:
    """``masters`` redis-servers joined into a Redis Cluster (``redis-cli --cluster create``)."""
    import redis

    nodes = []
    for n in range(masters):
        (folder / str(n)).mkdir()
        nodes.append(
            _redis_server(
                folder / str(n), "--cluster-enabled", "yes",
                "--cluster-port", str(_free_port()),  # not port + 10000: it may pass 65535
            )
        )  # fmt: skip
    addresses = [url.removeprefix("redis://").removesuffix("/0") for _, url in nodes]
    subprocess.run(
        ["redis-cli", "--cluster", "create", *addresses, "--cluster-replicas", "0",
         "--cluster-yes"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    for _ in range(600):
        info = redis.Redis.from_url(nodes[0][1]).cluster("info")
        if str(info.get("cluster_state") if isinstance(info, dict) else info).find("ok") >= 0:
            break
        time.sleep(0.05)
    return [process for processes, _ in nodes for process in processes], nodes[0][1]


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _redis_clients(
    stored: np.ndarray, asked: list[int], servers: Servers, clients: int, head: int
) -> dict[str, object]:
    """Adds and queries split over ``clients`` processes sharing one Redis index."""
    from concurrent.futures import ProcessPoolExecutor

    processes, url = servers
    try:
        with ProcessPoolExecutor(clients) as pool:
            list(pool.map(_warm, range(clients)))  # process start-up is not the store's cost
            parts = [(url, stored[c::clients], c, clients) for c in range(clients)]
            start = time.perf_counter()
            list(pool.map(_redis_add_part, parts))
            add_seconds = time.perf_counter() - start
            slices = [(url, asked[c::clients]) for c in range(clients)]
            start = time.perf_counter()
            answers = list(pool.map(_redis_query_part, slices))
            query_seconds = time.perf_counter() - start
            # Every client opens the index, then all start at one moment.
            start_at = time.time() + 2.0
            timed = list(
                pool.map(
                    _redis_query_or_add_part,
                    [(url, part, c, start_at) for c, (_, part) in enumerate(slices)],
                )
            )
            qa = [ns for _, _, part in timed for ns in part]
            # From the first call of any client to the last: opening the index is not counted.
            qa_seconds = max(end for _, end, _ in timed) - min(begin for begin, _, _ in timed)
    finally:
        for process in processes:
            process.terminate()
            process.wait()
    digest, head_checksum = hashlib.sha256(), ""
    ordered = [answers[n % clients][n // clients] for n in range(len(asked))]
    for n, answer in enumerate(ordered, 1):
        digest.update(json.dumps(sorted(answer)).encode())
        if n == head:
            head_checksum = digest.hexdigest()[:12]
    return {
        "adds_per_s": len(stored) / add_seconds, "queries_per_s": len(asked) / query_seconds,
        "p50_ms": float("nan"), "p99_ms": float("nan"), "disk_mb": 0.0,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "checksum": digest.hexdigest()[:12], "head_checksum": head_checksum,
        **_query_or_add_figures(qa, qa_seconds),
    }  # fmt: skip


def _warm(_: int) -> None:
    import scrapy_simdedup.index.opening  # noqa: F401


def _redis_add_part(part: tuple[str, np.ndarray, int, int]) -> None:
    from scrapy_simdedup.index.opening import open_index

    url, fingerprints, offset, step = part
    with open_index(url, max_distance=K) as index:
        for n, fp in enumerate(fingerprints.tolist()):
            index.add(fp, str(offset + n * step))


def _redis_query_part(part: tuple[str, list[int]]) -> list[list[int]]:
    from scrapy_simdedup.index.opening import open_index

    url, fingerprints = part
    with open_index(url, max_distance=K) as index:
        return [[int(m.key) for m in index.query(fp)] for fp in fingerprints]


def _redis_query_or_add_part(
    part: tuple[str, list[int], int, float],
) -> tuple[float, float, list[int]]:
    """(wall clock at the first call, at the end, each call's nanoseconds). Keys are the
    client's own: clients adding under one key would measure their contention on it (the
    retries of a guarded write), which no crawl has, since pages have their own URLs."""
    from scrapy_simdedup.index.opening import open_index

    url, fingerprints, client, start_at = part
    with open_index(url, max_distance=K) as index:
        while time.time() < start_at:
            time.sleep(0.001)
        begin = time.time()
        latencies = _timed(index.query_or_add, fingerprints, f"new/{client}/")
        return begin, time.time(), latencies


def _fingerprints(stored: np.ndarray) -> Iterator[tuple[int, int]]:
    """(position, fingerprint) as Python ints, 100k at a time: a list of 10M ints would
    add 300 MB to the RSS being measured."""
    for start in range(0, len(stored), 100_000):
        for offset, fp in enumerate(stored[start : start + 100_000].tolist()):
            yield start + offset, fp


def _numpy_tables() -> Impl:
    """Four sorted arrays of rotated fingerprints (16-bit blocks), searched with searchsorted."""
    tables: list[tuple[np.ndarray, np.ndarray]] = []
    shifts = (0, 16, 32, 48)

    def rotate(values: np.ndarray | np.uint64, by: int) -> np.ndarray:
        if by == 0:
            return np.asarray(values, dtype=np.uint64)
        return (values << np.uint64(by)) | (values >> np.uint64(64 - by))

    def build(stored: np.ndarray) -> None:
        for by in shifts:
            rotated = rotate(stored, by)
            order = np.argsort(rotated, kind="stable")
            tables.append((rotated[order], order))

    def query(fp: int) -> list[int]:
        found: set[int] = set()
        for (rotated, order), by in zip(tables, shifts, strict=True):
            q = int(rotate(np.uint64(fp), by))
            low = q >> 48 << 48
            top = np.uint64(min(low + 2**48, 2**64 - 1))
            lo, hi = np.searchsorted(rotated, [np.uint64(low), top])
            if low + 2**48 > 2**64 - 1:
                hi = len(rotated)
            block = rotated[lo:hi]
            hits = np.flatnonzero(np.bitwise_count(block ^ np.uint64(q)) <= K)
            found.update(order[lo + hits].tolist())
        return list(found)

    return build, query, lambda: None, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--scan-queries", type=int, default=300, help="for the brute-force scan")
    parser.add_argument("--only", default=",".join(IMPLEMENTATIONS))
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(run_one(args.run, args.size, args.queries, args.scan_queries)))
        return
    print(f"{'N':>10} {'implementation':16} {'adds/s':>10} {'queries/s':>10} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'qadds/s':>9} {'qa p99':>7} {'open s':>7} {'disk MB':>8} "
          f"{'RSS MB':>8}  "
          "answers")  # fmt: skip
    for size in (int(s) for s in args.sizes.split(",")):
        _compare(size, args, args.only.split(","))


def _compare(size: int, args: argparse.Namespace, names: Iterable[str]) -> None:
    reference: dict[str, str] = {}
    for name in names:
        result = json.loads(
            subprocess.run(
                [sys.executable, __file__, "--run", name, "--size", str(size),
                 "--queries", str(args.queries), "--scan-queries", str(args.scan_queries)],
                capture_output=True, text=True, check=True,
            ).stdout
        )  # fmt: skip
        # The scan answers only the first --scan-queries queries: compare it on those.
        agree = reference.setdefault("head", result["head_checksum"]) == result["head_checksum"]
        if name != "numpy-scan":
            agree &= reference.setdefault("all", result["checksum"]) == result["checksum"]
        adds = "-" if name == "numpy-scan" else f"{result['adds_per_s']:,.0f}"
        print(
            f"{size:>10,} {name:16} {adds:>10} {result['queries_per_s']:>10,.0f} "
            f"{result['p50_ms']:>8.3f} {result['p99_ms']:>8.3f} "
            f"{_figure(result['qadds_per_s'], 9, ',.0f')} "
            f"{_figure(result['qadd_p99_ms'], 7, '.3f')} "
            f"{_figure(result.get('open_s', math.nan), 7, '.2f')} {result['disk_mb']:>8.1f} "
            f"{result['peak_rss_mb']:>8.0f}  {'same' if agree else 'DIFFERENT'}",
            flush=True,
        )


def _figure(value: float, width: int, spec: str) -> str:
    """A figure right-aligned in ``width``; a NaN (not measured) as a dash."""
    return "-".rjust(width) if math.isnan(value) else format(value, f">{width}{spec}")


if __name__ == "__main__":
    main()
