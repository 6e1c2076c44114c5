"""`tableassist replay`: a logged game checked outside the tablet."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tableassist.table import catalog
from tableassist.cli import main
from tests.games.random_play import play_random_game

GAMES = catalog.game_ids()


def players_for(game_id: str) -> list[str]:
    cls = catalog.engine_class(game_id)
    return ["Ann", "Bea", "Cy", "Dee"][:max(cls.min_players, 3)][:cls.max_players]


def write_log(path, actions, extra_lines=()):
    lines = ["# a comment line is skipped", *(json.dumps(a) for a in actions), *extra_lines]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("game_id", GAMES)
def test_replay_prints_the_view_of_the_replayed_game(tmp_path, capsys, game_id):
    players = players_for(game_id)
    game = catalog.new_game(game_id, players, seed=4)
    actions = play_random_game(game, 4, max_actions=80)
    write_log(tmp_path / "log.jsonl", actions)
    code = main(["replay", "--game", game_id, "--players", ",".join(players), "--seed", "4",
                 str(tmp_path / "log.jsonl")])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out) == json.loads(json.dumps(game.view(None)))
    code = main(["replay", "--game", game_id, "--players", ",".join(players), "--seed", "4",
                 "--viewer", players[1], str(tmp_path / "log.jsonl")])
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(game.view(players[1])))


@pytest.mark.parametrize("game_id", GAMES)
def test_replay_stops_at_the_first_bad_line(tmp_path, capsys, game_id):
    players = players_for(game_id)
    game = catalog.new_game(game_id, players, seed=5)
    actions = play_random_game(game, 5, max_actions=10)
    write_log(tmp_path / "log.jsonl", actions, ['{"type": "teleport", "player": "Ann"}', "{}"])
    code = main(["replay", "--game", game_id, "--players", ",".join(players), "--seed", "5",
                 str(tmp_path / "log.jsonl")])
    out = capsys.readouterr()
    assert code == 2
    assert out.err.startswith(f"line {len(actions) + 2}: ")
    assert "teleport" in out.err
    assert json.loads(out.out) == json.loads(json.dumps(game.view(None)))

    write_log(tmp_path / "bad.jsonl", actions[:1], ["{not json"])
    code = main(["replay", "--game", game_id, "--players", ",".join(players), "--seed", "5",
                 str(tmp_path / "bad.jsonl")])
    assert code == 2
    assert capsys.readouterr().err.startswith("line 3: not valid JSON")


def test_replay_reports_setup_and_file_errors_without_traceback(tmp_path, capsys):
    game_id = GAMES[0] if GAMES else "shipwrecked"
    assert main(["replay", "--game", "chess", "--players", "A,B", str(tmp_path / "x")]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    if GAMES:
        assert main(["replay", "--game", game_id, "--players", "A",
                     str(tmp_path / "x")]) == 2
        assert "players" in capsys.readouterr().err
        assert main(["replay", "--game", game_id, "--players", "A,B,C",
                     str(tmp_path / "missing.jsonl")]) == 2
        assert "cannot read" in capsys.readouterr().err
        assert main(["replay", "--game", game_id, "--players", "A,B,C", "--options", "[1]",
                     str(tmp_path / "missing.jsonl")]) == 2
        assert "--options" in capsys.readouterr().err


@pytest.mark.parametrize("game_id", GAMES)
def test_documented_example_game_replays(game_id):
    """docs/games/<game>.example.jsonl starts with the exact replay command in a comment."""
    import pathlib
    import shlex
    example = pathlib.Path(__file__).parents[1] / "docs" / "games" / f"{game_id}.example.jsonl"
    assert example.exists(), f"{example} is missing"
    first = example.read_text().splitlines()[0]
    assert first.startswith("#") and "tableassist replay" in first
    argv = shlex.split(first.lstrip("# ").strip())
    argv = argv[argv.index("replay"):]
    argv[-1] = str(example)
    out = subprocess.run([sys.executable, "-m", "tableassist", *argv], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["game"] == game_id


def test_replay_answers_json_nested_too_deeply_in_one_sentence(tmp_path, capsys):
    """A line (or --options) of a hundred thousand brackets overflows Python's JSON reader: one
    sentence, not a RecursionError's traceback."""
    game_id = GAMES[0]
    log = tmp_path / "deep.jsonl"
    log.write_text("[" * 100_000 + "\n")
    assert main(["replay", "--game", game_id, "--players", "A,B,C", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("line 1: not an action") and "\n" not in err.strip()
    assert main(["replay", "--game", game_id, "--players", "A,B,C", "--options",
                 "[" * 100_000, str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--options: ") and "\n" not in err.strip()
