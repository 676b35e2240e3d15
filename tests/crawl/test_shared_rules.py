"""Two `scrapy crawl` processes on one redis-server: a rule one learns skips in the other."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.stores.redis import RedisStore
from tests.support import processes, urlsites
from tests.support.crawls import DEMO, crawl_command, crawl_env, parse
from tests.support.waits import wait_until

pytestmark = pytest.mark.timeout(900)


def test_a_rule_learned_by_one_crawl_skips_requests_in_the_other_while_both_run(
    redis_url: str, tmp_path: Path
) -> None:
    site = urlsites.two_sections()
    settings = [
        "-s", "SIMDEDUP_STORE=redis", "-s", f"SIMDEDUP_REDIS_URL={redis_url}",
        "-s", "SIMDEDUP_REDIS_PREFIX=shared-rules", "-s", "CONCURRENT_REQUESTS=1",
    ]  # fmt: skip
    store = RedisStore(redis_url, "shared-rules")
    with urlsites.serve({"site": site}) as urls:
        base = urls["site"]
        teacher = processes.popen(
            crawl_command([base + "a"], tmp_path / "a.jsonl", *settings,
                          "-s", "DOWNLOAD_DELAY=0.2"),
            cwd=DEMO, env=crawl_env(), stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            # The teacher has a rule in force once it announces one.
            wait_until(
                lambda: store.get(keyspace.RULE_NEWS_COUNT) is not None, 120, "a rule announced"
            )
            learner = processes.popen(
                crawl_command([base + "b"], tmp_path / "b.jsonl", *settings),
                cwd=DEMO, env=crawl_env(), stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
            learner_log = learner.communicate(timeout=300)[1]
            teacher_running = teacher.poll() is None
            teacher_log = teacher.communicate(timeout=300)[1]
        finally:
            store.close()
            if teacher.poll() is None:
                teacher.kill()
                teacher.communicate(timeout=60)
    learned = parse(learner.returncode, learner_log, tmp_path / "b.jsonl")
    taught = parse(teacher.returncode, teacher_log, tmp_path / "a.jsonl")
    assert learned.returncode == 0 and taught.returncode == 0, learner_log[-3000:]
    assert teacher_running  # the rule reached the other crawl while both ran
    # Two copies are too few to learn from (SIMDEDUP_URL_MIN_EVIDENCE is 3): the skips
    # rest on the teacher's rule.
    assert learned.simdedup().get("simdedup/url/skipped/pattern", 0) >= 1, learner_log[-3000:]
    kept = {str(item["url"]).removeprefix(base.rstrip("/")) for item in learned.items}
    assert kept == {"/b", *(f"/b/{n}" for n in range(1, 7))}  # every distinct page, once
    assert taught.simdedup().get("simdedup/url/skipped/pattern", 0) > 0
