"""The page draws the newest state once per frame, not every payload: a screen that was busy
while the table changed (a slow phone, a burst of camera readings, a game played fast) catches up
with one redraw instead of drawing every state already overtaken. Counted on the real page in
headless Chromium over a real server."""

from __future__ import annotations

import random

import pytest

from tableassist.markers.registry import seat_colours
from tests.games.random_play import submit_random
from tests.server.conftest import RunningServer

pytestmark = [pytest.mark.browser]

PLAYERS = ["Ann", "Bea", "Cy"]


def test_a_busy_page_catches_up_with_one_redraw_and_the_newest_state(chromium,
                                                                      server: RunningServer):
    session = server.table.start("abandon_ship", PLAYERS, options=None, seed=5,
                                 colours=dict(zip(PLAYERS, seat_colours("abandon_ship"))))
    page = chromium.new_page()
    page.goto(f"{server.url}#t={server.tokens.host}")
    page.wait_for_selector(".play .panel")
    drawn_before = page.evaluate("() => window.tableassist.drawn.length")
    # the page's one thread is busy for a second while twenty changes arrive
    page.evaluate("() => { setTimeout(() => { const end = performance.now() + 1000;"
                  " while (performance.now() < end) {} }, 0); }")
    rng = random.Random(5)
    for _ in range(20):
        assert submit_random(session, rng)
    version = server.table.version
    page.wait_for_function("v => window.tableassist.state && window.tableassist.state.version >= v",
                           arg=version)
    drawn = page.evaluate("() => window.tableassist.drawn.length") - drawn_before
    assert 1 <= drawn <= 3, drawn
    # and what it drew is the table now: every line of the history, the same as a fresh screen's
    lines = page.evaluate("() => window.tableassist.state.history.length")
    fresh = chromium.new_page()
    fresh.goto(f"{server.url}#t={server.tokens.host}")
    # the fresh page's scripts may not have run yet when the wait starts: window.tableassist is
    # then still undefined
    fresh.wait_for_function("v => window.tableassist && window.tableassist.state"
                            " && window.tableassist.state.version >= v", arg=version)
    assert fresh.evaluate("() => window.tableassist.state.history.length") == lines
    assert (page.locator(".play .panel").first.inner_text()
            == fresh.locator(".play .panel").first.inner_text())
