"""The ShipShape reader on hand-built table events (SPEC §5.3, §5.7)."""

from __future__ import annotations

from tableassist.games.shipshape import Phase
from tableassist.readers import reader_for
from tests.readers.table import Table, new, run

PLAYERS = ("Ann", "Bea", "Cy")
COLOURS = {"Ann": "red", "Bea": "blue", "Cy": "green"}
X = {"Ann": 350.0, "Bea": 450.0, "Cy": 550.0}


def dealt():
    game, table = new("shipshape", PLAYERS, seed=1), Table("shipshape")
    reader = reader_for("shipshape", PLAYERS, COLOURS)
    holds = {"Ann": "H01", "Bea": "H02", "Cy": "H03"}
    applied, _, _ = run(reader, game, [table.appear("hold", h, seat=COLOURS[p], pos=(X[p], 560.0))
                                       for p, h in holds.items()])
    return game, table, reader, applied, holds


def lay(table, p):
    return table.appear("crew_card", COLOURS[p], "back", zone="bids", pos=(X[p], 440.0))


def turn_up(table, p, value):
    return table.flip("crew_card", f"{COLOURS[p]}-{value}", "face", zone="bids", pos=(X[p], 440.0),
                      previous=(COLOURS[p], "back"))


def test_holds_laid_at_the_seats_are_dealt_to_their_players():
    game, _, _, applied, holds = dealt()
    assert [(a["participant"], a["hold"]) for a in applied] == list(holds.items())
    assert game.phase is Phase.PLAY


def test_crew_cards_are_read_as_laid_then_revealed_and_the_top_crate_is_read():
    game, table, reader, _, _ = dealt()
    applied, _, _ = run(reader, game, [lay(table, p) for p in PLAYERS])
    assert applied == [{"type": "lay_crew_card", "player": p} for p in PLAYERS]
    applied, _, _ = run(reader, game, [turn_up(table, "Ann", 9), turn_up(table, "Bea", 4),
                                       turn_up(table, "Cy", 7)])
    assert [(a["owner"], a["value"]) for a in applied] == [("Ann", 9), ("Bea", 4), ("Cy", 7)]
    top = next(a for a in game.legal_actions(None) if a["type"] == "show_top_crate")["crate"]
    applied, _, _ = run(reader, game, [table.appear("crate", top, "back", zone="offer", rotation=90)])
    assert applied == [{"type": "show_top_crate", "player": None, "group": 0, "crate": top,
                        "face": "back", "rotation": 90}]


def test_a_crew_value_turned_up_before_every_card_is_down_is_dropped_unread():
    game, table, reader, _, _ = dealt()
    run(reader, game, [lay(table, "Ann")])
    applied, _, _ = run(reader, game, [turn_up(table, "Ann", 9)])
    assert applied == []
    assert all(s.side == "back" or s.item is None for _, s in reader.picture.items("crew_card"))


def test_a_crate_placed_in_a_hold_is_a_one_tap_placed_confirmation():
    game, table, reader, _, holds = dealt()
    run(reader, game, [lay(table, p) for p in PLAYERS])
    run(reader, game, [turn_up(table, "Ann", 9), turn_up(table, "Bea", 4), turn_up(table, "Cy", 7)])
    top = next(a for a in game.legal_actions(None) if a["type"] == "show_top_crate")["crate"]
    run(reader, game, [table.appear("crate", top, "front", zone="offer", rotation=0)])
    applied, confirm, _ = run(reader, game, [table.move("crate", top, "front", zone="hold H01",
                                                        cell="r2c2", rotation=270)])
    assert applied == []
    assert confirm[0].confirm == ({"type": "place_crate", "player": "Ann", "crate": top,
                                   "face": "front", "rotation": 270, "offset": [0, 0]},)
    game.apply(confirm[0].confirm[0])
    assert game.participant("Ann").layers[0].crate == top
