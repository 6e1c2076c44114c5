"""One headless Chromium for the whole test session (per xdist worker): Debian's package, driven
by Playwright through ``executable_path`` (``playwright install`` cannot download here).

A test takes ``chromium`` and opens its own page or context on it; launching the browser once
instead of once per module saves a second or two of start-up each time and keeps only one
browser process per worker alive. The pages a test opened are kept for the next tests
(`PagePool`): a new page costs a renderer process. The browser-heavy tests (phone layout, every
word, clicks, pictures, the demo; 45 tests, 4 workers) took 264 s with the pool, 294 s without."""

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


#: the events a test may listen to on a page (Playwright's own listeners, on close and crash, stay)
PAGE_EVENTS = ("console", "dialog", "download", "filechooser", "frameattached", "framedetached",
               "framenavigated", "domcontentloaded", "load", "pageerror", "popup", "request",
               "requestfailed", "requestfinished", "response", "websocket", "worker")
#: the idle pages kept for the next tests, per kind (Chromium's default page is 1280×720)
POOL_MOST = 8
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}


class PagePool:
    """The pages tests left open, kept for the next tests of the session: Chromium starts a
    renderer process for every new page (0.26-0.34 s on the 2-core machine, a third of opening a
    table's page), and a page that only navigates on keeps its process. A page is handed on at
    ``about:blank``, its storage cleared, its listeners, routes and media emulation gone, with the
    viewport asked for; pages of other options (a locale, downloads) are kept apart."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self._idle: dict[tuple[Any, ...], list[Any]] = {}
        self.made = self.reused = 0

    @staticmethod
    def kind(options: dict[str, Any]) -> tuple[Any, ...] | None:
        """The options a page's context was made with (the viewport aside): None when one cannot
        be compared (a page of those is never pooled)."""
        try:
            key = tuple(sorted(options.items()))
            hash(key)
        except TypeError:
            return None
        return key

    def page(self, **options: Any) -> tuple[Any, tuple[Any, ...] | None]:
        viewport = options.pop("viewport", None)
        kind = self.kind(options)
        idle = self._idle.get(kind, []) if kind is not None else []
        while idle:
            page = idle.pop()
            try:
                page.set_viewport_size(viewport or DEFAULT_VIEWPORT)
            except Exception:  # noqa: BLE001 - its renderer died while idle: make another
                continue
            self.reused += 1
            return page, kind
        self.made += 1
        page = self.browser.new_page(**({"viewport": viewport} if viewport else {}), **options)
        return page, kind

    def give_back(self, page: Any, kind: tuple[Any, ...] | None) -> None:
        """A test's page, after the test: kept for the next one, or closed."""
        if page.is_closed():
            return
        idle = self._idle.setdefault(kind, []) if kind is not None else None
        try:
            if idle is None or len(idle) >= POOL_MOST:
                raise LookupError("not kept")
            for event in PAGE_EVENTS:
                page._impl_obj.remove_all_listeners(event)   # the sync API has no public way
            page.unroute_all(behavior="ignoreErrors")
            page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
            page.goto("about:blank")          # its socket closed, its timers stopped
            page.emulate_media(media="null", color_scheme="null")
        except Exception:  # noqa: BLE001 - not kept (or broken by the test): closed
            try:
                page.close()
            except Exception:  # noqa: BLE001 - already gone with its context
                pass
            return
        idle.append(page)


class BrowserForOneTest:
    """The session's browser as one test sees it: the contexts it opens are closed when the test
    ends, and the pages it opens go back to the session's `PagePool` (a page left open would
    keep reconnecting to a server that has stopped, and take the CPU the next tests need);
    everything else is the Playwright ``Browser``."""

    def __init__(self, browser: Any, pool: PagePool) -> None:
        self._browser = browser
        self._pool = pool
        self._pages: list[tuple[Any, tuple[Any, ...] | None]] = []
        self._contexts: list[Any] = []

    def new_page(self, **options: Any) -> Any:
        page, kind = self._pool.page(**options)
        self._pages.append((page, kind))
        return page

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        self._contexts.append(context)
        return context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)

    def close_opened(self) -> None:
        for context in reversed(self._contexts):
            try:
                context.close()
            except Exception:  # noqa: BLE001 - already closed, or the test broke it
                pass
        for page, kind in self._pages:
            self._pool.give_back(page, kind)
        self._contexts.clear()
        self._pages.clear()


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


@pytest.fixture(scope="session")
def _page_pool(_session_browser: Any) -> PagePool:
    return PagePool(_session_browser)


@pytest.fixture
def chromium(_session_browser: Any, _page_pool: PagePool) -> Iterator[BrowserForOneTest]:
    """The session's browser for one test: ``chromium.new_page(viewport=TABLET)``; what the test
    opened is closed (or its page kept for the next test) after it."""
    browser = BrowserForOneTest(_session_browser, _page_pool)
    try:
        yield browser
    finally:
        browser.close_opened()
