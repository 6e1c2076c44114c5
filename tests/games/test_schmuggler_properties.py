"""Schmuggler an Bord over random legal games: conservation, replay, and the memory-game secret.

The secret is *who holds which good*. Two checks guard it:

* **Indistinguishability.** At every step of a random game, a twin game is made whose holdings are
  shuffled among the players (each keeps their card count). Everything a table can see — the shared
  view, every player's view, the prompts, the legal action lists of everyone and their labels — must
  be identical in both, and the same next action (legal or not) must give the same notes or the
  same error message in both. So nothing shown, and no step of the flow, depends on the holdings.
* **Search.** The whole JSON of every view, every note, prompt, label and error message is searched
  for a good named together with a player.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import asdict

import pytest

from tableassist.table import catalog
from tableassist.games.protocol import IllegalAction
from tableassist.games.schmuggler import Schmuggler
from tests.games.random_play import all_legal_actions, random_actions
from tests.plugins.tiers import sweep

NAMES = ["Ann", "Bea", "Cy", "Dee", "Eve", "Fay"]
COMPONENTS = catalog.load_components("schmuggler")
GOODS = [g["id"] for g in COMPONENTS["goods"]]
SORTED_GOODS = sorted(GOODS)
GOOD_WORDS = frozenset({g["id"].lower() for g in COMPONENTS["goods"]}
                       | {g["name"].lower() for g in COMPONENTS["goods"]})


def new(seed: int, **options) -> Schmuggler:
    n = 3 + seed % 4
    return catalog.new_game("schmuggler", NAMES[:n], seed=seed, options=options,
                            components=COMPONENTS)


def mostly_honest_table(game: Schmuggler):
    """A chooser for random play: a looker usually answers as the cards are (the table's truth),
    sometimes not (a mistake the audit must catch); everything else is uniform."""
    def choose(rng: random.Random, options: list[dict]) -> dict:
        looks = [a for a in options if a["type"] == "look"]
        if looks and rng.random() < 0.85:
            good = game.piece.good
            holds = good in game.record(looks[0]["player"])
            fitting = [a for a in looks if a["found"] == holds]
            return rng.choice(fitting)
        return rng.choice(options)
    return choose


def check_conservation(game: Schmuggler) -> None:
    total = COMPONENTS["chips_per_player"][str(len(game.players))] * len(game.players)
    seats = [game.seat(p) for p in game.players]
    assert sum(s.chips for s in seats) + game.kitty == total
    assert all(s.chips >= 0 for s in seats)
    places = list(game.board) + list(game.draft_pool)   # the pool: not yet laid out on the board
    for seat in seats:
        held = game.record(seat.name)
        assert seat.cards == len(held)
        places += held
    assert sorted(places) == SORTED_GOODS


# -- T-SB-15, replay and the views over ≥ 1,000 random games --------------------------------------

@pytest.mark.slow  # 1,000 random games with --long, 100 by default
def test_T_SB_15_random_games_conserve_chips_and_goods_replay_and_hide_holdings():
    """Every step: chips + kitty and the 30 goods are conserved, no note names a good. At a few
    random steps per game and the last one before the end: no view ties a good to a player.
    After the end: replaying the log gives the same state, and the holdings are shown."""
    ends = {"no_chips": 0, "enough_cards": 0}
    for seed in range(sweep(1000)):
        game = new(seed)
        rng = random.Random(seed)
        checked_at = set(rng.sample(range(150), 3))
        log = []
        for step, action in enumerate(random_actions(game, rng, choose=mostly_honest_table(game))):
            if step in checked_at and not game.is_over:
                assert_views_hide_holdings(game)
            log.append(action)
            check_conservation(game)
            assert not goods_in(json.dumps(game.view(None)["last_settlement"] or {}))
        assert game.is_over, f"seed {seed}: not over after {len(log)} actions"
        for reason in ends:
            ends[reason] += bool(getattr(game.end, reason))
        replayed = new(seed)
        for action in json.loads(json.dumps(log[:-1])):
            replayed.apply(action)
        assert_views_hide_holdings(replayed)
        for note in replayed.apply(log[-1]):
            assert not goods_in(note.text)
        assert replayed.state == game.state
        result = game.result()
        assert result["winners"] == [r["player"] for r in result["ranking"] if r["rank"] == 1]
        assert all(r["score"] == 2 * r["cards"] + r["chips"] for r in result["ranking"])
        assert game.view(None)["holdings"] == {p: list(game.record(p)) for p in game.players}
    assert all(ends.values()), ends   # both end conditions occur


# -- the secret ----------------------------------------------------------------------------------

def clone(game: Schmuggler) -> Schmuggler:
    return game.copy()


def shuffled_twin(game: Schmuggler, rng: random.Random) -> Schmuggler:
    """The same game with the held goods dealt differently (each player keeps their count)."""
    twin = clone(game)
    held = [g for p in twin.players for g in twin.record(p)]
    rng.shuffle(held)
    dealt = {}
    for p in twin.players:
        n = twin.card_count(p)
        dealt[p], held = held[:n], held[n:]
    twin.set_position(holdings=dealt)
    return twin


def public(game: Schmuggler) -> str:
    """Everything anyone at the table can see now, as one string."""
    seen = {"views": [game.view(v) for v in [None, *game.players]],
            "prompts": [p.to_json() for p in game.prompts()],
            "legal": [[(a, game.label(a)) for a in game.legal_actions(v)]
                      for v in [None, *game.players]]}
    return json.dumps(seen, sort_keys=True)


def outcome(game: Schmuggler, action: dict) -> str:
    try:
        return json.dumps([n.to_json() for n in game.apply(action)])
    except IllegalAction as err:
        return "refused: " + str(err)


def candidate_actions(game: Schmuggler, rng: random.Random) -> list[dict]:
    """A few actions of every kind, most of them illegal now, to compare error messages."""
    who = [None, *game.players]
    return [
        {"type": "draft_card", "player": None, "good": rng.choice(GOODS)},
        {"type": "roll_die", "player": rng.choice(who), "face": rng.randint(0, 7)},
        {"type": "take_card", "player": rng.choice(who)},
        {"type": "suspect", "player": rng.choice(who), "suspects": rng.choice(game.players)},
        {"type": "object", "player": rng.choice(who)},
        {"type": "close_objections", "player": rng.choice(who)},
        {"type": "look", "player": rng.choice(who), "found": rng.random() < .5,
         "looked_at_all": rng.random() < .3},
        {"type": "lay_out_board", "player": None},
    ]


@pytest.mark.slow  # long random games
def test_nothing_shown_and_no_step_of_the_flow_depends_on_the_holdings():
    for seed in range(sweep(12, least=3)):
        game = new(seed)
        rng = random.Random(seed)
        while not game.is_over:
            assert public(shuffled_twin(game, rng)) == public(game)
            legal = all_legal_actions(game)
            for action in candidate_actions(game, rng) + rng.sample(legal, min(3, len(legal))):
                a, b = clone(game), shuffled_twin(game, rng)
                if all(a.record(p) == b.record(p) for p in a.players):
                    continue
                result = outcome(a, action)
                assert outcome(b, action) == result, action
                if not result.startswith("refused") and not a.is_over:
                    assert public(a) == public(b), action
            game.apply(mostly_honest_table(game)(rng, legal))


def player_names(game: Schmuggler) -> re.Pattern:
    return re.compile(r"\b(" + "|".join(map(re.escape, game.players)) + r")\b")


WORD = re.compile(r"good[ _]\d\d|[a-z]+")


def goods_in(text: str) -> list[str]:
    """The goods (by id or printed name) named in ``text``."""
    return [w for w in WORD.findall(text.lower()) if w in GOOD_WORDS]


def assert_views_hide_holdings(game: Schmuggler) -> None:
    """No view (shared or any player's) ties a good to a player, shows a private list of goods,
    the holdings or the audit; no seat entry names a good."""
    players = set(game.players)
    for viewer in [None, *game.players]:
        view = game.view(viewer)
        assert not tied(view, players), (viewer, tied(view, players))
        for seat in view["players"]:
            assert not goods_in(json.dumps(seat)), seat
            assert seat["cards"] == len(game.record(seat["name"]))
        assert view.get("private", {}) == {}
        assert "holdings" not in view and "audit" not in view


def tied(node, players: set[str]) -> list:
    """Dicts and lists (anywhere in a view) that hold both a player's name and a good's name."""
    if isinstance(node, dict):
        scalars = [*node, *(v for v in node.values() if isinstance(v, str))]
        children = node.values()
    else:
        scalars = [v for v in node if isinstance(v, str)]
        children = node
    found = [node] if (not players.isdisjoint(scalars)
                       and any(s.lower() in GOOD_WORDS for s in scalars)) else []
    for child in children:
        if isinstance(child, (dict, list)):
            found += tied(child, players)
    return found


@pytest.mark.slow  # long random games
def test_no_view_note_prompt_label_or_error_names_a_good_with_a_player():
    for seed in range(sweep(30, least=3)):
        game = new(seed)
        rng = random.Random(seed)
        names = player_names(game)
        players = set(game.players)
        while not game.is_over:
            assert_views_hide_holdings(game)
            for prompt in game.prompts():
                assert not goods_in(prompt.text), prompt.text
            for viewer in [None, *game.players]:
                for action in game.legal_actions(viewer):
                    label = game.label(action)
                    assert not (goods_in(label) and names.search(label)), label
            for action in candidate_actions(game, rng):
                probe = clone(game)
                try:
                    notes = probe.apply(action)
                except IllegalAction as err:
                    assert not (goods_in(str(err)) and names.search(str(err))), str(err)
                else:
                    assert not any(goods_in(n.text) for n in notes), notes
            for note in game.apply(mostly_honest_table(game)(rng, all_legal_actions(game))):
                assert not goods_in(note.text), note.text
        # after the end, every holding is shown
        view = game.view(None)
        assert view["holdings"] == {p: list(game.record(p)) for p in game.players}
        assert view["audit"] == [{k: v for k, v in asdict(e).items()
                                  if k != "exchanged" or v is not None} for e in game.audit]


def test_assist_mode_shows_each_player_their_own_goods_only():
    for seed in range(sweep(20, least=3)):
        plain, assisted = new(seed), new(seed, assist_mode=True)
        rng = random.Random(seed)
        while not plain.is_over:
            assert assisted.view(None) == plain.view(None)
            for p in plain.players:
                mine = assisted.view(p)
                assert mine["private"] == {"goods": list(plain.record(p))}
                assert mine == plain.view(p) | {"private": mine["private"]}
            action = mostly_honest_table(plain)(rng, all_legal_actions(plain))
            assert plain.apply(action) == assisted.apply(action)
