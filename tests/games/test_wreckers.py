"""Wreckers (SPEC §4): every T-WR case, the gap options, and illegal actions refused unchanged."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tableassist.cli import main
from tableassist.games.protocol import IllegalAction, SetupError
from tableassist.games.wreckers import Phase, Step
from tableassist.table import catalog
from tests.games.positions import (CUT_WRECKS, cut, pass_all, play_quiet_round, search,
                                   start_search, unused_search, wreckers as new)

ROOT = Path(__file__).resolve().parents[2]


# -- helpers ----------------------------------------------------------------------------------

def player(game, name):
    return next(p for p in game.view()["players"] if p["name"] == name)


def money(game):
    return {p["name"]: p["money"] for p in game.view()["players"]}


def small_hands(size: int = 2):
    """The data file with a smaller hand size, so a few picks play the hands out."""
    comp = catalog.load_components("wreckers")
    comp["rules"]["base_hand_size"] = size
    return comp


def refused(game, action, match):
    before = json.dumps(game.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction, match=match):
        game.apply(action)
    assert json.dumps(game.to_json(), sort_keys=True) == before


# -- T-WR cases -------------------------------------------------------------------------------

def test_T_WR_01_setup_four_players():
    game = new(4)
    assert all(p["money"] == 10 and p["hand_size"] == 10 and p["discovery"] == 0
               and p["victory_pile"] == [] for p in game.view()["players"])
    assert game.view()["round"] == 1 and game.view()["phase"] == "draw"
    assert game.view()["deck_count"] == 84
    game.apply({"type": "deal", "player": None})
    assert [p["hand_count"] for p in game.view()["players"]] == [10, 10, 10, 10]
    assert game.view()["deck_count"] == 44
    kinds = Counter(c["type"] for c in catalog.load_components("wreckers")["deck"]["cards"])
    assert kinds == {"W": 25, "L": 13, "S": 24, "C": 8, "E": 3, "D": 6, "I": 5}


def test_T_WR_01_cards_left_to_cut_by_player_count():
    for n, left in [(2, 64), (8, 4)]:
        game = new(n)
        game.apply({"type": "deal", "player": None})
        assert game.view()["deck_count"] == left


def test_T_WR_02_highest_wreck_cut_starts():
    game = new(4)
    game.apply({"type": "deal", "player": None})
    cut(game, "Derelict", "Freighter", "Caribbean", "Pirate Ship")
    assert game.view()["start_player"] == "Dee"
    assert game.view()["turn"] == "Dee" and game.view()["phase"] == "search"
    assert [c["card"] for c in game.view()["cuts"]] == [
        "Derelict", "Freighter", "Caribbean", "Pirate Ship"]


def test_T_WR_02_equal_millions_broken_by_discovery():
    game = new(2)
    game.apply({"type": "deal", "player": None})
    cut(game, "Freighter", "17th century Ship")
    assert game.view()["start_player"] == "Bea"


def test_T_WR_02_tie_and_no_wreck_cut_again():
    game = new(3, cut_tiebreak="recut")
    game.apply({"type": "deal", "player": None})
    cut(game, "Freighter", "17th century Ship", "Barge")  # 1M = 1M under "recut"
    assert game.cut_pass == ("Ann", "Bea")
    cut(game, "Caribbean", "Politicians")                      # no wreck: both again
    assert game.cut_pass == ("Ann", "Bea")
    cut(game, "Barge", "Airplane")                              # '-' = 0M, 1 Disc. each
    cut(game, "Airplane", "Pirate Ship")
    assert game.view()["start_player"] == "Bea"


def test_T_WR_03_wreck_pays_millions_and_discovery_at_once():
    game = new(4)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Spanish Galleon")
    ann = player(game, "Ann")
    assert (ann["money"], ann["discovery"], ann["victory_pile"]) == (410, 12, ["Spanish Galleon"])
    assert game.view()["turn"] == "Bea"  # no go-again


def test_T_WR_04_expense_costs_two_and_allows_go_again():
    game = new(4)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Legal Claims")
    assert money(game)["Ann"] == 8
    assert game.view()["turn"] == "Ann" and game.view()["step"] == "go_again"
    kinds = {a["type"] for a in game.legal_actions("Ann")}
    assert kinds == {"discard_search", "end_turn", "pass_search"}


def test_T_WR_05_delay_costs_one_and_ends_the_turn():
    game = new(4)
    start_search(game, "Ann")
    search(game, "Ann", "Cy", "Mishap")
    assert money(game)["Ann"] == 9 and game.view()["turn"] == "Bea"


def test_T_WR_06_investor_gains_five_and_allows_go_again():
    game = new(4)
    start_search(game, "Ann")
    search(game, "Ann", "Dee", "Wall Street")
    assert money(game)["Ann"] == 15 and game.view()["step"] == "go_again"
    game.apply({"type": "end_turn", "player": "Ann"})
    assert game.view()["turn"] == "Bea"


def test_T_WR_07_location_locks_the_picker_out_but_not_the_hand():
    game = new(4)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Caribbean")
    assert player(game, "Ann")["locked"] and game.view()["turn"] == "Bea"
    search(game, "Bea", "Ann", "Politicians")   # Ann's hand can still be picked (G-WR-08)
    assert player(game, "Ann")["hand_count"] == 8
    search(game, "Cy", "Dee", "Mishap")
    search(game, "Dee", "Cy", "Seizure")
    assert game.view()["turn"] == "Bea"         # Ann is skipped for the rest of the phase
    refused(game, {"type": "discard_search", "player": "Ann", "card": unused_search(game)},
            "only Bea, whose turn it is")


def test_T_WR_08_picked_search_goes_to_discards_and_allows_go_again():
    game = new(4)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Divers", discard="Survey")
    assert game.view()["discards"] == ["Survey", "Divers"]
    assert player(game, "Ann")["hand_count"] == 9  # the picked Search did not join Ann's hand
    assert game.view()["step"] == "go_again"
    search(game, "Ann", "Cy", "Politicians", discard="Zoom In")
    assert player(game, "Ann")["hand_count"] == 8 and game.view()["turn"] == "Bea"


def test_T_WR_09_controversy_changes_nothing_and_ends_the_turn():
    game = new(4)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Politicians")
    assert money(game)["Ann"] == 10 and game.view()["turn"] == "Bea"


def test_T_WR_10_end_phase_costs_every_active_company_one_million():
    game = new(4)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Wall Street")
    game.apply({"type": "end_turn", "player": "Ann"})
    pass_all(game)
    assert game.view()["round"] == 2 and game.view()["phase"] == "draw"
    assert money(game) == {"Ann": 14, "Bea": 9, "Cy": 9, "Dee": 9}
    assert all(p["hand_count"] == 0 for p in game.view()["players"])


def test_T_WR_10_a_company_that_never_gains_is_bankrupt_at_the_last_end_phase():
    game = new(3)
    for _ in range(10):
        play_quiet_round(game)
    assert game.is_over and money(game) == {"Ann": 0, "Bea": 0, "Cy": 0}
    assert all(p["status"] == "bankrupt" for p in game.view()["players"])
    assert game.result()["winners"] == []


def test_T_WR_11_hand_size_upgrade():
    game = new(4, money={"Ann": 35})
    game.apply({"type": "upgrade_hand", "player": "Ann"})
    assert money(game)["Ann"] == 15 and player(game, "Ann")["hand_size"] == 11
    refused(game, {"type": "upgrade_hand", "player": "Ann"}, "already upgraded")
    game.set_position(money={"Bea": 20})
    refused(game, {"type": "upgrade_hand", "player": "Bea"}, "at least 1M")
    game.apply({"type": "deal", "player": None})
    assert player(game, "Ann")["hand_count"] == 11 and game.view()["deck_count"] == 43


def test_T_WR_11_upgrade_only_before_the_deal_and_again_next_round():
    game = new(2, money={"Ann": 60})
    game.apply({"type": "upgrade_hand", "player": "Ann"})
    game.apply({"type": "deal", "player": None})
    refused(game, {"type": "upgrade_hand", "player": "Ann"},
            "cannot buy a hand-size upgrade now: the game is waiting for the deck to be cut")
    cut(game, "Treasure Ship", "Barge")
    pass_all(game)
    game.apply({"type": "upgrade_hand", "player": "Ann"})
    assert player(game, "Ann")["hand_size"] == 12 and money(game)["Ann"] == 19


def test_T_WR_12_two_player_bankruptcy_other_player_wins_at_once():
    game = new(2, money={"Ann": 2})
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Lawsuits")
    assert money(game)["Ann"] == 0 and game.is_over
    assert game.result()["winners"] == ["Bea"]
    assert [r["player"] for r in game.result()["ranking"]] == ["Bea", "Ann"]
    refused(game, {"type": "pass_search", "player": "Bea"}, "over")


def test_T_WR_12_both_bankrupt_at_the_end_phase_is_a_draw():
    game = new(2, money={"Ann": 1, "Bea": 1})
    play_quiet_round(game)
    assert game.is_over and sorted(game.result()["winners"]) == ["Ann", "Bea"]
    game = new(2, two_player_double_bankruptcy="ranking", money={"Ann": 1, "Bea": 1},
               discovery={"Bea": 3})
    play_quiet_round(game)
    assert game.result()["winners"] == ["Bea"]


def test_T_WR_13_bankrupt_company_reenters_two_rounds_later():
    game = new(4)
    for _ in range(3):
        play_quiet_round(game)
    assert game.view()["round"] == 4
    game.set_position(money={"Bea": 1})
    start_search(game, "Bea")
    search(game, "Bea", "Ann", "German U-Boat")   # a war grave: 0M, 3 Discovery
    search(game, "Cy", "Dee", "Politicians")
    search(game, "Dee", "Ann", "Nationalist Fury")
    search(game, "Ann", "Cy", "Museum Directors")
    search(game, "Bea", "Dee", "Ship Detained")   # 1M - 1M = 0: bankrupt
    bea = player(game, "Bea")
    assert bea["status"] == "bankrupt" and bea["reentry_round"] == 6
    assert bea["hand_count"] == 0 and bea["victory_pile"] == [] and bea["discovery"] == 0
    assert "German U-Boat" in game.view()["discards"]  # the old pile goes back to the deck
    assert game.view()["turn"] == "Cy"
    game.apply({"type": "discard_search", "player": "Cy", "card": unused_search(game)})
    refused(game, {"type": "choose_target", "player": "Cy", "target": "Bea"}, "bankrupt")
    game.apply({"type": "choose_target", "player": "Cy", "target": "Dee"})
    game.apply({"type": "pick_card", "player": None, "card": "Sovereignty Claims"})
    pass_all(game)                                  # round 5
    assert game.view()["round"] == 5
    refused(game, {"type": "reenter", "player": "Bea"}, "round 6")
    refused(game, {"type": "upgrade_hand", "player": "Bea"}, "bankrupt")
    game.apply({"type": "deal", "player": None})
    assert player(game, "Bea")["hand_count"] == 0 and game.cut_pass == ("Cy", "Dee", "Ann")
    cut(game, "Barge", "Pirate Ship", "Freighter")
    pass_all(game)
    assert game.view()["round"] == 6
    assert {"type": "reenter", "player": "Bea"} in game.legal_actions("Bea")
    game.apply({"type": "reenter", "player": "Bea"})
    bea = player(game, "Bea")
    assert (bea["status"], bea["money"], bea["hand_size"], bea["discovery"],
            bea["victory_pile"]) == ("active", 10, 10, 0, [])
    game.apply({"type": "deal", "player": None})
    assert player(game, "Bea")["hand_count"] == 10


def test_T_WR_13_no_reentry_after_the_last_round():
    game = new(3, round=9, money={"Ann": 1})
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Mishap")
    assert player(game, "Ann")["reentry_round"] is None


def test_T_WR_14_most_money_wins_then_most_discovery():
    game = new(3, round=10, money={"Ann": 121, "Bea": 121, "Cy": 81},
               discovery={"Ann": 9, "Bea": 14, "Cy": 30})
    play_quiet_round(game)
    result = game.result()
    assert result["winners"] == ["Bea"]
    assert [(r["player"], r["score"], r["rank"]) for r in result["ranking"]] == [
        ("Bea", 120, 1), ("Ann", 120, 2), ("Cy", 80, 3)]
    assert result["breakdown"]["Bea"]["money"]["basic_expenses"] == -1


def test_T_WR_14_equal_money_and_discovery_share_the_win():
    game = new(3, round=10, money={"Ann": 121, "Bea": 121, "Cy": 81},
               discovery={"Ann": 14, "Bea": 14})
    play_quiet_round(game)
    assert game.result()["winners"] == ["Ann", "Bea"]
    assert [r["rank"] for r in game.result()["ranking"]] == [1, 1, 3]


def test_T_WR_14_bankrupt_companies_rank_below_active_ones():
    game = new(3, round=10, money={"Ann": 500, "Bea": 1, "Cy": 3})
    play_quiet_round(game)
    assert [r["player"] for r in game.result()["ranking"]] == ["Ann", "Cy", "Bea"]
    assert game.result()["winners"] == ["Ann"]


def test_T_WR_15_phase_ends_when_nobody_can_act():
    game = new(4, components=small_hands(2), money={"Dee": 30})
    game.apply({"type": "upgrade_hand", "player": "Dee"})   # Dee holds 3 cards, the others 2
    start_search(game, "Dee")
    search(game, "Dee", "Ann", "Politicians")
    search(game, "Ann", "Bea", "Caribbean")            # Ann's hand is played out; locked out
    game.apply({"type": "pass_search", "player": "Bea"})
    search(game, "Cy", "Bea", "Mishap")                # Bea's hand is played out too
    assert [p["hand_count"] for p in game.view()["players"]] == [0, 0, 1, 2]
    assert player(game, "Ann")["locked"] and player(game, "Bea")["passed"]
    search(game, "Dee", "Cy", "Wall Street")           # go-again, but no opponent has a card
    assert game.view()["round"] == 2 and game.view()["phase"] == "draw"
    assert money(game)["Dee"] == 14


# -- the rest of the flow and the gap options --------------------------------------------------

def test_pass_is_final_for_the_phase():
    game = new(3)
    start_search(game, "Ann")
    game.apply({"type": "pass_search", "player": "Ann"})
    search(game, "Bea", "Ann", "Politicians")
    search(game, "Cy", "Ann", "Politicians".replace("Politicians", "Mishap"))
    assert game.view()["turn"] == "Bea"  # Ann, who passed, is skipped


def test_go_again_may_be_a_pass_when_no_search_is_left():
    game = new(3)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Collectors")
    game.apply({"type": "pass_search", "player": "Ann"})
    assert player(game, "Ann")["passed"] and game.view()["turn"] == "Bea"


def test_single_opponent_with_cards_is_targeted_without_asking():
    game = new(2)
    start_search(game, "Ann")
    game.apply({"type": "discard_search", "player": "Ann", "card": "Divers"})
    assert game.view()["step"] == "pick" and game.view()["target"] == "Bea"


def test_wreck_credit_end_phase_and_game_end():
    game = new(2, wreck_credit="end_phase")
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Treasure Ship")
    assert money(game)["Ann"] == 10 and player(game, "Ann")["discovery"] == 0
    pass_all(game)
    assert money(game)["Ann"] == 509 and player(game, "Ann")["discovery"] == 15
    game = new(3, wreck_credit="game_end", round=10)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Pirate Ship")
    assert money(game)["Ann"] == 10
    pass_all(game)
    assert game.is_over and money(game)["Ann"] == 15
    assert game.result()["breakdown"]["Ann"]["money"]["wrecks"] == 6


def test_war_graves_are_worth_no_millions_but_discovery():
    game = new(2)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Soviet Nuclear Sub")
    assert money(game)["Ann"] == 10 and player(game, "Ann")["discovery"] == 10


def test_wrecks_stay_out_of_later_deals_unless_returned():
    game = new(2)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Treasure Ship")
    pass_all(game)
    game.apply({"type": "deal", "player": None})
    assert game.view()["deck_count"] == 63
    refused(game, {"type": "cut_card", "player": None, "cutter": "Ann", "card": "Treasure Ship"},
            "face up")
    game = new(2, wreck_cards="return_at_end_phase")
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Treasure Ship")
    pass_all(game)
    assert player(game, "Ann")["victory_pile"] == [] and money(game)["Ann"] == 509
    game.apply({"type": "deal", "player": None})
    assert game.view()["deck_count"] == 64


def test_G_WR_12_short_deck_deals_round_robin_and_keeps_one_to_cut():
    game = new(8, victory_piles={"Ann": ["Barge", "Airplane", "Derelict", "Cargo Ship",
                                         "Freighter"]})
    assert game.view()["deck_count"] == 79
    game.apply({"type": "deal", "player": None})
    counts = [p["hand_count"] for p in game.view()["players"]]
    assert sum(counts) == 78 and game.view()["deck_count"] == 1
    assert counts == [10, 10, 10, 10, 10, 10, 9, 9]


def test_show_seen_counts_option():
    assert "not_seen_this_round" not in new(2).view()
    game = new(2, show_seen_counts=True)
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Mishap", discard="Divers")
    seen = game.view()["not_seen_this_round"]
    assert seen["Search"] == 23 and seen["Delay"] == 5 and seen["Wreck"] == 23  # 2 cut


def test_bankrupt_multiplayer_company_is_skipped_and_game_goes_on():
    game = new(3, money={"Ann": 1})
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Lawsuits")
    assert not game.is_over and game.view()["turn"] == "Bea"
    assert game.view()["discarded_face_down"] == 9


# -- illegal actions: refused with a message, state unchanged ---------------------------------

@pytest.fixture
def searching():
    game = new(4)
    start_search(game, "Ann")
    return game


def test_searching_without_a_search_card_discarded_is_refused(searching):
    refused(searching, {"type": "choose_target", "player": "Ann", "target": "Bea"},
            "must discard a Search card")
    refused(searching, {"type": "pick_card", "player": None, "card": "Barge"}, "no card is being")
    refused(searching, {"type": "discard_search", "player": "Ann", "card": "Mishap"},
            "Delay, not a Search card")
    refused(searching, {"type": "discard_search", "player": "Ann", "card": "Nothing"},
            "not a card of the Wreckers deck")


def test_picking_from_oneself_or_an_empty_hand_is_refused():
    game = new(4, components=small_hands(2))
    start_search(game, "Ann")
    search(game, "Ann", "Cy", "Politicians")
    search(game, "Bea", "Cy", "Mishap")                # Cy's hand is played out
    game.apply({"type": "pass_search", "player": "Dee"})
    game.apply({"type": "discard_search", "player": "Ann", "card": "Divers"})
    refused(game, {"type": "choose_target", "player": "Ann", "target": "Ann"}, "not their own")
    refused(game, {"type": "choose_target", "player": "Ann", "target": "Cy"},
            "no cards in hand")
    refused(game, {"type": "choose_target", "player": "Ann", "target": "Zed"}, "not a player")
    assert {a["target"] for a in game.legal_actions("Ann")} == {"Bea", "Dee"}


def test_cards_that_cannot_be_in_a_hand_are_refused(searching):
    refused(searching, {"type": "discard_search", "player": "Ann", "card": CUT_WRECKS[0]},
            "Wreck, not a Search")
    search(searching, "Ann", "Bea", "Politicians", discard="Divers")
    refused(searching, {"type": "discard_search", "player": "Bea", "card": "Divers"},
            "face up on the table")
    searching.apply({"type": "discard_search", "player": "Bea", "card": "Survey",
                     "target": "Cy"})
    refused(searching, {"type": "pick_card", "player": None, "card": "Politicians"}, "face up")
    refused(searching, {"type": "pick_card", "player": None, "card": CUT_WRECKS[0]},
            "was cut from the deck")
    refused(searching, {"type": "pick_card", "player": "Bea", "card": "Barge"}, "the table")


def test_out_of_turn_and_out_of_phase_actions_are_refused(searching):
    refused(searching, {"type": "discard_search", "player": "Bea", "card": "Divers"},
            r"only Ann, whose turn it is, may discard a Search card \(R-WR-04\)")
    refused(searching, {"type": "end_turn", "player": "Ann"}, "only end the turn early")
    refused(searching, {"type": "deal", "player": None},
            "cannot deal the hands now: the game is waiting for the Search phase to end")
    refused(searching, {"type": "cut_card", "player": None, "cutter": "Ann", "card": "Barge"},
            "cannot report a cut card now")
    refused(searching, {"type": "upgrade_hand", "player": "Ann"},
            "cannot buy a hand-size upgrade now")
    refused(searching, {"type": "reenter", "player": "Ann"}, "not bankrupt")


def test_cut_out_of_order_is_refused():
    game = new(3)
    game.apply({"type": "deal", "player": None})
    refused(game, {"type": "cut_card", "player": None, "cutter": "Bea", "card": "Barge"},
            "Ann cuts next")
    refused(game, {"type": "cut_card", "player": "Ann", "cutter": "Ann", "card": "Barge"},
            "the table")


def test_acting_while_bankrupt_is_refused():
    game = new(3, money={"Ann": 1})
    start_search(game, "Ann")
    search(game, "Ann", "Bea", "Lawsuits")
    for action in ({"type": "discard_search", "player": "Ann", "card": "Survey"},
                   {"type": "pass_search", "player": "Ann"}):
        refused(game, action, "bankrupt")
    assert game.legal_actions("Ann") == []
    pass_all(game)
    refused(game, {"type": "upgrade_hand", "player": "Ann"}, "bankrupt")


# -- the documented example game ---------------------------------------------------------------

def test_example_log_replays_to_the_end(capsys):
    path = ROOT / "docs" / "games" / "wreckers.example.jsonl"
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# tableassist replay --game wreckers --players ")
    players = first.split("--players ")[1].split()[0]
    assert main(["replay", "--game", "wreckers", "--players", players, str(path)]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["over"] and view["round"] == 10 and view["result"]["reason"] == "rounds"


# -- positions (set_position, the engine's set_fen) ------------------------------------------

def test_a_position_is_checked_and_refused_whole():
    game = new(3)
    before = json.dumps(game.to_json(), sort_keys=True)
    for bad, words in [(dict(round=11), "from 1 to 10"), (dict(money={"Ann": 0}), "at least 1M"),
                       (dict(discovery={"Bea": -1}), "at least 0"),
                       (dict(victory_piles={"Ann": ["Divers"]}), "'Divers' cannot be in a Vic"),
                       (dict(victory_piles={"Ann": ["Barge"], "Bea": ["Barge"]}), "one place"),
                       (dict(money={"Zed": 3}), "not a player")]:
        with pytest.raises(SetupError, match=words):
            game.set_position(**bad)
        assert json.dumps(game.to_json(), sort_keys=True) == before
    game.set_position(round=4, money={"Ann": 33}, discovery={"Cy": 5},
                      victory_piles={"Bea": ["Pirate Ship"]})
    ann = game.company("Ann")
    assert game.round == 4 and ann.money == 33 and sum(ann.ledger.values()) == 33
    assert game.company("Cy").discovery == 5 and game.view()["deck_count"] == 83
    assert game.company("Bea").victory_pile == ("Pirate Ship",)
    game.apply({"type": "deal", "player": None})
    assert game.phase is Phase.CUT and game.step is None and game.cutter == "Ann"
    cut(game, "Viking Longboat", "Barge", "Derelict")
    assert game.phase is Phase.SEARCH and game.step is Step.TURN and game.turn == "Ann"
    with pytest.raises(SetupError, match="Draw phase"):
        game.set_position(round=2)
