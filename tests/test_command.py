"""`scrapy simdedup` (inspect, query, repair, reset) run as Scrapy runs it, in the demo
project, on an index a real crawl built."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.index.stores.leveldb import MARKER
from tests.support import processes
from tests.support.crawls import DEMO, Crawl, crawl_env, run_crawl, scrapy_command, serve_sites

# Real crawls (subprocesses with their own deadlines) take longer than the suite's
# default limit.
pytestmark = pytest.mark.timeout(900)


def simdedup(*args: str) -> subprocess.CompletedProcess[str]:
    done = processes.run(
        scrapy_command("simdedup", *args),
        cwd=DEMO, env=crawl_env(), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "Warning" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module")
def crawled(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, dict[str, str], Crawl]]:
    """An index folder filled by a crawl of all demo sites; tests work on copies of it."""
    folder = tmp_path_factory.mktemp("crawled")
    with serve_sites() as sites:
        crawl = run_crawl(
            list(sites.values()), folder / "feed.jsonl", "-s", f"SIMDEDUP_DIR={folder / 'index'}"
        )
        assert crawl.returncode == 0, crawl.log[-3000:]
        yield folder / "index", sites, crawl


@pytest.fixture
def index_dir(crawled: tuple[Path, dict[str, str], Crawl], tmp_path: Path) -> Path:
    copy = tmp_path / "index"
    shutil.copytree(crawled[0], copy)
    return copy


def test_inspect_shows_size_parameters_and_learned_mirrors(
    crawled: tuple[Path, dict[str, str], Crawl], index_dir: Path
) -> None:
    _, sites, crawl = crawled
    done = simdedup("inspect", "pages", "-s", f"SIMDEDUP_DIR={index_dir}", "--verify")
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(":", 1) for line in done.stdout.splitlines() if not line[0].isspace())
    assert lines["index"].strip() == str(index_dir / "pages")
    assert lines["pages"].strip() == f"{crawl.simdedup()['simdedup/index/size']:,}"
    assert "k=3, 4 tables, 16-bit prefixes, tokenizer words-jieba/tf" in lines["parameters"]
    assert "0 missing, 0 stray: consistent" in lines["verify"]
    assert lines["URLs"].strip().startswith(f"{crawl.simdedup()['simdedup/url/fetched']:,} fetched")
    mirror_host = sites["mirror"].split("/")[2]
    assert any("mirrors" in line and mirror_host in line for line in done.stdout.splitlines())


def test_query_finds_a_stored_page_and_judges_urls(
    crawled: tuple[Path, dict[str, str], Crawl], index_dir: Path
) -> None:

    crawl = crawled[2]
    item = next(item for item in crawl.items if len(item["text"]) > 1000)
    text = item["title"] + "\n" + item["text"]
    (index_dir.parent / "page.txt").write_text(text, "utf-8")
    done = simdedup(
        "query", "pages", "-s", f"SIMDEDUP_DIR={index_dir}",
        "--text-file", str(index_dir.parent / "page.txt"),
        "--url", item["url"], "--url", "ftp://example.invalid/x",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"0 bits  {item['url']}  confirmed: a copy, would be dropped" in out
    # What counted as content: the page itself, all of it held by the stored page.
    judged = out.split(f"0 bits  {item['url']}  confirmed")[1].splitlines()[1].strip()
    assert judged.startswith("content ") and "(0 the stored page lacks, 100% of its" in judged
    assert judged.endswith("the stored page has 0 content words this one lacks")
    assert f"exactly the text of {item['url']}: a copy, would be dropped" in out
    # One answer per URL: what a crawl would do, and whether an earlier crawl fetched it.
    said = [line for line in out.splitlines() if line.startswith(f"url: {item['url']}:")]
    assert len(said) == 1, said
    assert said[0].endswith("; fetched by an earlier crawl on this index"), said
    assert "url: ftp://example.invalid/x: never skipped, URL not checked (not_http)" in out

    unrelated = (
        "Gardening notes: tomatoes want warm soil, basil likes sun, and spring rain brings "
        "slugs to young lettuce; mulch, copper tape and beer traps each help a little, while "
        "crop rotation keeps blight from returning to the same bed every summer season."
    )
    done = simdedup("query", "pages", "-s", f"SIMDEDUP_DIR={index_dir}", "--text", unrelated)
    assert "0 stored pages within k" in done.stdout


def test_repair_through_the_command_after_damage(index_dir: Path) -> None:
    folder = index_dir / "pages"
    (folder / "CURRENT").unlink()
    refused = simdedup("inspect", "pages", "-s", f"SIMDEDUP_DIR={index_dir}")
    assert refused.returncode == 1
    assert f"{folder} is a damaged store" in refused.stderr
    assert "scrapy simdedup repair" in refused.stderr
    assert not (folder / "CURRENT").exists()  # refused without a change

    done = simdedup("repair", "pages", "-s", f"SIMDEDUP_DIR={index_dir}")
    assert done.returncode == 0, done.stderr
    assert "LevelDB rebuilt the store" in done.stdout
    assert f"repair: copying {folder} aside (" in done.stderr  # the steps, as they start
    assert f"repair: damaged files: LevelDB rebuilds {folder}" in done.stderr
    assert "0 table entries restored, 0 stray entries removed" in done.stdout
    backups = list(index_dir.glob("pages.before-repair-*"))
    assert len(backups) == 1 and not (backups[0] / "CURRENT").exists()
    with open_index(folder) as index:  # the crawl's parameters are checked on opening
        assert index.verify().consistent
        assert len(index) > 0


def test_a_crawl_on_a_damaged_store_stops_before_fetching(index_dir: Path, tmp_path: Path) -> None:
    (index_dir / "pages" / "CURRENT").unlink()
    crawl = run_crawl(
        ["http://127.0.0.1:9/"], tmp_path / "feed.jsonl", "-s", f"SIMDEDUP_DIR={index_dir}"
    )
    assert crawl.returncode != 0
    errors = [line for line in crawl.log.splitlines() if "simdedup: cannot open" in line]
    assert len(errors) == 1
    assert str(index_dir / "pages") in errors[0] and "scrapy simdedup repair" in errors[0]
    assert "Crawled (" not in crawl.log
    assert not (index_dir / "pages" / "CURRENT").exists()


def test_reset_needs_yes_and_removes_only_the_index(index_dir: Path) -> None:
    folder = index_dir / "pages"
    (index_dir / "notes.txt").write_text("the user's own file", "utf-8")
    asked = simdedup("reset", "pages", "-s", f"SIMDEDUP_DIR={index_dir}")
    assert asked.returncode != 0
    assert "add --yes" in asked.stderr + asked.stdout
    assert (folder / MARKER).is_file()

    done = simdedup("reset", "pages", "-s", f"SIMDEDUP_DIR={index_dir}", "--yes")
    assert done.returncode == 0, done.stderr
    assert not folder.exists()
    assert (index_dir / "notes.txt").read_text("utf-8") == "the user's own file"
    again = simdedup("reset", "pages", "-s", f"SIMDEDUP_DIR={index_dir}", "--yes")
    assert "there was no index" in again.stdout


def test_no_index_is_an_error_and_nothing_is_created(tmp_path: Path) -> None:
    done = simdedup("inspect", "pages", "-s", f"SIMDEDUP_DIR={tmp_path / 'none'}")
    assert done.returncode == 1
    assert "there is no scrapy-simdedup index" in done.stderr
    assert not (tmp_path / "none").exists()
    usage = simdedup("frobnicate")
    assert usage.returncode != 0 and "inspect, query, report, repair, reset" in usage.stderr


def test_a_redis_index_is_inspected_too(redis_url: str, tmp_path: Path) -> None:
    with open_index(redis_url, prefix="simdedup:pages") as index:
        index.add(12345, "http://127.0.0.1/a")
    done = simdedup(
        "inspect", "pages", "-s", "SIMDEDUP_STORE=redis", "-s", f"SIMDEDUP_REDIS_URL={redis_url}"
    )
    assert done.returncode == 0, done.stderr
    assert "pages:      1" in done.stdout
    assert json.dumps(redis_url)[1:-1] in done.stdout
    redis_args = ["-s", "SIMDEDUP_STORE=redis", "-s", f"SIMDEDUP_REDIS_URL={redis_url}"]
    reset = simdedup("reset", "pages", *redis_args, "--yes")
    assert reset.returncode == 0, reset.stderr
    assert "reset: removing 7 entries of" in reset.stderr  # a page, its 4 table entries, meta
    assert f"deleted the index at {redis_url}" in reset.stdout


def test_check_finds_the_plugin_off_in_a_new_project(tmp_path: Path) -> None:
    """``scrapy startproject`` writes ``ADDONS = {}``: a line pasted above it is overwritten."""

    def scrapy(*args: str, cwd: Path = tmp_path / "shop") -> subprocess.CompletedProcess[str]:
        return processes.run(
            scrapy_command(*args), cwd=cwd, env=crawl_env(), capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip

    assert scrapy("startproject", "shop", cwd=tmp_path).returncode == 0
    settings = tmp_path / "shop" / "shop" / "settings.py"
    written = settings.read_text("utf-8")
    assert "\nADDONS = {}\n" in written
    pasted = 'BOT_NAME = "shop"\nADDONS = {"scrapy_simdedup.Addon": 0}\nSIMDEDUP_DIR = "dedup"\n'
    settings.write_text(written.replace('BOT_NAME = "shop"\n', pasted, 1), "utf-8")
    off = "SIMDEDUP_DIR is set, but the plugin is not enabled: neither "
    checked = scrapy("simdedup", "check")
    assert checked.returncode == 1
    assert "components:  ContentSeenPipeline off, UrlSimHashMiddleware off" in checked.stdout
    assert f"warning: {off}" in checked.stdout
    assert "put the plugin in that line, ADDONS = {" in checked.stdout
    inspected = scrapy("simdedup", "inspect", "spider")  # every action says so
    assert f"scrapy simdedup: warning: {off}" in inspected.stderr

    fixed = settings.read_text("utf-8").replace(
        "\nADDONS = {}\n", '\nADDONS = {"scrapy_simdedup.Addon": 0}\n'
    )
    settings.write_text(fixed, "utf-8")
    checked = scrapy("simdedup", "check")
    assert checked.returncode == 0, checked.stdout
    assert "ContentSeenPipeline on, UrlSimHashMiddleware on (SIMDEDUP_URL_MODE 'adaptive') " \
        "through the Addon" in checked.stdout  # fmt: skip
    assert "warning" not in checked.stdout + checked.stderr


def test_check_shows_the_verdict_log_path_the_crawl_writes() -> None:
    done = simdedup("check", "pages", "-s", "SIMDEDUP_VERDICT_LOG=logs/verdicts-%(name)s.jsonl")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict log: logs/verdicts-pages.jsonl\n" in done.stdout
