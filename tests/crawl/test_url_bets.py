"""Real crawls where a URL rule is wrong, or its counterpart fails: every skip is a bet,
and every distinct page still reaches the feed."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support import processes, urlsites
from tests.support.crawls import (
    DEMO,
    Crawl,
    crawl_command,
    crawl_env,
    feed_lines,
    run_crawl,
    scrapy_command,
)
from tests.support.urlsites import Site
from tests.support.waits import wait_until

pytestmark = pytest.mark.timeout(900)


def _crawl(urls: dict[str, str], folder: Path, feed: str, *settings: str) -> Crawl:
    args = ["-s", f"SIMDEDUP_DIR={folder / 'index'}"]
    for setting in settings:
        args += ["-s", setting]
    crawl = run_crawl(list(urls.values()), folder / feed, *args)
    assert crawl.returncode == 0, crawl.log[-3000:]
    return crawl


def _kept(crawl: Crawl, urls: dict[str, str], sites: dict[str, Site]) -> set[str]:
    by_host = {urlsplit(url).netloc: sites[name] for name, url in urls.items()}
    kept = set()
    for item in crawl.items:
        split = urlsplit(str(item["url"]))
        pages = by_host[split.netloc].pages
        path = split.path + (f"?{split.query}" if split.query else "")
        kept.add((pages.get(path) or pages[split.path]).content)
    return kept


def _distinct(sites: dict[str, Site]) -> set[str]:
    return set().union(*(site.distinct() for site in sites.values()))


def _fetched_lines(crawl: Crawl) -> list[str]:
    """What a failing assertion shows of a crawl: its fetches, skips and requests."""
    pattern = (
        r"Crawled \(\d+\) <GET \S+>|skipped \S+|failed; requested \S+|Error downloading <\S+ \S+"
    )
    return re.findall(pattern, crawl.log)


def _stat(crawl: Crawl, prefix: str) -> int:
    return sum(n for key, n in crawl.simdedup().items() if key.startswith(prefix))


def test_a_trap_learned_from_removed_posts_loses_no_thread(tmp_path: Path) -> None:
    # The listing answers after 3 s, so the trap is learned before its links are scheduled
    # (a loaded CI run learned it too late to skip any, and lost nothing).
    sites = {"forum": urlsites.forum(slow_listing=3.0)}
    with urlsites.serve(sites) as urls:
        crawl = _crawl(urls, tmp_path, "feed.jsonl")
    assert _kept(crawl, urls, sites) == _distinct(sites)  # all 60 threads
    stats: dict[str, Any] = crawl.simdedup()
    assert stats.get("simdedup/url/skipped/trap", 0) > 0  # the bet was made...
    assert stats["simdedup/url/reissued/rule_weakened"] > 0  # ...and lost, so re-issued


def test_a_rule_learned_while_requests_wait_loses_no_thread(tmp_path: Path) -> None:
    sites = {"forum": urlsites.forum_waiting()}
    with urlsites.serve(sites) as urls:
        # One request at a time, slowly enough for the verdicts to keep up.
        crawl = _crawl(urls, tmp_path, "feed.jsonl", "CONCURRENT_REQUESTS=1", "DOWNLOAD_DELAY=0.2")
    assert _kept(crawl, urls, sites) == _distinct(sites)


def test_annotate_mode_never_skips(tmp_path: Path) -> None:
    # The listing answers after 3 s: the trap is learned from the notices' verdicts before
    # its links are scheduled, even on a loaded machine (1 s was too short once in CI).
    sites = {"forum": urlsites.forum(slow_listing=3.0)}
    with urlsites.serve(sites) as urls:
        crawl = _crawl(urls, tmp_path, "feed.jsonl", "SIMDEDUP_DROP=False")
    assert _kept(crawl, urls, sites) == _distinct(sites)
    assert len(crawl.items) == len(sites["forum"].pages)  # copies annotated, not dropped
    assert _stat(crawl, "simdedup/url/skipped/") == 0
    assert _stat(crawl, "simdedup/url/would_skip/") > 0


def test_shops_sharing_only_legal_pages_are_no_mirror(tmp_path: Path) -> None:
    sites = urlsites.two_shops()
    slow = ("CONCURRENT_REQUESTS=1", "DOWNLOAD_DELAY=0.1")  # the verdicts keep up
    with urlsites.serve(sites) as urls:
        first = _crawl(urls, tmp_path, "1.jsonl", *slow)
        second = _crawl(urls, tmp_path, "2.jsonl", *slow)
    for crawl in (first, second):
        assert crawl.simdedup()["simdedup/url/mirror_hosts"] == 0
        assert _stat(crawl, "simdedup/url/skipped/mirror") == 0
    assert _kept(first, urls, sites) == _distinct(sites)
    # The second crawl keeps re-visits: every product again.
    assert {c for c in _kept(second, urls, sites) if "product" in c} == {
        c for c in _distinct(sites) if "product" in c
    }


def test_a_failing_counterpart_leaves_the_mirror_page_in_the_feed(tmp_path: Path) -> None:
    # Docs pages answer in 50 ms, as a real server's would: the mirror rule is learned from
    # their verdicts before the articles are scheduled, even on a loaded machine (at 0 ms a
    # CI run learned it too late to skip any; nothing was lost). Either host may be taken
    # for the copy. The mirror's articles wait on the original's and are re-issued when
    # those fail; when the mirror's pages linking them were skipped, the original's failed
    # links are followed on the mirror (a CI run lost all 20 before they were).
    sites = urlsites.mirrored_with_failures(latency=0.05)
    with urlsites.serve(sites) as urls:
        crawl = _crawl(urls, tmp_path, "feed.jsonl", "DOWNLOAD_TIMEOUT=3", "RETRY_ENABLED=False")
    assert _kept(crawl, urls, sites) == _distinct(sites)  # all 20 articles
    assert _stat(crawl, "simdedup/url/skipped/mirror") > 0


def test_links_that_fail_on_the_original_are_followed_on_the_mirror(tmp_path: Path) -> None:
    """The mirror answers later and later, so it is taken for the copy and its docs past
    the 15th are skipped: its own links to the articles are never seen. The original's
    articles fail; plain Scrapy, following the mirror's links, keeps all 20 from the
    mirror. The failed links are followed on the mirror, whose skipped pages held them."""
    sites = urlsites.mirrored_with_failures(latency=0.05, mirror_step=0.2)
    settings = ("DOWNLOAD_TIMEOUT=3", "RETRY_ENABLED=False")
    with urlsites.serve(sites) as urls:
        # The plugin first: plain Scrapy's requests still waiting on the original would
        # slow the servers for it.
        log = tmp_path / "verdicts.jsonl"
        crawl = _crawl(
            urls,
            tmp_path,
            "feed.jsonl",
            *settings,
            f"SIMDEDUP_VERDICT_LOG={log}",
            "LOG_LEVEL=DEBUG",
        )
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", *settings, *PLAIN_SCRAPY[1::2])
    articles = {content for content in _distinct(sites) if content.startswith("article-")}
    assert articles <= _kept(plain, urls, sites)  # plain Scrapy keeps every article
    assert _kept(crawl, urls, sites) == _distinct(sites), _fetched_lines(crawl)
    stats = crawl.simdedup()
    assert stats["simdedup/url/skipped/mirror"] > 0
    # Every article the crawl kept came from the mirror, most through a failed link.
    mirror = urlsplit(urls["mirror"]).netloc
    assert {
        urlsplit(str(i["url"])).netloc for i in crawl.items if "/article/" in str(i["url"])
    } == {mirror}
    assert stats.get("simdedup/url/requested_on_mirror", 0) > 0, _fetched_lines(crawl)
    lines = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    requested = [line for line in lines if line["event"] == "url_requested"]
    assert len({line["url"] for line in requested}) == len(requested)  # each copy once
    assert len(requested) == stats["simdedup/url/requested_on_mirror"]
    original = urlsplit(urls["original"]).netloc
    for line in requested:  # the failed link's copy, on the mirror
        assert urlsplit(line["failed"]).netloc == original and "/article/" in line["failed"]
        assert line["url"] == line["failed"].replace(original, mirror)
        assert line["rule_name"] == f"{mirror} mirrors {original}"


def test_an_original_and_its_mirror_crawled_together_skip_most_of_one(tmp_path: Path) -> None:
    # Pages answer in 50 ms, as a real server's do: on loopback in no time, a loaded
    # machine fetched most of the copy before the pipeline's verdicts named it one.
    sites = urlsites.mirrored_with_failures(shared=300, failing=0, latency=0.05)
    with urlsites.serve(sites) as urls:
        urlsites.link_mirror_about(sites, urls)
        crawl = _crawl(urls, tmp_path, "feed.jsonl", "LOG_LEVEL=DEBUG")
    assert _kept(crawl, urls, sites) == _distinct(sites)
    skipped = crawl.simdedup()["simdedup/url/skipped/mirror"]
    fetched = Counter(
        urlsplit(url).netloc for url in re.findall(r"Crawled \(200\) <GET (\S+)>", crawl.log)
    )
    # Fetched at once, either host may be taken for the copy. Plain Scrapy would fetch
    # all its pages; skipped at its frontier, the copy's deeper links are never requested.
    copy = min(fetched, key=fetched.__getitem__)
    assert skipped > 0
    assert fetched[copy] <= 0.2 * len(sites["mirror"].pages), fetched
    assert max(fetched.values()) == len(sites["original"].pages)


def test_a_mirror_that_grew_a_section_of_its_own_loses_none_of_it(tmp_path: Path) -> None:
    """The mirror's own pages are skipped on bets that wait for the original's links, which
    never come. Re-issued at idle, the first one comes back new: the rule stops waiting for
    originals that are not queued, so the rest of the section is fetched as it is found,
    not one idle round per page (12 such rounds before; 4 when the rule was only
    suspended, since the mirror's copies soon brought it back).

    The section starts the crawl, as the README advises: linked only from the mirror's
    copies of the original's pages, it is found only if a copy that links it is fetched
    before the rule is learned or as a sample (a skipped page's links are not followed),
    which a crawl that learns the rule early misses (seen in 1 run of 6)."""
    sites = urlsites.mirror_with_own_section()
    with urlsites.serve(sites) as urls:
        starts = [*urls.values(), urls["mirror"] + "own/1"]
        crawl = run_crawl(
            starts, tmp_path / "feed.jsonl",
            "-s", f"SIMDEDUP_DIR={tmp_path / 'index'}", "-s", "LOG_LEVEL=DEBUG",
        )  # fmt: skip
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", "SIMDEDUP_ENABLED=False")
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert _kept(plain, urls, sites) == _distinct(sites)
    assert _kept(crawl, urls, sites) == _distinct(sites)  # all 12 pages of its own
    assert _stat(crawl, "simdedup/url/skipped/mirror") > 0
    # Not /own/1: a start URL (dont_filter, recorded by neither Scrapy's dupefilter nor the
    # plugin) is fetched again by its links in plain Scrapy too, and here it may wait first.
    waited = re.findall(r"re-issued (\S+/own/(?!1\b)\d+) \(unsettled", crawl.log)
    assert len(waited) <= 1, waited  # the first of its own pages a bet waited for, alone


def test_a_mirrors_own_section_behind_a_page_of_an_unsampled_section_is_found(
    tmp_path: Path,
) -> None:
    """The mirror's copy of ``/about/team.html`` is the only page that links its own section
    (12 pages); the original links it once, late. The mirror rule is learned on ``/docs/``;
    its first would-be skip in ``/about/`` is fetched as a sample (no evidence there yet),
    and its links followed. Before, that page was skipped like the rest and the section
    was lost (12 of 12)."""
    sites = urlsites.mirror_with_own_section_behind_about()
    with urlsites.serve(sites) as urls:
        urlsites.link_mirror_about(sites, urls)
        crawl = _crawl(urls, tmp_path, "feed.jsonl", "LOG_LEVEL=DEBUG")
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", "SIMDEDUP_ENABLED=False")
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert _kept(plain, urls, sites) == _distinct(sites)
    missing = _distinct(sites) - _kept(crawl, urls, sites)
    assert not missing, (missing, _fetched_lines(crawl))
    stats = crawl.simdedup()
    assert stats["simdedup/url/skipped/mirror"] >= 10, stats  # the docs' copies still are
    assert stats["simdedup/url/sampled"] >= 1, stats


@pytest.mark.parametrize("same_slug", [False, True], ids=["own_slug", "same_slug"])
def test_a_mirrors_paged_tag_of_its_own_loses_no_page_to_its_originals_rule(
    same_slug: bool, tmp_path: Path
) -> None:
    """The original taught that ``?page=`` changes nothing in ``/tag/`` (its tags have
    one page); its mirror inherits the rule. The mirror's own tag is paged (``/tag/local``,
    then ``?page=2`` to ``?page=6``, each linking the next). Its first pages wait for the
    original's, as the mirror rule bets, and come back new at idle; the mirror rule then
    waits for no page the original lacks, and the inherited rule took the next page for a
    copy of ``/tag/local``, which had come: a final skip, and the pager's chain was cut
    (local-5 and local-6 lost in 3 runs of 3). The original has no ``/tag/local``: its
    rule does not judge that tag. Nor where it has a one-page ``/tag/local`` of its own
    (``same_slug``): the mirror's came back new beside it, the two grew apart (local-4 to
    local-6 lost in 3 runs of 3 while the original's page at hand was enough)."""
    sites = urlsites.mirror_with_own_paged_tag(same_slug=same_slug)
    with urlsites.serve(sites) as urls:
        urlsites.link_mirror_tag(sites, urls)
        crawl = _crawl(urls, tmp_path, "feed.jsonl", "LOG_LEVEL=DEBUG")
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", *PLAIN_SCRAPY[1::2])
    assert _kept(plain, urls, sites) == _distinct(sites)
    missing = _distinct(sites) - _kept(crawl, urls, sites)
    assert not missing, (sorted(missing), _fetched_lines(crawl)[-60:])
    stats = crawl.simdedup()
    if not same_slug:  # the original's ?page= rule (a page the mirror grew apart weakens)
        assert stats["simdedup/url/patterns_learned"] >= 1, stats
    assert stats["simdedup/url/skipped/mirror"] >= 10, stats
    # The path under test was taken: the mirror's pager was met once its rules stood,
    # and its pages, re-issued, came back new (the mirror rule waits no more).
    assert re.search(r"skipped \S+/tag/local\?page=\d+", crawl.log), _fetched_lines(crawl)
    assert _stat(crawl, "simdedup/url/reissued/") >= 1, stats


def _keeps_what_plain_scrapy_keeps(sites: dict[str, Site], tmp_path: Path) -> Crawl:
    """The plugin's crawl of ``sites`` (at DEBUG), after asserting that plain Scrapy's
    crawl kept every distinct page and the plugin's lost none of them."""
    with urlsites.serve(sites) as urls:
        crawl = _crawl(urls, tmp_path, "feed.jsonl", "LOG_LEVEL=DEBUG")
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", *PLAIN_SCRAPY[1::2])
    assert _kept(plain, urls, sites) == _distinct(sites)
    missing = _distinct(sites) - _kept(crawl, urls, sites)
    assert not missing, (sorted(missing), _fetched_lines(crawl)[-60:])
    return crawl


def test_a_soft_404_on_the_original_keeps_the_mirrors_story(tmp_path: Path) -> None:
    """The original answers 200 "this story is no longer available" for 4 stories its
    mirror still carries. A bet settled on any 200 (4 of 4 lost); now a counterpart that
    copies another path of its host is no counterpart: the bets on it are re-issued."""
    crawl = _keeps_what_plain_scrapy_keeps(urlsites.mirror_with_soft_404s(), tmp_path)
    stats = crawl.simdedup()
    assert stats["simdedup/url/skipped/mirror"] >= 5, stats  # the mirror was skipped


def test_a_soft_404_deep_in_the_original_keeps_a_story_only_its_mirror_links(
    tmp_path: Path,
) -> None:
    """The gone stories are deep: on the mirror, only pages skipped as copies link them, so
    no request for them was ever made, and re-issuing bets could not bring them (4 of 4
    lost). A soft 404's link is followed on the mirror as a failed link is."""
    sites = urlsites.mirror_with_soft_404s(stories=60, gone=(40, 45, 50, 55))
    crawl = _keeps_what_plain_scrapy_keeps(sites, tmp_path)
    stats = crawl.simdedup()
    # The mirror was skipped (18 of its 60 stories in a full suite's run on a loaded
    # machine, more when idle: its rule comes later under load)
    assert stats["simdedup/url/skipped/mirror"] >= 10, stats
    # Followed on the mirror (a gone story that a mirror page fetched before the rule was
    # learned links is requested there as any link: 3 or 4 of 4 are followed)
    assert stats["simdedup/url/requested_on_mirror"] >= 1, stats


def test_a_soft_404_copying_its_mirrors_notice_keeps_the_mirrors_story(tmp_path: Path) -> None:
    """The mirror diverged: it took story 9 down (the notice, linked from its home page)
    and still carries four deep stories the original took down (the same notice). The
    mirror's notice comes first and is kept, so the original's notices copy a page at
    another path of its mirror, not of its own host: bets settled on them (4 of 4 lost in
    4 runs of 4). A copy of another path of a host a mirror rule pairs with its own is a
    soft 404 too."""
    gone = (40, 45, 50, 55)
    sites = urlsites.mirror_with_soft_404s(stories=60, gone=gone, gone_on_mirror=(9,))
    for n in gone:  # the original's notices come last (a slow "not found" handler)
        sites["original"].pages[f"/story/{n}.html"].delay = 1.0
    crawl = _keeps_what_plain_scrapy_keeps(sites, tmp_path)
    stats = crawl.simdedup()
    assert stats["simdedup/url/skipped/mirror"] >= 5, stats  # the mirror was skipped
    # The path under test was taken: the original's notices copy the mirror's, and only
    # the change tells them not what their path promised.
    assert re.search(r"Dropped: near-duplicate of \S+/story/9\.html", crawl.log), stats
    told = stats.get("simdedup/url/reissued/counterpart_not_predicted", 0)
    assert told + stats.get("simdedup/url/requested_on_mirror", 0) >= 1, stats


def test_a_language_parameter_that_mostly_falls_back_keeps_every_translation(
    tmp_path: Path,
) -> None:
    """``?lang=fr/de/es`` answers most articles with their English page, so the parameter
    is learned to change nothing; 6 real translations were skipped on it (3-6 of 6 lost
    over 3 runs). A value that brings a new page is never skipped again in its section,
    and the rule's bets are re-issued."""
    crawl = _keeps_what_plain_scrapy_keeps({"news": urlsites.translated_news()}, tmp_path)
    assert crawl.simdedup()["simdedup/url/patterns_learned"] >= 1  # it did learn


def test_a_parameter_learned_on_articles_loses_no_page_of_a_forum_thread(tmp_path: Path) -> None:
    """Copies of ``/article/N?page=1`` teach that ``page`` changes nothing there; the forum's
    ``?page=2`` pages, whose counterparts (the threads' first pages) are fetched and kept,
    were skipped on that rule for good (4 of 14 pages lost before rules had a section)."""
    site = urlsites.cms_with_forum()
    with urlsites.serve({"cms": site}) as urls:
        crawl = _crawl(urls, tmp_path, "feed.jsonl")
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", *PLAIN_SCRAPY[1::2])
    sites = {"cms": site}
    assert _kept(plain, urls, sites) == _distinct(sites)
    assert _kept(crawl, urls, sites) == _distinct(sites)
    assert crawl.simdedup()["simdedup/url/patterns_learned"] >= 1  # it did learn


def test_a_tag_really_paged_among_tags_whose_pagers_clamp_loses_no_page(tmp_path: Path) -> None:
    """A blog's one-page tags link ``?page=1`` to ``?page=3``, which the server clamps to
    the tag's one page: ``page`` is learned to change nothing on ``/tag/``, for any value.
    ``/tag/big`` is really paged, each page linking the next: its ``?page=2`` was taken
    for a copy of its first page, a final skip unless a sample fell on it, and the rest
    of the chain was never linked (big-2 to big-6 lost). A page past the first is skipped
    only on a path where one was seen to copy (the pager clamps there)."""
    crawl = _keeps_what_plain_scrapy_keeps({"blog": urlsites.tags_with_clamped_pagers()}, tmp_path)
    stats = crawl.simdedup()
    # The rule stood and would have skipped: the tags' pages 2 after the first three were
    # fetched as its samples, one per path (before, 9 of them were skipped).
    assert stats.get("simdedup/url/sampled", 0) >= 5, stats
    assert stats.get("simdedup/url/skipped/pattern", 0) == 0, stats


def test_the_busy_days_of_a_mostly_empty_calendar_are_kept(tmp_path: Path) -> None:
    """117 empty days teach a trap; the 3 busy days, skipped on it with the notice page as
    counterpart, were lost whenever none of them was fetched first (5 runs of 10). A trap
    that skipped fewer than 1,000 requests stops at idle, and its skips are re-issued."""
    # Days answer in 30 ms, as a real server's would (at 0 ms a loaded run fetched every
    # day before the trap was learned: nothing was lost, nothing tested).
    sites = {"calendar": urlsites.calendar(latency=0.03)}
    with urlsites.serve(sites) as urls:
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", *PLAIN_SCRAPY[1::2])
        # Two at a time: the trap is learned from the first days' verdicts, even on a busy
        # machine, before most days are fetched (what this test is about).
        crawl = _crawl(
            urls, tmp_path / "ours", "ours.jsonl", "LOG_LEVEL=DEBUG", "CONCURRENT_REQUESTS=2"
        )
    assert _kept(plain, urls, sites) == _distinct(sites)
    assert _kept(crawl, urls, sites) == _distinct(sites)
    stats = crawl.simdedup()
    assert stats.get("simdedup/url/skipped/trap", 0) > 0, stats  # a trap was learned
    assert stats.get("simdedup/url/final", 0) == 0  # no trap skip of a finite calendar


def test_a_site_grown_between_two_crawls_loses_nothing_to_old_rules(tmp_path: Path) -> None:
    site = urlsites.news(grown=False)
    sites = {"news": site}
    with urlsites.serve(sites) as urls:
        first = _crawl(urls, tmp_path, "1.jsonl")
        site.pages = urlsites.news(grown=True).pages  # the same server, the site grown
        second = _crawl(urls, tmp_path, "2.jsonl")
    learned = first.simdedup()
    assert learned["simdedup/url/traps_learned"] + learned["simdedup/url/patterns_learned"] > 0
    assert "0 stored rules on probation" not in second.log
    assert _kept(second, urls, sites) == _distinct(sites)


def test_another_stored_url_distance_is_refused_at_start(tmp_path: Path) -> None:
    sites = {"a": urlsites.shop("a", products=3)}
    with urlsites.serve(sites) as urls:
        _crawl(urls, tmp_path, "1.jsonl")
        args = ["-s", f"SIMDEDUP_DIR={tmp_path / 'index'}", "-s", "SIMDEDUP_URL_MAX_DISTANCE=5"]
        refused = run_crawl(list(urls.values()), tmp_path / "2.jsonl", *args)
    assert refused.returncode != 0
    assert "u.max_distance: stored 3, asked 5" in refused.log
    assert "Crawled (200)" not in refused.log


PLAIN_SCRAPY = ["-s", "ITEM_PIPELINES={}", "-s", "DOWNLOADER_MIDDLEWARES={}"]
SLOW = ["-s", "DOWNLOAD_DELAY=0.05", "-s", "CONCURRENT_REQUESTS=1"]


def _interrupted_then_resumed(
    urls: dict[str, str], folder: Path, stop: str, *settings: str
) -> Crawl:
    """A crawl with JOBDIR stopped after 40 items (kill -9, or Ctrl-C twice), then resumed
    to the end; returns the resumed crawl (its feed holds both runs)."""
    feed = folder / "feed.jsonl"
    args = ["-s", f"JOBDIR={folder / 'job'}", "-s", f"SIMDEDUP_DIR={folder / 'index'}"]
    args += [*SLOW, "-s", "LOG_LEVEL=DEBUG", *settings]
    first = processes.popen(
        crawl_command(list(urls.values()), feed, *args), cwd=DEMO, env=crawl_env(),
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until(lambda: feed_lines(feed) >= 40, 120, "40 items in the feed")
        if stop == "kill":
            first.kill()
        else:
            first.send_signal(signal.SIGINT)
            time.sleep(0.3)
            first.send_signal(signal.SIGINT)
        first.wait(timeout=60)
    finally:
        first.kill()
    if settings != tuple(PLAIN_SCRAPY):  # the index tells what waits for the next crawl
        where = f"SIMDEDUP_DIR={folder / 'index'}"
        inspect = processes.run(
            scrapy_command("simdedup", "inspect", "pages", "-s", where),
            cwd=DEMO, env=crawl_env(), capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        assert "skipped requests of an unfinished crawl" in inspect.stdout, inspect.stdout
    resumed = run_crawl(list(urls.values()), feed, *args)
    assert resumed.returncode == 0, resumed.log[-3000:]
    return resumed


@pytest.mark.parametrize("stop", ["kill", "interrupt_twice"])
def test_an_interrupted_crawl_loses_nothing_plain_scrapy_keeps(stop: str, tmp_path: Path) -> None:
    sites = urlsites.mirrored_with_failures(shared=80, failing=0)
    with urlsites.serve(sites) as urls:
        plain = _interrupted_then_resumed(urls, tmp_path / "plain", stop, *PLAIN_SCRAPY)
        ours = _interrupted_then_resumed(urls, tmp_path / "ours", stop)
    plain_kept = _kept(plain, urls, sites)
    assert plain_kept - _kept(ours, urls, sites) == set()
    assert _stat(ours, "simdedup/url/skipped/") + _stat(ours, "simdedup/url/reissued/") > 0
    # Requests the first run had parked were read back from the index and re-issued.
    parked = int(ours.log.split(" parked requests of an interrupted crawl")[0].rsplit(" ", 1)[1])
    assert parked > 0
    assert ours.simdedup()["simdedup/url/reissued/interrupted"] == parked


@pytest.mark.parametrize(
    ("budget", "delay"),
    [("CLOSESPIDER_PAGECOUNT=90", 0.0), ("CLOSESPIDER_TIMEOUT=10", 1.0)],
    ids=["pages", "time"],
)
def test_a_crawl_that_ends_on_a_budget_keeps_the_pages_only_a_mirror_has(
    budget: str, delay: float, tmp_path: Path
) -> None:
    """The mirror's own pages are skipped on bets waiting for originals that never come,
    and a crawl that closes on a budget before it is idle never re-issued them at idle
    (11-12 of 12 lost, issue 34). Bets are due after a deadline, and re-issued ahead of
    the queue when the budget leaves only its reserve."""
    sites = urlsites.mirror_ahead_of_archive(delay=delay)
    counts: dict[str, list[int]] = {"plugin": [], "plain": []}
    crawls = []
    with urlsites.serve(sites) as urls:
        urlsites.link_own_pages(sites, urls, every=2)
        # Three crawls each, interleaved: the order in which a loaded machine answers
        # decides which pages a budget cuts, for plain Scrapy as for the plugin (one run
        # apart, the plugin kept 84 distinct pages to plain Scrapy's 85; the medians on an
        # idle machine are 87-88 to 79-83).
        for n in range(3):
            crawl = _crawl(urls, tmp_path / f"ours{n}", "feed.jsonl", budget, "LOG_LEVEL=DEBUG")
            plain = _crawl(urls, tmp_path / f"plain{n}", "plain.jsonl", budget, *PLAIN_SCRAPY[1::2])
            counts["plugin"].append(len(_kept(crawl, urls, sites)))
            counts["plain"].append(len(_kept(plain, urls, sites)))
            own = {f"own-{m}" for m in range(1, 13)}  # linked from the archive's first pages
            missed = _kept(plain, urls, sites) & own - _kept(crawl, urls, sites)
            # A budget cuts by the order responses come in, for plain Scrapy as for the
            # plugin: plain Scrapy itself keeps own-3 in one run and not in the next. A page
            # is lost to the plugin when its request was skipped and not fetched back; one
            # whose link the crawl never reached before the budget (own-1 when the archive's
            # first pages wait under newer requests to its last fetches) is the budget's cut.
            requested = {
                f"own-{m}"
                for m in re.findall(r"(?:skipped|Crawled \(200\) <GET) \S+/own/(\d+)", crawl.log)
            }
            assert not missed & requested, (sorted(missed & requested), _fetched_lines(crawl)[-40:])
            assert "closespider_" in crawl.stats.get("finish_reason", ""), crawl.stats
            crawls.append(crawl)
    # Under load the two keep about as many, and one crawl's cut moves by up to 8 pages
    # from round to round (two CI runs: plain Scrapy 86-93 and 85-93, the plugin 88-94;
    # medians 89 against 91 both times, totals 271 against 270 and 269): the totals over
    # the rounds are compared, the plugin allowed 3% below plain Scrapy's. That is far
    # less than the loss this test was written for (11-12 own pages a crawl, issue 34).
    assert sum(counts["plugin"]) >= 0.97 * sum(counts["plain"]), counts
    # The bets were made, and none was left waiting at the close: each was re-issued. Which
    # crawl makes them depends on timing (on a loaded machine the mirror rule may stand only
    # once the own pages' links were scheduled): the crawl that made most is looked at.
    crawl = max(crawls, key=lambda crawl: len(_skipped_own(crawl)))
    kept = _kept(crawl, urls, sites)
    skipped = _skipped_own(crawl)
    assert skipped, _fetched_lines(crawl)[-40:]
    assert skipped <= set(re.findall(r"re-issued (\S+/own/\d+)", crawl.log))
    # (on a loaded machine the archive's order varies: a page it links in its last
    # reserve is fetched as plain Scrapy would, or not)
    assert len(own & kept) >= 10, (sorted(own - kept), _fetched_lines(crawl)[-40:])
    assert crawl.simdedup().get("simdedup/url/final", 0) == 0
    assert _stat(crawl, "simdedup/url/skipped/mirror") > 0


def _skipped_own(crawl: Crawl) -> set[str]:
    """The mirror's own pages the crawl skipped on a bet."""
    return set(re.findall(r"skipped (\S+/own/\d+)", crawl.log))


def test_a_depth_limit_keeps_the_sections_only_a_mirrors_chapters_reach(tmp_path: Path) -> None:
    """With ``DEPTH_LIMIT = 3`` the mirror's chapters (depth 2) are the only way to their
    sections: the original's chapters sit at depth 3, their sections beyond the limit. A
    copy is skipped only for a counterpart no deeper than itself (15 of 15 sections were
    lost, issue 34)."""
    sites = urlsites.depth_skew()
    with urlsites.serve(sites) as urls:
        crawl = _crawl(urls, tmp_path, "feed.jsonl", "DEPTH_LIMIT=3")
        plain = _crawl(
            urls, tmp_path / "plain", "plain.jsonl", "DEPTH_LIMIT=3", *PLAIN_SCRAPY[1::2]
        )
    sections = {content for content in _distinct(sites) if content.startswith("section-")}
    assert len(sections) == 15 and sections <= _kept(plain, urls, sites)
    assert _kept(plain, urls, sites) <= _kept(crawl, urls, sites)
    # The mirror rule stood (learned from the docs' copies), and its skips were declined.
    assert crawl.simdedup()["simdedup/url/mirror_hosts"] >= 1
    assert crawl.simdedup()["simdedup/url/deeper_counterpart"] >= 5


def test_a_long_finite_calendar_is_fetched_in_full(tmp_path: Path) -> None:
    """1,216 days listed on one index, 6 with events: the trap skipped more than 1,000
    requests, was taken for endless, and its skips were final (6 of 6 lost, issue 34). A
    trap is endless by its structure, not by a count: its skips are never final.

    How many requests the trap skips depends on the order of fetches and verdicts, which
    differs between machines: when a busy day comes back new as one of the trap's samples
    soon after the trap was learned, the weakened trap re-issues every skip (433 of 433
    on one machine, none on another, at one request at a time). So the crawls at four and
    at one request at a time assert what holds in every order: the trap was learned, none
    of its skips was final, and every distinct day was kept. How much it saves is the
    scenario benchmark's to measure."""
    busy = (1, 200, 400, 600, 800, 1200)
    sites = {"calendar": urlsites.calendar(days=1216, busy=busy, latency=0.01)}
    with urlsites.serve(sites) as urls:
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", *PLAIN_SCRAPY[1::2])
        assert _kept(plain, urls, sites) == _distinct(sites)
        for concurrency in (4, 1):
            folder = tmp_path / f"ours-{concurrency}"
            crawl = _crawl(urls, folder, "ours.jsonl", f"CONCURRENT_REQUESTS={concurrency}")
            assert _kept(crawl, urls, sites) == _distinct(sites), concurrency
            stats = crawl.simdedup()
            assert stats.get("simdedup/url/final", 0) == 0, stats
            assert stats.get("simdedup/url/skipped/trap", 0) > 0, stats  # the trap was learned


def test_requests_held_while_a_parameter_is_learned_lose_no_page_of_their_own(
    tmp_path: Path,
) -> None:
    """Each story links its ``?tab=comments`` page (text of its own) and a ``?sid=`` copy
    of itself. While the first of each are on their way, the rest wait on bets: the
    comments tabs come back new and every waiting tab is re-issued; the ``sid`` copies
    teach their rule, and the waiting ones stand. Every distinct page plain Scrapy keeps
    is kept, and fewer requests are fetched."""
    site = urlsites.articles_with_tabs()
    crawl = _keeps_what_plain_scrapy_keeps({"stories": site}, tmp_path)
    stats = crawl.simdedup()
    assert stats.get("simdedup/url/gathering", 0) >= 5, stats  # the path under test was taken
    assert stats.get("simdedup/url/reissued/unconfirmed", 0) >= 1, stats  # the tabs were
    assert crawl.stats["downloader/request_count"] < 1 + 3 * 40, crawl.stats


@pytest.mark.parametrize("wall", ["bot wall", "app shell"])
def test_an_original_that_stops_serving_its_text_loses_no_article_its_mirror_has(
    wall: str, tmp_path: Path
) -> None:
    """The original answers a 200 with no text (a bot wall after its 20th request, or an
    app shell for its articles), so the spider yields no item from it; the mirror serves
    every article. A skipped mirror page betting on such a page is re-issued: no content
    verdict came for its counterpart (issue 60: 35-37 of 62 articles were lost)."""

    def sites() -> dict[str, Site]:
        if wall == "bot wall":
            return urlsites.mirror_behind_a_wall()
        return urlsites.mirror_behind_a_wall(walled_after=None, shell=True)

    plain_sites, plugin_sites = sites(), sites()
    with urlsites.serve(plain_sites) as urls:
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", "ITEM_PIPELINES={}",
                       "DOWNLOADER_MIDDLEWARES={}")  # fmt: skip
        plain_kept = _kept(plain, urls, plain_sites)
    with urlsites.serve(plugin_sites) as urls:
        plugin = _crawl(urls, tmp_path / "plugin", "plugin.jsonl", "LOG_LEVEL=DEBUG")
        plugin_kept = _kept(plugin, urls, plugin_sites)
    articles = {p.content for p in plain_sites["mirror"].pages.values() if "article" in p.content}
    assert articles <= plain_kept  # plain Scrapy keeps every article, from the mirror
    assert _stat(plugin, "simdedup/url/skipped/") > 0, plugin.simdedup()  # bets were made
    lost = sorted(plain_kept - plugin_kept)
    assert lost == [], (lost, plugin.simdedup(), _fetched_lines(plugin)[-60:])


@pytest.mark.parametrize(
    ("old_urls", "old_links"), [("301", 0), ("404", 0), ("301", 10), ("503", 0)]
)
def test_a_second_crawl_after_the_site_moved_its_urls_keeps_every_story(
    old_urls: str, old_links: int, tmp_path: Path
) -> None:
    """The first crawl kept 30 stories at ``/article/N``; the site then moved them to
    ``/posts/N``, its old URLs a 301 to the new one or a 404. In the second crawl on the
    same index each ``/posts/N`` copies the first crawl's page, and the request for
    ``/article/N`` again brings nothing (the dupefilter refuses the redirect's target, or
    the 404): the story is kept at its new URL, as plain Scrapy's second crawl keeps it
    (issue 60: 30 of 31 were missing from the feed). With ``old_links``, the home page still
    links the first ten old URLs: a story met through its old URL's redirect is kept too.
    With "503" the old URLs are down, not gone: each story is kept at its new URL in this
    crawl's feed, and not stored there (the next crawl asks the old URL again)."""
    site = urlsites.moving_news(moved=None)
    sites = {"news": site}
    with urlsites.serve(sites) as urls:
        first = _crawl(urls, tmp_path, "1.jsonl")
        assert _kept(first, urls, sites) == _distinct(sites)
        moved = urlsites.moving_news(moved=old_urls, old_links=old_links)
        site.pages = moved.pages  # the same server, the site moved
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", "ITEM_PIPELINES={}",
                       "DOWNLOADER_MIDDLEWARES={}")  # fmt: skip
        second = _crawl(urls, tmp_path, "2.jsonl", "LOG_LEVEL=DEBUG", "RETRY_ENABLED=False")
        third = _crawl(urls, tmp_path, "3.jsonl", "RETRY_ENABLED=False")
    stories = {content for content in _distinct(sites) if content.startswith("story-")}
    assert stories <= _kept(plain, urls, sites)
    missing = sorted(stories - _kept(second, urls, sites))
    assert missing == [], (missing, second.simdedup(), _fetched_lines(second)[-40:])
    # Each story once: kept at its new URL, none twice.
    urls_kept = [str(item["url"]) for item in second.items]
    assert len(urls_kept) == len(set(urls_kept)) == len(_kept(second, urls, sites))
    assert second.simdedup()["simdedup/content/moved"] == len(stories)
    assert stories <= _kept(third, urls, sites)
    if old_urls == "503":  # not stored at the new URL: asked at the old one again
        assert third.simdedup()["simdedup/url/revisits_failed"] == len(stories)
    else:  # stored there, a third crawl meets each story at its new URL as a re-visit
        assert "simdedup/url/revisits_failed" not in third.simdedup(), third.simdedup()


def test_a_mirror_rule_survives_one_new_page_within_the_users_risk(tmp_path: Path) -> None:
    """A full mirror whose one page of a section of its own differs: that page is the
    section's sample and comes back new after the rule was learned. At the default risk
    the rule ends and every skip it made is re-issued; with ``SIMDEDUP_URL_RISK`` the rule
    stands (its counts bound the share of differing pages within the risk), only that
    section's skips go, and the other skips stand (issue 60: one page re-issued all 236).
    Either way every distinct page plain Scrapy keeps is kept."""
    sites = urlsites.mirror_with_a_differing_page()
    dense = "SIMDEDUP_URL_SAMPLE_EVERY=2"  # many samples: the bound tightens fast
    with urlsites.serve(sites) as urls:
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", *PLAIN_SCRAPY[1::2])
        ended = _crawl(urls, tmp_path / "ended", "ended.jsonl", dense, "LOG_LEVEL=DEBUG")
        log = tmp_path / "held" / "verdicts.jsonl"
        held = _crawl(urls, tmp_path / "held", "held.jsonl", dense, "SIMDEDUP_URL_RISK=0.3",
                      "LOG_LEVEL=DEBUG", f"SIMDEDUP_VERDICT_LOG={log}")  # fmt: skip
        plain_kept = _kept(plain, urls, sites)
        assert plain_kept == _distinct(sites)
        for crawl in (ended, held):
            lost = sorted(plain_kept - _kept(crawl, urls, sites))
            assert lost == [], (lost, crawl.simdedup(), _fetched_lines(crawl)[-60:])
    ended_stats, held_stats = ended.simdedup(), held.simdedup()
    assert ended_stats.get("simdedup/url/reissued/rule_weakened", 0) > 0, ended_stats
    assert held_stats.get("simdedup/url/rules_held", 0) >= 1, held_stats  # the path ran
    assert held_stats.get("simdedup/url/reissued/rule_weakened", 0) == 0, held_stats
    assert _stat(held, "simdedup/url/reissued/") < _stat(ended, "simdedup/url/reissued/")
    assert held_stats["simdedup/url/final"] > 0, held_stats  # the other skips stood
    assert "of its skips differ (95% confidence)" in held.log
    records = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    (rule,) = [r for r in records if r["event"] == "url_rule" and r["rule"] == "mirror"]
    assert rule["new"] == 1 and rule["samples"] >= 13 and rule["bound"] <= 0.3, rule
    # Which way the pair went, and why (the evidence in words, in the log and the line).
    mirror, original = (urls[name].split("/")[2] for name in ("mirror", "original"))
    assert rule["rule_name"] == f"{mirror} mirrors {original}", rule
    assert isinstance(rule["why"], str) and rule["why"], rule
    assert f"{mirror} taken for the copy of {original}: {rule['why']}" in held.log


def test_a_slower_mirror_that_lags_behind_is_the_copy_and_no_page_of_the_original_is_lost(
    tmp_path: Path,
) -> None:
    """A 400-article mirror answering 50 ms later, a twentieth of whose articles are older
    versions. More of its requests wait on their way, so it looks crawled further: taken
    for that (issue 60), the original was made its copy and 19 of its 20 newer articles
    were skipped for the mirror's older ones. The host that copied is the copy: every page
    of the original plain Scrapy keeps is kept, and the log says why."""
    sites = urlsites.lagging_mirror(articles=400, lagging=20)
    with urlsites.serve(sites) as urls:
        plain = _crawl(urls, tmp_path / "plain", "plain.jsonl", *PLAIN_SCRAPY[1::2])
        crawl = _crawl(urls, tmp_path / "plugin", "plugin.jsonl")
    originals = sites["original"].distinct()
    assert originals <= _kept(plain, urls, sites)
    lost = sorted(originals - _kept(crawl, urls, sites))
    assert lost == [], (lost, crawl.simdedup(), _fetched_lines(crawl)[-60:])
    mirror, original = (urls[name].split("/")[2] for name in ("mirror", "original"))
    assert f"{mirror} taken for the copy of {original}: " in crawl.log
    assert f"{original} taken for the copy of" not in crawl.log
