"""The Wreckers reader on hand-built table events (SPEC §4.3)."""

from __future__ import annotations

from tableassist.games.wreckers import Phase
from tableassist.readers import reader_for
from tests.readers.table import Table, new, run


def cut_round(players):
    game, table = new("wreckers", players, seed=3), Table("wreckers")
    reader = reader_for("wreckers", players)
    wrecks = sorted((c for c in game.deck.values() if c.type == "W"),
                    key=lambda c: (c.millions, c.discovery))
    # the last cutter cuts the most valuable wreck, so they start
    cuts = [wrecks[k].name for k in range(len(players) - 1)] + [wrecks[-1].name]
    events = []
    for name in cuts:
        events += [table.appear("card", name, zone="cut"), table.remove("card", name)]
    applied, _, _ = run(reader, game, events)
    return game, table, reader, applied, cuts


def test_the_first_cut_means_the_hands_are_dealt_and_each_cut_is_read_in_seat_order():
    game, _, _, applied, cuts = cut_round(("Ann", "Bea", "Cy"))
    assert applied[0] == {"type": "deal", "player": None}
    assert [(a["cutter"], a["card"]) for a in applied[1:]] == list(zip(("Ann", "Bea", "Cy"), cuts))
    assert game.phase is Phase.SEARCH and game.turn == "Cy"


def search_card(game):
    return next(c.name for c in game.deck.values() if c.type == "S")


def test_a_search_discarded_then_a_picked_card_with_one_opponent_needs_no_tap():
    game, table, reader, _, _ = cut_round(("Ann", "Bea"))
    card = search_card(game)
    picked = next(c.name for c in game.deck.values() if c.type == "I")
    applied, confirm, _ = run(reader, game, [table.appear("card", card, zone="discard"),
                                             table.appear("card", picked, pos=(450.0, 560.0))])
    assert applied == [{"type": "discard_search", "player": "Bea", "card": card},
                       {"type": "pick_card", "player": None, "card": picked}]
    assert confirm == []


def test_with_two_opponents_the_target_is_a_one_tap_confirmation():
    game, table, reader, _, _ = cut_round(("Ann", "Bea", "Cy"))
    card = search_card(game)
    picked = next(c.name for c in game.deck.values() if c.type == "I")
    applied, confirm, _ = run(reader, game, [table.appear("card", card, zone="discard"),
                                             table.appear("card", picked, pos=(450.0, 560.0))])
    assert [a["type"] for a in applied] == ["discard_search"]
    assert {a["target"] for a in confirm[0].confirm} == {"Ann", "Bea"}
    game.apply(confirm[0].confirm[0])            # the tap
    applied, _, _ = run(reader, game, [])
    assert applied == [{"type": "pick_card", "player": None, "card": picked}]
