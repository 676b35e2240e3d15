"""A writer process for crash tests: adds fingerprints and reports each acknowledged add.

python -m tests.support.index_writer FOLDER SEED
"""

from __future__ import annotations

import random
import sys

from scrapy_simdedup.index.opening import open_index


def main() -> None:
    folder, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    with open_index(folder) as index:
        print("ready", flush=True)
        for n in range(1_000_000):
            fingerprint = rng.getrandbits(64)
            key = f"{seed}-{n}"
            index.add(fingerprint, key, payload=key.encode())
            print(key, fingerprint, flush=True)


if __name__ == "__main__":
    main()
