"""Random legal play, for property tests and benchmarks of every engine.

Each step gathers the legal actions of every player and of the table (chance outcomes, reveals)
and picks one at random, as OpenSpiel's random-simulation tests do.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from tableassist.games.protocol import Game


def all_legal_actions(game: Game) -> list[dict[str, Any]]:
    actions = list(game.legal_actions(None))
    for player in game.players:
        actions.extend(game.legal_actions(player))
    return actions


def random_actions(game: Game, rng: random.Random, *, max_actions: int = 5000,
                   choose: Callable[[random.Random, list[dict[str, Any]]], dict[str, Any]]
                   | None = None) -> Iterator[dict[str, Any]]:
    """Play ``game`` forward with random legal actions, yielding each action after applying it.

    A table input is drawn by the engine's :meth:`Game.chance_action` (seeded by the state).

    Stops when the game is over or after ``max_actions``. Raises ``AssertionError`` if the game
    is not over but nobody has a legal action (a stuck engine is a bug)."""
    for _ in range(max_actions):
        if game.is_over:
            return
        options = all_legal_actions(game)
        assert options, f"game stuck: not over, but no legal action; prompts={game.prompts()}"
        action = (choose or random.Random.choice)(rng, options)
        if action["player"] is None:
            # The table's turn: the engine's own draw, which only yields possible outcomes even
            # where legal_actions(None) lists every publicly possible one (ShipShape's crew
            # values: listing only the possible ones would show a hand on the shared screen).
            action = game.chance_action() or action
        game.apply(action)
        yield action


def submit_random(session: Any, rng: random.Random) -> bool:
    """One seeded random legal action submitted to a table's ``session`` (a table input drawn by
    the engine, as in :func:`random_actions`); False when there is none left (the game is over;
    Abandon Ship once its last tiles are shown)."""
    game = session.game
    if game.is_over:
        table = game.legal_actions(None)   # Abandon Ship: the tiles still to be shown
        if game.result() is not None or not table:
            return False
        session.submit(table[0])
        return True
    action = rng.choice(all_legal_actions(game))
    if action["player"] is None:
        action = game.chance_action() or action
    session.submit(action)
    return True


def play_random_game(game: Game, seed: int, **kwargs: Any) -> list[dict[str, Any]]:
    """The log of one random legal game (the game is left in its final state)."""
    return list(random_actions(game, random.Random(seed), **kwargs))
