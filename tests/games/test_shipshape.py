"""ShipShape: every T-SS case of SPEC §5.5, the example log, and illegal actions refused unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tableassist import cli
from tableassist.games.protocol import IllegalAction, SetupError
from tableassist.games.shipshape import (Crate, Layer, Phase, Stage, hold_totals, mirror, orient,
                                         parse_grid, score_voyage, seen_in_hold, visible_grid)
from tableassist.table import catalog
from tests.games.positions import (CAPN, crew_round as bid, group_of, play_until,
                                   shipshape as start, take, takers)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


# -- notation helpers ---------------------------------------------------------------------------

def grid(*rows: str):
    """A grid in the data file's notation: grid("R1 .", "G2 .")."""
    return parse_grid(list(rows), "test", crate=True)


def totals(gold=0, rats=0, cannons=0, contraband=0, full=False):
    """A hold's visible totals, as hold_totals gives them (9 spaces)."""
    return {"gold": gold, "rats": rats, "cannons": cannons, "contraband": contraband,
            "filled": 9 if full else 0, "spaces": 9, "full": full}


def coins(scores, category):
    return {name: s[category]["coins"] for name, s in scores.items()}


def frozen(game):
    return json.dumps(game.to_json(), sort_keys=True)


# -- scoring (R-SS-10 … R-SS-15) -----------------------------------------------------------------

def test_T_SS_01_rulebook_cannon_example():
    scores = score_voyage({"Michele": totals(cannons=13), "Rob": totals(cannons=12),
                           "Chris": totals(cannons=3)})
    assert coins(scores, "cannons") == {"Michele": 10, "Rob": 9, "Chris": 0}
    assert scores["Rob"]["cannons"]["table_lowest"] == 3


def test_T_SS_02_contraband_unique_highest_is_seized():
    scores = score_voyage({"A": totals(contraband=4), "B": totals(contraband=6),
                           "C": totals(contraband=2)})
    assert coins(scores, "contraband") == {"A": 4, "B": 0, "C": 2}
    assert scores["B"]["contraband"]["seized"]


def test_T_SS_03_contraband_tied_highest_all_seized():
    scores = score_voyage({"A": totals(contraband=6), "B": totals(contraband=6),
                           "C": totals(contraband=2)})
    assert coins(scores, "contraband") == {"A": 0, "B": 0, "C": 2}


@pytest.mark.parametrize("value", [3, 0])
def test_T_SS_04_contraband_all_equal_scores_nothing(value):
    scores = score_voyage({n: totals(contraband=value) for n in "ABC"})
    assert coins(scores, "contraband") == {"A": 0, "B": 0, "C": 0}


def test_T_SS_05_gold_minus_visible_rats_and_covered_rat_does_not_count():
    scores = score_voyage({"A": totals(gold=7, rats=3), "B": totals()})
    assert coins(scores, "gold")["A"] == 4
    hold = grid("R1 G7", ". .")
    cover = Layer("C1", grid("# .", ". ."))
    seen = visible_grid(hold, [cover])
    assert hold_totals(seen, [cover])["rats"] == 0
    assert hold_totals(visible_grid(hold, []), [])["rats"] == 1


def test_T_SS_06_negative_voyage_earns_nothing():
    scores = score_voyage({"A": totals(gold=2, rats=6, contraband=3), "B": totals(cannons=0)})
    a = scores["A"]
    assert (a["gold"]["coins"], a["cannons"]["coins"], a["contraband"]["coins"]) == (-4, 0, 0)
    assert a["total"] == -4 and a["gain"] == 0


def test_T_SS_07_negative_gold_is_netted_by_default_or_floored_per_category():
    table = {"A": totals(gold=0, rats=4, cannons=6), "B": totals(cannons=0)}
    assert score_voyage(table)["A"]["gain"] == 2
    assert score_voyage(table, negative_netting="per_category_floor")["A"]["gain"] == 6


def test_T_SS_08_visibility_through_the_stack_and_full_ship():
    hold = parse_grid(["R1 .", "G2 ."], "hold", crate=False)
    a = Layer("A", grid(". K3", ". ."))
    b = Layer("B", grid("X2 .", ". ."))
    c = Layer("C", grid(". .", ". G1"))
    seen = visible_grid(hold, [a, b, c])
    assert [[t for t, _ in row] for row in seen] == [["X2", "K3"], ["G2", "G1"]]
    assert [[src for _, src in row] for row in seen] == [[1, 0], [-1, 2]]
    t = hold_totals(seen, [a, b, c])
    assert (t["gold"], t["rats"], t["cannons"], t["contraband"]) == (3, 0, 3, 2)
    assert t["full"]
    assert score_voyage({"P": t})["P"]["full_ship"]["coins"] == 8
    cells = {(cell["row"], cell["col"]): cell for cell in t["cells"]}
    assert cells[(1, 0)]["source"] == "hold" and cells[(0, 0)]["source"] == "B"
    empty_c = Layer("C", grid(". .", ". ."))
    assert not hold_totals(visible_grid(hold, [a, b, empty_c]), [a, b, empty_c])["full"]
    empty_b = Layer("B", grid(". .", ". ."))
    t = hold_totals(visible_grid(hold, [a, empty_b, c]), [a, empty_b, c])
    assert (t["gold"] - t["rats"], t["full"]) == (2, False)


def test_T_SS_08_a_stack_as_written_is_seen_by_the_scoring_rule():
    """``seen_in_hold`` (the box screen's preview) reads the data file's notation and lays each
    crate as given: the same cells and totals as the rule a voyage is scored by."""
    hold = ["R1 .", "G2 ."]
    crates = [{"front": [". K3", ". ."], "face": "front", "rotation": 0},
              {"front": [". X2", ". ."], "face": "back", "rotation": 0},      # mirrored: X2 left
              {"front": [". .", "G1 ."], "back": "mirror", "face": "front", "rotation": 270}]
    seen, t = seen_in_hold(hold, crates)
    layers = [Layer("A", grid(". K3", ". .")), Layer("B", grid("X2 .", ". .")),
              Layer("C", grid(". .", ". G1"))]
    assert seen == visible_grid(parse_grid(hold, "hold", crate=False), layers)
    assert t == {k: v for k, v in hold_totals(seen, layers).items() if k != "cells"}
    with pytest.raises(IllegalAction, match=r"^crate 1 placed at row 0, column 0 would stick out "
                                            r"of the hold \(G-SS-06\)$"):
        seen_in_hold(hold, [{"front": [". . ."], "face": "front", "rotation": 0}])
    with pytest.raises(IllegalAction, match=r"^rotation must be 0, 90, 180 or 270, not 90.0"):
        seen_in_hold(hold, [{"front": [". ."], "face": "front", "rotation": 90.0}])
    with pytest.raises(SetupError, match=r"^crate 1: cannot read cell 'Q1'"):
        seen_in_hold(hold, [{"front": ["Q1 ."], "face": "front", "rotation": 0}])


def test_T_SS_08_blank_hides_and_counts_as_filled_by_option():
    hold = parse_grid(["R1"], "hold", crate=False)
    blank = Layer("A", grid("#"))
    seen = visible_grid(hold, [blank])
    assert hold_totals(seen, [blank])["full"]
    assert not hold_totals(seen, [blank], blank_counts_as_filled=False)["full"]


def test_T_SS_09_complete_voyage_with_three_participants():
    scores = score_voyage({
        "A": totals(gold=9, cannons=13, contraband=4, full=True),
        "B": totals(gold=5, cannons=12, contraband=6),
        "C": totals(gold=3, rats=5, cannons=3, contraband=2)})
    assert coins(scores, "gold") == {"A": 9, "B": 5, "C": -2}
    assert coins(scores, "cannons") == {"A": 10, "B": 9, "C": 0}
    assert coins(scores, "contraband") == {"A": 4, "B": 0, "C": 2}
    assert coins(scores, "full_ship") == {"A": 8, "B": 0, "C": 0}
    assert {n: s["gain"] for n, s in scores.items()} == {"A": 31, "B": 14, "C": 0}


def test_orientations_follow_the_convention_of_G_SS_06():
    crate = Crate("C", grid("G1 K2", "X3 ."), mirror(grid("G1 K2", "X3 .")))
    assert orient(crate, "front", 90) == grid("X3 G1", ". K2")
    assert orient(crate, "front", 180) == grid(". X3", "K2 G1")
    assert orient(crate, "back", 0) == grid("K2 G1", ". X3")
    assert len({orient(crate, f, r) for f in ("front", "back") for r in (0, 90, 180, 270)}) == 8


def test_the_worked_crate_of_the_doc():
    """docs/games/shipshape.md: crate C01 of the data file, its orientations, and on hold H01."""
    game = catalog.new_game("shipshape", ["A", "B", "C"])
    c01 = game.crates["C01"]
    assert orient(c01, "front", 0) == grid("# . G3", "G3 K1 K2", ". . .")
    assert orient(c01, "back", 0) == grid("G3 . #", "K2 K1 G3", ". . .")
    assert orient(c01, "front", 90) == grid(". G3 #", ". K1 .", ". K2 G3")
    assert orient(c01, "back", 90) == grid(". K2 G3", ". K1 .", ". G3 #")
    layer = Layer("C01", orient(c01, "front", 0))
    seen = visible_grid(game.holds["H01"].grid, [layer])
    assert [[t for t, _ in row] for row in seen] == [["#", "R2", "G3"], ["G3", "K1", "K2"],
                                                     [".", ".", "."]]


def test_engine_scores_the_visible_grid_cell_by_cell():
    game = start(["Ann", "Bea", "Cy"])
    for ann, bea, cy in ((10, 5, 1), (9, 4, 2), (8, 3, 7)):
        bid(game, {"Ann": ann, "Bea": bea, "Cy": cy})
        for name in takers(game, "Ann"):
            take(game, name)
    assert game.phase is Phase.SCORING
    sheet = game.view()["score_sheet"]["scores"]
    assert all(game.participant(n).coins == 0 for n in ("Ann", "Bea", "Cy"))
    game.apply({"type": "confirm_scoring", "player": None})
    assert game.view()["score_sheet"] is None
    assert {n: s["gain"] for n, s in game.voyage_sheets()[0]["scores"].items()} == {
        n: s["gain"] for n, s in sheet.items()}
    record = game.voyage_sheets()[0]["scores"]
    for name in ("Ann", "Bea", "Cy"):
        s = record[name]
        assert s["gain"] == max(0, sum(s[c]["coins"] for c in
                                       ("gold", "cannons", "contraband", "full_ship")))
        assert len(s["cells"]) == 9
        assert s["gold"]["visible_gold"] == sum(c["value"] for c in s["cells"]
                                                if c["category"] == "gold")
        assert game.participant(name).coins == s["gain"]


def finish_voyage(game, values):
    """Three turns with these bids ({name: [v1, v2, v3]}), each taker placing front up at 0°."""
    for turn in range(3):
        bid(game, {n: v[turn] for n, v in values.items()})
        for name in takers(game, next(iter(values))):
            take(game, name)


def test_the_table_corrects_a_category_before_confirming():
    game = start(["Ann", "Bea", "Cy"])
    finish_voyage(game, {"Ann": [10, 9, 8], "Bea": [5, 4, 3], "Cy": [1, 2, 7]})
    seen = game.counted_totals()
    game.apply({"type": "override_score", "player": None, "participant": "Ann",
                "category": "gold", "value": seen["Ann"]["gold"] + 5})
    game.apply({"type": "override_score", "player": None, "participant": "Bea",
                "category": "full", "value": True})
    sheet = game.view()["score_sheet"]["scores"]
    assert sheet["Ann"]["gold"]["visible_gold"] == seen["Ann"]["gold"] + 5
    assert sheet["Ann"]["corrected"] == {"gold": seen["Ann"]["gold"] + 5}
    assert sheet["Bea"]["full_ship"]["coins"] == 8
    refused(game, {"type": "override_score", "player": None, "participant": "Ann",
                   "category": "gold", "value": -1}, "cannot be negative")
    refused(game, {"type": "override_score", "player": None, "participant": "Ann",
                   "category": "coins", "value": 3}, "category must be one of")
    refused(game, {"type": "override_score", "player": "Ann", "participant": "Ann",
                   "category": "gold", "value": 3}, "is an input of the table")
    game.apply({"type": "confirm_scoring", "player": None})
    record = game.voyage_sheets()[0]["scores"]
    assert record["Ann"]["gold"]["visible_gold"] == seen["Ann"]["gold"] + 5
    assert record["Bea"]["full_ship"]["coins"] == 8
    assert game.participant("Ann").coins == record["Ann"]["gain"]
    refused(game, {"type": "override_score", "player": None, "participant": "Ann",
                   "category": "gold", "value": 3},
            "cannot correct a score now: the game is waiting for the next voyage's holds")
    refused(game, {"type": "confirm_scoring", "player": None},
            "cannot confirm the score sheet now")


# -- crew-card resolution (R-SS-03 … R-SS-09) ----------------------------------------------------

def test_T_SS_10_one_tie_rebids_after_the_others_take():
    game = start(["A", "B", "C", "D"])
    bid(game, {"A": 9, "B": 7, "C": 7, "D": 3})
    assert takers(game, "A") == ["A", "D"]
    assert group_of(game, "A").tied == ("B", "C")
    assert game.crew("B").discard == (7,)
    first = take(game, "A")
    second = take(game, "D")
    assert group_of(game, "A").stage is Stage.COMMIT and group_of(game, "A").pool == ("B", "C")
    bid(game, {"B": 5, "C": 2})
    assert takers(game, "A") == ["B", "C"]
    third, fourth = take(game, "B"), take(game, "C")
    layers = {n: [x.crate for x in game.participant(n).layers] for n in "ABCD"}
    assert layers == {"A": [first], "D": [second], "B": [third], "C": [fourth]}
    assert group_of(game, "A").turn == 2


def test_T_SS_11_tied_twice_take_by_hold_number_highest_first():
    game = start(["A", "B", "C"], holds={"A": "H01", "B": "H02", "C": "H03"},
                 numbers={"H01": 12, "H02": 9, "H03": 4})
    bid(game, {"A": 8, "B": 8, "C": 4})
    assert takers(game, "A") == ["C"]
    take(game, "C")
    bid(game, {"A": 6, "B": 6})
    assert takers(game, "A") == ["A", "B"]
    take(game, "A")
    take(game, "B")
    assert group_of(game, "A").turn == 2 and group_of(game, "A").pool == ("A", "B", "C")


def test_T_SS_12_everyone_tied():
    game = start(["A", "B", "C"], holds={"A": "H01", "B": "H02", "C": "H03"},
                 numbers={"H01": 3, "H02": 1, "H03": 6})
    bid(game, {"A": 5, "B": 5, "C": 5})
    assert takers(game, "A") == [] and group_of(game, "A").pool == ("A", "B", "C")
    assert all(game.crew(n).discard == (5,) for n in "ABC")
    bid(game, {"A": 9, "B": 2, "C": 9})
    assert takers(game, "A") == ["B"]
    take(game, "B")
    assert takers(game, "A") == ["C", "A"]   # hold #6 before hold #3


def test_T_SS_13_two_separate_ties_rebid_as_one_pool():
    game = start(["A", "B", "C", "D"])
    bid(game, {"A": 7, "B": 7, "C": 3, "D": 3})
    group = group_of(game, "A")
    assert group.stage is Stage.COMMIT and group.pool == ("A", "B", "C", "D")
    assert group.bid_round == 2
    bid(game, {"A": 1, "B": 2, "C": 10, "D": 9})
    assert takers(game, "A") == ["C", "D", "B", "A"]


def test_T_SS_13_single_pool_ties_across_first_values():
    game = start(["A", "B", "C", "D"], holds={"A": "H01", "B": "H02", "C": "H03", "D": "H04"})
    bid(game, {"A": 7, "B": 7, "C": 3, "D": 3})
    bid(game, {"A": 5, "B": 2, "C": 5, "D": 1})
    assert takers(game, "A") == ["B", "D"]
    take(game, "B")
    take(game, "D")
    assert takers(game, "A") == ["C", "A"]   # tied twice: hold #3 before hold #1


def test_T_SS_13_option_per_value_ties_only_within_each_first_tie():
    game = start(["A", "B", "C", "D"], options={"tie_pool": "per_value"})
    bid(game, {"A": 7, "B": 7, "C": 3, "D": 3})
    bid(game, {"A": 5, "B": 2, "C": 5, "D": 1})
    assert takers(game, "A") == ["A", "C", "B", "D"]
    for name in takers(game, "A"):
        take(game, name)
    game2 = start(["A", "B", "C", "D"], options={"tie_pool": "per_value"})
    bid(game2, {"A": 7, "B": 7, "C": 3, "D": 3})
    bid(game2, {"A": 5, "B": 5, "C": 2, "D": 1})
    assert takers(game2, "A") == ["C", "D"]
    assert group_of(game2, "A").twice_tied == ("A", "B")


def _down_to_two(game, name="A"):
    """A hand played down to two cards: the rest is in the discard pile."""
    game.set_position(hands={name: [3, 8]})
    assert game.crew(name).discard == (1, 2, 4, 5, 6, 7, 9, 10)


def test_T_SS_14_down_to_one_card_refills_immediately():
    game = start(["A", "B", "C"])
    _down_to_two(game)
    bid(game, {"A": 3, "B": 9, "C": 1})
    a = game.crew("A")
    assert a.held == (1, 2, 4, 5, 6, 7, 8, 9, 10) and a.discard == ()
    for name in takers(game, "A"):
        take(game, name)
    assert game.crew("A").discard == (3,)


def test_T_SS_14_refill_before_next_commit_brings_back_the_three():
    game = start(["A", "B", "C"], options={"refill_timing": "before_next_commit"})
    _down_to_two(game)
    bid(game, {"A": 3, "B": 9, "C": 1})
    assert game.crew("A").held == (8,)
    for name in takers(game, "A"):
        take(game, name)
    game.apply({"type": "lay_crew_card", "player": "A"})
    a = game.crew("A")
    assert a.held == tuple(range(1, 11)) and a.discard == ()


def test_capn_deck_refill_puts_his_discard_under_the_last_card():
    game = start(["A", "B"])
    # Eight draws so far; the ninth leaves one card: his discard goes under it, and it comes next.
    game.set_position(capn_deck=[9, 10])
    bid(game, {"A": 1, "B": 2, CAPN: 9})
    capn = game.crew(CAPN)
    assert capn.next == 10 and capn.held == (1, 2, 3, 4, 5, 6, 7, 8, 10)
    for name in takers(game, "A"):
        take(game, name)
    for name in ("A", "B"):
        game.apply({"type": "lay_crew_card", "player": name})
    game.apply({"type": "reveal_crew_card", "player": None, "owner": CAPN, "value": 10})
    assert game.crew(CAPN).held == (1, 2, 3, 4, 5, 6, 7, 8) and game.audit == ()


def test_a_capn_reading_at_odds_with_his_deck_is_taken_and_audited_for_the_end():
    """§5.7 and the lead's decision: the table's reading of the Cap'n's card is accepted whatever
    the engine knows of his deck (a refusal would say what the deck holds). A reading other than
    the card known to be on top is kept in the sealed audit, shown to nobody before the end."""
    game = start(["A", "B"])
    game.set_position(capn_deck=[9, 10])
    bid(game, {"A": 1, "B": 2, CAPN: 9})
    for name in takers(game, "A"):
        take(game, name)
    for name in ("A", "B"):
        game.apply({"type": "lay_crew_card", "player": name})
    notes = game.apply({"type": "reveal_crew_card", "player": None, "owner": CAPN, "value": 4})
    assert [n.text for n in notes] == ["Cap'n's crew card is turned over"]
    assert game.groups[0].reveal == {CAPN: 4}
    capn = game.crew(CAPN)
    assert capn.held == (1, 2, 3, 5, 6, 7, 8, 10) and capn.next is None
    assert [(f.voyage, f.turn, f.owner, f.value, f.text) for f in game.audit] == [
        (1, 2, CAPN, 4, "the card known to be on top of his deck was a 10 (G-SS-12)")]
    for viewer in (None, "A", "B"):
        text = json.dumps(game.view(viewer))
        assert '"audit"' not in text and "known to be on top" not in text
    game.apply({"type": "reveal_crew_card", "player": None, "owner": "A", "value": 5})
    game.apply({"type": "reveal_crew_card", "player": None, "owner": "B", "value": 6})
    # a value his deck does not hold at all: the count stays right and the value is owed, until
    # it comes back with his discard pile
    for name in takers(game, "A"):
        take(game, name)
    for name in ("A", "B"):
        game.apply({"type": "lay_crew_card", "player": name})
    game.set_position(capn_deck=[1, 2])     # the rest in his discard pile
    game.apply({"type": "reveal_crew_card", "player": None, "owner": CAPN, "value": 8})
    capn = game.crew(CAPN)
    assert capn.held == (1, 2, 3, 4, 5, 6, 7, 9, 10) and capn.not_held == ()
    assert game.cards_left(CAPN) == 9
    assert game.audit[-1].text == "his deck did not hold that value (R-SS-19)"
    assert capn.next is None   # two values were left, one of them not really there
    assert json.loads(json.dumps(game.view(None))).get("audit") is None


# -- between voyages and the end (R-SS-15 … R-SS-20) ---------------------------------------------

def test_T_SS_15_hold_assignment_by_coins_then_lower_previous_hold():
    game = start(["A", "B", "C"], holds={"A": "H01", "B": "H02", "C": "H05"},
                 numbers={"H07": 4, "H08": 9, "H09": 11})
    play_until(game, Phase.DRAW_HOLDS)
    game.set_position(coins={"A": 20, "B": 15, "C": 15})
    for hold in ("H07", "H08", "H09"):
        game.apply({"type": "draw_hold", "player": None, "hold": hold})
    numbers = {p["name"]: p["hold"] for p in game.view()["players"]}
    assert numbers == {"A": 11, "B": 9, "C": 4}


def test_T_SS_16_game_end_tie_goes_to_higher_voyage_3_hold():
    game = start(["A", "B"])
    play_until(game, Phase.DRAW_HOLDS)
    while game.voyage < 3:
        game.apply(game.legal_actions(None)[0])
        play_until(game, Phase.DRAW_HOLDS)
    # equal coins into voyage 3, and a voyage that pays nobody anything
    game.set_position(coins={"A": 50, "B": 50, CAPN: 10})
    play_until(game, Phase.SCORING)
    for name in game.seats:
        for category, value in (("gold", 0), ("cannons", 0), ("contraband", 0), ("full", False)):
            game.apply({"type": "override_score", "player": None, "participant": name,
                        "category": category, "value": value})
    game.apply({"type": "confirm_scoring", "player": None})
    result = game.result()
    holds = {r["player"]: r["final_hold"] for r in result["ranking"]}
    winner, other = sorted(("A", "B"), key=lambda n: -holds[n])
    assert [r["score"] for r in result["ranking"]] == [50, 50, 10]
    assert result["winners"] == [winner]
    assert [r["player"] for r in result["ranking"]] == [winner, other, CAPN]


def test_T_SS_17_capn_is_a_full_participant_and_places_as_the_crate_lay():
    scores = score_voyage({"A": totals(cannons=5, contraband=3), "B": totals(cannons=9,
                           contraband=1), CAPN: totals(cannons=2, contraband=4)})
    assert coins(scores, "cannons") == {"A": 3, "B": 7, CAPN: 0}
    assert coins(scores, "contraband") == {"A": 3, "B": 1, CAPN: 0}
    game = start(["A", "B"])
    assert game.seats == ("A", "B", CAPN)
    bid(game, {"A": 2, "B": 1, CAPN: 10})
    assert takers(game, "A") == [CAPN, "A", "B"]
    game.apply({"type": "show_top_crate", "player": None, "group": 0, "crate": "C20",
                "face": "front", "rotation": 90})
    before = frozen(game)
    for face, rotation in (("front", 0), ("back", 90), ("back", 270)):
        with pytest.raises(IllegalAction, match="exactly as it lay.*front up, turned 90"):
            game.apply({"type": "place_crate", "player": None, "crate": "C20", "face": face,
                        "rotation": rotation})
        assert frozen(game) == before
    assert [a for a in game.legal_actions(None) if a["type"] == "place_crate"] == [
        {"type": "place_crate", "player": None, "crate": "C20", "face": "front",
         "rotation": 90, "offset": [0, 0]}]
    game.apply({"type": "place_crate", "player": None, "crate": "C20", "face": "front",
                "rotation": 90})
    assert game.participant(CAPN).layers[0].rotation == 90


def test_T_SS_18_coins_never_decrease_even_after_a_bad_voyage():
    for seed in range(20):
        game = start(["A", "B", "C"], seed=seed)
        history = []
        while not game.is_over:
            play_until(game, Phase.DRAW_HOLDS if game.voyage < 3 else Phase.OVER, seed)
            history.append({n: game.participant(n).coins for n in game.seats})
            while game.phase is Phase.DRAW_HOLDS:
                game.apply(game.legal_actions(None)[0])
        for before, after in zip(history, history[1:]):
            assert all(after[n] >= before[n] for n in before)
        for record in game.voyage_sheets():
            assert all(s["gain"] >= 0 for s in record["scores"].values())


def test_T_SS_19_six_participant_groups_rotate_and_scoring_compares_all_six():
    names = ["P1", "P2", "P3", "P4", "P5", "P6"]
    game = start(names)
    seen = []
    for voyage in (1, 2, 3):
        groups = [list(g.members) for g in game.groups]
        seen += [frozenset(g) for g in groups]
        assert groups == {1: [["P1", "P2", "P3"], ["P4", "P5", "P6"]],
                          2: [["P2", "P3", "P4"], ["P5", "P6", "P1"]],
                          3: [["P3", "P4", "P5"], ["P6", "P1", "P2"]]}[voyage]
        assert all(g.stack_left == 9 for g in game.groups)
        play_until(game, Phase.DRAW_HOLDS if voyage < 3 else Phase.OVER, voyage)
        record = game.voyage_sheets()[-1]["scores"]
        visible = {n: record[n]["cannons"]["visible"] for n in names}
        assert all(record[n]["cannons"]["table_lowest"] == min(visible.values()) for n in names)
        contraband = {n: record[n]["contraband"]["visible"] for n in names}
        assert all(record[n]["contraband"]["table_highest"] == max(contraband.values())
                   for n in names)
        if voyage < 3:
            while game.phase is Phase.DRAW_HOLDS:
                game.apply(game.legal_actions(None)[0])
    assert len(set(seen)) == 6


def test_six_player_groups_bid_only_within_the_group():
    game = start(["P1", "P2", "P3", "P4", "P5", "P6"])
    bid(game, {"P1": 5, "P2": 5, "P3": 1})
    bid(game, {"P4": 5, "P5": 4, "P6": 3})
    assert takers(game, "P1") == ["P3"] and takers(game, "P4") == ["P4", "P5", "P6"]


def test_five_player_expert_mode_adds_the_capn_in_seat_six_and_groups():
    game = start(["A", "B", "C", "D", "E"], options={"five_player_mode": "expert_groups"})
    assert game.seats[5] == CAPN
    assert [g.members for g in game.groups] == [("A", "B", "C"), ("D", "E", CAPN)]
    standard = start(["A", "B", "C", "D", "E"])
    assert [g.stack_left for g in standard.groups] == [15]


# -- hidden information (§5.7) -------------------------------------------------------------------

def test_shared_view_hides_hands_discards_and_the_capn_deck():
    game = start(["A", "B"])
    bid(game, {"A": 7, "B": 3, CAPN: 2})
    shared = json.dumps(game.view(None))
    for word in ("hand", "discard", "deck", "private", "on_table"):
        assert f'"{word}"' not in shared
    view_b = game.view("B")
    assert view_b["private"]["hand"] == [1, 2, 4, 5, 6, 7, 8, 9, 10]
    assert "private" not in json.dumps({k: v for k, v in view_b.items() if k != "private"})
    assert view_b["private"]["discard"] == []


def test_the_reveal_is_public_only_while_it_is_current():
    game = start(["A", "B", "C"])
    bid(game, {"A": 7, "B": 3, "C": 2})
    assert game.view()["groups"][0]["reveal"] == {"A": 7, "B": 3, "C": 2}
    for name in takers(game, "A"):
        take(game, name)
    assert game.view()["groups"][0]["reveal"] == {}


def readings(game, owner=None):
    """The crew-card readings the shared screen offers (for ``owner``, or all), as (owner, value)."""
    return [(a["owner"], a["value"]) for a in game.legal_actions(None)
            if a["type"] == "reveal_crew_card" and owner in (None, a["owner"])]


def first_turn_then_lay(values):
    """Three players bid ``values`` in turn 1 (no tie), take their crates the same way, then all
    lay a card: the public table is the same whatever ``values`` were, the hands are not."""
    game = start(["A", "B", "C"])
    bid(game, values)
    for name in takers(game, "A"):
        take(game, name)
    for name in "ABC":
        game.apply({"type": "lay_crew_card", "player": name})
    return game


def test_table_readings_are_the_same_whatever_the_hands_hold():
    """§5.7: two games that differ only in what was played before (so in the hidden hands) show
    the shared screen the same list, labels and view; each card gets a keypad row of all ten
    values, so the list never hints at a hand."""
    game = first_turn_then_lay({"A": 10, "B": 9, "C": 8})
    twin = first_turn_then_lay({"A": 3, "B": 2, "C": 1})
    assert game.crew("A").held != twin.crew("A").held
    assert game.view(None) == twin.view(None)
    assert game.legal_actions(None) == twin.legal_actions(None)
    assert [game.label(a) for a in game.legal_actions(None)] == \
        [twin.label(a) for a in twin.legal_actions(None)]
    assert readings(game) == [(n, v) for n in "ABC" for v in range(1, 11)]
    assert game.label({"type": "reveal_crew_card", "player": None, "owner": "A", "value": 7}) \
        == "Table: A's card shows 7"


def test_the_capn_card_offers_his_whole_starting_deck():
    """His deck is blind: even the card known to be on top after a refill (G-SS-12) is not
    singled out on the shared screen."""
    game = start(["A", "B"])
    game.set_position(capn_deck=[9, 10])
    bid(game, {"A": 1, "B": 2, CAPN: 9})
    assert game.crew(CAPN).next == 10
    for name in takers(game, "A"):
        take(game, name)
    for name in ("A", "B"):
        game.apply({"type": "lay_crew_card", "player": name})
    assert readings(game, CAPN) == [(CAPN, v) for v in range(1, 11)]
    assert game.chance_action() in [
        {"type": "reveal_crew_card", "player": None, "owner": owner, "value": value}
        for owner in ("A", "B") for value in game.crew(owner).held] + [
        {"type": "reveal_crew_card", "player": None, "owner": CAPN, "value": 10}]


def test_every_listed_reading_applies_and_one_the_hand_did_not_hold_is_told_its_owner_only():
    """The lead's decision (rulebook: the hands "deben mantenerse en secreto"; SPEC §5.7): a hand
    is secret from everyone but its owner, and every card played is public at its reveal. So
    every value of the keypad row is accepted from the table, whatever the hand holds; a value
    the record of the hand did not hold shows only on its owner's private view."""
    played = {"A": 10, "B": 9, "C": 8}
    game = first_turn_then_lay(played)
    before = frozen(game)
    for owner, value in readings(game):
        trial = catalog.restore(json.loads(before))
        trial.apply({"type": "reveal_crew_card", "player": None, "owner": owner, "value": value})
        assert trial.groups[0].reveal == {owner: value}
        assert trial.cards_left(owner) == 8
        assert "audit" not in trial.view(None)
        for viewer in "ABC":
            private = trial.view(viewer)["private"]
            if viewer == owner and value == played[owner]:
                # the record cannot tell which card really left: nine values, eight cards
                assert private["hand"] == [v for v in range(1, 11) if v != value]
                assert private["cards"] == 8 and private["check"] == [
                    f"the table recorded a {value} for you, which your hand did not hold: fix "
                    "the reading if it was wrong"]
            elif viewer == owner:
                assert "check" not in private and len(private["hand"]) == 8
            else:
                assert "check" not in private and len(private["hand"]) == 9
    assert frozen(game) == before


def test_chance_action_draws_only_what_can_happen_and_is_seeded():
    game = first_turn_then_lay({"A": 10, "B": 9, "C": 8})
    seen = set()
    while game.groups[0].stage is Stage.REVEAL:
        action = game.chance_action()
        assert action == catalog.restore(game.to_json()).chance_action() == game.chance_action()
        assert action["value"] in game.crew(action["owner"]).held
        seen.add(action["owner"])
        game.apply(action)
    assert seen == {"A", "B", "C"}


def test_private_preview_of_the_crate_to_take_matches_the_placement():
    game = start(["A", "B", "C"])
    bid(game, {"A": 7, "B": 3, "C": 2})
    game.apply({"type": "show_top_crate", "player": None, "group": 0, "crate": "C01",
                "face": "front", "rotation": 0})
    preview = game.view("A")["private"]["preview"]
    assert len(preview) == 8 and "preview" not in game.view("B")["private"]
    choice = next(p for p in preview if p["face"] == "back" and p["rotation"] == 90)
    game.apply({"type": "place_crate", "player": "A", "crate": "C01", "face": "back",
                "rotation": 90})
    totals = game.view()["players"][0]["totals"]
    assert {k: totals[k] for k in ("gold", "rats", "cannons", "contraband", "full")} == {
        k: choice[k] for k in ("gold", "rats", "cannons", "contraband", "full")}


def test_prompts_say_who_does_what():
    game = start(["A", "B"])
    assert [p.player for p in game.prompts()] == ["A", "B"]
    bid(game, {"A": 2, "B": 1, CAPN: 10})
    assert game.prompts()[0].actions == ("show_top_crate",)
    game.apply({"type": "show_top_crate", "player": None, "group": 0, "crate": "C05",
                "face": "back", "rotation": 270})
    prompt = game.prompts()[0]
    assert prompt.rule == "R-SS-19" and "back up, turned 270°" in prompt.text


# -- illegal actions: refused with a message, nothing changes ------------------------------------

def refused(game, action, match):
    before = frozen(game)
    with pytest.raises(IllegalAction, match=match):
        game.apply(action)
    assert frozen(game) == before


def test_placing_a_crate_out_of_turn_is_refused():
    game = start(["A", "B", "C"])
    bid(game, {"A": 7, "B": 3, "C": 2})
    game.apply({"type": "show_top_crate", "player": None, "group": 0, "crate": "C10",
                "face": "back", "rotation": 180})
    refused(game, {"type": "place_crate", "player": "B", "crate": "C10", "face": "front",
                   "rotation": 0}, r"not B's crate.*A takes the next crate \(R-SS-05\)")
    refused(game, {"type": "place_crate", "player": "A", "crate": "C11", "face": "front",
                   "rotation": 0}, "must take the top crate, C10")


def test_moving_a_placed_crate_is_refused():
    game = start(["A", "B", "C"])
    bid(game, {"A": 7, "B": 3, "C": 2})
    crate = take(game, "A")
    refused(game, {"type": "place_crate", "player": "A", "crate": crate, "face": "back",
                   "rotation": 90}, "can never be moved.*R-SS-08")
    refused(game, {"type": "show_top_crate", "player": None, "group": 0, "crate": crate,
                   "face": "front", "rotation": 0}, "already used")


def test_a_crew_value_not_in_hand_is_taken_and_the_refill_goes_by_the_card_count():
    game = start(["A", "B", "C"])
    bid(game, {"A": 7, "B": 3, "C": 2})
    for name in takers(game, "A"):
        take(game, name)
    for name in "ABC":
        game.apply({"type": "lay_crew_card", "player": name})
    # A's 7 is in the discard pile: a second 7 is a misreading, or the first one was
    game.apply({"type": "reveal_crew_card", "player": "A", "owner": "A", "value": 7})
    a = game.crew("A")
    assert a.held == (1, 2, 3, 4, 5, 6, 8, 9, 10) and a.not_held == (7,)
    assert game.cards_left("A") == 8
    assert game.view("A")["private"]["check"] == [
        "the table recorded a 7 for you, which your hand did not hold: fix the reading if it was "
        "wrong"]
    assert "check" not in game.view("B")["private"] and "not_held" not in json.dumps(
        game.view(None))
    refused(game, {"type": "reveal_crew_card", "player": None, "owner": "B", "value": 11},
            r"^a crew card shows 1–10, not 11: check the reading \(R-SS-03\)$")
    refused(game, {"type": "reveal_crew_card", "player": "B", "owner": "C", "value": 5},
            "cannot reveal C's card")
    # later: the owed 7 is settled when A's discard pile (with both 7s) comes back
    game.set_position(hands={"A": [1, 4, 9]})
    assert game.crew("A").discard == (2, 3, 5, 6, 7, 8, 10)    # the 7 on the table joins later
    game.apply({"type": "reveal_crew_card", "player": None, "owner": "B", "value": 5})
    game.apply({"type": "reveal_crew_card", "player": None, "owner": "C", "value": 6})
    for name in takers(game, "A"):
        take(game, name)
    for name in "ABC":
        game.apply({"type": "lay_crew_card", "player": name})
    game.apply({"type": "reveal_crew_card", "player": None, "owner": "A", "value": 4})
    a = game.crew("A")
    assert game.cards_left("A") == 9 and a.not_held == ()   # down to one: the refill
    assert a.held == (1, 2, 3, 5, 6, 7, 8, 9, 10)
    assert "check" not in game.view("A")["private"]


def test_other_refusals_name_the_rule():
    game = start(["A", "B", "C"])
    refused(game, {"type": "reveal_crew_card", "player": None, "owner": "A", "value": 5},
            "waiting for A, B, C to lay")
    game.apply({"type": "lay_crew_card", "player": "A"})
    refused(game, {"type": "lay_crew_card", "player": "A"}, "already laid")
    refused(game, {"type": "deal_hold", "player": None, "participant": "A", "hold": "H04"},
            "cannot deal a hold now: the game is waiting for the voyage's crew cards")
    refused(game, {"type": "show_top_crate", "player": None, "group": 0, "crate": "C01",
                   "face": "side", "rotation": 0}, "face must be")
    refused(game, {"type": "show_top_crate", "player": None, "group": 0, "crate": "C01",
                   "face": "front", "rotation": 45}, "rotation must be")
    fresh = catalog.new_game("shipshape", ["A", "B", "C"])
    refused(fresh, {"type": "deal_hold", "player": None, "participant": "A", "hold": "H07"},
            "Voyage-2 set")
    refused(fresh, {"type": "deal_hold", "player": "A", "participant": "A", "hold": "H01"},
            "'deal_hold' is an input of the table")


def test_offsets_only_when_allowed():
    game = start(["A", "B", "C"])
    bid(game, {"A": 7, "B": 3, "C": 2})
    game.apply({"type": "show_top_crate", "player": None, "group": 0, "crate": "C10",
                "face": "back", "rotation": 180})
    refused(game, {"type": "place_crate", "player": "A", "crate": "C10", "face": "front",
                   "rotation": 0, "offset": [0, 1]}, "allow_offset is off")


def test_setup_refuses_the_capn_name_and_a_bad_schedule():
    with pytest.raises(SetupError, match="dummy player"):
        catalog.new_game("shipshape", ["A", CAPN])
    with pytest.raises(SetupError, match="six_player_schedule"):
        catalog.new_game("shipshape", list("ABCDEF"),
                         options={"six_player_schedule": [[[1, 2, 3], [4, 5, 5]]] * 3})


def test_bad_data_file_is_reported():
    comp = catalog.load_components("shipshape")
    comp["crates"][0]["front"] = ["G2 Q .", ". . .", ". . ."]
    with pytest.raises(SetupError, match="crate C01: cannot read cell 'Q'"):
        catalog.new_game("shipshape", ["A", "B", "C"], components=comp)


# -- the documented example game -----------------------------------------------------------------

def test_example_log_replays_to_the_end(capsys):
    path = DOCS / "shipshape.example.jsonl"
    command = path.read_text(encoding="utf-8").splitlines()[0]
    assert command.startswith("# tableassist replay")
    args = command[2:].split()[1:]
    args[-1] = str(path)
    assert cli.main(args) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["over"] and view["result"]["winners"]


def test_an_earlier_rounds_reading_is_sealed_against_corrections(tmp_path):
    """§5.7: a reading is public while its round's cards lie on the table. Correcting it later
    would probe the sealed history (whether a 6 now ties depends on what the others played
    then), so the Fix dialog offers nothing for it and a correction is refused in words that
    name no card; the current round's readings are corrected as usual."""
    from tableassist.server import Table, Tokens
    from tableassist.table.stores import open_store
    store = open_store(tmp_path / "t.sqlite3")
    table = Table(store, Tokens(None))
    session = table.start("shipshape", ["A", "B", "C"], options=None)
    game = lambda: session.game  # noqa: E731 - the session replaces its game on a correction

    def lay_and_read(values):
        for name in "ABC":
            session.submit({"type": "lay_crew_card", "player": name})
        for name, value in values.items():
            session.submit({"type": "reveal_crew_card", "player": None, "owner": name,
                            "value": value})

    while game().phase is Phase.DEAL_HOLDS:
        session.submit(game().legal_actions(None)[0])
    lay_and_read({"A": 10, "B": 7, "C": 2})
    first = [s.seq for s in session.steps if s.action["type"] == "reveal_crew_card"]
    while game().groups[0].queue:
        taker = game().groups[0].queue[0]
        session.submit(next(a for a in game().legal_actions(None)
                            if a["type"] == "show_top_crate"))
        session.submit(game().legal_actions(taker)[0])
    lay_and_read({"A": 9, "B": 6})
    current = session.steps[-1].seq
    before = json.dumps(game().to_json(), sort_keys=True)
    for seq in first:
        assert table.alternatives(seq) == []
        for action in [None, {"type": "reveal_crew_card", "player": None, "owner": "A",
                              "value": 6}]:
            with pytest.raises(IllegalAction, match=r"^that crew card was turned over in an "
                                                    r"earlier round.*\(SPEC §5\.7\)$"):
                session.correct(seq, action)
    assert json.dumps(game().to_json(), sort_keys=True) == before
    offered = {(a["action"]["owner"], a["action"]["value"]) for a in table.alternatives(current)}
    assert offered == {(n, v) for n in "BC" for v in range(1, 11)}
    session.correct(current, {"type": "reveal_crew_card", "player": None, "owner": "B",
                              "value": 5})
    assert game().groups[0].reveal == {"A": 9, "B": 5}
    store.close()


# -- positions (set_position, the engine's set_fen) ----------------------------------------------

def test_a_position_is_checked_and_refused_whole():
    game = start(["A", "B"])
    before = frozen(game)
    for bad, words in [(dict(coins={"A": -1}), "at least 0"),
                       (dict(coins={"Zed": 1}), "not a player"),
                       (dict(hands={"A": [1, 1]}), "each card in one place"),
                       (dict(hands={"A": [11]}), "come from the set"),
                       (dict(hands={CAPN: [1]}), "capn_deck"),
                       (dict(capn_deck=[1, 2], capn_next=3), "one of its cards")]:
        with pytest.raises(SetupError, match=words):
            game.set_position(**bad)
        assert frozen(game) == before
    with pytest.raises(SetupError, match="Cap'n is not at this table"):
        start(["A", "B", "C"]).set_position(capn_deck=[1])
    game.set_position(coins={"A": 7}, hands={"B": [2, 4]}, capn_deck=[5, 6], capn_next=6)
    assert game.participant("A").coins == 7 and game.view("B")["private"]["hand"] == [2, 4]
    assert game.crew("B").discard == (1, 3, 5, 6, 7, 8, 9, 10) and game.crew("B").cards == 2
    capn = game.crew(CAPN)
    assert (capn.held, capn.next, capn.cards) == ((5, 6), 6, 2)
    bid(game, {"A": 9, "B": 4, CAPN: 6})     # the known top card comes: nothing for the audit
    assert game.audit == () and game.crew(CAPN).held == (1, 2, 3, 4, 5, 7, 8, 9, 10)
    play_until(game, Phase.OVER)
    with pytest.raises(SetupError, match="while the game is being played"):
        game.set_position(coins={"A": 1})
