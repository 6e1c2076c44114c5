"""Abandon Ship read end to end from a synthetic video (issue 10): three turns with rolls, one move
two dice explain (a one-tap confirmation, SPEC §6.3), the same video with hands and flicker, and a
rat moved where no die can take it."""

from __future__ import annotations

import pytest

from tableassist.demo.scripts import abandon_ship
from tableassist.games.abandon_ship import Phase
from tests.e2e.conftest import by_source, read_video

pytestmark = pytest.mark.slow  # end to end: rendered video through the whole pipeline


def test_three_turns_are_read_to_the_expected_state_with_one_tap(renderer, registry, tmp_path):
    scripted = abandon_ship()
    session, camera, tablet = read_video(scripted, renderer, registry, tmp_path)
    assert session.game.state == scripted.expected_game().state
    steps = by_source(session)
    assert sorted(map(repr, (a for _, a in steps))) == sorted(map(repr, scripted.expected))
    assert [s for s, _ in steps].count("camera") == len(scripted.expected)
    assert camera.stats.confirmed == {"use_die": 1}       # the only tap: two dice explain it
    assert tablet.pending == [] and camera.notice is None


def test_hands_and_flicker_change_nothing(renderer, registry, tmp_path):
    scripted = abandon_ship()
    session, camera, _ = read_video(scripted, renderer, registry, tmp_path, hands=True,
                                    flicker=0.04, seed=5)
    assert session.game.state == scripted.expected_game().state
    assert len(session.steps) == len(scripted.expected)     # no spurious action
    assert camera.stats.notices == 0


def test_a_rat_moved_where_no_die_takes_it_is_out_of_sync(renderer, registry, tmp_path):
    scripted = abandon_ship(wrong_move=True)
    session, camera, _ = read_video(scripted, renderer, registry, tmp_path)
    assert session.game.state == scripted.expected_game().state   # nothing read from the move
    assert session.game.phase is Phase.CHOOSE
    notice = camera.notice.to_json()
    assert notice["sees"] == "the green rat on space 9"
    assert "no die of this roll moves the green rat there" in notice["expects"]
    assert "Out of sync" in notice["text"]
