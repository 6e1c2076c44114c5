"""QR command cards held up to the camera, end to end on rendered frames: the synthetic table draws
the printed card held up, the frames go through the real pipeline, the camera and the session
(and, in the last test, the server to a table screen). A card held up for seconds is one
command; shown again after it left the view, another."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tableassist.demo.play import ScriptedSource, play
from tableassist.demo.scripts import (DEMO_COLOURS, DEMO_PLAYERS, SW_BOARD, SW_LOT, Builder,
                                      ScriptedGame)
from tableassist.vision.synthetic.scene import Viewpoint
from tests.e2e.conftest import read_video
from tests.plugins.browser import TABLET

#: Where the cards are held up: over an empty part of the table, so they hide nothing that counts.
AWAY = {"x": 250.0, "y": 430.0}
FIRST = {"type": "choose_first_player", "player": None, "first_player": "Ann"}
LOT = {"type": "turn_over_card", "player": None, "card": "FOOD-30"}


def lot_and_cards(*showings: tuple[float, str, float]) -> ScriptedGame:
    """Shipwrecked: Ann goes first (the tablet at 1 s), FOOD-30 is turned over on the lot spot
    (2 s); then each (t, command, seconds) holds that card up."""
    b = Builder("shipwrecked")
    b.fixed(*(b.piece("bid_board", c, x, y) for c, (x, y) in zip(("NW", "NE", "SE", "SW"), SW_BOARD)))
    b.lay("lot", replace(b.piece("resource_card", "FOOD-30", *SW_LOT), card_mm=(63, 88)), 2.0)
    for t, command, seconds in showings:
        b.hold_up(t, command, seconds, **AWAY)
    end = max(t + seconds for t, _, seconds in showings) + 1.5
    return ScriptedGame("shipwrecked", DEMO_PLAYERS, dict(DEMO_COLOURS), 2, b.build(),
                        [(1.0, FIRST)], [FIRST, LOT], Viewpoint(1280, 720, tilt=10), fps=5.0,
                        duration=end)


def kinds(session):
    return [(e.kind, e.source) for e in session.store.entries(session.saved.id)]


def test_undo_held_up_for_four_seconds_undoes_once_and_shown_again_undoes_again(
        renderer, registry, tmp_path):
    scripted = lot_and_cards((4.0, "undo", 4.0), (9.0, "redo", 1.5), (12.0, "undo", 2.0))
    session, camera, _ = read_video(scripted, renderer, registry, tmp_path, cards=True)
    assert kinds(session) == [("action", "tablet"), ("action", "camera"), ("undo", "camera"),
                              ("redo", "camera"), ("undo", "camera")]
    assert [s.action for s in session.steps] == [FIRST]   # the lot card is not read again
    assert camera.stats.commands == {"undo": 2, "redo": 1}
    assert camera.status.report == "Undo card: entry 2 was undone"
    entries = session.store.entries(session.saved.id)
    assert {e.author for e in entries[2:]} == {"camera"}


def test_the_table_screen_sees_the_undo_a_card_made(server, renderer):
    scripted = lot_and_cards((4.0, "undo", 3.0))
    s = scripted
    server.table.start(s.game, list(s.players), options=s.options, seed=s.seed, colours=s.colours)
    screen = server.client(server.tokens.table)
    play(scripted, server.camera, ScriptedSource(scripted.video(renderer)))
    state = screen.wait_state(lambda st: st["camera_reader"]["report"], "the camera's report")
    assert [line["type"] for line in state["history"]] == ["choose_first_player"]
    assert state["camera_reader"]["report"] == "Undo card: entry 2 was undone"
    assert state["can_redo"]   # the undone turn-over can be done again
    seen = [[line["type"] for line in st["history"]] for st in screen.states if "history" in st]
    assert ["choose_first_player", "turn_over_card"] in seen   # the screen saw it, then the undo
    assert screen.errors == []


@pytest.mark.browser
def test_the_page_says_what_a_card_did_and_that_the_camera_is_paused(server, chromium):
    """The table's page (headless Chromium) shows the camera's report and its pause."""
    from tableassist.markers.sighting import CardShown

    server.table.start("shipwrecked", list(DEMO_PLAYERS), options=None, seed=2)
    server.table.current().submit(FIRST, source="tablet", author="table")
    page = chromium.new_page(viewport=TABLET)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}#t={server.tokens.table}")
    page.wait_for_function("() => (window.tableassist?.state?.history || []).length === 1")
    server.camera.feed([CardShown(command="undo", t=1.0)], 1.0)
    report = page.locator('[data-notice="camera-report"]')
    report.wait_for()
    assert report.inner_text() == "Camera: Undo card: entry 1 was undone"
    assert page.locator(".history .line").count() == 0
    server.camera.feed([CardShown(command="pause", t=2.0)], 2.0)
    page.locator('[data-notice="camera-paused"]').wait_for()
    assert "Pause card" in report.inner_text() and errors == []
    page.close()
