"""Look-ups of absent keys in the LevelDB store, with its Bloom filters and without.

    python3 benchmarks/leveldb_misses.py [--keys 2000000] [--lookups 200000] [--cache-mb 256]

Most of what a new page looks up is absent: its exact hash, sentences, blocks and URL.
Builds two folders holding the same ``--keys`` random keys, compacted into table files:
one by ``LevelDBStore`` (Bloom filters, ``BLOOM_BITS`` per key), one with the same options
and no filter (the baseline: the store as it was), then times the same absent keys in
each, twice: the first pass reads table files the OS may not have cached yet, the second
runs from memory. Both folders are compacted into their final tables before they are
timed. ``--cache-mb`` is LevelDB's block cache for both (the store's is 256 MB; a smaller
one stands for a store much larger than its cache).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scrapy_simdedup.index.stores.leveldb import BLOOM_BITS, TABLES, LevelDBStore
from scrapy_simdedup.index.stores.leveldb_binding import plyvel

BATCH = 10_000


def _fill(db: plyvel.DB, keys: int) -> None:
    rng = random.Random(7)
    for _ in range(0, keys, BATCH):
        with db.write_batch() as batch:
            for _ in range(BATCH):
                batch.put(b"B" + rng.getrandbits(128).to_bytes(16, "big"), b"\x01" * 20)
    db.compact_range(start=b"", stop=b"C")  # every key into its final tables, at once


def _time(db: plyvel.DB, absent: list[bytes]) -> tuple[float, float]:
    """CPU and wall microseconds per look-up of ``absent``, all of which must miss."""
    cpu, wall = time.process_time(), time.perf_counter()
    found = sum(db.get(key, verify_checksums=True) is not None for key in absent)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if found:
        raise SystemExit(f"{found} keys meant to be absent were found")
    return 1e6 * cpu / len(absent), 1e6 * wall / len(absent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=2_000_000)
    parser.add_argument("--lookups", type=int, default=200_000)
    parser.add_argument("--cache-mb", type=int, default=256)
    args = parser.parse_args()
    rng = random.Random(11)
    # Among the stored keys, as a page's absent keys are: a key outside every table's range
    # is answered before any table is read, with or without filters.
    absent = [b"B" + rng.getrandbits(128).to_bytes(16, "big") for _ in range(args.lookups)]
    print(f"{args.keys:,} keys, {len(absent):,} absent look-ups among them, "
          f"{args.cache_mb} MB block cache; microseconds per look-up, CPU / wall")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        store = LevelDBStore(Path(folder) / "filtered", cache_mb=args.cache_mb)
        baseline = plyvel.DB(
            str(Path(folder) / "plain"), create_if_missing=True, paranoid_checks=True,
            lru_cache_size=args.cache_mb * 2**20, write_buffer_size=32 * 2**20,
            max_open_files=500, **{**TABLES, "bloom_filter_bits": 0},
        )  # fmt: skip
        filtered = store._open()
        try:
            for db in (baseline, filtered):
                _fill(db, args.keys)
            for attempt in ("first pass", "second pass"):
                plain_cpu, plain_wall = _time(baseline, absent)
                ours_cpu, ours_wall = _time(filtered, absent)
                print(f"  {attempt}: without filters {plain_cpu:.2f} / {plain_wall:.2f}, "
                      f"with {BLOOM_BITS}-bit filters {ours_cpu:.2f} / {ours_wall:.2f} "
                      f"({ours_cpu / plain_cpu:.2f}x CPU, "
                      f"{ours_wall / plain_wall:.2f}x wall)")  # fmt: skip
        finally:
            baseline.close()
            store.close()


if __name__ == "__main__":
    main()
