"""The chronicle: a game's public numbers at the end of every round, kept beside a real session
(SQLite log, undo, corrections), one engine step per new action."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tableassist.table.chronicle import Chronicle
from tableassist.table.session import TableSession
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions

PLAYERS = ["Ann", "Bea", "Cy"]


def play(session: TableSession, rng: random.Random, n: int) -> None:
    """``n`` random legal actions through the session (table inputs drawn by the engine)."""
    for _ in range(n):
        if session.game.is_over:
            return
        action = rng.choice(all_legal_actions(session.game))
        if action["player"] is None:
            action = session.game.chance_action() or action
        session.submit(action)


def money_by_round(session: TableSession) -> dict[str, Any]:
    """What the chart should show, worked out step by step from the views of a fresh replay: each
    player's money at the start, after every round's End phase (when the round number moves on)
    and, while the game goes on, now."""
    game = session.game.replayed([])
    views = [game.view(None)]
    for step in session.steps:
        game.apply(step.action)
        views.append(game.view(None))
    money = lambda v: {p["name"]: p["money"] for p in v["players"]}  # noqa: E731
    xs, points = [0], [money(views[0])]
    for before, after in zip(views, views[1:]):
        if after["round"] != before["round"]:
            xs.append(before["round"])
            points.append(money(after))
    last = views[-1]
    if not last["over"] or xs[-1] != last["round"]:
        xs.append(last["round"])
        points.append(money(last))
    return {"by": "round", "x": xs, "live": not last["over"],
            "money": {p: [pt[p] for pt in points] for p in PLAYERS}}


@pytest.fixture
def session(tmp_path) -> TableSession:
    return TableSession.create(open_store(tmp_path / "t.sqlite3"), "wreckers", PLAYERS, seed=4)


def test_money_at_the_end_of_every_round_as_the_game_goes(session):
    chronicle = Chronicle(session.game)
    rng = random.Random(4)
    seen_rounds = set()
    while not session.game.is_over:
        play(session, rng, 50)
        chronicle.update(session.steps)
        series = chronicle.series()
        expected = money_by_round(session)
        assert series == expected
        # The last point is the money the view shows now (the chart's live end).
        assert [series["money"][p][-1] for p in PLAYERS] == \
            [p["money"] for p in session.game.view(None)["players"]]
        seen_rounds.add(session.game.view(None)["round"])
    assert len(seen_rounds) >= 5 and chronicle.series()["live"] is False
    assert chronicle.series()["x"][-1] == session.game.view(None)["round"]


def test_one_engine_step_per_new_action_and_none_for_an_undo(session):
    """A regression a count catches: following the game must not replay it on every payload."""
    chronicle = Chronicle(session.game)
    rng = random.Random(7)
    for n in range(1, 61):
        play(session, rng, 1)
        chronicle.update(session.steps)
        assert chronicle.applied == n
    before = chronicle.series()
    session.undo()
    chronicle.update(session.steps)
    assert chronicle.applied == 60  # the samples before the undone step still stand
    assert chronicle.series() == money_by_round(session)
    play(session, rng, 1)  # the next action replays the 59 kept steps once, then goes on
    chronicle.update(session.steps)
    assert chronicle.applied == 60 + 59 + 1
    for _ in range(3):
        chronicle.update(session.steps)  # a payload per room: nothing more to do
    assert chronicle.applied == 120
    assert before["x"][0] == 0 and chronicle.series() == money_by_round(session)


def test_a_correction_redraws_from_the_corrected_step(session):
    chronicle = Chronicle(session.game)
    rng = random.Random(2)
    play(session, rng, 80)
    while session.steps[-1].action["type"] != "pick_card":  # a pick moves money (R-WR-04)
        play(session, rng, 1)
    chronicle.update(session.steps)
    applied = chronicle.applied
    # The table read the picked card wrong: another card goes in its place.
    i = len(session.steps) - 1
    choices = session.game.correction_choices([s.action for s in session.steps], i)
    other = next(a for a in choices if a != session.steps[i].action)
    session.correct(session.steps[i].seq, other)
    chronicle.update(session.steps)
    assert chronicle.series() == money_by_round(session)
    assert chronicle.applied == applied + i + 1  # the kept steps replayed once, and the new one


def test_games_without_a_chart_have_no_series(tmp_path):
    session = TableSession.create(open_store(tmp_path / "t.sqlite3"), "shipwrecked", PLAYERS)
    chronicle = Chronicle(session.game)
    play(session, random.Random(1), 10)
    chronicle.update(session.steps)
    assert chronicle.series() is None and chronicle.applied == 0
