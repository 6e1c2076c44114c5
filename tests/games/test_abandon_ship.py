"""Abandon Ship: every T-AS case of SPEC.md §2.5 under its id, the gap options, and illegal input.

Colours: SPEC's c0…c6 are the data file's red, blue, green, yellow, orange, purple, black; the
neutral eighth die is white. Positions are built with ``arrange`` (``tests/games/positions.py``:
the engine's ``set_position`` with rats, waterline, pool, slots), then played forward with real
actions.
"""

from __future__ import annotations

import json

import pytest

from tableassist.table import catalog
from tableassist.games.abandon_ship import BOX, SPENT, AbandonShip, Phase, Rat, Slot
from tableassist.games.protocol import IllegalAction, SetupError
from tests.games.positions import abandon_ship as new, arrange

C = ["red", "blue", "green", "yellow", "orange", "purple", "black"]   # c0 … c6
PLAYERS = ["Ann", "Bea", "Cy"]


# -- notation helpers -------------------------------------------------------------------------

def roll(game: AbandonShip, faces: dict[str, str] | None = None) -> None:
    """The table reads every die in the pool: ``faces`` names some, the rest show their first
    face (1, or circled 1)."""
    faces = faces or {}
    for die in game.view()["pool"]:
        face = faces.get(die, next(iter(game.components.dice[die].faces)))
        game.apply({"type": "roll_die", "player": None, "die": die, "face": face})


def use(game: AbandonShip, die: str, rat: str | None = None, faces=None):
    """One whole turn: the roll, then the turn player uses ``die`` (on ``rat``)."""
    roll(game, faces)
    action = {"type": "use_die", "player": game.turn, "die": die}
    if rat:
        action["rat"] = rat
    return game.apply(action)


def reveal(game: AbandonShip, tiles: dict[str, list[str]]) -> None:
    for owner, colours in tiles.items():
        game.apply({"type": "reveal_tile", "player": None, "owner": owner, "colours": colours})


def where(game: AbandonShip) -> dict[str, str]:
    return {d["id"]: d["where"] for d in game.view()["dice"]}


def slots(game: AbandonShip) -> list[list[str]]:
    return [s["rats"] for s in game.view()["slots"]]


def components_with(**changes) -> dict:
    """The data file with some dice faces or board values changed, for a SPEC example that
    names a face the placeholder dice do not have."""
    data = catalog.load_components("abandon_ship")
    for die_id, faces in changes.pop("faces", {}).items():
        next(d for d in data["dice"] if d["id"] == die_id)["faces"] = faces
    data["board"].update(changes)
    return data


def unchanged(game: AbandonShip, action, match: str) -> None:
    before = json.dumps(game.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction, match=match):
        game.apply(action)
    assert json.dumps(game.to_json(), sort_keys=True) == before


# -- T-AS cases ---------------------------------------------------------------------------------

TILES_01 = {"Adam": ["red", "green", "black"], "David": ["red", "blue", "yellow"],
            "Eva": ["red", "orange", "purple"]}


def test_T_AS_01_rulebook_example_two_rats_share_slot_2():
    """Reading (a): X = c3, 5 = c0, 3 = c1; c2 and c6 washed; c4 and c5 share "2"."""
    game = new(["Adam", "David", "Eva"])
    arrange(game, rats={"green": 3, "orange": 3, "purple": 12}, waterline=5,
            slots=[["yellow"], ["red"], ["blue"], []], turn="Adam")
    use(game, "orange", faces={"orange": "4"})        # orange 3 -> 7; green alone in the water
    assert list(game.washed) == ["black", "green"]
    assert slots(game) == [["yellow"], ["red"], ["blue"], ["orange", "purple"]]
    assert game.is_over and game.result() is None     # the tiles are not known yet
    reveal(game, TILES_01)
    result = game.result()
    assert {r["player"]: r["score"] for r in result["ranking"]} == {"Adam": 5, "David": 8,
                                                                     "Eva": 9}
    assert result["winners"] == ["Eva"]
    assert result["breakdown"]["Eva"]["rats"] == {"red": 5, "orange": 2, "purple": 2}
    assert result["breakdown"]["David"]["rats"]["yellow"] == 0      # X scores 0 (G-AS-07)


def test_T_AS_01b_rulebook_example_one_rat_on_2_plus_cheese():
    """Reading (b): c4 reaches "2" as the 4th rat (c2 washed by the same move), c5 stays on the
    board, Eva holds a cheese worth 2."""
    game = new(["Adam", "David", "Eva"])
    arrange(game, rats={"orange": 26, "green": 26, "purple": 28}, waterline=26,
            slots=[["yellow"], ["red"], ["blue"], []], turn="Eva", cheese={"Eva": [2]})
    use(game, "orange", faces={"orange": "4"})
    assert slots(game) == [["yellow"], ["red"], ["blue"], ["orange"]]
    assert game.end == "fourth_rat"
    assert game.view()["rats"][C.index("purple")]["where"] == "board"
    reveal(game, TILES_01)
    scores = {r["player"]: r["score"] for r in game.result()["ranking"]}
    assert scores == {"Adam": 5, "David": 8, "Eva": 9}
    assert game.result()["breakdown"]["Eva"] == {
        "rats": {"red": 5, "orange": 2, "purple": 0}, "cheese": 2, "total": 9}
    assert game.result()["winners"] == ["Eva"]


def test_T_AS_02_game_ends_when_the_fourth_rat_reaches_the_top_deck():
    game = new()
    arrange(game, rats={"blue": 29, "orange": 29, "red": 29, "black": 29, "green": 5,
                        "yellow": 5, "purple": 5})
    for rat in ["blue", "orange", "red"]:
        use(game, rat)
        assert not game.is_over
    use(game, "black")
    assert slots(game) == [["blue"], ["orange"], ["red"], ["black"]]
    assert game.is_over and game.end == "fourth_rat"
    assert dict(game.board) == {"green": 5, "yellow": 5, "purple": 5}
    assert game.rat_points() == {"red": 3, "blue": 0, "green": 0, "yellow": 0, "orange": 5,
                                 "purple": 0, "black": 2}
    assert game.legal_actions("Bea") == [] and game.view()["turn"] is None


def test_T_AS_03_two_rats_left_both_go_on_slot_2():
    """X, 5, 3 taken and green washed; purple is washed by the water, leaving two rats."""
    game = new()
    arrange(game, rats={"black": 4, "orange": 4, "purple": 5}, waterline=4,
            slots=[["yellow"], ["red"], ["blue"], []], pool=["white"], turn="Bea")
    assert game.phase is Phase.WATER
    game.apply({"type": "reveal_sinking_token", "player": None, "value": 2})
    assert game.waterline == 5 and "purple" in game.washed
    assert slots(game)[3] == ["orange", "black"]
    assert game.rat_points()["orange"] == game.rat_points()["black"] == 2
    assert game.is_over and game.end == "two_rats_left"


def test_T_AS_04_number_die_moves_its_rat_and_is_spent():
    game = new(components=components_with(faces={"red": ["1", "2", "3", "4", "fwd", "back"]}))
    arrange(game, rats={c: 1 for c in C} | {"red": 4})
    use(game, "red", faces={"red": "3"})
    assert game.board["red"] == 7
    assert where(game)["red"] == SPENT


def test_T_AS_05_circled_face_moves_any_rat():
    game = new(components=components_with(faces={"blue": ["1", "(2)", "3x", "4", "fwd",
                                                          "back"]}))
    arrange(game, rats={c: 1 for c in C} | {"green": 3})
    use(game, "blue", "green", faces={"blue": "(2)"})
    assert game.board["green"] == 5 and game.board["blue"] == 1
    assert where(game)["blue"] == SPENT


def test_T_AS_06_forward_arrow_to_the_next_rat_ahead():
    rest = {"yellow": 1, "orange": 1, "purple": 1, "black": 1}
    game = new()
    arrange(game, rats=rest | {"red": 3, "blue": 5, "green": 9})
    use(game, "red", faces={"red": "fwd"})
    assert game.board["red"] == 5

    game = new()
    arrange(game, rats=rest | {"red": 9, "blue": 5, "green": 3})
    notes = use(game, "red", faces={"red": "fwd"})
    assert game.board["red"] == 9 and "nothing happens" in notes[0].text
    assert where(game)["red"] == SPENT

    game = new()
    arrange(game, rats={"red": 5, "yellow": 5, "green": 9, "blue": 1, "orange": 1,
                        "purple": 1, "black": 1})
    use(game, "red", faces={"red": "fwd"})
    assert game.board["red"] == 9                      # G-AS-14


def test_T_AS_07_backward_arrow_to_the_next_rat_behind():
    rest = {"yellow": 12, "orange": 12, "purple": 12, "black": 12}
    game = new()
    arrange(game, rats=rest | {"green": 9, "blue": 5, "red": 3}, turn="Cy")
    use(game, "green", faces={"green": "back"})
    assert game.board["green"] == 5

    game = new()
    arrange(game, rats=rest | {"green": 9, "blue": 5, "red": 3})
    use(game, "red", faces={"red": "back"})
    assert game.board["red"] == 3 and where(game)["red"] == SPENT


def test_T_AS_08_x_face_keeps_the_die_in_the_pool():
    game = new()
    arrange(game, rats={c: 2 for c in C}, pool=["red", "blue", "white"])
    use(game, "red", faces={"red": "3x"})
    assert game.turn == "Bea" and game.view()["pool"] == ["red", "blue", "white"]
    assert game.phase is Phase.ROLL


def test_T_AS_09_water_stops_on_the_first_rat_and_the_rest_is_lost():
    game = new()
    arrange(game, rats={"red": 2, "blue": 2, "green": 6, "yellow": 6, "orange": 6,
                        "purple": 6, "black": 6}, pool=["white"])
    notes = game.apply({"type": "reveal_sinking_token", "player": None, "value": 3})
    assert game.waterline == 2 and list(game.washed) == []
    assert "1 lost" in notes[0].text
    use(game, "red", faces={"red": "4"})                # red leaves space 2
    assert list(game.washed) == ["blue"] and where(game)["blue"] == BOX


def test_T_AS_10_water_washes_a_lone_rat_away():
    game = new()
    arrange(game, rats={"yellow": 5, "red": 9, "blue": 9, "green": 9, "orange": 9,
                        "purple": 9, "black": 9}, waterline=4, pool=["red"], revealed=[4])
    game.apply({"type": "reveal_sinking_token", "player": None, "value": 2})
    assert game.waterline == 5
    assert list(game.washed) == ["yellow"] and where(game)["yellow"] == BOX


def test_T_AS_11_no_tokens_left_no_rise_but_the_pool_is_reformed():
    game = new()
    tokens = list(game.components.sinking_tokens)
    arrange(game, rats={c: 20 for c in C}, waterline=10, pool=["white"], revealed=tokens)
    assert game.phase is Phase.ROLL and game.waterline == 10
    assert len(game.view()["pool"]) == 8
    assert game.legal_actions(None)[0]["type"] == "roll_die"


def test_T_AS_12_reforming_the_pool_after_the_water_rises():
    game = new()
    six = {"red": 9, "blue": 9, "green": 9, "yellow": 9, "orange": 9, "purple": 9}
    arrange(game, rats=six, pool=["white"])
    game.apply({"type": "reveal_sinking_token", "player": None, "value": 2})
    assert game.view()["pool"] == ["red", "blue", "green", "yellow", "orange", "purple", "white"]

    game = new()
    arrange(game, rats=six | {"red": 2}, pool=["white"])
    game.apply({"type": "reveal_sinking_token", "player": None, "value": 2})
    assert list(game.washed) == ["black", "red"]
    assert game.view()["pool"] == ["blue", "green", "yellow", "orange", "purple", "white"]


def test_T_AS_13_cheese_goes_to_the_mover_only_where_the_move_ends():
    data = components_with(cheese_spaces=[6, 11, 14, 18, 22])
    game = new(components=data)
    arrange(game, rats={c: 1 for c in C} | {"green": 8}, turn="Bea")
    use(game, "white", "green", faces={"white": "(3)x"})
    assert game.board["green"] == 11
    assert list(game.cheese("Bea")) == [1]
    assert {"space": 11, "value": 1} not in game.view()["cheese_on_board"]

    game = new(components=data)
    arrange(game, rats={c: 1 for c in C} | {"green": 8}, turn="Bea")
    use(game, "white", "green", faces={"white": "(4)"})           # 8 -> 12, over 11
    assert list(game.cheese("Bea")) == []
    assert {"space": 11, "value": 1} in game.view()["cheese_on_board"]


def test_T_AS_14_rat_leaves_while_its_die_is_in_the_pool():
    game = new()
    arrange(game, rats={c: 5 for c in C} | {"blue": 27}, pool=["blue", "white"])
    use(game, "white", "blue", faces={"white": "(4)"})
    assert where(game)["white"] == SPENT and where(game)["blue"] == BOX
    assert game.view()["pool"] == []
    assert game.turn == "Bea" and game.phase is Phase.WATER   # G-AS-10


def ended(slot_rats, board, cheese):
    """A finished game: the position before its end (two rats sharing a slot are the survivors
    of a two-rats-left end, still on the board then), ended by the rules' end check, then the
    tiles revealed."""
    game = new(["A", "B", "Cy"])
    survivors = {rat: 9 for occupants in slot_rats if len(occupants) > 1 for rat in occupants}
    game.set_position(rats={**board, **survivors}, cheese=cheese,
                      slots=[occupants if len(occupants) == 1 else [] for occupants in slot_rats])
    assert game.is_over and slots(game) == slot_rats
    reveal(game, {"A": ["green", "yellow", "purple"], "B": ["red", "blue", "yellow"],
                  "Cy": ["yellow", "orange", "black"]})
    return game.result()


def test_T_AS_15_ties_go_to_most_cheese_then_a_draw():
    result = ended([["yellow"], ["green"], ["orange"], ["red", "blue"]], {},
                   {"A": [2], "B": [3], "Cy": []})
    scores = {r["player"]: (r["score"], r["cheese"], r["rank"]) for r in result["ranking"]}
    assert scores == {"A": (7, 2, 2), "B": (7, 3, 1), "Cy": (3, 0, 3)}
    assert result["winners"] == ["B"] and not result["draw"]

    result = ended([["yellow"], ["red"], ["green"], ["purple"]],
                   {"blue": 9, "orange": 9, "black": 9}, {"A": [2], "B": [2], "Cy": []})
    scores = {r["player"]: (r["score"], r["rank"]) for r in result["ranking"]}
    assert scores == {"A": (7, 1), "B": (7, 1), "Cy": (0, 3)}
    assert result["winners"] == ["A", "B"] and result["draw"]


def test_T_AS_16_drowning_then_top_deck_then_two_rats_left():
    """a and b on the submerged space W, c elsewhere; a reaches the top deck."""
    game = new()
    arrange(game, rats={"red": 26, "blue": 26, "green": 28}, waterline=26,
            slots=[["yellow"], ["orange"], [], []])
    notes = use(game, "red", faces={"red": "4"})
    assert [n.rule for n in notes] == ["R-AS-02", "R-AS-06", "R-AS-09", "R-AS-10"]
    assert "blue" in game.washed
    assert slots(game) == [["yellow"], ["orange"], ["red"], ["green"]]
    assert game.rat_points()["green"] == 2 and game.is_over


def test_the_water_stops_below_the_top_deck():
    game = new()
    arrange(game, rats={"red": 28, "blue": 28, "green": 28}, waterline=28,
            slots=[["yellow"], ["orange"], [], []], pool=["white"])
    notes = game.apply({"type": "reveal_sinking_token", "player": None, "value": 4})
    assert game.waterline == 29 and "3 lost" in notes[0].text
    assert sorted(game.board) == ["blue", "green", "red"]


# -- set-up ---------------------------------------------------------------------------------

def test_setup_rats_dice_water_and_cheese_from_the_table():
    game = catalog.new_game("abandon_ship", PLAYERS, seed=4)
    view = game.view()
    assert view["phase"] == "place_cheese" and view["turn"] is None
    assert all(r["where"] == "board" and r["space"] == 1 for r in view["rats"])
    assert view["waterline"] == 0 and len(view["pool"]) == 8
    assert view["sinking_tokens"] == {"remaining": 8, "revealed": [],
                                      "remaining_values": [1, 2, 2, 3, 3, 4, 4, 5]}
    assert view["tiles_set_aside"] == 4
    first = game.first_player
    assert game.legal_actions(None) == [
        {"type": "place_cheese", "player": None, "space": 6, "value": v} for v in (1, 2, 3)] + [
        {"type": "choose_first_player", "player": None, "first_player": p}
        for p in PLAYERS if p != first]
    for space, value in [(22, 3), (6, 2), (10, 1), (14, 1), (18, 2)]:
        game.apply({"type": "place_cheese", "player": None, "space": space, "value": value})
    assert game.view()["phase"] == "roll"
    assert game.view()["turn"] == game.view()["first_player"] in PLAYERS
    assert game.view()["cheese_on_board"][0] == {"space": 6, "value": 2}


def test_first_player_is_drawn_from_the_seed():
    firsts = {catalog.new_game("abandon_ship", PLAYERS, seed=s).first_player
              for s in range(30)}
    assert firsts == set(PLAYERS)


def test_the_table_names_the_first_player_it_chose_until_the_first_roll():
    """"Randomly select a player to go first": the engine's draw is the default, but a table
    that chose otherwise says so, in set-up or after the cheese, until a die is read."""
    game = catalog.new_game("abandon_ship", PLAYERS, seed=0)
    drawn = game.first_player
    other = next(p for p in PLAYERS if p != drawn)
    notes = game.apply({"type": "choose_first_player", "player": None, "first_player": other})
    assert [n.text for n in notes] == [f"{other} goes first"]
    assert game.phase is Phase.PLACE_CHEESE
    ship = game.components
    for space, value in zip(ship.cheese_spaces, ship.cheese_tokens):
        game.apply({"type": "place_cheese", "player": None, "space": space, "value": value})
    assert game.view()["turn"] == game.view()["first_player"] == other
    # after the cheese: named again, the first turn starts over with that player
    game.apply({"type": "choose_first_player", "player": None, "first_player": drawn})
    assert game.view()["turn"] == drawn and game.phase is Phase.ROLL
    assert [p.actions for p in game.prompts()] == [("roll_die",), ("choose_first_player",)]
    game.apply({"type": "roll_die", "player": None, "die": "red", "face": "1"})
    unchanged(game, {"type": "choose_first_player", "player": None, "first_player": other},
              "only before the first roll")
    assert not [a for a in game.legal_actions(None) if a["type"] == "choose_first_player"]
    unchanged(game, {"type": "choose_first_player", "player": "Ann", "first_player": "Ann"},
              "an input of the table")


def test_with_first_player_manual_the_game_waits_for_the_table_after_the_cheese():
    game = catalog.new_game("abandon_ship", PLAYERS, seed=0, options={"first_player": "manual"})
    assert game.first_player is None
    ship = game.components
    for space, value in zip(ship.cheese_spaces, ship.cheese_tokens):
        game.apply({"type": "place_cheese", "player": None, "space": space, "value": value})
    assert game.phase is Phase.FIRST_PLAYER and game.view()["turn"] is None
    assert game.legal_actions(None) == [
        {"type": "choose_first_player", "player": None, "first_player": p} for p in PLAYERS]
    assert game.prompts()[0].text == "Randomly select a player to go first, and say who"
    unchanged(game, {"type": "roll_die", "player": None, "die": "red", "face": "1"},
              "waiting for the table to name the first player")
    game.apply({"type": "choose_first_player", "player": None, "first_player": "Cy"})
    assert game.view()["turn"] == "Cy" and game.phase is Phase.ROLL
    with pytest.raises(SetupError, match="first_player"):
        catalog.new_game("abandon_ship", PLAYERS, options={"first_player": "youngest"})


def test_player_counts_three_to_seven():
    new(["A", "B", "C", "D", "E", "F", "G"])
    with pytest.raises(SetupError, match="3–7"):
        catalog.new_game("abandon_ship", list("ABCDEFGH"))
    with pytest.raises(SetupError, match="3–7"):
        catalog.new_game("abandon_ship", ["A", "B"])


def test_bad_data_file_is_reported():
    data = components_with(faces={"white": ["1", "(2)", "(3)x", "(4)", "(fwd)", "(back)"]})
    with pytest.raises(SetupError, match="neutral die"):
        catalog.new_game("abandon_ship", PLAYERS, components=data)
    data = components_with(faces={"red": ["1", "2", "7y"]})
    with pytest.raises(SetupError, match="7y"):
        catalog.new_game("abandon_ship", PLAYERS, components=data)


# -- the options of the gap table -----------------------------------------------------------

def test_G_AS_08_survivors_take_the_highest_scoring_free_space_by_default_or_x():
    """"Both these rats are placed together on the highest scoring space that is not yet
    occupied. Each receives full points for that space": with X still free that is "5" (5
    points each), as a table reads it; SPEC's track-order reading (X, 0 points) is the option."""
    for skip, slot, points in [(True, 1, 5), (False, 0, 0)]:
        game = new(options={"survivors_skip_x": skip})
        arrange(game, rats={"red": 4, "blue": 4, "green": 9}, waterline=4)
        use(game, "blue", faces={"blue": "4"})        # blue 4 -> 8; red washed
        assert slots(game)[slot] == ["blue", "green"]
        for player, tile in zip(PLAYERS, (["red", "blue", "yellow"], ["blue", "green", "orange"],
                                          ["red", "green", "black"])):
            game.apply({"type": "reveal_tile", "player": None, "owner": player, "colours": tile})
        scores = {r["player"]: r["score"] for r in game.result()["ranking"]}
        assert scores == {"Ann": points, "Bea": 2 * points, "Cy": points}
    # with X taken, both readings agree: the next free space after it
    for skip in (True, False):
        game = new(options={"survivors_skip_x": skip})
        arrange(game, rats={"red": 4, "blue": 4, "green": 9}, waterline=4, slots=[["yellow"], [],
                                                                                  [], []])
        use(game, "blue", faces={"blue": "4"})
        assert slots(game)[1] == ["blue", "green"]


def test_G_AS_14_arrow_same_space_counts_option():
    game = new(options={"arrow_same_space_counts": True})
    arrange(game, rats={"red": 5, "yellow": 5, "green": 9, "blue": 1, "orange": 1,
                        "purple": 1, "black": 1})
    use(game, "red", faces={"red": "fwd"})
    assert game.board["red"] == 5


def test_G_AS_16_submerged_cheese_option():
    for takeable, cheese in [(True, [1]), (False, [])]:
        game = new(options={"submerged_cheese_takeable": takeable})
        arrange(game, rats={c: 7 for c in C} | {"red": 4, "blue": 4, "green": 6, "yellow": 6},
                waterline=6)
        use(game, "red", faces={"red": "2"})          # red 4 -> 6, submerged, cheese 1
        assert list(game.cheese("Ann")) == cheese


def test_G_AS_10_zero_dice_without_water_when_option_is_off():
    game = new(options={"pass_zero_dice_triggers_water": False})
    arrange(game, rats={c: 5 for c in C} | {"blue": 27}, pool=["blue", "white"])
    use(game, "white", "blue", faces={"white": "(4)"})
    assert game.phase is Phase.ROLL and game.waterline == 0
    assert len(game.view()["pool"]) == 7


def test_moving_rat_alone_into_the_water_is_washed_away_G_AS_15():
    game = new()
    arrange(game, rats={"red": 2, "blue": 2, "green": 9, "yellow": 9, "orange": 9},
            waterline=6)
    use(game, "red", faces={"red": "2"})              # 2 -> 4: both red and blue now alone
    assert sorted(game.washed) == ["black", "blue", "purple", "red"]
    assert sorted(game.board) == ["green", "orange", "yellow"] and not game.is_over


# -- illegal actions: refused with a message, nothing changed ---------------------------------

def test_illegal_die_not_in_the_pool():
    game = new()
    arrange(game, rats={c: 2 for c in C}, pool=["red", "blue", "white"])
    unchanged(game, {"type": "roll_die", "player": None, "die": "green", "face": "1"},
              "green die is not in the dice pool")
    roll(game)
    unchanged(game, {"type": "use_die", "player": "Ann", "die": "green"},
              "green die is not in this roll")


def test_illegal_face_the_die_does_not_have():
    game = new()
    arrange(game, rats={c: 2 for c in C})
    unchanged(game, {"type": "roll_die", "player": None, "die": "red", "face": "6"},
              r"red die has no face '6'")
    unchanged(game, {"type": "roll_die", "player": None, "die": "red", "face": "(2)"},
              r"no face")
    game.apply({"type": "roll_die", "player": None, "die": "red", "face": "2"})
    unchanged(game, {"type": "roll_die", "player": None, "die": "red", "face": "1"},
              "already been read")


def test_illegal_moving_a_scored_or_washed_rat():
    game = new()
    arrange(game, rats={"red": 3, "blue": 3, "green": 3, "yellow": 3},
            slots=[["orange"], ["purple"], [], []])
    roll(game, {"white": "(2)"})
    unchanged(game, {"type": "use_die", "player": "Ann", "die": "white", "rat": "purple"},
              "on scoring space 5")
    unchanged(game, {"type": "use_die", "player": "Ann", "die": "white", "rat": "black"},
              "washed away")
    unchanged(game, {"type": "use_die", "player": "Ann", "die": "white"}, "needs a field 'rat'")
    unchanged(game, {"type": "use_die", "player": "Ann", "die": "red", "rat": "blue"},
              "only the red rat")


def test_illegal_acting_out_of_turn_or_out_of_phase():
    game = new()
    arrange(game, rats={c: 2 for c in C})
    unchanged(game, {"type": "use_die", "player": "Ann", "die": "red"}, "cannot use a die now")
    roll(game)
    unchanged(game, {"type": "use_die", "player": "Bea", "die": "red"}, "only Ann, whose turn it is, may use a die")
    unchanged(game, {"type": "roll_die", "player": "Ann", "die": "red", "face": "1"},
              "an input of the table")
    unchanged(game, {"type": "reveal_sinking_token", "player": None, "value": 2},
              "cannot reveal sinking token now")
    unchanged(game, {"type": "reveal_tile", "player": None, "owner": "Ann",
                     "colours": ["red", "blue", "yellow"]}, "only when the game is over")
    unchanged(game, {"type": "place_cheese", "player": None, "space": 6, "value": 1},
              "cannot place cheese now")


def test_illegal_token_or_cheese_value_not_left():
    game = catalog.new_game("abandon_ship", PLAYERS)
    unchanged(game, {"type": "place_cheese", "player": None, "space": 7, "value": 1},
              "not a passenger deck")
    unchanged(game, {"type": "place_cheese", "player": None, "space": 6, "value": 5},
              "no cheese token worth 5")
    game = new()
    arrange(game, rats={c: 9 for c in C}, pool=["white"], revealed=[5])
    unchanged(game, {"type": "reveal_sinking_token", "player": None, "value": 5},
              "no sinking-ship token worth 5")


def test_tiles_entered_privately_or_revealed_at_the_end():
    game = new(["Adam", "David", "Eva"])
    arrange(game, rats={"green": 3, "orange": 3, "purple": 12}, waterline=5,
            slots=[["yellow"], ["red"], ["blue"], []], turn="Adam")
    game.apply({"type": "enter_tile", "player": "Eva", "colours": ["purple", "red", "orange"]})
    assert game.view("Eva")["private"]["tile"] == ["red", "orange", "purple"]
    assert game.view("Eva")["private"]["points"] == 5
    assert game.view("Adam")["private"]["tile"] is None
    unchanged(game, {"type": "enter_tile", "player": "Adam", "colours": ["red", "red", "blue"]},
              "three different rat colours")
    unchanged(game, {"type": "enter_tile", "player": "Adam",
                     "colours": ["red", "blue", "green"]}, "not one of the life-preserver")
    def refusal(colours):
        with pytest.raises(IllegalAction) as refused:
            game.apply({"type": "enter_tile", "player": "Adam", "colours": colours})
        return str(refused.value)
    # the message never depends on (nor echoes) the entry
    assert "red,blue,yellow" not in refusal("red,blue,yellow") == refusal(None)
    assert refusal(["red", "blue", ["yellow"]]) == refusal(["green", "black", 7])
    assert game.label({"type": "enter_tile", "player": "Eva",
                       "colours": ["red", "orange", "purple"]}) == "Eva: enter my tile (private)"
    use(game, "orange", faces={"orange": "4"})
    assert game.phase is Phase.REVEAL_TILES
    assert game.view()["players"][2]["tile"] == ["red", "orange", "purple"]
    assert [a["owner"] for a in game.legal_actions(None)] == ["Adam"] * 6
    reveal(game, {"Adam": TILES_01["Adam"]})
    unchanged(game, {"type": "reveal_tile", "player": None, "owner": "David",
                     "colours": TILES_01["Adam"]}, "Adam already holds")
    reveal(game, {"David": TILES_01["David"]})
    assert game.view()["phase"] == "over" and game.view()["result"]["winners"] == ["Eva"]


def test_the_same_tile_entered_twice_waits_for_a_correction():
    game = new(["Adam", "David", "Eva"])
    arrange(game, rats={"green": 3, "orange": 3, "purple": 12}, waterline=5,
            slots=[["yellow"], ["red"], ["blue"], []], turn="Adam")
    for player in ["Adam", "David", "Eva"]:      # Adam and David both think they hold Eva's
        game.apply({"type": "enter_tile", "player": player, "colours": TILES_01["Eva"]})
    use(game, "orange", faces={"orange": "4"})
    assert game.result() is None and game.phase is Phase.REVEAL_TILES
    assert "correct" in game.prompts()[0].text
    game.apply({"type": "enter_tile", "player": "Adam", "colours": TILES_01["Adam"]})
    assert game.result() is None
    reveal(game, {"David": TILES_01["David"]})
    assert game.result()["winners"] == ["Eva"]


def test_labels_and_prompts_speak_the_tables_words():
    game = new()
    arrange(game, rats={c: 2 for c in C})
    assert game.prompts()[0].rule == "R-AS-01"
    assert game.label(game.legal_actions(None)[0]) == "Table: red die shows 1"
    roll(game, {"white": "(2)"})
    labels = [game.label(a) for a in game.legal_actions("Ann")]
    assert "Ann: white die on the green rat" in labels and len(labels) == 7 + 7


# -- positions (set_position, the engine's set_fen) and the surface ---------------------------

def test_a_position_is_checked_against_the_invariants_and_refused_whole():
    game = new()
    others = {c: 5 for c in C if c != "red"}
    before = json.dumps(game.to_json(), sort_keys=True)
    for bad, words in [
            (dict(rats={"red": 3}, slots=[["red"], [], [], []]), "one place"),
            (dict(rats={"pink": 3}), "one place"),
            (dict(rats=others, slots=[[], ["red"], [], []]), "in track order"),
            (dict(rats={c: 5 for c in C[2:]}, slots=[["red", "blue"], [], [], []]),
             "in track order"),
            (dict(waterline=30), "from 0 to 29"),
            (dict(rats={"red": 30}), "from 1 to 29"),
            (dict(rats={**others, "red": 2}, waterline=3), "R-AS-06"),
            (dict(rats=others, pool=["red"]), "only dice still in the game"),
            (dict(revealed=[6]), "sinking-ship tokens"),
            (dict(turn="Zed"), "not a player"),
            (dict(cheese={"Ann": [3, 3]}), "no cheese token worth 3")]:
        with pytest.raises(SetupError, match=words):
            game.set_position(**bad)
        assert json.dumps(game.to_json(), sort_keys=True) == before
    game.set_position(rats={**others, "blue": 3}, slots=[["red"], [], [], []], waterline=2,
                      pool=["green", "white"], revealed=[4, 5], turn="Bea",
                      cheese={"Cy": [1, 3]})
    assert game.rat("red") == Rat("red", "scored", slot="X")
    assert game.rat("blue") == Rat("blue", "board", space=3) and game.washed == ()
    assert game.rats[C.index("green")] == Rat("green", "board", space=5)
    assert game.slots[0] == Slot("X", 0, ("red",)) and game.slots[1].rats == ()
    assert game.dice["red"] == BOX and game.dice["blue"] == SPENT
    assert game.pool == ("green", "white") and game.faces == {}
    assert game.tokens_revealed == (4, 5) and game.tokens_left == (1, 2, 2, 3, 3, 4)
    assert game.cheese("Cy") == (1, 3) and game.cheese("Ann") == ()
    assert dict(game.cheese_on_board) == {10: 1, 14: 2, 18: 2} and game.cheese_placed == 5
    assert game.turn == "Bea" and game.phase is Phase.ROLL and game.waterline == 2
    assert game.next_cheese_space is None and game.end is None
    roll(game)
    with pytest.raises(SetupError, match="start of a turn"):
        game.set_position(waterline=5)


def test_a_position_that_meets_an_end_is_ended_by_the_rules():
    game = new()
    game.set_position(rats={"red": 9, "blue": 12}, slots=[["green"], [], [], []])
    assert game.is_over and game.end == "two_rats_left" and game.phase is Phase.REVEAL_TILES
    assert game.slots[1] == Slot("5", 5, ("red", "blue")) and game.turn is None
    assert game.board == {}


def test_a_tile_is_known_to_the_surface_only_once_the_ship_s_game_is_over():
    game = new()
    arrange(game, rats={"green": 3, "orange": 3, "purple": 12}, waterline=5,
            slots=[["yellow"], ["red"], ["blue"], []])
    game.apply({"type": "enter_tile", "player": "Bea", "colours": ["green", "yellow", "purple"]})
    assert [game.known_tile(p) for p in PLAYERS] == [None, None, None]
    use(game, "orange", faces={"orange": "4"})
    assert game.known_tile("Bea") == ("green", "yellow", "purple")
    assert game.known_tile("Ann") is None


# -- the documented example game ---------------------------------------------------------------

def test_example_log_replays_to_the_end_through_the_command(capsys):
    from pathlib import Path

    from tableassist.cli import main

    log = Path(__file__).resolve().parents[2] / "docs/games/abandon_ship.example.jsonl"
    command = log.read_text(encoding="utf-8").splitlines()[0]
    assert command.startswith("# tableassist replay --game abandon_ship ")
    argv = command[2:].split()[1:]
    argv[-1] = str(log)
    assert main(argv) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["over"] and view["phase"] == "over" and view["end"] == "fourth_rat"
    assert view["result"]["winners"] == ["Cy"]
    assert [(r["player"], r["score"], r["cheese"]) for r in view["result"]["ranking"]] == [
        ("Cy", 12, 2), ("Ann", 6, 4), ("Bea", 6, 3)]


def test_naming_the_first_player_again_changes_nothing_and_is_refused():
    """A second tap on "Bea goes first" is no entry of the log: the engine refuses it, and the
    one who goes first is not offered again (issue 27)."""
    game = catalog.new_game("abandon_ship", PLAYERS, seed=0, options={"first_player": "manual"})
    game.apply({"type": "choose_first_player", "player": None, "first_player": "Bea"})
    unchanged(game, {"type": "choose_first_player", "player": None, "first_player": "Bea"},
              "Bea already goes first")
    offered = [a["first_player"] for a in game.legal_actions(None)
               if a["type"] == "choose_first_player"]
    assert "Bea" not in offered and offered
