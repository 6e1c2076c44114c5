"""ShipShape properties: visibility against a brute-force reference, and 1,000 random legal games
checked for conservation of crates and coins, three crates per voyage, replay, and secrecy (§5.7)."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from tableassist.games.shipshape import (FACES, ROTATIONS, Crate, Layer, Phase, Stage, mirror,
                                         orient, visible_grid)
from tableassist.table import catalog
from tests.games.random_play import all_legal_actions, random_actions
from tests.plugins.tiers import sweep

TOKENS = [".", ".", ".", "#", "-", "G1", "G3", "K2", "X1", "X4", "R1", "R2"]
HOLD_TOKENS = [".", ".", "G2", "K1", "X3", "R1"]


# -- visibility (G-SS-06, G-SS-07) against a reference written the other way round -----------------

def reference_orient(front, face, rotation):
    """Orientation by moving each cell to where it lands (the engine builds rows instead)."""
    h, w = len(front), len(front[0])
    cells = {(r, c): front[r][w - 1 - c] if face == "back" else front[r][c]
             for r in range(h) for c in range(w)}
    for _ in range(rotation // 90):
        cells = {(c, h - 1 - r): token for (r, c), token in cells.items()}
        h, w = w, h
    return [[cells[(r, c)] for c in range(w)] for r in range(h)]


def reference_visible(hold, stack):
    """Painter's order: lay each crate in turn from the bottom; any cell that is not see-through
    covers what was there."""
    shown = [[(token, -1) for token in row] for row in hold]
    for i, (grid, row, col) in enumerate(stack):
        for r, line in enumerate(grid):
            for c, token in enumerate(line):
                if token not in (".", "-"):
                    shown[row + r][col + c] = (token, i)
    return shown


def test_visible_grid_matches_brute_force_over_random_stacks():
    rng = random.Random(2026)
    for _ in range(3000):
        hh, hw = rng.randint(1, 4), rng.randint(1, 4)
        hold = tuple(tuple(rng.choice(HOLD_TOKENS) for _ in range(hw)) for _ in range(hh))
        layers, stack = [], []
        for k in range(rng.randint(0, 4)):
            side = rng.randint(1, min(hh, hw))
            ch, cw = side, rng.randint(1, side)        # may be oblong, fits either way round
            front = tuple(tuple(rng.choice(TOKENS) for _ in range(cw)) for _ in range(ch))
            crate = Crate(f"C{k}", front, mirror(front))
            face, rotation = rng.choice(FACES), rng.choice(ROTATIONS)
            grid = orient(crate, face, rotation)
            assert [list(r) for r in grid] == reference_orient(front, face, rotation)
            row = rng.randint(0, hh - len(grid))
            col = rng.randint(0, hw - len(grid[0]))
            layers.append(Layer(crate.id, grid, row, col))
            stack.append((reference_orient(front, face, rotation), row, col))
        assert visible_grid(hold, layers) == reference_visible(hold, stack)


# -- random legal games ----------------------------------------------------------------------------

NAMES = ["Ann", "Bea", "Cy", "Dee", "Eve", "Fay"]
VARIANTS = [{}, {"refill_timing": "before_next_commit"}, {"negative_netting": "per_category_floor"},
            {"blank_counts_as_filled": False}, {"allow_offset": True}, {"tie_pool": "per_value"}]
COMPONENTS = catalog.load_components("shipshape")
SECRET_KEYS = {"hand", "discard", "deck", "deck_next", "on_table", "not_held", "private"}


def check_secrecy(game):
    shared = game.view(None)
    text = json.dumps(shared)
    assert not any(f'"{key}"' in text for key in SECRET_KEYS)
    for group, known in zip(shared["groups"], game.groups):
        # no crate below the top, and only the current reveal
        assert set(group) == {"members", "turn", "stage", "tie_round", "laid", "reveal", "queue",
                              "placed", "crates_left", "top_crate"}
        assert group["reveal"] == known.reveal
    readings = [a for a in game.legal_actions(None) if a["type"] == "reveal_crew_card"]
    faces = sorted(set(COMPONENTS["crew_values"]))
    for owner in {a["owner"] for a in readings}:
        # every face-down card offers the same keypad row: nothing drawn from a hand or a deck
        assert [a["value"] for a in readings if a["owner"] == owner] == faces
    for name in game.players:
        assert not [a for a in game.legal_actions(name) if a["type"] == "reveal_crew_card"]
    public = {k: v for k, v in shared.items() if k != "viewer"}
    for name in game.players:
        own = game.view(name)
        assert {k: v for k, v in own.items() if k not in ("viewer", "private")} == public
        me = game.crew(name)
        assert own["private"]["hand"] == list(me.held)
        assert own["private"]["discard"] == list(me.discard)


def check_crates(game, per_voyage, participants):
    placed = [layer.crate for p in participants for layer in p.layers]
    tops = [g.top.crate for g in game.groups if g.top]
    everything = [*game.used_crates, *placed, *tops]
    assert len(everything) == len(set(everything)), "a crate is in two places"
    assert not set(tops) & set(placed)
    if game.phase is Phase.PLAY:
        assert len(placed) + sum(g.stack_left for g in game.groups) == per_voyage
    assert len(game.used_crates) == per_voyage * game.voyages_scored


def check_crew_cards(game):
    """Every human's ten crew cards are in the hand, the discard pile, or on the table (and the
    Cap'n's in his deck, his discard pile or on the table)."""
    for name in game.seats:
        crew = game.crew(name)
        cards = Counter(crew.held + crew.discard
                        + ((crew.on_table,) if crew.on_table is not None else ()))
        cards.subtract(crew.not_held)   # empty in random play: the table reads what can happen
        assert sorted(cards.elements()) == list(range(1, 11)) and not crew.not_held, (name, cards)


@pytest.mark.slow  # long random games
def test_random_legal_games_keep_the_invariants():
    played, games = 0, sweep(1000)
    for seed in range(games):
        humans = [3, 2, 4, 5, 6, 3, 2, 5][seed % 8]
        options = dict(VARIANTS[seed % len(VARIANTS)])
        if humans == 5 and seed % 16 < 8:
            options["five_player_mode"] = "expert_groups"
        game = catalog.new_game("shipshape", NAMES[:humans], seed=seed, options=options,
                                components=COMPONENTS)
        participants = len(game.seats)
        coins = {n: 0 for n in game.seats}
        log = []
        rng = random.Random(seed)
        deep = seed % 50 == 0
        for action in random_actions(game, rng):
            log.append(action)
            seats = [game.participant(n) for n in game.seats]
            now = {p.name: p.coins for p in seats}
            assert all(now[n] >= coins[n] for n in coins), "coins went down"
            coins = now
            check_crates(game, 3 * participants, seats)
            if deep or len(log) % 37 == 0:
                check_secrecy(game)
                check_crew_cards(game)
        assert game.is_over
        for record in game.voyage_sheets(cells="none"):
            assert all(len(sheet["layers"]) == 3 for sheet in record["scores"].values())
        assert game.voyages_scored == 3
        assert [r["player"] for r in game.result()["ranking"]][0] == game.result()["winners"][0]
        replayed = catalog.new_game("shipshape", NAMES[:humans], seed=seed, options=options,
                                    components=COMPONENTS)
        for action in json.loads(json.dumps(log)):
            replayed.apply(action)
        assert replayed.state == game.state
        played += 1
    assert played == games


def hidden_twin(game, rng):
    """The same game with the hidden cards dealt otherwise: each human's hand drawn afresh from
    hand + discard (same sizes), the Cap'n's deck from deck + discard (and its known top card);
    the engine's set_position puts the rest in the discard piles."""
    twin = catalog.restore(json.loads(json.dumps(game.to_json())))
    hands, deck, top = {}, None, None
    for name in twin.seats:
        crew = twin.crew(name)
        cards = list(crew.held + crew.discard)
        rng.shuffle(cards)
        if name == twin.capn:
            deck = cards[:len(crew.held)]
            top = rng.choice(deck) if crew.next is not None else None
        else:
            hands[name] = cards[:len(crew.held)]
    twin.set_position(hands=hands, capn_deck=deck, capn_next=top)
    return twin


@pytest.mark.slow  # long random games
def test_the_shared_list_and_every_reading_never_depend_on_hidden_cards():
    """Twin test (§5.7): at every reveal of 60 random games (--long; 6 by default), a twin whose hands, discard piles
    and Cap'n's deck are dealt otherwise shows the same table list, labels, view and prompts.
    Every listed reading is accepted in both with the same notes and the same shared view (a
    refusal would tell what a hand holds); only the owner's private view may differ."""
    reveals = changed = 0
    games = sweep(60, least=6)
    for seed in range(games):
        humans = [2, 3, 4, 5, 6][seed % 5]
        options = dict(VARIANTS[seed % len(VARIANTS)])
        game = catalog.new_game("shipshape", NAMES[:humans], seed=seed, options=options,
                                components=COMPONENTS)
        rng = random.Random(seed)
        for _ in random_actions(game, rng):
            if not any(g.stage is Stage.REVEAL for g in game.groups):
                continue
            reveals += 1
            twin = hidden_twin(game, rng)
            changed += twin.state != game.state
            table = game.legal_actions(None)
            assert table == twin.legal_actions(None)
            assert [game.label(a) for a in table] == [twin.label(a) for a in table]
            assert game.view(None) == twin.view(None)
            assert game.prompts() == twin.prompts()
            if seed % 10:
                continue
            for action in (a for a in table if a["type"] == "reveal_crew_card"):
                a, b = catalog.restore(game.to_json()), catalog.restore(twin.to_json())
                assert a.apply(action) == b.apply(action)
                assert a.view(None) == b.view(None)
                others = [p for p in game.players if p != action["owner"]]
                assert [a.view(p) for p in others if "check" in a.view(p)["private"]] == []
    assert reveals > 8 * games and changed > reveals // 2   # about 9 reveals a game


def test_notes_never_name_a_crew_card():
    """Notes are the public history: they say that a card was laid or turned over, never its
    value, so no one can read back who played what (§5.7)."""
    for seed in range(sweep(40, least=3)):
        game = catalog.new_game("shipshape", NAMES[:2 + seed % 5], seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            action = rng.choice(all_legal_actions(game))
            if action["player"] is None:
                action = game.chance_action()   # a reading that can happen, as random play does
            notes = game.apply(action)
            if action["type"] in ("lay_crew_card", "reveal_crew_card"):
                for note in notes:
                    assert not re.search(r"\d", note.text), note.text
