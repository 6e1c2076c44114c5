"""The Schmuggler an Bord reader on hand-built table events (SPEC §3.3)."""

from __future__ import annotations

from tableassist.games.schmuggler import Phase
from tableassist.readers import reader_for
from tests.readers.table import Table, new, run

PLAYERS = ("Ann", "Bea", "Cy")


def drafted():
    game, table = new("schmuggler", PLAYERS, seed=1), Table("schmuggler")
    reader = reader_for("schmuggler", PLAYERS)
    track = game.components.track
    n = game.view(None)["draft"]["total"]
    pool = [track[2], *track[-(n - 1):]]     # space 2's card is drafted; 1, 3.. are not
    shown = [table.appear("contraband_card", g, "face", pos=(450.0, 500.0)) for g in pool]
    # a shown card goes face down in front of its drafter: its face leaves the view
    events = []
    for e in shown:
        events += [e, table.remove("contraband_card", e.sighting.item, "face", pos=(450.0, 500.0))]
    applied, _, _ = run(reader, game, events)
    return game, table, reader, applied, pool


def test_each_card_shown_in_the_draft_is_read():
    game, _, _, applied, pool = drafted()
    assert [a["good"] for a in applied] == pool
    assert game.phase is Phase.BOARD


def test_the_first_roll_lays_out_the_board_and_moves_the_piece():
    game, table, reader, _, _ = drafted()
    applied, _, mismatch = run(reader, game, [table.appear("die_face", "die:face-3")])
    assert [a["type"] for a in applied] == ["lay_out_board", "roll_die"]
    assert applied[1]["face"] == 3 and game.piece.space == 3
    # the piece put on the right space is in sync; on a wrong one it is not
    _, _, mismatch = run(reader, game, [table.appear("piece", "piece", zone=f"space {game.components.track[3]}")])
    assert mismatch == []
    _, _, mismatch = run(reader, game, [table.move("piece", "piece", zone=f"space {game.components.track[4]}")])
    assert mismatch and mismatch[0].expects == f"the piece on the {game.components.goods[game.components.track[3]].name} space"


def test_a_card_taken_from_the_space_and_shown_is_taken_by_the_roller():
    game, table, reader, _, pool = drafted()
    face = next(i for i in range(1, 7) if game.components.track[i] not in pool)
    run(reader, game, [table.appear("die_face", f"die:face-{face}")])
    assert game.phase is Phase.TAKE
    roller = game.turn
    wrong = next(g for g in game.components.track[1:] if g != game.components.track[face])
    _, _, mismatch = run(reader, game, [table.appear("contraband_card", wrong, "face")])
    assert mismatch and game.phase is Phase.TAKE
    applied, _, _ = run(reader, game, [table.appear("contraband_card", game.components.track[face], "face",
                                                    pos=(300.0, 300.0))])
    assert applied == [{"type": "take_card", "player": roller}]


def test_the_missing_card_shown_while_someone_looks_is_a_one_tap_found():
    game, table, reader, _, pool = drafted()
    face = next(i for i in range(1, 7) if game.components.track[i] in pool)
    run(reader, game, [table.appear("die_face", f"die:face-{face}")])
    assert game.phase is Phase.DECLARE
    roller = game.turn
    game.apply({"type": "suspect", "player": roller, "suspects": roller})      # the tablet
    other = next(p for p in PLAYERS if p != roller)
    game.apply({"type": "object", "player": other})
    game.apply({"type": "close_objections", "player": None})
    assert game.looker == roller
    applied, confirm, _ = run(reader, game, [table.appear("contraband_card", game.components.track[face], "face")])
    assert applied == []
    assert confirm[0].confirm == ({"type": "look", "player": roller, "found": True},)
