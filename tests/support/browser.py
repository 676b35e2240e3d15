"""Debian's headless Chromium driven by selenium, for tests that must see a page render.

``SIMDEDUP_REQUIRE_BROWSER=1`` (CI sets it) turns a missing browser into a failure, so
those tests never skip silently there."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

PAGE_LOAD_SECONDS = 60
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
DRIVER = ("chromedriver",)


def _found(names: tuple[str, ...]) -> str | None:
    return next((path for name in names if (path := shutil.which(name))), None)


@contextmanager
def headless_chromium() -> Iterator[Any]:
    """A selenium WebDriver of a headless Chromium, closed after; skips when there is no
    browser, unless SIMDEDUP_REQUIRE_BROWSER is set."""
    browser, driver_path = _found(CHROMIUM), _found(DRIVER)
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        browser = None
    if browser is None or driver_path is None:
        message = (
            "no Chromium, chromedriver or selenium: apt-get install chromium chromium-driver; "
            "pip install selenium"
        )
        if os.environ.get("SIMDEDUP_REQUIRE_BROWSER"):
            pytest.fail(message + " (SIMDEDUP_REQUIRE_BROWSER is set)")
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,2000"):  # fmt: skip
        options.add_argument(argument)
    options.set_capability("goog:loggingOptions", {"browser": "ALL"})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        driver.set_page_load_timeout(PAGE_LOAD_SECONDS)
        driver.set_script_timeout(PAGE_LOAD_SECONDS)
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[dict[str, Any]]:
    """The browser console's entries of level SEVERE (errors) since the last call."""
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
