"""The demo on the real tablet page (headless Chromium): the camera's one-tap row appears on the
table's screen, a tap on it moves the game on, and the page ends on the scripted state."""

from __future__ import annotations

import threading

import pytest

from tableassist.demo.play import Demo
from tests.plugins.browser import TABLET

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a real browser


def test_a_camera_row_is_tapped_on_the_page_and_the_game_goes_on(tmp_path, chromium):
    demo = Demo("abandon_ship", db=tmp_path / "demo.sqlite3", hands=False, flicker=0.0)
    demo.scripted.tablet = []           # the page taps, not the script
    try:
        demo.start()
        page = chromium.new_page(viewport=TABLET)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{demo.url}#t={demo.tokens.table}")
        player = threading.Thread(target=demo.play, kwargs={"realtime": False})
        player.start()
        row = page.locator(".camera-reader .confirm-row")
        row.wait_for(timeout=60_000)
        assert "The camera sees the blue rat on space 3" in row.inner_text()
        row.locator("button", has_text="blue die on the blue rat").click()
        player.join(timeout=120)
        expected = demo.scripted.expected_game()
        page.wait_for_function(
            "n => (window.tableassist.state.history || []).length === n",
            arg=len(demo.scripted.expected), timeout=30_000)
        view = page.evaluate("() => window.tableassist.state.view")
        assert view == expected.view(None)
        assert page.locator(".camera-reader").count() == 0 and errors == []
    finally:
        demo.close()
