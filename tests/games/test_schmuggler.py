"""Schmuggler an Bord: every SPEC §3.5 case (T-SB-01 … T-SB-14) and the illegal moves.

Players A, B, C, D sit clockwise and A is the youngest, so A drafts and rolls first. Positions are
built with a short notation (``tests/games/positions.py``): ``start(draft={"A": "gold coffee",
...})`` plays the draft and lays out the board; ``land_on(game, "gold")`` puts the piece one space
before the good (the engine's ``set_position``) and rolls a 1; ``give`` hands a player cards from
the board;
``say(game, "A>B B>C C>C")`` speaks a chain ("A says B has it"); ``look(game, "A- D+")`` gives
the table's answers ("-" not found, "+" found, "*" found after looking at all cards).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tableassist.table import catalog
from tableassist.cli import main
from tableassist.games.protocol import IllegalAction, SetupError
from tableassist.games.schmuggler import (AuditEntry, Look, Phase, Piece, Schmuggler, Search, Seat,
                                          Suspicion, look_order, settle_guessing_round)
from tableassist.table.session import TableSession
from tableassist.table.stores import open_store
from tests.games.positions import give, land_on, schmuggler as start

GOODS = [g["id"] for g in catalog.load_components("schmuggler")["goods"]]


# -- notation ---------------------------------------------------------------------------------

def say(game: Schmuggler, chain: str) -> None:
    for link in chain.split():
        player, suspects = link.split(">")
        game.apply({"type": "suspect", "player": player, "suspects": suspects})


def look(game: Schmuggler, answers: str) -> list:
    notes = []
    for answer in answers.split():
        player, sign = answer[:-1], answer[-1]
        action = {"type": "look", "player": player, "found": sign in "+*"}
        if sign == "*":
            action["looked_at_all"] = True
        notes += game.apply(action)
    return notes


def object_(game: Schmuggler, objectors: str) -> None:
    for p in objectors:
        game.apply({"type": "object", "player": p})
    game.apply({"type": "close_objections", "player": None})


def chips(game: Schmuggler) -> dict[str, int]:
    return {p: game.seat(p).chips for p in game.players}


def paid(before: dict[str, int], game: Schmuggler) -> dict[str, int]:
    """Chips each player paid since ``before`` (only those who paid)."""
    return {p: before[p] - n for p, n in chips(game).items() if before[p] != n}


def holders(game: Schmuggler, good: str) -> list[str]:
    return [p for p in game.players if good in game.record(p)]


def refused(game: Schmuggler, action: dict, *words: str) -> str:
    """Apply ``action``, expect IllegalAction, check nothing changed and the message."""
    before = json.dumps(game.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction) as err:
        game.apply(action)
    assert json.dumps(game.to_json(), sort_keys=True) == before
    message = str(err.value)
    for word in words:
        assert word in message, message
    assert not any(g in message.lower() for g in ("coffee", "watches", "gold", "furs")), message
    return message


# -- set-up (R-SB-01) -------------------------------------------------------------------------

@pytest.mark.parametrize("n, each, drafted, threshold",
                         [(3, 12, 9, 14), (4, 15, 8, 12), (5, 18, 10, 10), (6, 20, 12, 8)])
def test_T_SB_01_setup_by_player_count(n, each, drafted, threshold):
    game = start("ABCDEF"[:n])
    view = game.view(None)
    assert [p["chips"] for p in view["players"]] == [each] * n
    assert sum(p["chips"] for p in view["players"]) + view["kitty"] == each * n
    assert [p["cards"] for p in view["players"]] == [drafted // n] * n
    assert sum(1 for space in view["board"] if space["card"]) == 30 - drafted
    assert view["end_card_threshold"] == threshold
    assert view["piece"] == {"space": 0, "good": None, "card": False}
    assert view["kitty"] == 0 and view["phase"] == "roll" and view["turn"] == "A"


def test_T_SB_01_draft_goes_clockwise_from_the_youngest_one_card_at_a_time():
    game = catalog.new_game("schmuggler", list("ABCD"), options={"youngest": "C"})
    order = []
    while game.phase is Phase.DRAFT:
        order.append(game.drafter)
        game.apply(game.legal_actions(None)[0])
    assert order == list("CDAB") * 2
    game.apply({"type": "lay_out_board", "player": None})
    assert game.view(None)["turn"] == "C"


def test_R_SB_02_a_card_on_the_space_is_taken_and_nothing_else_happens():
    game = start()
    before = chips(game)
    good = a_card_on_the_board(game)
    land_on(game, good)
    assert game.view(None)["phase"] == "take" and game.view(None)["piece"]["card"]
    game.apply({"type": "take_card", "player": "A"})
    assert holders(game, good) == ["A"] and good not in game.board
    assert chips(game) == before and game.view(None)["turn"] == "B"


def test_G_SB_01_landing_on_the_start_space_does_nothing():
    game = start()
    game.set_position(piece=29)
    game.apply({"type": "roll_die", "player": None, "face": 2})
    assert game.view(None)["piece"]["space"] == 0
    assert game.view(None)["turn"] == "B" and game.view(None)["phase"] == "roll"


def test_G_SB_01_the_piece_goes_round_the_loop_past_the_start_space():
    game = start()
    game.set_position(piece=29)              # good_29; then good_30, start, coffee, watches
    game.apply({"type": "roll_die", "player": None, "face": 4})
    assert game.view(None)["piece"]["space"] == 2
    assert game.view(None)["piece"]["good"] == game.components.track[2] == "watches"


# -- suspecting oneself (R-SB-04 to R-SB-06) ----------------------------------------------------

def test_T_SB_02a_self_objected_found_each_objector_pays_one():
    game = start(draft={"A": "gold coffee"})
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "BC")
    look(game, "A+")
    assert paid(before, game) == {"B": 1, "C": 1}
    assert game.kitty == 2
    assert holders(game, "gold") == ["A"]


def test_T_SB_02b_self_objected_not_found_roller_pays_per_objector():
    game = start(draft={"D": "gold coffee"})
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "BC")
    look(game, "A-")
    assert paid(before, game) == {"A": 2}
    assert game.kitty == 2
    assert holders(game, "gold") == ["D"]


def test_each_payment_cites_the_rule_that_sets_it():
    """After a self-suspicion the objectors pay by R-SB-05 and the roller by R-SB-06 (R-SB-12 is
    the guessing round's); a chip for looking at all the cards first is R-SB-13's."""
    def pays(notes):
        return {n.text.split()[0]: n.rule for n in notes if " into the kitty" in n.text}
    game = start(draft={"A": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "BC")
    assert pays(look(game, "A*")) == {"A": "R-SB-13", "B": "R-SB-05", "C": "R-SB-05"}
    game = start(draft={"D": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "BC")
    assert pays(look(game, "A-")) == {"A": "R-SB-06"}
    game = start(draft={"C": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>B B>B")
    assert pays(look(game, "B-")) == {"A": "R-SB-12", "B": "R-SB-12"}


@pytest.mark.parametrize("holder", ["A", "D"])
def test_T_SB_03_self_without_objection_changes_nothing(holder):
    game = start(draft={holder: "gold coffee"})
    before = chips(game)
    holdings = [game.record(p) for p in game.players]
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "")
    assert chips(game) == before and game.kitty == 0
    assert [game.record(p) for p in game.players] == holdings
    assert game.view(None)["turn"] == "B"


# -- guessing rounds (R-SB-09 to R-SB-12) --------------------------------------------------------

def test_T_SB_04_watches_b_has_them_and_gives_them_to_a():
    game = start(draft={"B": "watches coffee"})
    before = chips(game)
    land_on(game, "watches")
    say(game, "A>B B>B")
    assert game.view(None)["round"]["look_order"] == ["B"]
    look(game, "B+")
    assert holders(game, "watches") == ["A"]
    assert paid(before, game) == {}
    assert [game.card_count(p) for p in "AB"] == [3, 1]


def test_T_SB_04_watches_b_does_not_have_them_both_pay_one():
    game = start(draft={"C": "watches coffee"})
    before = chips(game)
    land_on(game, "watches")
    say(game, "A>B B>B")
    look(game, "B-")
    assert paid(before, game) == {"A": 1, "B": 1}
    assert holders(game, "watches") == ["C"]


def test_T_SB_05i_furs_a_b_a_found_at_a_goes_to_b():
    game = start(draft={"A": "furs coffee"})
    before = chips(game)
    land_on(game, "furs")
    say(game, "A>B B>A")
    assert game.view(None)["round"]["look_order"] == ["A", "B"]
    look(game, "A+")
    assert holders(game, "furs") == ["B"]
    assert paid(before, game) == {"A": 1}


def test_T_SB_05ii_furs_found_at_b_goes_to_a():
    game = start(draft={"B": "furs coffee"})
    before = chips(game)
    land_on(game, "furs")
    say(game, "A>B B>A")
    look(game, "A- B+")
    assert holders(game, "furs") == ["A"]
    assert paid(before, game) == {"B": 1}


def test_T_SB_05iii_furs_with_neither_both_pay_and_c_d_never_look():
    game = start(draft={"C": "furs coffee"})
    before = chips(game)
    land_on(game, "furs")
    say(game, "A>B B>A")
    assert game.view(None)["round"]["look_order"] == ["A", "B"]
    look(game, "A- B-")
    assert paid(before, game) == {"A": 1, "B": 1}
    assert game.search is None
    assert holders(game, "furs") == ["C"]
    assert game.view(None)["turn"] == "B"


def test_T_SB_06_furs_a_b_c_self_c_gives_them_to_b_a_pays_two():
    game = start(draft={"C": "furs coffee"})
    before = chips(game)
    land_on(game, "furs")
    say(game, "A>B B>C C>C")
    assert game.view(None)["round"]["look_order"] == ["C", "B"]
    look(game, "C+")
    assert holders(game, "furs") == ["B"]
    assert paid(before, game) == {"A": 2}
    assert game.kitty == 2


def test_T_SB_07_furs_four_chain_a_b_d_pay_three_c_receives():
    game = start(draft={"D": "furs coffee"})
    before = chips(game)
    land_on(game, "furs")
    say(game, "A>B B>C C>D D>A")
    assert game.view(None)["round"]["look_order"] == ["A", "D", "C", "B"]
    look(game, "A- D+")
    assert paid(before, game) == {"A": 3, "B": 3, "D": 3}
    assert game.kitty == 9
    assert holders(game, "furs") == ["C"]
    assert [game.card_count(p) for p in "ABCD"] == [2, 2, 3, 1]


def test_T_SB_08_two_correct_suspects_the_first_receives_the_second_pays_nothing():
    game = start(draft={"B": "gold coffee"})
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>B B>D D>B")
    assert game.view(None)["round"]["look_order"] == ["B", "D"]
    look(game, "B+")
    assert holders(game, "gold") == ["A"]
    assert paid(before, game) == {"B": 2}


def test_T_SB_08_variant_with_c_in_the_chain():
    game = start(draft={"B": "gold coffee"})
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>B B>C C>D D>B")
    assert game.view(None)["round"]["look_order"] == ["B", "D", "C"]
    look(game, "B+")
    assert holders(game, "gold") == ["A"]
    assert paid(before, game) == {"B": 3, "C": 3}


@pytest.mark.parametrize("holder", ["D", "A"])
def test_T_SB_09_no_named_player_holds_it_everyone_pays(holder):
    game = start(draft={holder: "gold coffee"})
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>B B>C C>C")
    look(game, "C- B-")
    assert paid(before, game) == {"A": 2, "B": 2, "C": 2}
    assert holders(game, "gold") == [holder]


def test_T_SB_10_the_roller_holds_it_and_is_named():
    game = start(draft={"A": "gold coffee"})
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>B B>C C>A")
    assert game.view(None)["round"]["look_order"] == ["A", "C", "B"]
    look(game, "A+")
    assert holders(game, "gold") == ["C"]
    assert paid(before, game) == {"A": 2, "B": 2}


def test_T_SB_11_looking_at_every_card_first_costs_one_more_chip():
    game = start(draft={"B": "watches coffee"})
    before = chips(game)
    land_on(game, "watches")
    say(game, "A>B B>B")
    look(game, "B*")
    assert paid(before, game) == {"B": 1}   # right, so only the show-at-once chip
    assert holders(game, "watches") == ["A"]


def test_T_SB_11_on_top_of_a_wrong_suspicion():
    game = start(draft={"B": "gold coffee"})
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>B B>D D>B")
    look(game, "B*")
    assert paid(before, game) == {"B": 3}   # 2 for suspecting D, 1 for looking at all


def test_T_SB_11_after_suspecting_oneself():
    game = start(draft={"A": "gold coffee"})
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "D")
    look(game, "A*")
    assert paid(before, game) == {"A": 1, "D": 1}


# -- end and scoring (R-SB-14, R-SB-15, G-SB-06, G-SB-07) ----------------------------------------

def test_T_SB_12_short_of_chips_pays_all_and_the_game_ends_after_settlement():
    game = start(draft={"D": "gold coffee"})
    game.set_position(chips={"B": 2})     # the kitty holds the rest: 13
    assert game.kitty == 13
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>B B>C C>D D>C")         # L = [C, D, B]; only C (who named D) is right
    notes = look(game, "C- D+")
    assert paid(before, game) == {"A": 3, "B": 2, "D": 3}
    assert game.kitty == 13 + 8
    assert game.is_over and game.end.no_chips == ("B",)
    assert holders(game, "gold") == ["C"]  # the hand-over still happens
    assert any("pays all they have" in n.text and n.rule == "G-SB-06" for n in notes)


def test_G_SB_07_at_once_stops_collecting_when_a_player_is_broke():
    game = start(draft={"D": "gold coffee"}, end_check="at_once")
    game.set_position(chips={"A": 1})
    assert game.kitty == 14
    before = chips(game)
    land_on(game, "gold")
    say(game, "A>B B>C C>C")
    look(game, "C- B-")
    assert paid(before, game) == {"A": 1}  # collected clockwise from A; A is broke at once
    assert game.is_over


def a_card_on_the_board(game: Schmuggler) -> str:
    return game.board[0]


def test_T_SB_13_taking_the_twelfth_card_ends_the_game():
    game = start(youngest="C")
    give(game, "C", 9)                     # C holds 11 cards
    land_on(game, a_card_on_the_board(game))
    game.apply({"type": "take_card", "player": "C"})
    assert game.card_count("C") == 12
    assert game.is_over and game.view(None)["end"] == {"no_chips": [], "enough_cards": ["C"]}


def test_T_SB_13_receiving_the_twelfth_card_in_a_guessing_round_ends_the_game():
    game = start(draft={"B": "gold coffee"}, youngest="C")
    give(game, "C", 9)
    land_on(game, "gold")
    say(game, "C>B B>B")
    assert not game.is_over
    look(game, "B+")
    assert game.card_count("C") == 12 and game.is_over
    assert game.view(None)["phase"] == "over" and game.view(None)["over"]


def test_T_SB_14_two_points_per_card_one_per_chip_ties_share_the_win():
    game = start()
    # The last round of a game: A holds 11 cards, B 5, C 6, D 8 (D has the gold); the board is
    # empty; A 3 chips, B 17, C 8, D 1, the kitty 31.
    rest = [g for g in GOODS if g != "gold"]
    game.set_position(holdings={"A": rest[:11], "B": rest[11:16], "C": rest[16:22],
                                "D": ["gold"] + rest[22:]},
                      chips={"A": 3, "B": 17, "C": 8, "D": 1})
    assert game.board == () and game.kitty == 31
    land_on(game, "gold")
    say(game, "A>D D>A")
    look(game, "A- D+")                    # A was right: A receives the gold; D pays 1
    assert game.is_over
    result = game.result()
    scores = {r["player"]: r["score"] for r in result["ranking"]}
    assert [game.card_count(p) for p in "ABCD"] == [12, 5, 6, 7]
    assert chips(game) == {"A": 3, "B": 17, "C": 8, "D": 0}
    assert scores == {"A": 27, "B": 27, "C": 20, "D": 14}
    assert result["winners"] == ["A", "B"]
    assert [r["rank"] for r in result["ranking"]] == [1, 1, 3, 4]
    assert result["breakdown"]["A"] == {"cards": 24, "chips": 3}
    assert game.view(None)["end"] == {"no_chips": ["D"], "enough_cards": ["A"]}
    assert game.view(None)["result"] == result


# -- the pure functions ------------------------------------------------------------------------

def chain_of(text: str) -> list[Suspicion]:
    return [Suspicion(*link.split(">")) for link in text.split()]


@pytest.mark.parametrize("chain, order", [
    ("A>B B>B", "B"), ("A>B B>A", "A B"), ("A>B B>C C>C", "C B"), ("A>B B>C C>D D>A", "A D C B"),
    ("A>B B>D D>B", "B D"), ("A>B B>C C>D D>B", "B D C"), ("A>B B>C C>A", "A C B")])
def test_R_SB_10_look_order_is_the_accused_in_reverse_order(chain, order):
    assert look_order(chain_of(chain)) == order.split()


def test_R_SB_12_settlement_of_the_four_chain():
    s = settle_guessing_round(chain_of("A>B B>C C>D D>A"), "D")
    assert s.owed == {"A": 3, "B": 3, "D": 3} and s.recipient == "C"
    assert settle_guessing_round(chain_of("A>B B>C C>D D>A"), None).owed == dict.fromkeys("ABCD", 3)


# -- illegal actions -----------------------------------------------------------------------------

def test_naming_oneself_twice_is_refused():
    game = start(draft={"A": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>A")
    refused(game, {"type": "suspect", "player": "A", "suspects": "A"},
            "cannot say whom they suspect now")


def test_naming_oneself_twice_in_a_guessing_round_is_refused():
    game = start(draft={"C": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>B B>C C>C")
    refused(game, {"type": "suspect", "player": "C", "suspects": "C"}, "C")


def test_an_objection_during_a_guessing_round_is_refused():
    game = start(draft={"C": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>B")
    refused(game, {"type": "object", "player": "D"}, "R-SB-07")
    say(game, "B>B")
    refused(game, {"type": "object", "player": "C"}, "R-SB-07")


def test_objections_are_made_once_by_fellow_players_only():
    game = start(draft={"A": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>A")
    refused(game, {"type": "object", "player": "A"}, "own claim")
    game.apply({"type": "object", "player": "B"})
    refused(game, {"type": "object", "player": "B"}, "already objected", "G-SB-05")
    game.apply({"type": "close_objections", "player": None})
    refused(game, {"type": "object", "player": "C"}, "cannot object now")


def test_a_player_not_yet_named_may_not_say_whom_they_suspect():
    game = start(draft={"C": "gold coffee"})
    land_on(game, "gold")
    refused(game, {"type": "suspect", "player": "C", "suspects": "B"}, "not been named",
            "R-SB-08")
    say(game, "A>B")
    refused(game, {"type": "suspect", "player": "D", "suspects": "C"}, "not been named",
            "R-SB-08")
    refused(game, {"type": "suspect", "player": "A", "suspects": "C"}, "already", "R-SB-09")


def test_acting_out_of_turn_is_refused():
    game = start(draft={"D": "gold coffee"})
    refused(game, {"type": "roll_die", "player": "A", "face": 3}, "an input of the table")
    refused(game, {"type": "take_card", "player": "A"}, "now")
    land_on(game, a_card_on_the_board(game))
    refused(game, {"type": "take_card", "player": "B"}, "only A", "R-SB-02")
    refused(game, {"type": "roll_die", "player": None, "face": 2}, "roll the die")
    game.apply({"type": "take_card", "player": "A"})
    land_on(game, "gold")                  # B's turn
    refused(game, {"type": "suspect", "player": "A", "suspects": "B"}, "B must say")
    say(game, "B>C C>D D>A A>B")
    assert game.view(None)["round"]["look_order"] == ["B", "A", "D", "C"]
    refused(game, {"type": "look", "player": "D", "found": True}, "B looks first", "R-SB-10")
    look(game, "B-")
    refused(game, {"type": "look", "player": "B", "found": False}, "A looks first")


def test_bad_draft_and_die_inputs_are_refused():
    game = catalog.new_game("schmuggler", list("ABCD"))
    refused(game, {"type": "draft_card", "player": None, "good": "rum"}, "not a good")
    game.apply({"type": "draft_card", "player": None, "good": "gold"})
    refused(game, {"type": "draft_card", "player": None, "good": "gold"}, "already drawn")
    refused(game, {"type": "draft_card", "player": "B", "good": "furs"}, "an input of the table")
    refused(game, {"type": "lay_out_board", "player": None}, "lay out the board")
    game = start()
    refused(game, {"type": "roll_die", "player": None, "face": 7}, "no face 7", "G-SB-04")
    refused(game, {"type": "roll_die", "player": None, "face": "3"}, "must be int")


def test_a_looker_without_cards_cannot_find_and_the_late_penalty_needs_a_find():
    game = start(draft={"B": "gold coffee"})
    game.set_position(holdings={"C": []})   # C's cards back on their spaces
    land_on(game, "gold")
    say(game, "A>C C>C")
    refused(game, {"type": "look", "player": "C", "found": True}, "no cards")
    assert game.legal_actions("C") == [{"type": "look", "player": "C", "found": False}]
    refused(game, {"type": "look", "player": "C", "found": False, "looked_at_all": True},
            "R-SB-13")


def test_T_SB_11_a_finder_with_one_card_cannot_have_looked_at_all_first():
    """Rulebook: "He may not first look at all of his cards" — with one card there is nothing to
    look through first, so the penalty is neither offered nor accepted (R-SB-13)."""
    game = start(draft={"B": "gold coffee"})
    game.set_position(holdings={"C": game.record("C")[:1]})
    land_on(game, "gold")
    say(game, "A>C C>C")
    assert game.legal_actions("C") == [{"type": "look", "player": "C", "found": True},
                                       {"type": "look", "player": "C", "found": False}]
    message = refused(game, {"type": "look", "player": "C", "found": True,
                             "looked_at_all": True}, "C holds one card", "R-SB-13")
    assert message == ("C holds one card, so cannot have looked at all of their cards before "
                       "showing it (R-SB-13)")
    look(game, "C+")   # without the penalty it is accepted: both were right, A gets the card
    assert game.view(None)["last_settlement"] == {"owed": {}, "paid": {}, "from": "C",
                                                  "to": "A"}


def test_the_game_over_refuses_everything():
    game = start(draft={"D": "gold coffee"})
    game.set_position(chips={"A": 1})
    assert game.kitty == 14
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "B")
    look(game, "A-")
    assert game.is_over
    refused(game, {"type": "roll_die", "player": None, "face": 1}, "over")
    assert all(game.legal_actions(p) == [] for p in [None, *game.players])
    assert game.prompts() == []


# -- the memory game: the sealed audit, the reveal at the end, assist mode (G-SB-12, SPEC §3.7) ---

def no_view_mentions_the_audit(game: Schmuggler) -> bool:
    return all("audit" not in game.view(v) and "record" not in json.dumps(game.view(v))
               for v in [None, *game.players])


def test_G_SB_12_a_not_found_against_the_record_is_sealed_until_the_end():
    game = start(draft={"A": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "B")
    notes = look(game, "A-")                # A holds the gold but says "not found"
    assert paid({"A": 15, "B": 15, "C": 15, "D": 15}, game) == {"A": 1}
    assert holders(game, "gold") == ["A"]   # the card stays; the flow followed the table
    assert len(game.audit) == 1
    assert no_view_mentions_the_audit(game)
    assert not any("record" in n.text for n in notes)
    game.set_position(chips={"B": 1})
    assert game.kitty == 15
    land_on(game, "gold")                   # B's turn: B claims it, C objects, B has not got it
    say(game, "B>B")
    object_(game, "C")
    look(game, "B-")
    assert game.is_over
    view = game.view(None)
    assert view["audit"] == [{"turn": 1, "player": "A", "good": "gold", "answer": "not found",
                              "record": "A", "finding": "said not found, but the record has the "
                                                       "card with them"}]
    assert view["holdings"]["A"] == ["gold", "coffee"]


def test_G_SB_12_the_audit_stays_sealed_with_audit_reveal_at_end_off():
    game = start(draft={"A": "gold coffee"}, audit_reveal_at_end=False)
    game.set_position(chips={"A": 1})
    assert game.kitty == 14
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "B")
    look(game, "A-")
    assert game.is_over and game.audit
    assert "audit" not in game.view(None) and "holdings" in game.view(None)


def test_G_SB_12_a_found_where_the_record_had_it_elsewhere_follows_the_table():
    game = start(draft={"D": "gold coffee", "B": "furs good_20"})
    land_on(game, "gold")
    say(game, "A>B B>B")
    look(game, "B+")                        # the table saw B show the gold
    assert holders(game, "gold") == ["A"]
    assert [game.card_count(p) for p in "ABCD"] == [3, 1, 2, 2]
    assert sorted(game.record("D")) == ["coffee", "good_20"]
    assert game.audit[0].exchanged == "good_20"
    assert no_view_mentions_the_audit(game)


def test_the_flow_asks_every_looker_even_when_the_record_says_who_has_it():
    game = start(draft={"B": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>B B>C C>D D>D")
    for looker in "DCB":                    # the record knows it is B; the table is asked anyway
        assert game.prompts()[0].player == looker
        assert {a["found"] for a in game.legal_actions(looker)} == {True, False}
        if looker != "B":
            look(game, looker + "-")
    look(game, "B+")
    assert holders(game, "gold") == ["A"]   # A named B; the looking just took longer


def test_no_private_view_of_ones_own_goods_unless_assist_mode():
    game = start(draft={"A": "gold coffee"})
    assert game.view("A")["private"] == {}
    assisted = start(draft={"A": "gold coffee"}, assist_mode=True)
    assert assisted.view("A")["private"] == {"goods": ["gold", "coffee"]}
    assert "gold" not in json.dumps(assisted.view("B")["private"])
    assert assisted.view(None) == game.view(None)


def test_notes_never_name_a_good_or_a_die_face():
    game = start(draft={"B": "gold coffee"})
    game.set_position(piece=2)
    notes = game.apply({"type": "roll_die", "player": None, "face": 1})
    say(game, "A>B B>B")
    notes += look(game, "B+")
    text = " ".join(n.text for n in notes).lower()
    assert "gold" not in text and "1" not in text and "space 3" not in text
    assert game.view(None)["last_roll"] == 1   # the die on the table: shown while it lies there


# -- positions (set_position, the engine's set_fen) and the surface ---------------------------

def test_a_position_is_checked_and_refused_whole():
    game = start(draft={"A": "gold coffee"})
    before = json.dumps(game.to_json(), sort_keys=True)
    for bad, words in [
            (dict(chips={"Zed": 3}), "not a player"),
            (dict(holdings={"B": ["gold"]}), "one place"),
            (dict(holdings={"B": ["rum"]}), "one place"),
            (dict(chips={"A": 0}), "at least 1 chip"),
            (dict(chips={"A": 16, "B": 16, "C": 16, "D": 13}), "at most 60"),
            (dict(holdings={"B": GOODS[-12:]}), "12 cards or more"),
            (dict(piece=31), "from 0 (the start space) to 30")]:
        with pytest.raises(SetupError, match=re.escape(words)):
            game.set_position(**bad)
        assert json.dumps(game.to_json(), sort_keys=True) == before
    game.set_position(piece=5, chips={"B": 3}, holdings={"C": ["furs"], "D": []})
    assert game.piece == Piece(5, "good_05", True) and game.seat("B") == Seat("B", 3, 2, False)
    assert game.kitty == 12 and game.seat("A") == Seat("A", 15, 2, True)
    assert game.record("C") == ("furs",) and "furs" not in game.board
    assert len(game.board) == 30 - 5 and game.draft_pool == ()
    assert game.turn == "A" and game.turn_number == 1 and game.phase is Phase.ROLL


def test_out_of_a_turn_start_the_goods_may_only_be_dealt_otherwise():
    game = start(draft={"A": "gold coffee", "B": "furs watches"})
    land_on(game, "gold")
    say(game, "A>B")
    for bad in (dict(piece=3), dict(chips={"A": 3}), dict(holdings={"A": ["gold"]}),
                dict(holdings={"A": ["gold", "good_30"]})):
        with pytest.raises(SetupError, match="dealt otherwise"):
            game.set_position(**bad)
    public = json.dumps([game.view(v) for v in [None, *game.players]])
    game.set_position(holdings={"A": ["furs", "watches"], "B": ["gold", "coffee"]})
    assert game.record("A") == ("furs", "watches") and game.record("B") == ("gold", "coffee")
    assert json.dumps([game.view(v) for v in [None, *game.players]]) == public


def test_the_surface_follows_a_search():
    game = start(draft={"D": "gold coffee"})
    assert game.search is None and game.speaker is None and game.looker is None
    land_on(game, "gold")
    assert game.piece == Piece(3, "gold", False) and game.last_roll == 1
    assert game.speaker == "A" and game.search == Search(None, (), (), (), (), None)
    say(game, "A>B B>C")
    assert game.speaker == "C" and game.chain == (Suspicion("A", "B"), Suspicion("B", "C"))
    say(game, "C>C")
    assert game.looker == "C" and game.search.look_order == ("C", "B")
    look(game, "C-")
    assert game.looker == "B" and game.search.looked == (Look("C", False, False),)
    look(game, "B-")
    assert game.search is None and game.turn == "B" and game.end is None


def test_the_audit_surface_is_the_sealed_record():
    game = start(draft={"A": "gold coffee"})
    land_on(game, "gold")
    say(game, "A>A")
    object_(game, "B")
    look(game, "A-")
    assert game.audit == (AuditEntry(1, "A", "gold", "not found", "A", game.audit[0].finding,
                                     None),)
    assert game.audit[0].finding == "said not found, but the record has the card with them"
    assert game.audit[0].finding.id == "schmuggler.word.audit_kept_quiet"


# -- the documented example game --------------------------------------------------------------

def test_the_example_game_replays_to_the_end_through_the_command(capsys):
    log = Path(__file__).parents[2] / "docs" / "games" / "schmuggler.example.jsonl"
    command = shlex.split(log.read_text(encoding="utf-8").splitlines()[0].lstrip("# "))
    assert command[:2] == ["tableassist", "replay"]
    args = [str(log) if a.endswith("schmuggler.example.jsonl") else a for a in command[1:]]
    assert main(args) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["over"] and view["result"]["winners"] == ["Ann"]
    assert view["end"] == {"no_chips": [], "enough_cards": ["Ann"]}
    assert sum(p["chips"] for p in view["players"]) + view["kitty"] == 60


def test_the_session_history_of_the_example_game_names_no_good(tmp_path):
    """The browsable history (SPEC X6) follows the same rule as the shared screen: until the
    end, no line of it names a good, so it cannot become a list of who took what."""
    log = Path(__file__).parents[2] / "docs" / "games" / "schmuggler.example.jsonl"
    actions = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()
               if line and not line.startswith("#")]
    session = TableSession.create(open_store(tmp_path / "t.sqlite"), "schmuggler",
                                  ["Ann", "Bea", "Cy", "Dee"])
    for action in actions[:-1]:
        session.submit(action)
    history = json.dumps(session.history()).lower()
    assert not [g for g in GOODS if g in history]
    assert "holdings" not in json.dumps(session.game.view(None))
    session.submit(actions[-1])
    assert session.game.is_over and "holdings" in session.game.view(None)


def test_a_draw_is_corrected_only_while_its_card_is_shown(tmp_path):
    """SPEC §3.7 through the Fix dialog (``Table.alternatives`` and ``TableSession.correct``).
    The pools at two consecutive draws name the card drawn between them; correcting an earlier
    draw puts the card it held back on its space; a refused replay says when a card was drawn.
    So once the next action is in, a draw is sealed until the end: no alternatives, and one
    refusal that names no card. The last draw, its card still shown, is corrected as usual."""
    from tableassist.server import Table, Tokens
    store = open_store(tmp_path / "t.sqlite3")
    table = Table(store, Tokens(None))
    session = table.start("schmuggler", list("ABCD"), options=None)
    session.submit(session.game.legal_actions(None)[0])
    session.submit(session.game.legal_actions(None)[0])
    last = session.steps[-1]
    pool = [a["action"]["good"] for a in table.alternatives(last.seq)]
    assert last.action["good"] in pool and session.steps[0].action["good"] not in pool
    with pytest.raises(IllegalAction, match="already drawn"):      # public: it was shown
        session.correct(last.seq, session.steps[0].action)
    session.correct(last.seq, {"type": "draft_card", "player": None, "good": pool[-1]})
    while session.game.phase is Phase.DRAFT:
        session.submit(session.game.legal_actions(None)[0])
    session.submit({"type": "lay_out_board", "player": None})
    draws = [s for s in session.steps if s.action["type"] == "draft_card"]
    laid = list(session.game.board)
    before = json.dumps(session.game.to_json(), sort_keys=True)
    messages = set()
    for step in draws:
        assert table.alternatives(step.seq) == []
        for action in (None, step.action, {"type": "draft_card", "player": None,
                                           "good": laid[0]}):
            with pytest.raises(IllegalAction) as err:
                session.correct(step.seq, action)
            messages.add(str(err.value))
    assert messages == {"that card lies face down in front of its drafter now: who drew which "
                        "stays sealed until the end, so a draw can be corrected only while its "
                        "card is shown, before the next action (R-SB-01, SPEC §3.7)"}
    assert json.dumps(session.game.to_json(), sort_keys=True) == before
    assert [e.kind for e in store.entries(session.saved.id)].count("correction") == 1
    store.close()
