"""The end screen's name chips wear each player's seat colour and its shape (headless Chromium,
real server), in the ranking and over the breakdown's columns, where the game shows seat
colours; Abandon Ship, whose rats wear them, draws its players without (issue 27)."""

from __future__ import annotations

import random

import pytest

from tableassist.markers.registry import seat_colours
from tests.plugins.browser import TABLET
from tests.server.conftest import RunningServer
from tests.games.random_play import submit_random

pytestmark = [pytest.mark.browser]

PLAYERS = ["Ann", "Bea", "Cy"]


@pytest.mark.parametrize("game_id", ["wreckers", "schmuggler", "abandon_ship"])
def test_the_end_screen_chips_wear_the_seat_colours(chromium, server: RunningServer, game_id):
    colours = dict(zip(PLAYERS, seat_colours(game_id)))
    session = server.table.start(game_id, PLAYERS, options=None, seed=7, colours=colours)
    rng = random.Random(7)
    while submit_random(session, rng):
        pass
    page = chromium.new_page(viewport=TABLET)
    page.goto(f"{server.url}#t={server.tokens.host}")
    assert_chips(page, colours, shown=game_id != "abandon_ship")
    # opened again from the saved games, after another game: its end screen, the same colours
    server.table.start("shipwrecked", ["Dan", "Eve"], options=None)
    assert server.table.resume(session.saved.id).read_only
    page.reload()
    assert_chips(page, colours, shown=game_id != "abandon_ship")


def assert_chips(page, colours: dict[str, str], *, shown: bool) -> None:
    page.wait_for_selector(".result .ranking")
    chips = page.evaluate("""() => [...document.querySelectorAll(
        '.result .ranking .chip, .result .breakdown-table thead .chip')].map(c =>
        [c.textContent, c.dataset.colour, getComputedStyle(c, '::before').content])""")
    assert chips
    for name, colour, shape in chips:
        if shown:
            assert colour == colours[name], (name, colour)
            assert shape not in ("none", "normal", ""), (name, shape)   # its shape beside it
        else:
            assert colour == "", (name, colour)
