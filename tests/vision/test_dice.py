"""A die picked up and put down on the face it showed is a roll when the engine waits for one
(issue 15): a rendered Abandon Ship table through the real pipeline, camera and reader."""

from __future__ import annotations

from dataclasses import replace

from tableassist.demo import scripts
from tests.e2e.conftest import read_video


def first_roll(same_face: dict[str, float]):
    """The demo's Abandon Ship up to its first roll (cheese laid out, eight dice rolled), with the
    dice in ``same_face`` picked up and put down that many mm to the right, on the face they showed."""
    scripted = scripts.abandon_ship()
    start = 8.0
    faces = {d["id"]: d["faces"] for d in scripts.catalog.load_components("abandon_ship")["dice"]}
    steps, expected = [], []
    for s in scripted.timeline.steps:
        if s.t >= start + 1.0:
            continue
        die = s.name.removeprefix("die ")
        if s.name.startswith("die ") and die in same_face:
            x, y = scripts.as_die_spot(scripts.AS_DICE.index(die))
            s = replace(s, x=x + same_face[die], y=y, marker_id=None)
        steps.append(s)
    for a in scripted.expected:
        if a["type"] == "roll_die" and a["die"] in same_face:
            a = {**a, "face": faces[a["die"]][0]}       # it still shows its first face
        expected.append(a)
        if a["type"] == "roll_die" and len([e for e in expected if e["type"] == "roll_die"]) == 8:
            break
    timeline = replace(scripted.timeline, steps=steps)
    return replace(scripted, timeline=timeline, expected=expected, tablet=[], duration=start + 3.0)


def test_a_die_put_down_on_the_same_face_is_read_as_its_roll(renderer, registry, tmp_path):
    scripted = first_roll({"red": 12.0, "white": -10.0})
    session, camera, _ = read_video(scripted, renderer, registry, tmp_path)
    rolls = {a["die"]: a["face"] for s, a in by_source_(session) if a["type"] == "roll_die"}
    assert rolls["red"] == "1" and len(rolls) == 8
    assert session.game.phase == "choose"
    assert [s for s, _ in by_source_(session)] == ["camera"] * len(scripted.expected)
    assert camera.notice is None


def by_source_(session):
    return [(s.source, s.action) for s in session.steps]


def test_a_die_lifted_when_no_roll_is_due_is_no_roll():
    """Lifted before the cheese is laid out, or after its roll was read: nothing to read."""
    from tests.readers.table import run
    from tests.readers.test_abandon_ship_reader import ALL_ONES, roll, started

    game, table, reader, _ = started()
    lifted = table.event("lifted", "die_face", "red:face-1", zone="pool")
    applied, _, _ = run(reader, game, [lifted])
    assert [(a["die"], a["face"]) for a in applied] == [("red", "1")]     # the roll was due
    applied, _, _ = run(reader, game, roll(table, {**ALL_ONES, "white": 2}))
    assert game.phase == "choose"
    before = dict(game.faces)
    applied, _, _ = run(reader, game, [table.event("lifted", "die_face", "blue:face-1", zone="pool")])
    assert applied == [] and game.faces == before
