"""Which games exist, where their component data lives, and how a game is created or restored.

This is the one place that reads the games' data files (``tableassist/games/data/<game>.toml``), so
the engines themselves stay free of file access.
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from tableassist.games.protocol import Game, SetupError, unverified_values

__all__ = ["ENGINES", "engine_class", "game_ids", "load_components", "new_game", "restore",
           "unverified_values"]

#: game id -> "module:Class" of its engine. A game is listed here once its engine is complete.
ENGINES: dict[str, str] = {
    "shipwrecked": "tableassist.games.shipwrecked:Shipwrecked",
    "shipshape": "tableassist.games.shipshape:ShipShape",
    "abandon_ship": "tableassist.games.abandon_ship:AbandonShip",
    "wreckers": "tableassist.games.wreckers:Wreckers",
    "schmuggler": "tableassist.games.schmuggler:Schmuggler",
}


def game_ids() -> list[str]:
    return list(ENGINES)


def engine_class(game_id: str) -> type[Game]:
    try:
        target = ENGINES[game_id]
    except KeyError:
        raise SetupError(f"unknown game {game_id!r}; choose one of: "
                         + ", ".join(ENGINES)) from None
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


@cache
def _load_components(game_id: str) -> dict[str, Any]:
    engine_class(game_id)  # a clear error for an unknown game before any file is opened
    text = resources.files("tableassist.games").joinpath("data", f"{game_id}.toml").read_text(
        encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"the data file of {game_id} cannot be read: {exc}") from None


def load_components(game_id: str) -> dict[str, Any]:
    """The parsed data file of ``game_id`` (a fresh copy the caller may keep)."""
    import copy
    return copy.deepcopy(_load_components(game_id))


def new_game(game_id: str, players: Sequence[str], *, seed: int = 0,
             options: Mapping[str, Any] | None = None,
             components: Mapping[str, Any] | None = None) -> Game:
    """Create a new game of ``game_id`` for ``players`` (clockwise seat order).

    ``components`` defaults to the game's data file; a saved game passes the data it started with,
    so editing the data file never changes a game already being played.
    """
    cls = engine_class(game_id)
    if components is None:
        components = load_components(game_id)
    return cls(players, seed=seed, options=options, components=components)


def restore(snapshot: Mapping[str, Any], components: Mapping[str, Any] | None = None) -> Game:
    """A game from :meth:`Game.to_json` output."""
    game_id = snapshot.get("game")
    cls = engine_class(str(game_id))
    if components is None:
        components = load_components(cls.game_id)
    return cls.from_json(snapshot, components)
