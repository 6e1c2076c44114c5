"""The demo on the real tablet page (headless Chromium): the camera's one-tap row appears on the
table's screen, a tap on it moves the game on, and the page ends on the scripted state."""

from __future__ import annotations

import threading

import pytest

from tableassist.demo.play import Demo
from tests.plugins.browser import TABLET
from tests.server.layout import BAR_MOST, SCREENS, bar_height, in_view

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
        # the camera's line names the game in words, not by its id
        assert "a scripted game of Abandon Ship" in demo.table.camera_status.notice
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


@pytest.mark.parametrize("screen", ["1024x768", "390x844", "320x640"])
def test_the_demo_says_it_is_one_on_every_screen_size(tmp_path, chromium, screen):
    """The banner names the demo and its game in words, the move it is at of all the game's,
    where the tablet takes over from the camera's script, and how to play a real game; it stays
    clear of the header. The plan's numbers are the game's: the tablet's part, played, ends on
    the last move the banner announced."""
    demo = Demo("abandon_ship", db=tmp_path / "demo.sqlite3", hands=False, flicker=0.0)
    try:
        demo.start()
        plan = demo.plan
        assert (plan["title"], plan["camera_moves"], plan["moves"]) == ("Abandon Ship", 29, 255)
        page = chromium.new_page(viewport=SCREENS[screen])
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(demo.host_link)
        banner = page.locator('[data-notice="demo"]')
        banner.wait_for()
        summary = banner.locator("summary")
        # the one line, on every screen: the demo, its game in words, the move, the tablet's turn
        assert summary.inner_text() == "Demo: Abandon Ship · move 0 of 255 · the tablet from move 30"
        assert in_view(page, '[data-notice="demo"] summary')
        if screen != "1024x768":
            summary.click()                              # a phone folds the rest
        text = banner.inner_text()
        assert "abandon_ship" not in text
        assert "until move 29, then the tablet plays the last 226 moves" in text
        assert "tableassist serve" in text                # how to start a real game
        assert bar_height(page) <= BAR_MOST

        session = demo.table.session
        for action in demo.scripted.expected:         # the camera's part, as the camera reads it
            session.submit(action, source="camera")
        page.wait_for_selector('[data-notice="demo"] .demo-step[data-step="29"]')
        assert "The tablet plays the last 226 moves now" in banner.inner_text()
        assert "the tablet plays now" in summary.inner_text()
        demo.finish(pace=0)
        page.wait_for_selector('[data-notice="demo"] .demo-step[data-step="255"]')
        assert "The demo's game is over" in banner.inner_text()
        assert len(session.steps) == plan["moves"] and session.game.result() is not None
        assert errors == []
    finally:
        demo.close()


@pytest.mark.parametrize(("locale", "words"), [
    ("de-DE", {"summary": "Demo: Abandon Ship · Zug 0 von 255 · ab Zug 30 das Tablet",
               "camera": "Die Kamera liest den Tisch bis Zug 29, danach spielt das Tablet die "
                         "letzten 226 Züge.",
               "real": "Für ein echtes Spiel", "tablet": "Das Tablet spielt jetzt die letzten 226 Züge",
               "short": "jetzt spielt das Tablet"}),
    ("es-ES", {"summary": "Demo: Abandon Ship · jugada 0 de 255 · la tableta desde la jugada 30",
               "camera": "La cámara lee la mesa hasta la jugada 29; después la tableta juega las "
                         "últimas 226 jugadas.",
               "real": "Para jugar una partida real",
               "tablet": "La tableta juega ahora las últimas 226 jugadas",
               "short": "ahora juega la tableta"}),
])
def test_the_demo_banner_in_german_and_spanish(tmp_path, chromium, locale, words):
    """The banner in the browser's language: the step, where the tablet takes over and how to
    play a real game, with no English left (the English one: the test above)."""
    demo = Demo("abandon_ship", db=tmp_path / "demo.sqlite3", hands=False, flicker=0.0)
    context = chromium.new_context(locale=locale, viewport=TABLET)
    try:
        demo.start()
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(demo.host_link)
        banner = page.locator('[data-notice="demo"]')
        banner.wait_for()
        summary = banner.locator("summary")
        assert summary.inner_text() == words["summary"]
        text = banner.inner_text()
        assert words["camera"] in text and words["real"] in text, text
        assert "tableassist serve" in text and "abandon_ship" not in text
        for english in ("move", "the tablet", "real game", "camera reads"):
            assert english not in text, (english, text)
        session = demo.table.session
        for action in demo.scripted.expected:         # the camera's part, as the camera reads it
            session.submit(action, source="camera")
        page.wait_for_selector('[data-notice="demo"] .demo-step[data-step="29"]')
        assert words["tablet"] in banner.inner_text()
        assert words["short"] in summary.inner_text()
        assert errors == []
    finally:
        context.close()
        demo.close()
