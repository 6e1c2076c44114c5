"""Random legal games of every engine as hypothesis state machines, through the public protocol only.

``hypothesis.stateful`` plays each game: the players at the table and the options are drawn from
the game's data file (``option_choices``), every step is an action drawn from ``legal_actions``
(first its type, then one of that type, so 81 possible reveals do not drown a STOP), and the
invariants below are checked after every step. A failing game is shrunk by hypothesis to a short
log that still fails, and printed as the steps that reproduce it.

Nothing here reads an engine's state: only ``legal_actions``, ``apply``, ``view``, ``prompts``,
``is_over``, ``result``, ``label`` and ``to_json``. The engines' own property tests
(``test_*_properties.py``) check each game's conservation laws and secrets over 1,000 games; these
check the contract every engine shares, and shrink what they find.

The settings are modest (``SETTINGS``); the ``ci`` profile (tests/conftest.py) derandomizes them
so CI runs the same games every time.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule, run_state_machine_as_test)

from tableassist.games.protocol import Game, IllegalAction
from tableassist.table import catalog
from tests.games.random_play import all_legal_actions
from tests.plugins.tiers import sweep

NAMES = ("Ann", "Bea", "Cy", "Dee", "Eve", "Fay")
COMPONENTS = {game_id: catalog.load_components(game_id) for game_id in catalog.game_ids()}
#: Enough steps to end a short game now and then (Shipwrecked, Schmuggler: 50-200 actions) and
#: to reach the middle of a long one (Wreckers: ~400); the engines' property tests play to the end.
SETTINGS = settings(max_examples=sweep(10, least=3), stateful_step_count=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def frozen(game: Game) -> str:
    """The whole game as one comparable text."""
    return json.dumps(game.to_json(), sort_keys=True)


class PlayedGame(RuleBasedStateMachine):
    """One game of :attr:`game_id`, from its setup to (perhaps) its end."""

    game_id: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__()
        self.game: Game | None = None
        self.setup: dict[str, Any] = {}
        self.log: list[dict[str, Any]] = []

    @property
    def table(self) -> Game:
        assert self.game is not None
        return self.game

    @initialize(data=st.data())
    def sit_down(self, data: st.DataObject) -> None:
        cls = catalog.engine_class(self.game_id)
        choices = COMPONENTS[self.game_id].get("option_choices", {})
        n = data.draw(st.integers(cls.min_players, min(cls.max_players, len(NAMES))),
                      label="players")
        options = data.draw(st.fixed_dictionaries(
            {name: st.sampled_from(values) for name, values in sorted(choices.items())}),
            label="options")
        seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
        self.setup = {"players": list(NAMES[:n]), "seed": seed, "options": options}
        self.game = self._new()

    def _new(self) -> Game:
        return catalog.new_game(self.game_id, self.setup["players"], seed=self.setup["seed"],
                                options=self.setup["options"], components=COMPONENTS[self.game_id])

    # -- steps -------------------------------------------------------------------------------

    @precondition(lambda self: bool(all_legal_actions(self.table)))
    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        """Someone (a player, or the table) does one of the things the engine lists; after the
        end, that is only what the engine takes then (Abandon Ship's tiles revealed)."""
        game = self.table
        options = all_legal_actions(game)
        kind = data.draw(st.sampled_from(sorted({a["type"] for a in options})), label="type")
        action = data.draw(st.sampled_from([a for a in options if a["type"] == kind]),
                           label="action")
        before = frozen(game)
        try:
            notes = game.apply(action)
        except IllegalAction as refused:
            # Only the table's list may hold an outcome that a secret rules out (ShipShape's
            # crew values, docs/protocol.md "Secrets in the table's list"): refused, no trace.
            assert action["player"] is None, f"listed for {action['player']}, refused: {refused}"
            assert str(refused) and frozen(game) == before
            return
        self.log.append(action)
        assert all(isinstance(n.to_json()["text"], str) for n in notes)

    @precondition(lambda self: not self.table.is_over and len(self.table.players) > 1)
    @rule(data=st.data())
    def act_for_someone_else(self, data: st.DataObject) -> None:
        """A player's action, made by another player it is not listed for, is refused in words
        and changes nothing."""
        game = self.table
        mine = [(p, a) for p in game.players for a in game.legal_actions(p)]
        if not mine:
            return
        player, action = data.draw(st.sampled_from(mine), label="someone's action")
        other = data.draw(st.sampled_from([p for p in game.players if p != player]),
                          label="made by")
        forged = {**action, "player": other}
        if forged in game.legal_actions(other):
            return  # the other player may do it too
        before = frozen(game)
        with pytest.raises(IllegalAction) as refused:
            game.apply(forged)
        assert str(refused.value) and frozen(game) == before

    @precondition(lambda self: self.table.is_over)
    @rule()
    def after_the_end(self) -> None:
        """The game is over: a player's action is refused as such (unless the engine takes that
        kind after the end)."""
        game = self.table
        kind = sorted(set(game.action_types()) - game.actions_after_end)[0]
        before = frozen(game)
        with pytest.raises(IllegalAction, match="the game is over"):
            game.apply({"type": kind, "player": game.players[0]})
        assert frozen(game) == before

    # -- after every step -------------------------------------------------------------------

    @invariant()
    def each_list_is_its_players(self) -> None:
        game = self.table
        for player in (None, *game.players):
            actions = game.legal_actions(player)
            assert all(a["player"] == player for a in actions), player
            assert all(isinstance(game.label(a), str) and game.label(a) for a in actions)

    @invariant()
    def a_players_view_adds_only_their_private_part(self) -> None:
        game = self.table
        shared = game.view(None)
        assert "private" not in shared
        public = {k: v for k, v in shared.items() if k != "viewer"}
        for player in game.players:
            view = game.view(player)
            assert set(view) - set(shared) <= {"private"}
            assert {k: v for k, v in view.items() if k not in ("private", "viewer")} == public
        json.dumps([shared, [p.to_json() for p in game.prompts()]])

    @invariant()
    def the_game_survives_a_json_round_trip(self) -> None:
        game = self.table
        again = catalog.restore(json.loads(json.dumps(game.to_json())), COMPONENTS[self.game_id])
        assert frozen(again) == frozen(game)
        assert again.view(None) == game.view(None)
        assert all(again.legal_actions(p) == game.legal_actions(p) for p in (None, *game.players))

    @invariant()
    def the_end_comes_once_with_its_result(self) -> None:
        """Not over: someone may act (a stuck engine is a bug). Over: only the kinds the engine
        takes after the end are listed, and once nothing is, the result is there. A result
        exists only once the game is over."""
        game = self.table
        listed = all_legal_actions(game)
        if not game.is_over:
            assert listed, f"not over, but nobody may act; prompts: {game.prompts()}"
            assert game.result() is None
        else:
            assert {a["type"] for a in listed} <= game.actions_after_end
            assert listed or game.result() is not None

    def teardown(self) -> None:
        """Same actions in, same game out: the log replayed on a new game gives this one."""
        if self.game is None:
            return
        replayed = self._new()
        for action in json.loads(json.dumps(self.log)):
            replayed.apply(action)
        assert frozen(replayed) == frozen(self.game)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", catalog.game_ids())
def test_random_legal_games_keep_the_protocol(game_id):
    machine = type(f"Played_{game_id}", (PlayedGame,), {"game_id": game_id})
    run_state_machine_as_test(machine, settings=SETTINGS)
