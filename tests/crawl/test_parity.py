"""The crawl and `scrapy simdedup query` ask one content judge, so they cannot disagree."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_simdedup.index.opening import open_stored_index
from scrapy_simdedup.judges.content import ContentJudge
from tests.support import processes
from tests.support.crawls import DEMO, crawl_env, run_crawl, scrapy_command, serve_sites

pytestmark = pytest.mark.timeout(900)


def test_query_explains_every_verdict_of_the_crawl(tmp_path: Path) -> None:
    with serve_sites() as sites:
        crawl = run_crawl(
            list(sites.values()), tmp_path / "feed.jsonl",
            "-s", f"SIMDEDUP_DIR={tmp_path}", "-s", "SIMDEDUP_DROP=False",
            "-s", "SIMDEDUP_URL_MODE=off",
        )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    copies = [item for item in crawl.items if item["simdedup_cluster"] != item["url"]]
    kept = [item for item in crawl.items if item["simdedup_cluster"] == item["url"]]
    assert copies and kept
    with open_stored_index(tmp_path / "pages") as index:
        judge = ContentJudge(index)
        for item in crawl.items:
            verdict = judge.explain(f"{item['title']}\n{item['text']}", item["url"])
            if item in copies:  # dropped by the crawl: query names the same original
                assert verdict.copy and verdict.original == item["simdedup_cluster"], item["url"]
            else:  # kept: nothing else would drop it
                assert not verdict.copy and verdict.revisit, item["url"]
    copy = copies[0]
    (tmp_path / "page.txt").write_text(f"{copy['title']}\n{copy['text']}", "utf-8")
    done = processes.run(
        scrapy_command(
            "simdedup", "query", "pages", "-s", f"SIMDEDUP_DIR={tmp_path}",
            "--text-file", str(tmp_path / "page.txt"), "--key", copy["url"],
        ),
        cwd=DEMO, capture_output=True, text=True, timeout=120, env=crawl_env(), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"verdict: a copy of {copy['simdedup_cluster']} " in done.stdout
