"""The Shipwrecked reader on hand-built table events (SPEC §1.3, §1.7)."""

from __future__ import annotations

from tableassist.games.shipwrecked import Phase
from tableassist.readers import reader_for
from tests.games.positions import shipwrecked
from tests.readers.table import Table, run

PLAYERS = ("Ann", "Bea", "Cy")
COLOURS = {"Ann": "red", "Bea": "blue", "Cy": "green"}
X = {"Ann": 30.0, "Bea": 80.0, "Cy": 130.0}   # each bidder's column on the board (mm)


def ann_starts():
    return shipwrecked(PLAYERS, "Ann", seed=2), Table("shipwrecked")


def lot_turned_over():
    game, table = ann_starts()
    reader = reader_for("shipwrecked", PLAYERS, COLOURS)
    applied, _, _ = run(reader, game, [table.appear("resource_card", "FOOD-30", zone="lot")])
    return game, table, reader, applied


def lay_row(table, row):
    return [table.appear("bid_card", COLOURS[p], "back", zone="bid", cell=f"r{row}c{i + 1}",
                         pos=(X[p], 400.0 - 60 * row)) for i, p in enumerate(PLAYERS)]


def flip(table, player, card, row):
    i = PLAYERS.index(player)
    return table.flip("bid_card", f"{COLOURS[player]}-{card}", "face", zone="bid",
                      cell=f"r{row}c{i + 1}", pos=(X[player], 400.0 - 60 * row),
                      previous=(COLOURS[player], "back"))


def test_the_top_card_turned_over_is_the_lot():
    game, _, _, applied = lot_turned_over()
    assert applied == [{"type": "turn_over_card", "player": None, "card": "FOOD-30"}]
    assert game.phase is Phase.LAY


def test_card_backs_in_the_row_are_read_as_laid_by_their_colour():
    game, table, reader, _ = lot_turned_over()
    applied, _, _ = run(reader, game, lay_row(table, 1))
    assert applied == [{"type": "lay_bid_card", "player": p} for p in PLAYERS]
    assert game.phase is Phase.STOP_WINDOW


def test_a_single_stop_is_read_from_the_revealed_row():
    game, table, reader, _ = lot_turned_over()
    run(reader, game, lay_row(table, 1))
    game.apply({"type": "announce_stop", "player": "Cy"})      # the tablet: verbal
    applied, _, _ = run(reader, game, [flip(table, "Ann", "PASS-1", 1), flip(table, "Bea", "PASS-1", 1),
                                       flip(table, "Cy", "STOP-1", 1)])
    assert applied == [{"type": "reveal_row", "player": None,
                        "cards": {"Ann": "PASS", "Bea": "PASS", "Cy": "STOP"}}]
    assert game.view()["players"][2]["resources"] == ["FOOD-30"]
    assert game.view()["players"][2]["gems"] == 13 - 5   # 3 players start with 13 gems; round 1 costs 5


def test_a_face_turned_up_before_the_reveal_is_dropped_unread():
    game, table, reader, _ = lot_turned_over()
    run(reader, game, lay_row(table, 1))
    assert game.phase is Phase.STOP_WINDOW
    applied, confirm, _ = run(reader, game, [flip(table, "Ann", "STRIKE", 1)])
    assert applied == [] and confirm == []
    assert all(s.side != "face" for _, s in reader.picture.items("bid_card"))
    assert "STRIKE" not in repr(reader.picture)


def test_a_bank_card_on_the_lot_spot_asks_for_a_tap():
    game, table = ann_starts()
    game.set_position(bank_display=["WATER-20"])
    reader = reader_for("shipwrecked", PLAYERS, COLOURS)
    applied, confirm, _ = run(reader, game, [table.appear("resource_card", "WATER-20", zone="bank"),
                                             table.move("resource_card", "WATER-20", zone="lot")])
    assert applied == []
    assert confirm[0].confirm == ({"type": "choose_bank_lot", "player": "Ann", "card": "WATER-20"},)


def test_a_face_turned_up_early_asks_the_table_to_turn_it_down_without_naming_it():
    game, table, reader, _ = lot_turned_over()
    run(reader, game, lay_row(table, 1))
    _, _, mismatch = run(reader, game, [flip(table, "Ann", "STRIKE", 1)])
    assert [m.sees for m in mismatch] == ["a bid card face up before its reveal"]
    assert "STRIKE" not in repr(mismatch) and "Ann" not in repr(mismatch)
    # turned down again: the notice goes; turned up at the reveal: it is read
    back = table.flip("bid_card", "red", "back", zone="bid", cell="r1c1", pos=(X["Ann"], 340.0),
                      previous=("red-STRIKE", "face"))
    _, _, mismatch = run(reader, game, [back])
    assert mismatch == []
    game.apply({"type": "announce_stop", "player": "Bea"})
    applied, _, _ = run(reader, game, [flip(table, "Ann", "STRIKE", 1), flip(table, "Bea", "STOP-1", 1),
                                       flip(table, "Cy", "PASS-1", 1)])
    assert applied[0]["cards"] == {"Ann": "STRIKE", "Bea": "STOP", "Cy": "PASS"}


def test_two_stops_are_broken_by_the_earlier_rows_turned_up():
    """Two rows (two backs of each colour on the board at once), two STOPs in row 2: the tied
    players turn up row 1 and the one with more PASS cards wins (R-SW-09 step 4)."""
    game, table, reader, _ = lot_turned_over()
    run(reader, game, lay_row(table, 1))
    game.apply({"type": "close_stop_window", "player": None, "round": 1})     # the clock
    applied, _, _ = run(reader, game, lay_row(table, 2))
    assert applied == [{"type": "lay_bid_card", "player": p} for p in PLAYERS]
    game.apply({"type": "announce_stop", "player": "Ann"})
    applied, _, _ = run(reader, game, [flip(table, "Ann", "STOP-1", 2), flip(table, "Bea", "STOP-1", 2),
                                       flip(table, "Cy", "PASS-1", 2)])
    assert applied[0]["cards"] == {"Ann": "STOP", "Bea": "STOP", "Cy": "PASS"}
    assert game.phase is Phase.TIEBREAK
    # Cy was not tied: a face of Cy's row 1 turned up now is not read
    applied, _, _ = run(reader, game, [flip(table, "Cy", "STRIKE", 1), flip(table, "Ann", "PASS-2", 1),
                                       flip(table, "Bea", "STRIKE", 1)])
    assert applied == [
        {"type": "reveal_earlier_rows", "player": None, "bidder": "Ann", "cards": ["PASS"]},
        {"type": "reveal_earlier_rows", "player": None, "bidder": "Bea", "cards": ["STRIKE"]}]
    assert game.view()["players"][0]["resources"] == ["FOOD-30"]
    assert reader.early and "STRIKE" not in repr(reader.early)


def test_a_hidden_lot_and_its_prize_are_turned_over_on_the_stack():
    game, table = ann_starts()
    reader = reader_for("shipwrecked", PLAYERS, COLOURS)
    applied, _, _ = run(reader, game, [table.appear("resource_card", "HIDDEN-2", zone="stack")] + lay_row(table, 1))
    assert applied[0] == {"type": "turn_over_card", "player": None, "card": "HIDDEN-2"}
    game.apply({"type": "announce_stop", "player": "Bea"})
    run(reader, game, [flip(table, "Ann", "PASS-1", 1), flip(table, "Bea", "STOP-1", 1),
                       flip(table, "Cy", "PASS-1", 1)])
    assert game.phase is Phase.FLIP_PRIZE
    # the Hidden card goes to the set-aside pile; the next card of the stack is turned over
    applied, _, _ = run(reader, game, [table.move("resource_card", "HIDDEN-2", zone="set_aside"),
                                       table.appear("resource_card", "SHELTER-20", zone="stack",
                                                    pos=(110.0, 300.0))])
    assert applied == [{"type": "turn_over_card", "player": None, "card": "SHELTER-20"}]
    assert game.view()["players"][1]["resources"] == ["SHELTER-20"]


def test_the_stack_back_on_the_stack_or_lot_spot_is_never_read_as_a_card():
    game, table = ann_starts()
    reader = reader_for("shipwrecked", PLAYERS, COLOURS)
    before = game.phase
    applied, confirm, mismatch = run(reader, game, [
        table.appear("resource_card", "any", "back", zone="stack"),
        table.appear("resource_card", "any", "back", zone="lot")])
    assert (applied, confirm, mismatch) == ([], [], [])   # no action, no tap, no false notice
    assert game.phase is before
