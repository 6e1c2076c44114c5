"""The game protocol, checked for every engine in the catalog."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap

import pytest

from tableassist.table import catalog
from tableassist.games.protocol import IllegalAction, Message, SetupError
from tests.games.random_play import all_legal_actions, play_random_game, random_actions

GAMES = catalog.game_ids()


def players_for(game_id: str) -> list[str]:
    cls = catalog.engine_class(game_id)
    return ["Ann", "Bea", "Cy", "Dee", "Eve", "Fay"][:max(cls.min_players, 3)][:cls.max_players]


def test_engines_are_pure():
    """No engine imports cv2, flask, socketio, sqlite3 or sockets, nor opens a file."""
    code = textwrap.dedent("""
        import builtins, importlib.abc, io, os, sys
        from tableassist.table import catalog
        comps = {g: catalog.load_components(g) for g in catalog.game_ids()}
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split('.')[0] in {'cv2', 'flask', 'flask_socketio', 'socketio',
                                          'sqlite3', '_sqlite3', 'socket', 'numpy'}:
                    raise ImportError('engines must not import ' + name)
        for m in [m for m in sys.modules if m.split('.')[0] in {'sqlite3', 'socket'}]:
            del sys.modules[m]
        sys.meta_path.insert(0, Block())
        def no_files(*a, **k):
            raise AssertionError('engines must not open files')
        builtins.open = io.open = os.open = no_files
        import random
        for g in catalog.game_ids():
            cls = catalog.engine_class(g)
            names = ['Ann', 'Bea', 'Cy', 'Dee'][:max(cls.min_players, 3)][:cls.max_players]
            game = catalog.new_game(g, names, seed=1, components=comps[g])
            rng = random.Random(1)
            for _ in range(300):
                if game.is_over:
                    break
                acts = list(game.legal_actions(None))
                for p in game.players:
                    acts += game.legal_actions(p)
                act = rng.choice(acts)
                game.apply(game.chance_action() if act['player'] is None else act)
                game.view(None); game.prompts()
        print('ok')
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("game_id", GAMES)
def test_json_round_trip_and_replay_equal_live_state(game_id):
    for seed in range(5):
        game = catalog.new_game(game_id, players_for(game_id), seed=seed)
        log = play_random_game(game, seed, max_actions=400)
        snapshot = json.loads(json.dumps(game.to_json()))
        restored = catalog.restore(snapshot)
        assert restored.to_json() == game.to_json()
        assert restored.view(None) == game.view(None)
        replayed = catalog.new_game(game_id, players_for(game_id), seed=seed)
        for action in json.loads(json.dumps(log)):
            replayed.apply(action)
        assert replayed.to_json() == game.to_json()


@pytest.mark.parametrize("game_id", GAMES)
def test_bad_input_is_refused_without_change(game_id):
    game = catalog.new_game(game_id, players_for(game_id), seed=3)
    play_random_game(game, 3, max_actions=30)
    before = json.dumps(game.to_json(), sort_keys=True)
    bad = [None, 42, "bid", [], {}, {"type": ""}, {"type": "no_such_action", "player": "Ann"},
           {"type": "__init__", "player": "Ann"}, {"player": "Ann"},
           {"type": game.action_types()[0], "player": "Nobody"},
           {"type": game.action_types()[0]}]
    for action in bad:
        with pytest.raises(IllegalAction) as err:
            game.apply(action)
        assert str(err.value)
        assert json.dumps(game.to_json(), sort_keys=True) == before
    # every action type with every field missing but type and player
    for kind in game.action_types():
        for player in [None, *game.players]:
            legal = [a for a in all_legal_actions(game) if a == {"type": kind, "player": player}]
            if legal:
                continue
            with pytest.raises(IllegalAction):
                game.apply({"type": kind, "player": player})
            assert json.dumps(game.to_json(), sort_keys=True) == before


@pytest.mark.parametrize("game_id", GAMES)
def test_setup_errors_are_clear(game_id):
    cls = catalog.engine_class(game_id)
    with pytest.raises(SetupError, match="players"):
        catalog.new_game(game_id, ["Solo"] * 1)
    with pytest.raises(SetupError, match="unique"):
        catalog.new_game(game_id, ["Ann"] * cls.min_players)
    with pytest.raises(SetupError, match="unknown option"):
        catalog.new_game(game_id, players_for(game_id), options={"no_such_option": 1})


@pytest.mark.parametrize("game_id", GAMES)
def test_names_are_stripped_and_names_alike_but_for_capitals_refused(game_id):
    n = catalog.engine_class(game_id).min_players
    names = players_for(game_id)[:n]
    game = catalog.new_game(game_id, [f" {p}\t" for p in names])
    assert game.players == tuple(names)
    assert game.view(None) == catalog.new_game(game_id, names).view(None)
    for twin in (names[0].lower(), names[0].upper() + " ", f"  {names[0]}"):
        with pytest.raises(SetupError, match="unique") as refused:
            catalog.new_game(game_id, [*names[:-1], twin])
        assert repr(names[0]) in str(refused.value) and repr(twin.strip()) in str(refused.value)
    with pytest.raises(SetupError, match="non-empty name"):
        catalog.new_game(game_id, [*names[:-1], " \t "])


@pytest.mark.parametrize("game_id", GAMES)
def test_prompts_and_views_are_json(game_id):
    game = catalog.new_game(game_id, players_for(game_id), seed=5)
    for _ in range(3):
        json.dumps(game.view(None))
        for p in game.players:
            json.dumps(game.view(p))
        for prompt in game.prompts():
            assert prompt.text and prompt.rule.startswith(("R-", "G-")), prompt
        play_random_game(game, 5, max_actions=20)


def test_competition_ranks_share_places_and_skip_the_next():
    from tableassist.games.protocol import competition_ranks
    score = {"Ann": 5, "Bea": 9, "Cy": 5, "Dee": 1}
    assert competition_ranks(list(score), lambda p: -score[p]) == \
        [("Bea", 1), ("Ann", 2), ("Cy", 2), ("Dee", 4)]


@pytest.mark.parametrize("game_id", GAMES)
def test_the_result_sheet_and_tally_are_messages_in_words(game_id):
    """The end screen's breakdown (``result()["sheet"]``) and chart (``tally()``): every label a
    Message with the game's own id, every value a number or words, for every player."""
    game = catalog.new_game(game_id, players_for(game_id), seed=3)
    tally = game.tally()
    assert tally is not None and isinstance(tally.label, Message) and isinstance(tally.unit, Message)
    play_random_game(game, 3)
    while game.result() is None:  # Abandon Ship: the tiles are shown after the end (R-AS-11)
        game.apply(game.legal_actions(None)[0])
    sheet = json.loads(json.dumps(game.result()["sheet"]))
    assert sheet
    for row in sheet:
        assert row["id"].startswith(f"{game_id}.sheet."), row
        assert row["label"] and not row["label"].isupper(), row
        assert set(row["values"]) == set(game.players), row
        assert all(isinstance(v, (int, str)) for v in row["values"].values()), row
        for player, words in row.get("messages", {}).items():
            assert words["id"].startswith(f"{game_id}.sheet.") and row["values"][player]


#: Where a game's views show the round (``Game.round``), for the games that count one.
ROUND_IN_VIEW = {"wreckers": "round", "shipshape": "voyage"}


@pytest.mark.parametrize("game_id", GAMES)
def test_the_table_facts_are_what_the_views_show(game_id):
    """What the server, the venue and the chart ask of the engine's typed surface (is it over,
    whose turn, who went first, the round, the timer, the charted tally) is what its shared view
    shows, at every step of random games: the surface and the screens never disagree."""
    cls = catalog.engine_class(game_id)
    for seed in range(2):
        game = catalog.new_game(game_id, players_for(game_id), seed=seed)
        steps = random_actions(game, random.Random(seed), max_actions=600)
        while True:
            view = game.view(None)
            assert game.is_over is view["over"]
            assert game.turn == view["turn"]
            assert game.first_player == view.get("first_player")
            key = ROUND_IN_VIEW.get(game_id)
            assert game.round == (None if key is None else view[key])
            timer = game.timer
            assert view.get("timer") == (None if timer is None else {
                "seconds": timer.seconds, "action": dict(timer.action)})
            if timer is not None:
                assert timer.label == game.label(timer.action)
            if cls.round_chart is not None:
                tally = game.tally()
                assert tally is not None and dict(tally.values) == {
                    p["name"]: p[cls.round_chart.name] for p in view["players"]}
            if next(steps, None) is None:
                break
