"""A writer process for the memory tables' crash test: adds, moves and discards pages on a
LevelDB index (its tables in memory) and reports each step once it returned.

python -m tests.support.table_writer FOLDER SEED
"""

from __future__ import annotations

import random
import sys

from scrapy_simdedup.index.opening import open_index


def main() -> None:
    folder, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    bases = [rng.getrandbits(64) for _ in range(20)]  # pages near each other: shared buckets
    with open_index(folder) as index:
        print("ready", flush=True)
        for n in range(1_000_000):
            key = f"{seed}-{rng.randrange(n + 1)}"  # an earlier key now and then: a move
            if rng.random() < 0.1:
                index.discard(key)
                print("discard", key, flush=True)
                continue
            fingerprint = rng.choice(bases) ^ (1 << rng.randrange(64)) ^ (1 << rng.randrange(64))
            index.add(fingerprint, key)
            print("add", key, fingerprint, flush=True)


if __name__ == "__main__":
    main()
