"""Two `scrapy crawl` processes on one redis-server (or a cluster: ``test_redis_cluster.py``):
a rule one learns skips in the other, and what one parked before it was killed is fetched
by the other."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.stores import open_store
from scrapy_simdedup.index.stores.base import Store
from tests.support import processes, urlsites
from tests.support.crawls import DEMO, Crawl, crawl_command, crawl_env, feed_lines, parse
from tests.support.waits import wait_until

pytestmark = pytest.mark.timeout(900)


def test_a_rule_learned_by_one_crawl_skips_requests_in_the_other_while_both_run(
    redis_url: str, tmp_path: Path
) -> None:
    site = urlsites.two_start_pages()
    settings = [
        "-s", "SIMDEDUP_STORE=redis", "-s", f"SIMDEDUP_REDIS_URL={redis_url}",
        "-s", "SIMDEDUP_REDIS_PREFIX=shared-rules", "-s", "CONCURRENT_REQUESTS=1",
        # A worker at idle waits for the others to beat (within a quarter of this): short,
        # so the learner does not outwait the teacher.
        "-s", "SIMDEDUP_WORKER_TIMEOUT=2",
    ]  # fmt: skip
    store = open_store("redis", url=redis_url, prefix="shared-rules")  # sharded on a cluster
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
    assert kept == {"/b", *(f"/p/{n}" for n in range(101, 107))}  # every distinct page, once
    assert taught.simdedup().get("simdedup/url/skipped/pattern", 0) > 0


def test_what_a_killed_crawl_parked_is_fetched_by_the_crawl_still_running(
    redis_url: str, tmp_path: Path
) -> None:
    """Worker A learns a mirror and parks its copies; kill -9 of A; worker B, which started
    before A parked anything (so did not read A's requests at its start), fetches them."""
    crawl, log, parked, left, workers = _survive_a_killed_worker(
        redis_url, tmp_path, "dead-worker", products=40
    )
    assert crawl.stats["finish_reason"] == "finished"
    assert crawl.simdedup().get("simdedup/url/reissued/abandoned", 0) == len(parked), log[-3000:]
    fetched = set(re.findall(r"Crawled \(200\) <GET (\S+)>", log))
    assert parked <= fetched  # every request A had parked, fetched by B
    assert left == set() and workers == []  # nothing waits for a worker that is gone


def test_a_crawl_ending_on_a_budget_fetches_what_a_killed_worker_parked(
    redis_url: str, tmp_path: Path
) -> None:
    """The same, B ending on ``CLOSESPIDER_PAGECOUNT``: it never goes idle, and the killed
    worker's requests used to be re-issued only at idle, so they waited for the next crawl
    (plain Scrapy fetched them: their links were on pages A had fetched). B now takes them
    over once A is known dead, while it crawls."""
    crawl, log, parked, left, _ = _survive_a_killed_worker(
        redis_url, tmp_path, "dead-worker-budget", products=80,
        extra=("-s", "CLOSESPIDER_PAGECOUNT=70"),
    )  # fmt: skip
    assert crawl.stats["finish_reason"] == "closespider_pagecount", log[-3000:]
    assert crawl.simdedup().get("simdedup/url/reissued/abandoned", 0) == len(parked), log[-3000:]
    fetched = set(re.findall(r"Crawled \(200\) <GET (\S+)>", log))
    assert parked <= fetched, log[-3000:]
    assert left == set()


def _survive_a_killed_worker(
    redis_url: str, tmp_path: Path, prefix: str, *, products: int, extra: tuple[str, ...] = ()
) -> tuple[Crawl, str, set[str], set[str], list[tuple[bytes, bytes]]]:
    """Worker B crawls a shop of ``products`` slowly; worker A crawls an original and its
    mirror until it parked three copies, and is killed. B's crawl, its log, what A had
    parked, what is parked when B ended and the workers' heartbeats left."""
    sites = {
        **urlsites.mirrored_with_failures(shared=80, failing=0),
        "shop": urlsites.shop("b", products),
    }
    settings = [
        "-s", "SIMDEDUP_STORE=redis", "-s", f"SIMDEDUP_REDIS_URL={redis_url}",
        "-s", f"SIMDEDUP_REDIS_PREFIX={prefix}", "-s", "SIMDEDUP_WORKER_TIMEOUT=2",
        "-s", "CONCURRENT_REQUESTS=1",
    ]  # fmt: skip
    store = open_store("redis", url=redis_url, prefix=prefix)
    survivor_log = tmp_path / "b.log"
    with urlsites.serve(sites) as urls, survivor_log.open("w") as log_file:
        # Its log goes to a file: a pipe nobody reads until the end would stall it.
        survivor = processes.popen(
            crawl_command([urls["shop"]], tmp_path / "b.jsonl", *settings, *extra,
                          "-s", "DOWNLOAD_DELAY=0.5", "-s", "LOG_LEVEL=DEBUG"),
            cwd=DEMO, env=crawl_env(), stderr=log_file, text=True,
        )  # fmt: skip
        killed = None
        try:
            wait_until(lambda: feed_lines(tmp_path / "b.jsonl") >= 1, 120, "B crawling")
            killed = processes.popen(
                crawl_command([urls["original"], urls["mirror"]], tmp_path / "a.jsonl",
                              *settings, "-s", "DOWNLOAD_DELAY=0.1"),
                cwd=DEMO, env=crawl_env(), stderr=subprocess.DEVNULL,
            )  # fmt: skip
            wait_until(lambda: len(_parked(store)) >= 3, 120, "A parking mirror copies")
            killed.kill()
            killed.wait(timeout=60)
            parked = _parked(store)  # what A left: nobody else would fetch it
            survivor_running = survivor.poll() is None
            survivor.wait(timeout=300)
            log = survivor_log.read_text("utf-8")
            left = _parked(store)
            workers = list(store.scan(keyspace.WORKERS, keyspace.end(keyspace.WORKERS)))
        finally:
            store.close()
            for process in (survivor, killed):
                if process is not None and process.poll() is None:
                    process.kill()
                    process.communicate(timeout=60)
    crawl = parse(survivor.returncode, log, tmp_path / "b.jsonl")
    assert survivor_running and crawl.returncode == 0, log[-3000:]
    assert parked, "A was killed before it parked anything"
    return crawl, log, parked, left, workers


def _parked(store: Store) -> set[str]:
    stored = store.scan(keyspace.PARKED, keyspace.end(keyspace.PARKED))
    return {key[len(keyspace.PARKED) :].decode() for key, _ in stored}
