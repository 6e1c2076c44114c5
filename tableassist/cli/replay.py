"""Replay a game log (one JSON action per line) and print the resulting view as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from tableassist import cli
from tableassist.cli.language import os_reason, reason, say
from tableassist.games.messages import Message
from tableassist.table import catalog
from tableassist.games.protocol import Game, IllegalAction, SetupError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True,
                        help=Message("replay.help.game", "game id: {games}",
                                     games=tuple(catalog.game_ids())))
    parser.add_argument("--players", required=True,
                        help=Message("replay.help.players", "comma-separated names in clockwise "
                                     "seat order, e.g. Ann,Bea,Cy"))
    parser.add_argument("--seed", type=cli.seed, default=0,
                        help=Message("replay.help.seed", "the game's seed (default 0)"))
    parser.add_argument("--options", default="{}",
                        help=Message("replay.help.options", "JSON object of option overrides"))
    parser.add_argument("--viewer", default=None,
                        help=Message("replay.help.viewer", "print this player's private view "
                                     "(default: the shared screen)"))
    parser.add_argument("actions", metavar="ACTIONS.jsonl",
                        help=Message("replay.help.actions", "one JSON action per line; '-' reads "
                                     "standard input"))


def replay_lines(game: Game[Any, Any], lines: TextIO) -> Message | None:
    """Apply each line's action to ``game``. Returns ``None``, or ``"line N: reason"`` for the
    first malformed or illegal line (the game is then as it was before that line)."""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            action = json.loads(text)
        except json.JSONDecodeError as exc:
            return Message("replay.not_json", "line {line}: not valid JSON (at column {column})",
                           line=number, column=exc.colno)
        except RecursionError:
            return Message("replay.too_deep", "line {line}: not an action (its JSON is nested too "
                           "deeply to read)", line=number)
        try:
            game.apply(action)
        except IllegalAction as exc:
            return Message("replay.refused", "line {line}: {why}", line=number, why=exc.message)
    return None


def run(args: argparse.Namespace) -> int:
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    try:
        options = json.loads(args.options)
        if not isinstance(options, dict):
            raise ValueError("must be a JSON object")
    except ValueError:
        print(say(Message("replay.options", "--options: not a JSON object of options, e.g. "
                          "{example}", example='{"rounds":3}')), file=sys.stderr)
        return 2
    except RecursionError:
        print(say(Message("replay.options_deep", "--options: not an object of options (nested too "
                          "deeply to read)")), file=sys.stderr)
        return 2
    try:
        game = catalog.new_game(args.game, players, seed=args.seed, options=options)
    except SetupError as exc:
        print(say(Message("replay.cannot_start", "cannot start the game: {why}", why=reason(exc))),
              file=sys.stderr)
        return 2
    try:
        if args.actions == "-":
            error = replay_lines(game, sys.stdin)
        else:
            with open(args.actions, encoding="utf-8") as f:
                error = replay_lines(game, f)
    except UnicodeDecodeError:
        print(say(Message("replay.not_utf8", "cannot read {file}: it is not UTF-8 text",
                          file=args.actions)), file=sys.stderr)
        return 2
    except OSError as exc:
        print(say(Message("replay.cannot_read", "cannot read {file}: {why}", file=args.actions,
                          why=os_reason(exc))), file=sys.stderr)
        return 2
    if args.viewer is not None and args.viewer not in game.players:
        print(say(Message("replay.not_a_player", "--viewer {viewer} is not one of the players",
                          viewer=repr(args.viewer))), file=sys.stderr)
        return 2
    if error:
        print(say(error), file=sys.stderr)
    json.dump(game.view(args.viewer), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 2 if error else 0
