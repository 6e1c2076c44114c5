"""The host screen and a player's phone laid out by the real page in headless Chromium, at a
tablet's 1024×768 and phones' 390×844 and 320×640, in every game, mid-game and at its end: the
header is one line and covers nothing; the prompt is in view at once, before the Do panel, which
comes before the camera's one line and the game's numbers; nothing is cut or wider than the
screen; the end screen's headline is in view; after Play again the new game's first prompt is in
view, not under the header. Measured with boxes (getBoundingClientRect), not by eye."""

from __future__ import annotations

import random

import pytest

from tableassist.markers.registry import seat_colours
from tableassist.table import catalog
from tests.games.random_play import submit_random
from tests.server.conftest import RunningServer
from tests.server.layout import (BAR_MOST, SCREENS, bar_height, box, cut, in_view,
                                 outside_pictures, page_wider_than_screen, scrolls_sideways,
                                 under_the_bar)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = ["Ann", "Bea", "Cy"]
PHONES = ("390x844", "320x640")


def open_screen(chromium, url: str, screen: str):
    page = chromium.new_page(viewport=SCREENS[screen])
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector(".play .panel")
    page.evaluate("() => document.fonts.ready")
    return page, errors


def assert_fits(page, screen: str, where: str) -> None:
    assert bar_height(page) <= BAR_MOST, (where, bar_height(page))
    assert cut(page) == [], (where, cut(page))
    assert not page_wider_than_screen(page), where
    assert outside_pictures(page) == [], (where, outside_pictures(page))


def assert_order_on_a_phone(page, where: str) -> None:
    """What to do first: the prompt, then the Do panel, then the camera's line (host), then the
    game's numbers."""
    order = [box(page, sel) for sel in (".prompt", ".actions", "#camera-card", ".play .panel")]
    ys = [b["y"] for b in order if b is not None]
    assert ys == sorted(ys), (where, order)


@pytest.mark.parametrize("game_id", list(catalog.ENGINES))
def test_every_game_fits_every_screen_mid_game_and_at_its_end(chromium, server: RunningServer,
                                                              game_id):
    session = server.table.start(game_id, PLAYERS, options=None, seed=7,
                                 colours=dict(zip(PLAYERS, seat_colours(game_id))))
    rng = random.Random(7)
    for _ in range(14):
        submit_random(session, rng)
    ann = server.tokens.players(session.saved.id, ["Ann"])["Ann"]
    links = {"host": server.tokens.host, "Ann": ann}
    pages = {(screen, who): open_screen(chromium, f"{server.url}#t={token}", screen)
             for screen in SCREENS for who, token in links.items()}
    for (screen, who), (page, _) in pages.items():
        where = f"{game_id} mid-game, {who} at {screen}"
        assert_fits(page, screen, where)
        if session.game.prompts():
            assert in_view(page, ".prompt"), where
            assert under_the_bar(page, ".prompt-text") == [], where
        if screen in PHONES:
            assert_order_on_a_phone(page, where)
            if who == "host":       # the camera: one line, which opens the card
                line = box(page, "#camera-card > summary")
                assert line is not None and line["height"] <= 48, (where, line)

    while submit_random(session, rng):
        pass
    for (screen, who), (page, errors) in pages.items():
        where = f"{game_id} at its end, {who} at {screen}"
        page.wait_for_selector(".result h2")
        page.evaluate("() => window.scrollTo(0, 0)")
        assert_fits(page, screen, where)
        assert in_view(page, ".result h2"), where
        assert under_the_bar(page, ".result h2") == [], where
        # the score tables fit: no sideways scrolling to read a score, even at 320 px
        assert scrolls_sideways(page) == [], (where, scrolls_sideways(page))
        assert errors == [], where


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_end_headline_and_after_play_again_the_first_prompt_are_in_view(
        chromium, server: RunningServer, screen):
    session = server.table.start("abandon_ship", PLAYERS, options=None, seed=3,
                                 colours=dict(zip(PLAYERS, seat_colours("abandon_ship"))))
    page, errors = open_screen(chromium, f"{server.url}#t={server.tokens.host}", screen)
    rng = random.Random(3)
    while submit_random(session, rng):
        pass
    # the last broadcast, with the result: the one before it may show the game over with its
    # tiles not all revealed yet ("Game over", no winner)
    page.wait_for_function("() => !!(window.tableassist.state.view || {}).result")
    page.wait_for_selector(".result h2")
    headline = page.locator(".result h2").inner_text()
    assert headline.endswith("win!") or headline.endswith("wins!") or "nobody" in headline
    assert in_view(page, ".result h2") and under_the_bar(page, ".result h2") == []
    # the host reads on down the end screen, then plays again
    page.locator('[data-do="play-again"]').scroll_into_view_if_needed()
    page.locator('[data-do="play-again"]').click()
    page.wait_for_function("row => window.tableassist.state.game.row !== row",
                           arg=session.saved.id)
    page.wait_for_selector(".prompt")
    page.wait_for_timeout(300)       # the scroll to the new prompt
    assert in_view(page, ".prompt"), box(page, ".prompt")
    assert under_the_bar(page, ".prompt-text") == []
    assert errors == []
