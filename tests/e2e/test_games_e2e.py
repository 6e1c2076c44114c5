"""Shipwrecked, Wreckers, Schmuggler an Bord and ShipShape read end to end from synthetic videos
(issue 10): each scripted game reaches the expected engine state with only the tablet inputs of
SPEC §6.3 injected; the same video with hands over the cards and single-frame flicker gives the
same state and no spurious action; a wrong physical move raises the out-of-sync notice."""

from __future__ import annotations

import pytest

from tableassist.demo.scripts import SCRIPTS
from tests.e2e.conftest import read_video

pytestmark = pytest.mark.slow  # end to end: rendered video through the whole pipeline

GAMES = ["shipwrecked", "wreckers", "schmuggler", "shipshape"]

#: What the out-of-sync notice must say for each game's wrong move.
WRONG = {
    "shipwrecked": ("FOOD-30 turned over on the lot spot", "not in the stack"),
    "wreckers": ("Cy discarded", "not a Search card"),
    "schmuggler": ("the piece on the Gold space", "the piece on the Watches space"),
    "shipshape": ("in Bea's hold", "Ann takes crate"),
}


@pytest.mark.parametrize("video", [{}, {"hands": True, "flicker": 0.04, "seed": 7}],
                         ids=["clean", "hands-and-flicker"])
@pytest.mark.parametrize("game", GAMES)
def test_a_scripted_game_is_read_to_the_expected_state(game, video, renderer, registry, tmp_path):
    scripted = SCRIPTS[game]()
    session, camera, tablet = read_video(scripted, renderer, registry, tmp_path, **video)
    assert session.game.state == scripted.expected_game().state
    assert [s.action for s in session.steps] == scripted.expected    # no spurious action
    assert tablet.pending == []
    typed = [a for a in tablet.done if a not in tablet.tapped]
    assert [s.action for s in session.steps if s.source == "tablet"] == typed
    assert camera.notice is None and camera.stats.notices == 0


@pytest.mark.parametrize("game", GAMES)
def test_a_wrong_physical_move_is_out_of_sync(game, renderer, registry, tmp_path):
    scripted = SCRIPTS[game](wrong_move=True)
    session, camera, _ = read_video(scripted, renderer, registry, tmp_path)
    assert session.game.state == scripted.expected_game().state      # nothing guessed
    sees, expects = WRONG[game]
    notice = camera.notice.to_json()
    assert sees in notice["sees"] and expects in notice["expects"], notice
