"""Serve the bundled sites on 127.0.0.1 and crawl them with the content pipeline on.

    python3 run_demo.py

Prints Scrapy's log (its stats dump shows the simdedup/... counts: pages dropped by the
content pipeline, requests the URL middleware skipped before download), then compares the
feed with what the sites hold: one kept page per distinct content is the goal.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from demosite import build_sites, serve_sites

HERE = Path(__file__).resolve().parent
FEED = HERE / "pages.jsonl"


def main() -> int:
    sites = build_sites(traps=True)
    with serve_sites(sites) as urls:
        command = [
            sys.executable, "-m", "scrapy", "crawl", "pages",
            "-a", "start_urls=" + ",".join(urls.values()),
            "-a", "simdedup_reset=1", "-O", str(FEED),
        ]  # fmt: skip
        crawl = subprocess.run(command, cwd=HERE, timeout=600, check=False)
        content_of = {
            url.rstrip("/") + path: page.content
            for site, url in urls.items()
            for path, page in sites[site].items()
        }
    if crawl.returncode:
        return crawl.returncode
    items = [json.loads(line) for line in FEED.read_text("utf-8").splitlines()]
    paths = [item["url"].split("?", 1)[0] for item in items]  # session ids, sort orders
    kept = Counter(content_of[path] for path in paths if path in content_of)
    distinct = set(content_of.values())
    print(f"\n{len(content_of)} pages on 4 sites hold {len(distinct)} distinct contents.")
    copies, lost = sum(n - 1 for n in kept.values()), len(distinct - set(kept))
    print(
        f"The feed has {len(items)} items: {len(kept)} distinct contents kept, "
        f"{copies} copies kept, {lost} lost."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
