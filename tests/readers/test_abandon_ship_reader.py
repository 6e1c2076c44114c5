"""The Abandon Ship reader on hand-built table events (SPEC §2.3)."""

from __future__ import annotations

from tableassist.games.abandon_ship import Phase
from tableassist.readers import reader_for
from tests.readers.table import Table, new, run

PLAYERS = ("Ann", "Bea", "Cy")
SPACES = (6, 10, 14, 18, 22)


def cheese_events(table):
    return [table.appear("cheese_token", f"cheese-{i + 1}", zone="space", cell=str(s))
            for i, s in enumerate(SPACES)]


def started(seed=1):
    game, table = new("abandon_ship", PLAYERS, seed=seed), Table("abandon_ship")
    reader = reader_for("abandon_ship", PLAYERS)
    # the dice lie in the pool at set-up: their faces are no roll
    setup = [table.appear("die_face", f"{d}:face-1", zone="pool")
             for d in ("red", "blue", "green", "yellow", "orange", "purple", "black", "white")]
    setup += [table.appear("rat", c, zone="space", cell="1")
              for c in ("red", "blue", "green", "yellow", "orange", "purple", "black")]
    applied, _, _ = run(reader, game, setup + cheese_events(table))
    return game, table, reader, applied


def test_cheese_tokens_on_the_board_are_placed_with_their_values():
    game, _, _, applied = started()
    assert [(a["space"], a["value"]) for a in applied] == list(zip(SPACES, [1, 1, 2, 2, 3]))
    assert game.phase is Phase.ROLL


def test_faces_lying_in_the_pool_at_set_up_are_not_a_roll():
    game, _, _, applied = started()
    assert not any(a["type"] == "roll_die" for a in applied)
    assert game.faces == {}


def roll(table, faces):
    """faces: die -> face number (1-based index into the die's faces)."""
    return [table.appear("die_face", f"{d}:face-{n}", zone="pool") for d, n in faces.items()]


ALL_ONES = {d: 1 for d in ("red", "blue", "green", "yellow", "orange", "purple", "black")}


def test_a_roll_is_read_die_by_die_then_the_player_chooses():
    game, table, reader, _ = started()
    applied, _, _ = run(reader, game, roll(table, {**ALL_ONES, "red": 4, "white": 2}))
    assert sorted((a["die"], a["face"]) for a in applied) == sorted(
        [(d, "1") for d in ALL_ONES if d != "red"] + [("red", "4"), ("white", "(2)")])
    assert game.phase is Phase.CHOOSE


def test_a_rat_moved_by_the_only_die_that_explains_it_is_read_without_a_tap():
    game, table, reader, _ = started()
    run(reader, game, roll(table, {**ALL_ONES, "red": 4, "white": 2}))
    turn = game.turn
    applied, confirm, mismatch = run(reader, game, [table.move("rat", "red", zone="space", cell="5")])
    assert applied == [{"type": "use_die", "player": turn, "die": "red", "rat": "red"}]
    assert confirm == [] and mismatch == []
    assert game.board["red"] == 5


def test_two_dice_that_explain_the_same_move_ask_for_a_tap():
    game, table, reader, _ = started()
    # the blue die shows 2 and the neutral die shows (2): both move the blue rat to space 3
    run(reader, game, roll(table, {**ALL_ONES, "blue": 2, "white": 2}))
    applied, confirm, _ = run(reader, game, [table.move("rat", "blue", zone="space", cell="3")])
    assert applied == []
    assert {a["die"] for a in confirm[0].confirm} == {"blue", "white"}
    assert game.phase is Phase.CHOOSE


def test_a_rat_on_a_space_no_die_explains_is_out_of_sync():
    game, table, reader, _ = started()
    run(reader, game, roll(table, ALL_ONES | {"white": 1}))
    applied, confirm, mismatch = run(reader, game, [table.move("rat", "green", zone="space", cell="9")])
    assert applied == [] and confirm == []
    assert mismatch[0].sees == "the green rat on space 9"
    assert "no die of this roll" in mismatch[0].expects
    assert game.board["green"] == 1


def test_a_tile_turned_up_before_the_end_is_never_read():
    game, table, reader, _ = started()
    run(reader, game, [table.appear("tile", "tile-1", seat="red", pos=(450.0, 560.0))])
    assert reader.picture.items("tile") == []
    assert all(game.view(p)["private"]["tile"] is None for p in PLAYERS)   # nothing recorded


def test_the_sinking_token_turned_up_raises_the_water():
    game, table, reader, _ = started()
    game.set_position(pool=["red"])    # the turn player is passed one die
    assert game.phase is Phase.WATER
    applied, _, _ = run(reader, game, [table.appear("sinking_token", "token-8", zone="sinking_tokens")])
    assert applied == [{"type": "reveal_sinking_token", "player": None, "value": 5}]


def test_after_the_end_each_tile_turned_up_at_a_seat_is_revealed_for_that_player():
    import random

    from tests.games.random_play import random_actions
    game, table = new("abandon_ship", PLAYERS, seed=4), Table("abandon_ship")
    rng = random.Random(4)
    for _ in random_actions(game, rng):   # stops when the ship's game ends, tiles unknown
        pass
    assert game.phase is Phase.REVEAL_TILES
    reader = reader_for("abandon_ship", PLAYERS)
    sets = [sorted(t, key=game.components.colours.index) for t in game.components.tiles]
    seats = {"Ann": "red", "Bea": "blue", "Cy": "green"}
    events = [table.appear("tile", f"tile-{k + 1}", seat=seats[p]) for k, p in enumerate(PLAYERS)]
    applied, _, _ = run(reader, game, events)
    assert applied == [{"type": "reveal_tile", "player": None, "owner": p, "colours": list(sets[k])}
                       for k, p in enumerate(PLAYERS)]
    assert game.phase is Phase.OVER and game.result() is not None
