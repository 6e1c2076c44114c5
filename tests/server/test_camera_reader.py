"""The camera playing along through the server (the served table's camera and the Abandon Ship
reader fed hand-built table events): its readings reach every screen as camera entries, a one-tap
confirmation goes to the table's screens only and is answered from them, and an out-of-sync
notice is shown to everyone."""

from __future__ import annotations

from tests.readers.table import Table as TableEvents
from tests.readers.test_abandon_ship_reader import ALL_ONES, cheese_events, roll

DICE = ("red", "blue", "green", "yellow", "orange", "purple", "black", "white")


def set_up(events: TableEvents) -> list:
    return ([events.appear("die_face", f"{d}:face-1", zone="pool") for d in DICE]
            + [events.appear("rat", c, zone="space", cell="1") for c in DICE[:-1]]
            + cheese_events(events))


def test_camera_readings_confirmations_and_notices_reach_the_right_screens(server):
    camera = server.camera
    camera.grace = 0.0
    server.table.start("abandon_ship", ["Ann", "Bea", "Cy"], options=None)   # the camera follows
    table, spectator = server.client(server.tokens.table), server.client()
    events = TableEvents("abandon_ship")

    camera.feed(set_up(events), events.t)
    state = table.wait_state(lambda s: s["view"]["phase"] == "roll", "the cheese read")
    assert {line["source"] for line in state["history"]} == {"camera"}
    assert [c["space"] for c in state["view"]["cheese_on_board"]] == [6, 10, 14, 18, 22]

    # The blue die shows 2 and the neutral die (2): both move the blue rat to space 3.
    camera.feed(roll(events, {**ALL_ONES, "blue": 2, "white": 2}), events.t)
    camera.feed([events.move("rat", "blue", zone="space", cell="3")], events.t)
    state = table.wait_state(lambda s: s["camera_reader"]["confirm"], "a one-tap confirmation")
    options = state["camera_reader"]["confirm"][0]["options"]
    assert {o["action"]["die"] for o in options} == {"blue", "white"}
    assert spectator.wait_state(lambda s: "camera_reader" in s)["camera_reader"]["confirm"] == []
    refused = spectator.call("confirm", {"action": options[0]["action"]})
    assert not refused["ok"] and "only the table's own screens" in refused["error"]

    assert table.call("confirm", {"action": options[0]["action"]})["ok"]
    state = table.wait_state(lambda s: not s["camera_reader"]["confirm"], "the tap taken")
    assert state["history"][-1]["source"] == "camera" and state["view"]["rats"][1]["space"] == 3
    stale = table.call("confirm", {"action": options[1]["action"]})
    assert not stale["ok"] and "no longer proposes" in stale["error"]

    # Cy rolls the rest, all ones; then a rat turns up where no die of this roll can have put it:
    # everyone is told, nothing is guessed.
    camera.feed(roll(events, {d: 1 for d in DICE if d != "blue"}), events.t)
    state = table.wait_state(lambda s: s["view"]["phase"] == "choose", "Cy's roll")
    before = len(state["history"])
    camera.feed([events.move("rat", "green", zone="space", cell="9")], events.t)
    seen = spectator.wait_state(lambda s: s["camera_reader"]["notice"], "the out-of-sync notice")
    assert "the green rat on space 9" in seen["camera_reader"]["notice"]["text"]
    assert len(table.state["history"]) == before


def test_the_new_game_card_starts_the_same_game_again_and_the_screens_follow(server):
    from tableassist.markers.sighting import CardShown

    first = server.table.start("abandon_ship", ["Ann", "Bea", "Cy"], options=None,
                               colours={"Ann": "blue", "Bea": "red", "Cy": "green"})
    table = server.client(server.tokens.table)
    german = server.client(server.tokens.table, "de")
    server.camera.feed([CardShown(command="new_game", t=1.0)], 1.0)
    # the new game is sent first; the camera's report of the card in the broadcast after it
    state = table.wait_state(lambda s: s["game"]["row"] != first.saved.id
                             and (s.get("camera_reader") or {}).get("report"), "the new game")
    second = server.table.session
    assert (second.saved.game, second.saved.players) == ("abandon_ship", ("Ann", "Bea", "Cy"))
    assert state["game"]["colours"] == {"Ann": "blue", "Bea": "red", "Cy": "green"}
    assert server.camera.session is second
    assert state["camera_reader"]["report"] == "New game card: a new game with the same players"
    said = german.wait_state(lambda s: (s.get("camera_reader") or {}).get("report"), "the report")
    assert said["camera_reader"]["report"] == \
        "Neues-Spiel-Karte: ein neues Spiel mit denselben Personen"   # each screen its language
    saved = {g["id"]: g for g in state["lobby"]["saved"]}
    assert saved[first.saved.id]["ended"] is None        # the other game stays, resumable


def test_a_frames_several_readings_reach_the_screens_as_one_state(server):
    """A roll read in one frame is one log entry per die, each stored before the next, and one
    broadcast when the camera's job is done: no screen redraws it die by die."""
    camera = server.camera
    server.table.start("abandon_ship", ["Ann", "Bea", "Cy"], options=None)
    table = server.client(server.tokens.table)
    events = TableEvents("abandon_ship")
    camera.feed(set_up(events), events.t)
    before = table.wait_state(lambda s: s["view"]["phase"] == "roll", "the cheese read")
    lines, received = len(before["history"]), len(table.states)
    camera.feed(roll(events, {**ALL_ONES, "red": 4, "white": 2}), events.t)
    table.wait_state(lambda s: s["view"]["phase"] == "choose", "the roll read")
    session = server.table.session
    dice = [e for e in session.store.entries(session.saved.id)[lines:] if e.source == "camera"]
    assert len(dice) == 8                               # eight entries in the log …
    shown = [len(s["history"]) - lines for s in table.states[received:]]
    assert shown and set(shown) <= {0, 8}               # … and no state with some of them only
