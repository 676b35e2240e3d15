"""``scrapy simdedup report --html`` on a real crawl of the demo, opened in a headless
Chromium: it loads without console errors or requests, its charts and side-by-side views
render, and a screenshot is kept (its path is printed; under SIMDEDUP_ARTIFACTS when set)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support import processes
from tests.support.browser import PAGE_LOAD_SECONDS, console_errors, headless_chromium
from tests.support.crawls import DEMO, crawl_env, run_crawl, scrapy_command, serve_sites
from tests.support.waits import wait_until

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML report of one crawl of every demo site, with its feed's texts."""
    folder = tmp_path_factory.mktemp("html-report")
    log, feed = folder / "verdicts-%(name)s.jsonl", folder / "feed.jsonl"
    with serve_sites() as sites:
        crawl = run_crawl(
            list(sites.values()), feed, "-s", f"SIMDEDUP_DIR={folder}",
            "-s", f"SIMDEDUP_VERDICT_LOG={log}",
        )  # fmt: skip
    assert crawl.returncode == 0, crawl.log[-3000:]
    page = folder / "report.html"
    done = processes.run(
        scrapy_command("simdedup", "report", "pages", "-s", f"SIMDEDUP_VERDICT_LOG={log}",
                       "--html", str(page), "--feed", str(feed)),
        cwd=DEMO, env=crawl_env(), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {page} ("), done.stdout
    return page


def test_the_report_renders_in_headless_chromium(report: Path) -> None:
    with headless_chromium() as browser:
        browser.get(report.as_uri())
        wait_until(
            lambda: browser.execute_script("return document.readyState") == "complete",
            seconds=PAGE_LOAD_SECONDS, what="the report to load",
        )  # fmt: skip
        assert console_errors(browser) == []
        # Nothing but the file itself was loaded: no script, style, font or image.
        assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
        charts = browser.find_elements("css selector", "svg.chart")
        assert len(charts) == 2
        assert all(chart.size["height"] > 100 for chart in charts)
        assert len(browser.find_elements("css selector", "svg.chart rect.bar")) > 0
        pairs = browser.find_elements("css selector", "section.pair")
        assert pairs, "no page near the threshold"
        both = [
            pair
            for pair in pairs
            if len(pair.find_elements("css selector", ".sbs > .side:not(.missing)")) == 2
        ]
        assert both, "no side-by-side view with both texts"
        left, right = both[0].find_elements("css selector", ".sbs > .side")
        assert left.location["x"] < right.location["x"]  # side by side, not stacked
        assert left.find_elements("css selector", "p.line")
        assert browser.find_elements("css selector", ".sbs mark")
        _shot(browser, report.parent / "report.png")
        greyed = browser.find_elements("css selector", "p.line.template, p.line.chrome")
        assert greyed, "no chrome or template line greyed out"
        browser.find_element("css selector", "#content-only").click()
        assert not greyed[0].is_displayed()  # the toggle hides them
        assert console_errors(browser) == []


def _shot(browser: object, path: Path) -> None:
    browser.save_screenshot(str(path))  # type: ignore[attr-defined]
    assert path.stat().st_size > 10_000
    kept = os.environ.get("SIMDEDUP_ARTIFACTS")
    if kept:
        Path(kept).mkdir(parents=True, exist_ok=True)
        path = Path(shutil.copy(path, Path(kept) / "html-report.png"))
    print(f"screenshot of the HTML report: {path}")
