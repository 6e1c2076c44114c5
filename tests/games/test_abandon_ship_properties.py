"""Abandon Ship over random legal games: conservation, the water, the end, replay, and secrecy.

Each game is played by random legal actions (``tests/games/random_play.py``) for 3–7 players. The
test deals every player a real tile from the data file (which the engine never sees) and lets
players enter it on their private view at random moments. A twin game plays the same table
actions without those entries: everything the shared screen, the other players, the notes, the
buttons, the prompts and the error messages show must be identical in both, so nothing there can
depend on a tile before the end (SPEC §2.7).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from tableassist.table import catalog
from tableassist.games.abandon_ship import BOX, NEUTRAL, POOL, SPENT, AbandonShip, Rat
from tableassist.games.protocol import IllegalAction
from tests.games.random_play import all_legal_actions
from tests.plugins.tiers import sweep

GAMES = 1000   # with --long; the default tier plays a tenth (tests/plugins/tiers.py)
NAMES = ["Ann", "Bea", "Cy", "Dee", "Eve", "Fay", "Gus"]


def check_table(game: AbandonShip, waterline_before: int) -> None:
    """The invariants of SPEC §2.2 after every action."""
    ship = game.components
    dice, board, slots = game.dice, game.board, [slot.rats for slot in game.slots]
    # every die is in exactly one place, and a rat's die leaves with its rat (R-AS-07)
    assert set(dice) == set(ship.dice)
    assert all(where in (POOL, SPENT, BOX) for where in dice.values())
    for die in ship.dice.values():
        if die.colour == NEUTRAL:
            assert dice[die.id] != BOX                     # G-AS-11
        else:
            assert (dice[die.id] == BOX) == (die.colour not in board)
    # every rat is in exactly one place; at most 4 reach the top deck (G-AS-07), one per slot;
    # only the survivors of the two-rats-left end share a slot
    scored = [r for occupants in slots for r in occupants]
    places = list(board) + scored + list(game.washed)
    assert sorted(places) == sorted(ship.colours)
    survivors = next((occ for occ in reversed(slots) if occ), ()) \
        if game.end == "two_rats_left" else ()
    assert len(scored) - len(survivors) <= 4
    assert all(len(occ) <= 1 for occ in slots if occ is not survivors)
    # the slots fill in track order
    filled = [bool(occ) for occ in slots]
    assert filled == sorted(filled, reverse=True) or (
        game.options["survivors_skip_x"] and game.end == "two_rats_left")
    # the waterline never falls, and no lone rat stays in the water (R-AS-06, G-AS-15)
    assert game.waterline >= waterline_before
    count = Counter(board.values())
    assert all(count[s] >= 2 for s in board.values() if s <= game.waterline)
    assert all(1 <= s < ship.top_deck for s in board.values())
    # cheese is conserved: on the board or in exactly one player's hand
    held = [v for p in game.players for v in game.cheese(p)]
    on_board = list(game.cheese_on_board.values())
    assert Counter(held + on_board) <= Counter(ship.cheese_tokens)
    assert game.cheese_placed == len(held) + len(on_board)
    # the game ends exactly as R-AS-10 says
    if game.end == "fourth_rat":
        assert len(scored) == 4
    elif game.end == "two_rats_left":
        assert not board and len(survivors) <= 2 and len(scored) - len(survivors) < 4
    else:
        assert len(scored) < 4 and len(board) > 2


def public_surface(game, viewers) -> str:
    """What the shared screen and ``viewers`` may see, as one string: the shared view, those
    players' views, every legal action with its label, and the prompts."""
    seen = {"shared": game.view(None),
            "players": {p: game.view(p) for p in viewers},
            "legal": [(a, game.label(a)) for a in all_legal_actions(game)],
            "prompts": [p.to_json() for p in game.prompts()]}
    return json.dumps(seen, sort_keys=True)


def probe_errors(game, rng: random.Random, player: str) -> list[str]:
    """Error messages for a few illegal actions during play, by a player whose turn it is not."""
    actions = [
        {"type": "use_die", "player": player, "die": rng.choice(list(game.components.dice)),
         "rat": rng.choice(game.components.colours)},
        {"type": "enter_tile", "player": player, "colours": rng.sample(game.components.colours, 2)},
        {"type": "reveal_tile", "player": None, "owner": player,
         "colours": rng.choice([sorted(t) for t in game.components.tiles])},
        {"type": "roll_die", "player": None, "die": "white", "face": "(9)"},
    ]
    messages = []
    for action in actions:
        try:
            game.apply(action)
        except IllegalAction as exc:
            messages.append(str(exc))
        else:
            raise AssertionError(f"illegal probe was accepted: {action}")
    return messages


def climb(game, rng: random.Random, actions: list[dict]) -> dict:
    """A kind table and a careful player: big faces, small sinking tokens, and mostly the move
    of the rat lowest on the board (the pack climbs together, nobody is left alone for the
    water), so that games also end by the fourth rat; plain random play nearly always drowns
    the rats first."""
    if rng.random() < 0.2:
        return rng.choice(actions)
    kind = actions[0]["type"]
    if kind == "roll_die":
        rolls = [a for a in actions if a["type"] == "roll_die"]   # not the first-player choice
        return max(rolls, key=lambda a: (a["face"].strip("()x").isdigit(), a["face"]))
    if kind == "reveal_sinking_token":
        return actions[0]
    moves = [a for a in actions if a["type"] == "use_die"]
    if not moves:
        return rng.choice(actions)
    rats = game.board
    return min(moves, key=lambda a: (rats[a["rat"]], rng.random()))


def play(seed: int, *, deep: bool):
    """One random game with its twin; ``deep`` compares everything public after every step."""
    rng = random.Random(seed)
    n = 3 + seed % 5
    players = NAMES[:n]
    options = {"survivors_skip_x": seed % 7 != 0, "arrow_same_space_counts": seed % 11 == 0,
               "first_player": "manual" if seed % 3 == 0 else "random",
               "submerged_cheese_takeable": seed % 13 != 0,
               "pass_zero_dice_triggers_water": seed % 17 != 0}
    game = catalog.new_game("abandon_ship", players, seed=seed, options=options)
    twin = catalog.new_game("abandon_ship", players, seed=seed, options=options)
    tiles = dict(zip(players, rng.sample([sorted(t, key=game.components.colours.index)
                                          for t in game.components.tiles], n)))
    entered: set[str] = set()
    log: list[dict] = []
    waterline = game.waterline
    while not game.is_over:
        # now and then a player enters their tile on their private view (never in the twin)
        if rng.random() < 0.02 and len(entered) < n:
            owner = rng.choice([p for p in players if p not in entered])
            action = {"type": "enter_tile", "player": owner, "colours": tiles[owner]}
            notes = game.apply(action)
            words = {w for note in notes for w in re.findall(r"\w+", note.text)}
            assert not words & set(game.components.colours)
            entered.add(owner)
            log.append(action)
        options_now = all_legal_actions(game)
        assert not deep or options_now == all_legal_actions(twin)
        assert options_now, f"stuck: {game.prompts()}"
        action = climb(game, rng, options_now) if seed % 2 else rng.choice(options_now)
        notes = game.apply(action)
        assert notes == twin.apply(action)
        log.append(action)
        check_table(game, waterline)
        waterline = game.waterline
        if deep and not game.is_over:
            others = [p for p in players if p not in entered]
            assert public_surface(game, others) == public_surface(twin, others)
            probe = rng.choice([p for p in players if p != game.turn])
            assert probe_errors(game, random.Random(seed), probe) == \
                probe_errors(twin, random.Random(seed), probe)
            shared = game.view(None)
            assert "private" not in shared
            assert game.is_over or all("tile" not in p and "score" not in p
                                       for p in shared["players"])
            for p in entered:
                private = game.view(p)["private"]
                assert private["tile"] == tiles[p]
                assert private["points"] == sum(game.rat_points()[r] for r in tiles[p]) + \
                    sum(game.cheese(p))
    return game, twin, tiles, log, players, options


def finish(game, tiles) -> dict:
    """Turn the tiles face up (R-AS-11) as the table would, and check the scores."""
    while game.result() is None:
        owner = game.legal_actions(None)[0]["owner"]
        action = {"type": "reveal_tile", "player": None, "owner": owner, "colours": tiles[owner]}
        game.apply(action)
    result = game.result()
    points = game.rat_points()
    slots = {rat: slot.label for slot in game.slots for rat in slot.rats}
    assert game.rats == tuple(
        Rat(c, "board", space=game.board[c]) if c in game.board else
        Rat(c, "washed") if c in game.washed else Rat(c, "scored", slot=slots[c])
        for c in game.components.colours)
    for row in result["ranking"]:
        player = row["player"]
        assert row["score"] == sum(points[r] for r in tiles[player]) + \
            sum(game.cheese(player))
    keys = [(r["score"], r["cheese"]) for r in result["ranking"]]
    assert keys == sorted(keys, reverse=True)
    assert set(result["winners"]) == {r["player"] for r in result["ranking"]
                                      if (r["score"], r["cheese"]) == keys[0]}
    assert sum(points.values()) <= 5 + 3 + 2 + 2
    return result


@pytest.mark.slow  # long random games
def test_random_games_keep_the_rules_and_the_secrets():
    ends = Counter()
    for seed in range(sweep(GAMES)):
        game, twin, tiles, log, players, options = play(seed, deep=seed % 40 == 0)
        ends[game.end] += 1
        # replay equals live state, through JSON as the log stores it
        replayed = catalog.new_game("abandon_ship", players, seed=seed, options=options)
        for action in json.loads(json.dumps(log)):
            replayed.apply(action)
        assert replayed.state == game.state
        finish(game, tiles)
        finish(twin, tiles)
        assert game.result() == twin.result()
    assert ends["two_rats_left"] > 0 and ends["fourth_rat"] > 0, ends
