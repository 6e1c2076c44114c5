"""One headless Chromium for the whole test session (per xdist worker): Debian's package, driven
by Playwright through ``executable_path`` (``playwright install`` cannot download here).

A test takes ``chromium`` and opens its own page or context on it; launching the browser once
instead of once per module saves a second or two of start-up each time and keeps only one
browser process per worker alive."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
                 if os.path.exists(p)), None)
# Without the background-networking flags Chromium keeps dialling Google's hosts, which this
# machine's closed network refuses many at a time.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]
TABLET = {"width": 1280, "height": 800}


def require_chromium() -> str:
    """The browser's path, or a skip naming the package that is missing."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (scripts/setup --test installs it)")
    return CHROMIUM


class BrowserForOneTest:
    """The session's browser as one test sees it: pages and contexts it opens are closed when
    the test ends (a page left open would keep reconnecting to a server that has stopped, and
    take the CPU the next tests need); everything else is the Playwright ``Browser``."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self._opened: list[Any] = []

    def new_page(self, **options: Any) -> Any:
        page = self._browser.new_page(**options)
        self._opened.append(page)
        return page

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        self._opened.append(context)
        return context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)

    def close_opened(self) -> None:
        for thing in reversed(self._opened):
            try:
                thing.close()
            except Exception:  # noqa: BLE001 - already closed with its context, or the test broke it
                pass
        self._opened.clear()


@pytest.fixture(scope="session")
def _session_browser() -> Iterator[Any]:
    """The one Chromium of this session (of this xdist worker)."""
    path = require_chromium()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def chromium(_session_browser: Any) -> Iterator[BrowserForOneTest]:
    """The session's browser for one test: ``chromium.new_page(viewport=TABLET)``; what the test
    opened is closed after it."""
    browser = BrowserForOneTest(_session_browser)
    try:
        yield browser
    finally:
        browser.close_opened()
