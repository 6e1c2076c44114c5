"""Shipwrecked: every SPEC §1.5 case (T-SW-01 … T-SW-24), the gap options, and bad input.

Notation (SPEC §1.5): players A–D sit clockwise; a bid is written as rows, one string per round,
``"A:P B:S C:S D:K"`` (P = PASS, S = STOP, K = STRIKE). The helpers (``tests/games/positions.py``) lay
every row face down (the engine learns only that a card is there), let the stop windows close, stop
after the last row, turn it face up and, when asked, turn over the tied players' earlier rows; exact
gems and held cards are set by the engine's ``set_position``.
"""

from __future__ import annotations

import json

import pytest

from tableassist.table import catalog
from tableassist.games.protocol import IllegalAction, Timer
from tableassist.games.shipwrecked import (BANKRUPT, FACE_DOWN, PASS, Phase, Shipwrecked,
                                           earlier_rows_possible)
from tests.games.positions import bid, close_window, hold, lay_row, parse_row as parse
from tests.games.positions import set_gems as gems, shipwrecked as new, total_gems


# -- helpers ---------------------------------------------------------------------------------

def player(game: Shipwrecked, name: str) -> dict:
    return next(p for p in game.view()["players"] if p["name"] == name)


def frozen(game: Shipwrecked) -> str:
    return json.dumps(game.to_json(), sort_keys=True)


def refused(game: Shipwrecked, action, match: str) -> None:
    before = frozen(game)
    with pytest.raises(IllegalAction, match=match):
        game.apply(action)
    assert frozen(game) == before


# -- setup and cost --------------------------------------------------------------------------

@pytest.mark.parametrize("n, each, bank", [(2, 11, 43), (3, 13, 26), (4, 15, 5)])
def test_T_SW_01_setup_gems_and_stack(n, each, bank):
    game = new("ABCD"[:n])
    view = game.view()
    assert [p["gems"] for p in view["players"]] == [each] * n
    assert view["bank_gems"] == bank
    assert view["stack_count"] == 24
    assert view["bank_display"] == [] and view["set_aside_hidden"] == []
    assert view["turn"] == "A" and view["phase"] == Phase.CHOOSE_LOT


def test_T_SW_02_cost_falls_by_round():
    game = new()
    assert [game.cost(r) for r in range(1, 7)] == [5, 4, 3, 2, 1, 0]


# -- the rulebook's five bid examples --------------------------------------------------------

def test_T_SW_03_single_strike_wins_round_3():
    game = new()
    bank = game.bank_gems
    bid(game, ["A:P B:P C:S D:P", "A:P B:S C:P D:S", "A:S B:K C:P D:P"], stop_by="A")
    # B pays 3; then the turn passes to B, whose turn starts with FOOD-30's income of 1.
    assert player(game, "B")["gems"] == 15 - 3 + 1
    assert game.bank_gems == bank + 3 - 1
    assert player(game, "B")["resources"] == ["FOOD-30"]
    assert game.view()["turn"] == "B"
    assert game.view()["last_bid"]["winner"] == "B"


def test_T_SW_04_single_stop_wins_round_1():
    game = new()
    bid(game, ["A:P B:P C:S D:P"], stop_by="C")
    assert player(game, "C")["gems"] == 15 - 5
    assert player(game, "C")["resources"] == ["FOOD-30"]


def test_T_SW_05_strikes_cancel_single_stop_wins():
    game = new()
    bid(game, ["A:P B:S C:P D:S", "A:S B:K C:K D:P"], stop_by="A")
    assert player(game, "A")["gems"] == 15 - 4
    assert [player(game, p)["gems"] for p in "BCD"] == [15, 15, 15]


def test_T_SW_06_pass_count_breaks_the_stop_tie():
    game = new()
    notes = bid(game, ["A:S B:P C:P D:P", "A:P B:K C:S D:P", "A:K B:S C:P D:K",
                       "A:P B:S C:K D:P", "A:P B:P C:S D:S"], stop_by="C")
    assert player(game, "D")["gems"] == 15 - 1
    assert player(game, "D")["resources"] == ["FOOD-30"]
    assert [player(game, p)["gems"] for p in "ABC"] == [15, 15, 15]
    assert any("D turns over rows 1–4" in n.text and "3 PASS" in n.text for n in notes)
    # Only the tied STOP players' earlier rows were ever turned over (G-SW-15).
    rows = game.view()["last_bid"]["rows"]
    assert all(rows[i]["A"] == FACE_DOWN and rows[i]["B"] == FACE_DOWN for i in range(4))


def test_T_SW_07_bidlock_both_pay_and_rebid():
    game = new()
    bank = game.bank_gems
    bid(game, ["A:S B:P C:P D:K", "A:P B:S C:S D:P"], stop_by="B")
    assert player(game, "B")["gems"] == 15 - 4
    assert player(game, "C")["gems"] == 15 - 4
    assert player(game, "A")["gems"] == 15 and player(game, "D")["gems"] == 15
    assert game.bank_gems == bank + 8
    view = game.view()
    assert view["bid"]["participants"] == ["B", "C"]
    assert view["bid"]["round"] == 1 and view["bid"]["cost"] == 5
    assert view["bid"]["reason"] == "bidlock" and view["lot"]["card"] == "FOOD-30"
    assert view["turn"] == "A" and view["phase"] == Phase.LAY
    assert game.legal_actions("A") == [] and game.legal_actions("D") == []


# -- derived tests ---------------------------------------------------------------------------

def test_T_SW_08_round_6_without_stop_is_a_free_rebid():
    game = new("AB")
    before = [player(game, p)["gems"] for p in "AB"], game.bank_gems
    bid(game, ["A:S B:P", "A:P B:S", "A:S B:S", "A:P B:K", "A:K B:P", "A:P B:P"])
    assert ([player(game, p)["gems"] for p in "AB"], game.bank_gems) == before
    view = game.view()
    assert view["bid"]["reason"] == "free_rebid" and view["bid"]["round"] == 1
    assert view["bid"]["participants"] == ["A", "B"] and view["turn"] == "A"


def test_T_SW_09_round_6_single_strike_wins_for_0():
    game = new("AB")
    bid(game, ["A:P B:S", "A:S B:P", "A:S B:S", "A:P B:P", "A:P B:K", "A:K B:P"])
    assert player(game, "A")["gems"] == 11
    assert player(game, "A")["resources"] == ["FOOD-30"]


def test_T_SW_10_round_6_with_two_stops_always_bidlocks():
    game = new("AB")
    bid(game, ["A:P B:P", "A:P B:K", "A:P B:P", "A:K B:P", "A:S B:S", "A:S B:S"])
    assert game.view()["last_bid"]["outcome"] == "bidlock"
    assert game.view()["bid"]["participants"] == ["A", "B"]
    assert [player(game, p)["gems"] for p in "AB"] == [11, 11]
    # Every legal rows 1–5 behind a row-6 STOP holds all three PASS cards (I-SW-3, I-SW-4),
    # which is why the engine does not ask for them.
    behind_stop = earlier_rows_possible((("PASS", 3), ("STOP", 1), ("STRIKE", 1)), 5)
    assert len(behind_stop) == 20
    assert all(rows.count(PASS) == 3 for rows in behind_stop)


def test_T_SW_11_round_1_with_two_stops_bidlocks_at_5():
    game = new("ABC")
    bid(game, ["A:S B:S C:P"], stop_by="A")
    assert [player(game, p)["gems"] for p in "ABC"] == [13 - 5, 13 - 5, 13]
    assert game.view()["bid"]["participants"] == ["A", "B"]


def test_T_SW_12_strike_beats_stop():
    game = new("ABC")
    bid(game, ["A:P B:S C:S", "A:P B:P C:P", "A:S B:K C:P"], stop_by="A")
    assert player(game, "B")["gems"] == 13 - 3 + 1          # + income: B's turn now
    assert player(game, "B")["resources"] == ["FOOD-30"]


def test_T_SW_13_three_way_stop_tie_only_the_top_bidlocks():
    game = new()
    bid(game, ["A:P B:P C:P D:P", "A:P B:K C:S D:P", "A:K B:P C:K D:S",
               "A:S B:S C:S D:P"], stop_by="B")
    assert [player(game, p)["gems"] for p in "ABCD"] == [15 - 2, 15 - 2, 15, 15]
    assert game.view()["bid"]["participants"] == ["A", "B"]
    assert game.view()["last_bid"]["bidlocked"] == ["A", "B"]


def test_T_SW_14_payment_with_a_forced_sale():
    game = new()
    gems(game, A=3)
    hold(game, "A", "WATER-20")
    bid(game, ["A:S B:P C:P D:P"], stop_by="A", lot="FOOD-30")
    assert game.phase is Phase.PAY
    assert game.view()["debt"] == {"player": "A", "due": 5, "reason": "lot"}
    assert game.legal_actions("A") == [{"type": "sell_card", "player": "A", "card": "WATER-20"}]
    game.apply({"type": "sell_card", "player": "A", "card": "WATER-20"})
    assert player(game, "A")["gems"] == 0
    assert player(game, "A")["resources"] == ["FOOD-30"]
    assert game.view()["bank_display"] == ["WATER-20"]
    assert total_gems(game) == 65


@pytest.mark.parametrize("first, sold, left_gems, kept", [
    ("FOOD-10", ["FOOD-10", "FOOD-50"], 4, []),
    ("FOOD-50", ["FOOD-50"], 3, ["FOOD-10"]),
])
def test_T_SW_15_forced_sale_is_the_sellers_choice_with_change(first, sold, left_gems, kept):
    game = new("ABC")
    gems(game, A=1)
    hold(game, "A", "FOOD-50", "FOOD-10")
    bid(game, ["A:P B:P C:P", "A:P B:S C:P", "A:K B:P C:S"], stop_by="C")
    assert game.view()["debt"]["due"] == 3
    game.apply({"type": "sell_card", "player": "A", "card": first})
    if len(sold) == 2:
        assert game.phase is Phase.PAY           # 2 gems: still short, must sell again
        game.apply({"type": "sell_card", "player": "A", "card": "FOOD-50"})
    assert player(game, "A")["gems"] == left_gems
    assert player(game, "A")["resources"] == kept + ["FOOD-30"]
    assert sorted(game.view()["bank_display"]) == sorted(sold)
    assert total_gems(game) == 65


def test_T_SW_16_bankruptcy():
    game = new()
    gems(game, C=1)
    bank = game.bank_gems
    bid(game, ["A:P B:P C:P D:P", "A:P B:P C:S D:P"], stop_by="C")
    view = game.view()
    assert player(game, "C")["status"] == BANKRUPT
    assert view["bank_display"] == ["FOOD-30"]
    assert view["bank_gems"] == bank + 1
    assert view["turn"] == "B" and not view["over"]
    # C is out of the turn order and of every later bid.
    bid(game, ["A:P B:S D:P"], stop_by="B", lot="WATER-10")
    assert game.view()["turn"] == "D"
    game.apply({"type": "turn_over_card", "player": None, "card": "WATER-20"})
    assert game.view()["bid"]["participants"] == ["A", "B", "D"]


def test_T_SW_17_selling_is_not_enough_so_bankrupt_and_both_cards_are_lots():
    game = new()
    gems(game, B=1)
    hold(game, "B", "SHELTER-30")
    bank = game.bank_gems
    bid(game, ["A:P B:S C:P D:P"], stop_by="B")
    assert player(game, "B")["status"] == BANKRUPT
    assert sorted(game.view()["bank_display"]) == ["FOOD-30", "SHELTER-30"]
    # Selling SHELTER-30 (bank -3) and handing over the 4 gems (bank +4): the bank gains 1.
    assert game.bank_gems == bank + 1
    assert total_gems(game) == 65
    turn = game.view()["turn"]
    assert turn == "C"
    assert {a["card"] for a in game.legal_actions(turn)} == {"FOOD-30", "SHELTER-30"}
    game.apply({"type": "choose_bank_lot", "player": turn, "card": "SHELTER-30"})
    assert game.view()["lot"] == {"card": "SHELTER-30", "source": "bank", "hidden": False}


def test_T_SW_18_zero_assets_stay_in_and_win_in_round_6_for_free():
    game = new("ABC")
    gems(game, C=0)
    assert game.legal_actions("C") == [] and player(game, "C")["status"] == "ACTIVE"
    bid(game, ["A:P B:P C:P", "A:P B:P C:P", "A:S B:K C:P", "A:S B:S C:S", "A:K B:S C:S",
               "A:P B:P C:K"])
    assert player(game, "C")["gems"] == 0
    assert player(game, "C")["resources"] == ["FOOD-30"]


@pytest.mark.parametrize("cards, reason", [
    (["FOOD-50", "FOOD-40", "FOOD-10"], "group"),                      # 100 in FOOD
    (["FOOD-50", "WATER-50", "SHELTER-30", "FRIENDS-20"], "total"),    # 150 in all
    (["FOOD-50", "FOOD-40", "WATER-30", "SHELTER-20"], None),          # 140, best group 90
])
def test_T_SW_19_win_checks(cards, reason):
    game = new()
    hold(game, "A", *cards)
    assert game.win_reason("A") == reason


def test_T_SW_19_playing_to_a_win_ends_the_game():
    game = new("AB")
    hold(game, "A", "FOOD-50", "FOOD-40")
    bid(game, ["A:S B:P"], stop_by="A", lot="FOOD-10")
    view = game.view()
    assert view["over"] and view["phase"] == "over"
    assert view["result"]["winners"] == ["A"] and view["result"]["reason"] == "group"
    assert view["result"]["breakdown"]["A"]["FOOD"] == 100
    assert [r["player"] for r in view["result"]["ranking"]] == ["A", "B"]
    refused(game, {"type": "turn_over_card", "player": None, "card": "FOOD-20"}, "over")


def test_T_SW_19_forced_sale_from_100_to_90_is_no_win():
    game = new("AB")
    gems(game, A=0)
    hold(game, "A", "FOOD-40", "FOOD-30", "FOOD-10")
    bid(game, ["A:P B:P", "A:P B:P", "A:S B:P", "A:S B:K", "A:K B:S"], stop_by="B",
        lot="FOOD-20")
    assert game.view()["debt"] == {"player": "A", "due": 1, "reason": "lot"}
    game.apply({"type": "sell_card", "player": "A", "card": "FOOD-10"})
    assert player(game, "A")["points"]["FOOD"] == 90
    assert not game.is_over and game.view()["turn"] == "B"


def test_T_SW_20_income_once_per_turn_for_the_turn_player_only():
    components = catalog.load_components("shipwrecked")
    income = {"FOOD-10": 1, "WATER-20": 2, "SHELTER-30": 0}
    for card in components["resource_cards"]:
        card["income"] = income.get(card["id"], card["income"])
    game = new("ABC", components=components)
    hold(game, "B", "FOOD-10", "WATER-20", "SHELTER-30")
    hold(game, "C", "FRIENDS-10")
    bid(game, ["A:S B:P C:P"], stop_by="A", lot="FOOD-40")     # A wins; the turn passes to B
    assert player(game, "B")["gems"] == 13 + 3
    assert player(game, "B")["income"] == 3
    assert player(game, "C")["gems"] == 13 and player(game, "A")["gems"] == 13 - 5
    bid(game, ["A:S B:S C:P"], stop_by="A", lot="FOOD-50")     # bidlock A, B at 5
    assert game.view()["turn"] == "B" and game.view()["bid"]["participants"] == ["A", "B"]
    assert player(game, "B")["gems"] == 13 + 3 - 5              # no second income


def test_T_SW_21_hidden_lot_chain():
    game = new()
    notes = game.apply({"type": "turn_over_card", "player": None, "card": "HIDDEN-1"})
    assert "Hidden" in notes[0].text
    assert game.view()["lot"] == {"card": None, "source": "stack", "hidden": True}
    bid(game, ["A:P B:S C:P D:S", "A:K B:P C:P D:P"], stop_by="B", lot=None)
    assert game.phase is Phase.FLIP_PRIZE
    assert game.legal_actions(None)[0]["type"] == "turn_over_card"
    game.apply({"type": "turn_over_card", "player": None, "card": "HIDDEN-2"})
    assert game.phase is Phase.FLIP_PRIZE
    game.apply({"type": "turn_over_card", "player": None, "card": "SHELTER-40"})
    view = game.view()
    assert player(game, "A")["resources"] == ["SHELTER-40"]
    assert player(game, "A")["gems"] == 15 - 4
    assert view["set_aside_hidden"] == ["HIDDEN-1", "HIDDEN-2"]
    assert view["stack_count"] == 24 - 3
    assert view["turn"] == "B"


def test_G_SW_12_a_hidden_prize_is_turned_over_before_a_bankrupt_winner_loses_it():
    game = new("ABC")
    gems(game, B=1)
    game.apply({"type": "turn_over_card", "player": None, "card": "HIDDEN-1"})
    bid(game, ["A:P B:S C:P"], stop_by="B", lot=None)
    assert game.phase is Phase.FLIP_PRIZE and player(game, "B")["status"] == "ACTIVE"
    game.apply({"type": "turn_over_card", "player": None, "card": "WATER-40"})
    assert player(game, "B")["status"] == BANKRUPT
    assert game.view()["bank_display"] == ["WATER-40"]
    assert game.view()["set_aside_hidden"] == ["HIDDEN-1"] and game.view()["turn"] == "C"


def test_T_SW_22_option_2_is_forced_when_the_stack_is_empty():
    game = new("AB")
    hold(game, "A", "FOOD-10", "SHELTER-10", "WATER-10")
    hold(game, "B", "FRIENDS-10", "FOOD-20", "SHELTER-20")
    game.set_position(bank_display=game.stack.resources, set_aside_hidden=game.stack.hidden)
    assert game.view()["stack_count"] == 0
    assert game.legal_actions(None) == []
    assert [a["type"] for a in game.legal_actions("A")] == ["choose_bank_lot"] * 14
    assert "bank display" in game.prompts()[0].text and "stack" not in game.prompts()[0].text
    refused(game, {"type": "turn_over_card", "player": None, "card": "HIDDEN-1"},
            "not in the stack")
    game.apply({"type": "choose_bank_lot", "player": "A", "card": "WATER-50"})
    assert game.view()["lot"] == {"card": "WATER-50", "source": "bank", "hidden": False}


def test_G_SW_11_option_1_is_closed_when_only_hidden_cards_are_left():
    game = new("AB")
    game.set_position(bank_display=game.stack.resources)
    assert game.view()["stack_count"] == 4
    assert game.legal_actions(None) == []
    refused(game, {"type": "turn_over_card", "player": None, "card": "HIDDEN-2"}, "G-SW-11")


def test_T_SW_23_bidlock_penalty_bankrupts_one_and_the_other_wins_for_0():
    game = new()
    gems(game, B=2, C=9)
    bid(game, ["A:K B:P C:P D:P", "A:P B:S C:S D:P"], stop_by="C")
    assert player(game, "B")["status"] == BANKRUPT
    assert player(game, "C")["resources"] == ["FOOD-30"]
    assert game.view()["turn"] == "C"           # A's lot is settled; the turn passes (B is out)
    assert player(game, "C")["gems"] == 9 - 4 + 1           # + FOOD-30's income
    assert total_gems(game) == 65


def test_T_SW_24_false_stop_is_logged_and_the_row_resolved_as_revealed():
    game = new("ABC")
    notes = bid(game, ["A:S B:P C:P", "A:P B:S C:P", "A:P B:K C:K"], stop_by="A")
    assert any(n.rule == "G-SW-14" and "VIOLATION" in n.text for n in notes)
    view = game.view()
    assert view["violations"] and "A stopped the bid but laid PASS in row 3" in \
        view["violations"][0]
    assert view["bid"]["reason"] == "free_rebid" and view["bid"]["round"] == 1
    assert [p["gems"] for p in view["players"]] == [13, 13, 13]


def test_T_SW_24_false_stop_with_a_real_stop_in_the_row_resolves_normally():
    game = new("ABC")
    bid(game, ["A:P B:P C:S"], stop_by="A")
    assert player(game, "C")["resources"] == ["FOOD-30"]
    assert len(game.view()["violations"]) == 1


def test_a_false_stop_is_listed_for_its_own_lot_only():
    """Issue 17: the violation list does not carry over to the next lot."""
    game = new("ABC")
    bid(game, ["A:P B:P C:S"], stop_by="A")
    assert len(game.view()["violations"]) == 1      # still this lot's screen
    lot = next(a for a in game.legal_actions(None) if a["type"] == "turn_over_card")
    game.apply(lot)
    assert game.view()["violations"] == []
    assert len(game.violations) == 1                # the game still knows it


# -- the gap options (SPEC §1.6) -------------------------------------------------------------

def test_G_SW_03_first_player_random_is_fixed_by_the_seed():
    firsts = {catalog.new_game("shipwrecked", list("ABCD"), seed=s,
                               options={"first_player": "random"}).view()["turn"]
              for s in range(30)}
    assert firsts == set("ABCD")
    a = catalog.new_game("shipwrecked", list("ABCD"), seed=7, options={"first_player": "random"})
    b = catalog.new_game("shipwrecked", list("ABCD"), seed=7, options={"first_player": "random"})
    assert a.to_json() == b.to_json()


def test_G_SW_03_first_player_bid_has_no_lot_and_no_payment():
    game = catalog.new_game("shipwrecked", list("ABC"), seed=1, options={"first_player": "bid"})
    assert game.view()["bid"]["kind"] == "first_player" and game.view()["lot"] is None
    bid(game, ["A:S B:S C:P"], stop_by="A", lot=None)           # bidlock: no penalty
    assert game.view()["bid"]["participants"] == ["A", "B"]
    bid(game, ["A:P B:S"], stop_by="B", lot=None)
    view = game.view()
    assert view["turn"] == "B" and view["first_player"] == "B" and view["phase"] == Phase.CHOOSE_LOT
    assert [p["gems"] for p in view["players"]] == [13, 13, 13]


def test_G_SW_03_manual_first_player_is_a_table_setup_action():
    game = catalog.new_game("shipwrecked", list("ABC"), seed=1)
    assert game.view()["phase"] == "first_player" and game.view()["turn"] is None
    refused(game, {"type": "choose_first_player", "player": None, "first_player": "Zed"},
            "not a player")
    game.apply({"type": "choose_first_player", "player": None, "first_player": "C"})
    assert game.view()["turn"] == "C"
    refused(game, {"type": "choose_first_player", "player": None, "first_player": "A"},
            "put up a lot")


A_STRIKES_IN_ROW_6 = ["A:P B:K C:K D:K", "A:P B:P C:P D:P", "A:P B:P C:P D:P",
                      "A:S B:P C:P D:P", "A:S B:S C:S D:S", "A:K B:S C:S D:S"]


def test_G_SW_04_unlimited_bank_adds_substitute_tokens():
    game = new()
    hold(game, "B", "FOOD-10", "FOOD-20", "FOOD-40")           # income 3
    gems(game, D=19)                                           # the bank keeps 1
    notes = bid(game, A_STRIKES_IN_ROW_6)                      # A wins for 0; B's turn
    assert player(game, "B")["gems"] == 15 + 3
    assert game.extra_gems == 2 and game.bank_gems == 0
    assert any(n.rule == "G-SW-04" and "2 substitute tokens" in n.text for n in notes)
    assert total_gems(game) == 65 + 2


def test_G_SW_04_physical_bank_pays_what_it_has():
    game = new(bank_mode="physical")
    hold(game, "B", "FOOD-10", "FOOD-20", "FOOD-40")
    gems(game, D=20)                                           # the bank is empty
    notes = bid(game, A_STRIKES_IN_ROW_6)
    assert player(game, "B")["gems"] == 15
    assert any(n.rule == "G-SW-04" and "short" in n.text for n in notes)
    assert total_gems(game) == 65 and game.extra_gems == 0


def test_G_SW_09_alternative_bidlocks_every_stop():
    game = new(multi_stop_tie="bidlock_all_stops")
    bid(game, ["A:P B:P C:P D:P", "A:P B:K C:S D:P", "A:K B:P C:K D:S",
               "A:S B:S C:S D:P"], stop_by="B")
    assert game.view()["bid"]["participants"] == ["A", "B", "C"]
    assert [player(game, p)["gems"] for p in "ABCD"] == [13, 13, 13, 15]


def test_G_SW_10_free_rebid_scope_all_active_brings_back_everyone():
    game = new("ABC", round6_rebid_scope="all_active")
    bid(game, ["A:S B:S C:P"], stop_by="A")                    # bidlock A, B
    bid(game, ["A:S B:P", "A:P B:S", "A:S B:S", "A:P B:K", "A:K B:P", "A:P B:P"], lot=None)
    assert game.view()["bid"]["participants"] == ["A", "B", "C"]


def test_G_SW_17_alternative_sole_survivor_rebids_alone():
    game = new(sole_bidlock_survivor="rebid_alone")
    gems(game, B=2, C=9)
    bid(game, ["A:K B:P C:P D:P", "A:P B:S C:S D:P"], stop_by="C")
    assert game.view()["bid"]["participants"] == ["C"]
    bid(game, ["C:S"], stop_by="C", lot=None)                 # round 1: 5 gems
    assert player(game, "C")["resources"] == ["FOOD-30"]
    assert player(game, "C")["gems"] == 9 - 4 - 5 + 1         # + income: C's turn is next


def test_G_SW_17_nobody_left_voids_the_lot():
    game = new()
    gems(game, B=2, C=3)
    bid(game, ["A:K B:P C:P D:P", "A:P B:S C:S D:P"], stop_by="C")
    view = game.view()
    assert [player(game, p)["status"] for p in "BC"] == [BANKRUPT, BANKRUPT]
    assert view["bank_display"] == ["FOOD-30"] and view["lot"] is None
    assert view["turn"] == "D" and not view["over"]


def test_G_SW_17_nobody_left_sets_a_hidden_lot_aside():
    game = new()
    gems(game, B=2, C=3)
    game.apply({"type": "turn_over_card", "player": None, "card": "HIDDEN-3"})
    bid(game, ["A:K B:P C:P D:P", "A:P B:S C:S D:P"], stop_by="C", lot=None)
    view = game.view()
    assert view["set_aside_hidden"] == ["HIDDEN-3"] and view["bank_display"] == []
    assert view["stack_count"] == 23


def test_G_SW_08_last_solvent_player_wins_at_once():
    game = new("AB")
    gems(game, B=1)
    bid(game, ["A:P B:S"], stop_by="B")
    view = game.view()
    assert view["over"] and view["result"]["winners"] == ["A"]
    assert view["result"]["reason"] == "last_solvent"
    assert view["result"]["ranking"][1] == {"player": "B", "score": 0, "rank": 2,
                                            "status": BANKRUPT, "gems": 0}
    assert view["bank_display"] == ["FOOD-30"]


def test_G_SW_13_the_stop_window_is_a_timer_for_the_servers_clock():
    game = new("AB", stop_window_s=6)
    game.apply({"type": "turn_over_card", "player": None, "card": "FOOD-30"})
    lay_row(game, {"A": "", "B": ""})
    view = game.view()
    assert view["phase"] == Phase.STOP_WINDOW and view["stop_window_s"] == 6
    close = {"type": "close_stop_window", "player": None, "round": 1}
    assert game.timer == Timer(6, close, game.label(close))
    assert game.timer.label == "Time's up: next row"
    assert view["timer"] == {"seconds": 6, "action": close}
    refused(game, {"type": "lay_bid_card", "player": "A"}, "G-SW-13")
    refused(game, {"type": "close_stop_window", "player": None, "round": 2}, "already over")
    game.apply(game.timer.action)
    assert game.timer is None and game.view()["timer"] is None
    assert game.view()["bid"]["round"] == 2


def test_show_unrevealed_composition_option():
    assert len(new("AB").view()["unrevealed_resources"]) == 20
    view = new("AB", show_unrevealed_composition=False).view()
    assert "unrevealed_resources" not in view and "unrevealed_hidden" not in view


# -- views: what each viewer may see (SPEC §1.7) ---------------------------------------------

def test_private_view_shows_what_the_engine_knows_of_ones_own_bid_cards():
    game = new("ABC")
    game.apply({"type": "turn_over_card", "player": None, "card": "FOOD-30"})
    assert game.view("A")["private"]["bid"]["in_hand"] == 6
    lay_row(game, {"A": "", "B": "", "C": ""})
    close_window(game)
    game.apply({"type": "lay_bid_card", "player": "A"})
    mine = game.view("A")["private"]
    assert mine["bid_set"] == {"PASS": 3, "STOP": 2, "STRIKE": 1}
    assert mine["bid"] == {"in_hand": 4, "laid": 2, "laid_face_down": 2, "face_up": [],
                           "not_face_up": {"PASS": 3, "STOP": 2, "STRIKE": 1}}
    assert "private" not in game.view() and "private" not in game.view("Visitor")
    assert game.view("B")["private"]["bid"]["laid"] == 1
    lay_row(game, {"B": "", "C": ""})
    game.apply({"type": "announce_stop", "player": "B"})
    game.apply({"type": "reveal_row", "player": None,
                "cards": {"A": "STOP", "B": "STOP", "C": "PASS"}})
    mine = game.view("A")["private"]["bid"]                    # tie-break pending
    assert mine["face_up"] == [{"row": 2, "card": "STOP"}]
    assert mine["not_face_up"] == {"PASS": 3, "STOP": 1, "STRIKE": 1}


def test_shared_view_shows_face_down_cards_only_as_present():
    game = new("ABC")
    game.apply({"type": "turn_over_card", "player": None, "card": "FOOD-30"})
    game.apply({"type": "lay_bid_card", "player": "B"})
    assert game.view()["bid"]["rows"] == [{"B": FACE_DOWN}]
    assert all(p in ("A", "C") for p in (pr.player for pr in game.prompts()))


def test_everyone_may_press_stop_and_nothing_tells_who_could():
    game = new("ABC")
    game.apply({"type": "turn_over_card", "player": None, "card": "FOOD-30"})
    lay_row(game, {"A": "", "B": "", "C": ""})
    per_player = [game.legal_actions(p) for p in "ABC"]
    assert per_player == [[{"type": "announce_stop", "player": p}] for p in "ABC"]
    assert [game.label(a[0]) for a in per_player] == [f"{p}: stop the bid" for p in "ABC"]
    (prompt,) = game.prompts()
    assert prompt.player is None and prompt.rule == "R-SW-07"


def test_the_first_player_bid_labels_and_prompts_are_json():
    game = new("AB")
    for action in game.legal_actions(None) + game.legal_actions("A"):
        assert game.label(action)
    json.dumps([p.to_json() for p in game.prompts()])


# -- bad input: refused with a message, nothing changed --------------------------------------

@pytest.fixture
def laying() -> Shipwrecked:
    """Four players in row 2 of a bid on FOOD-30; A has laid, B, C and D have not."""
    game = new()
    game.apply({"type": "turn_over_card", "player": None, "card": "FOOD-30"})
    lay_row(game, {"A": "", "B": "", "C": "", "D": ""})
    close_window(game)
    game.apply({"type": "lay_bid_card", "player": "A"})
    return game


def test_bad_wrong_player(laying):
    refused(laying, {"type": "lay_bid_card", "player": "A"}, "already laid a card in row 2")
    refused(laying, {"type": "lay_bid_card", "player": None}, "whose bid card")
    refused(laying, {"type": "lay_bid_card", "player": "Zed"}, "not a player")
    game = new("ABC")
    refused(game, {"type": "turn_over_card", "player": "A", "card": "FOOD-30"}, "player': null")
    bid(game, ["A:S B:S C:P"], stop_by="A")
    refused(game, {"type": "lay_bid_card", "player": "C"}, "C is not bidding")
    lay_row(game, {"A": "", "B": ""})
    refused(game, {"type": "announce_stop", "player": "C"}, "C is not bidding")


def test_bad_wrong_phase(laying):
    refused(laying, {"type": "announce_stop", "player": "A"}, "cannot stop the bid now")
    refused(laying, {"type": "reveal_row", "player": None, "cards": {}}, "cannot turn a row")
    refused(laying, {"type": "choose_bank_lot", "player": "A", "card": "FOOD-30"},
            "cannot choose a lot")
    refused(laying, {"type": "sell_card", "player": "A", "card": "FOOD-30"}, "cannot sell")
    refused(laying, {"type": "close_stop_window", "player": None, "round": 2},
            "cannot close the stop window")


def test_bad_card_not_in_hand_or_not_there():
    game = new("AB")
    refused(game, {"type": "choose_bank_lot", "player": "A", "card": "FOOD-30"},
            "not in the bank display")
    refused(game, {"type": "choose_bank_lot", "player": "B", "card": "FOOD-30"},
            "only A, whose turn it is")
    refused(game, {"type": "turn_over_card", "player": None, "card": "FOOD-60"},
            "not a Shipwrecked resource")
    hold(game, "B", "FOOD-20")
    refused(game, {"type": "turn_over_card", "player": None, "card": "FOOD-20"},
            "not in the stack any more")
    gems(game, A=0)
    hold(game, "A", "WATER-50")
    bid(game, ["A:S B:P"], stop_by="A")
    refused(game, {"type": "sell_card", "player": "A", "card": "FOOD-20"}, "does not hold")
    refused(game, {"type": "sell_card", "player": "B", "card": "FOOD-20"}, "only A, who owes")


def test_bad_impossible_revealed_cards():
    game = new("ABC")
    bid_rows = ["A:S B:S C:P", "A:S B:P C:S", "A:P B:S C:S"]
    game.apply({"type": "turn_over_card", "player": None, "card": "FOOD-30"})
    for i, row in enumerate(bid_rows):
        lay_row(game, parse(row))
        if i < 2:
            close_window(game)
    game.apply({"type": "announce_stop", "player": "B"})
    refused(game, {"type": "reveal_row", "player": None,
                   "cards": {"A": "JOKER", "B": "STOP", "C": "STOP"}}, "not a bid card")
    refused(game, {"type": "reveal_row", "player": None, "cards": {"A": "PASS", "B": "STOP"}},
            "missing: C")
    refused(game, {"type": "reveal_row", "player": None,
                   "cards": {"A": "PASS", "B": "STOP", "C": "STOP", "D": "PASS"}},
            "did not bid")
    refused(game, {"type": "reveal_row", "player": None, "cards": ["PASS", "STOP", "STOP"]},
            "must be dict")
    game.apply({"type": "reveal_row", "player": None, "cards": parse(bid_rows[2])})
    assert game.phase is Phase.TIEBREAK
    refused(game, {"type": "reveal_earlier_rows", "player": None, "bidder": "B",
                   "cards": ["STOP", "STOP"]}, "cannot show 3 STOP")
    refused(game, {"type": "reveal_earlier_rows", "player": None, "bidder": "B",
                   "cards": ["STRIKE", "PASS", "STRIKE"]}, "give 2 cards")
    refused(game, {"type": "reveal_earlier_rows", "player": None, "bidder": "A",
                   "cards": ["STOP", "STOP"]}, "only the tied STOP players")
    refused(game, {"type": "reveal_earlier_rows", "player": None, "bidder": "C",
                   "cards": ["STRIKE", "STRIKE"]}, "cannot show 2 STRIKE")
    game.apply({"type": "reveal_earlier_rows", "player": None, "bidder": "B",
                "cards": ["STOP", "PASS"]})
    refused(game, {"type": "reveal_earlier_rows", "player": None, "bidder": "B",
                   "cards": ["STOP", "PASS"]}, "already face up")


def test_bad_unknown_type_and_malformed_fields(laying):
    refused(laying, {"type": "steal_gems", "player": "A"}, "no action 'steal_gems'")
    refused(laying, {"player": "A"}, "needs a 'type'")
    refused(laying, {"type": "lay_bid_card"}, "needs a 'player'")
    refused(laying, "lay_bid_card", "JSON object")
    game = new("AB")
    refused(game, {"type": "turn_over_card", "player": None}, "needs a field 'card'")
    refused(game, {"type": "turn_over_card", "player": None, "card": 30}, "must be str")
    refused(game, {"type": "turn_over_card", "player": None, "card": ["FOOD-30"]}, "must be str")
    fresh = catalog.new_game("shipwrecked", ["A", "B"])
    refused(fresh, {"type": "choose_first_player", "player": None}, "needs a field")


def test_a_face_down_card_cannot_carry_its_type_into_the_log(laying):
    for extra in ({"card": "STRIKE"}, {"type_": "STOP"}, {"cards": "PASS"}):
        before = frozen(laying)
        with pytest.raises(IllegalAction) as err:
            laying.apply({"type": "lay_bid_card", "player": "B", **extra})
        assert frozen(laying) == before
        assert not any(t in str(err.value) for t in ("STRIKE", "'STOP'", "PASS"))


def test_malformed_json_line_is_refused_by_replay(tmp_path, capsys):
    from tableassist.cli import main
    log = tmp_path / "bad.jsonl"
    log.write_text('{"type": "choose_first_player", "player": null, "first_player": "A"}\n'
                   '{"type": "turn_over_card", "player": null, "card": \n')
    assert main(["replay", "--game", "shipwrecked", "--players", "A,B", str(log)]) == 2
    out = capsys.readouterr()
    assert out.err.startswith("line 2: not valid JSON")
    assert json.loads(out.out)["phase"] == Phase.CHOOSE_LOT


def test_unverified_card_values_are_listed_in_every_view():
    view = new("AB").view("A")
    assert len(view["unverified"]) == 20 and "resource_cards[FOOD-10]" in view["unverified"]


def test_example_game_replays_to_its_end(capsys):
    """The documented example (docs/games/shipwrecked.example.jsonl) is a complete game."""
    import pathlib
    import shlex

    from tableassist.cli import main
    example = pathlib.Path(__file__).parents[2] / "docs" / "games" / "shipwrecked.example.jsonl"
    argv = shlex.split(example.read_text().splitlines()[0].lstrip("# "))[1:]
    argv[-1] = str(example)
    assert main(argv) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["over"] and view["result"]["winners"] == ["Ann"]
    assert view["result"]["reason"] == "last_solvent"
    assert view["set_aside_hidden"] == ["HIDDEN-2", "HIDDEN-4"]
    assert sorted(view["bank_display"]) == ["FOOD-40", "WATER-30"]
    # The example's false stop was in an earlier lot: it stays in the history, not on the screen.
    assert view["violations"] == []
    assert view["bank_gems"] + sum(p["gems"] for p in view["players"]) == 65


# -- positions (set_position, the engine's set_fen) ------------------------------------------

def test_a_position_is_checked_against_the_invariants_and_refused_whole():
    from tableassist.games.protocol import SetupError
    game = new("ABC")
    before = frozen(game)
    for bad, words in [
            (dict(holdings={"A": ["FOOD-60"]}), "FOOD-60"),
            (dict(holdings={"A": ["FOOD-10"]}, bank_display=["FOOD-10"]), "one place"),
            (dict(set_aside_hidden=["FOOD-10"]), "Hidden cards only"),
            (dict(gems={"A": -1}), "at least 0"),
            (dict(gems={"A": 60, "B": 6}), "at most 65"),
            (dict(gems={"Zed": 3}), "not a player")]:
        with pytest.raises(SetupError, match=words):
            game.set_position(**bad)
        assert frozen(game) == before
    game.set_position(gems={"A": 3}, holdings={"B": ["WATER-20"]}, bank_display=["FOOD-10"])
    assert game.seat("A").gems == 3 and game.seat("B").resources == ("WATER-20",)
    assert game.bank_gems == 65 - 3 - 13 - 13 and total_gems(game) == 65
    assert len(game.stack) == 24 - 2 and "FOOD-10" not in game.stack.resources
    game.apply({"type": "turn_over_card", "player": None, "card": "FOOD-30"})
    with pytest.raises(SetupError, match="start of a turn"):
        game.set_position(gems={"A": 1})
