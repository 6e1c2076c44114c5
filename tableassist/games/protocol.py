"""The game protocol every rules engine follows.

An engine is a pure state machine, in the manner of OpenSpiel's games: it takes actions (plain JSON
objects with a ``type`` and the acting ``player``), refuses illegal ones with :class:`IllegalAction`
and leaves its state untouched, lists legal actions, and shows per-viewer views. It never touches
files, sockets, cameras or clocks: components arrive as already-parsed data, chance outcomes arrive
as actions from the table, and the only randomness (for simulation and demo) comes from the seed
kept in the state.

A subclass supplies:

* ``game_id`` and ``min_players``/``max_players``;
* ``setup(self)`` that fills ``self.state`` (a JSON-ready dict) for a new game;
* one method ``on_<type>(self, action) -> list[Note]`` per action type;
* ``legal_actions``, ``view``, ``prompts``, ``is_over`` and ``result``.

The base class gives every engine the same checks on an action's shape, atomic ``apply`` (a failed
action restores the state snapshot, whatever the handler had already changed), JSON round-trip and
a seeded chance generator.
"""

from __future__ import annotations

import marshal
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

Action = dict[str, Any]
"""An action: a JSON object with at least ``type`` (str) and ``player`` (a player's name, or
``None`` for an input the table itself supplies, such as a card turned over or a die rolled)."""


class IllegalAction(ValueError):
    """An action the rules do not allow now. The message says what was wrong, in the table's words,
    and cites the rule (``"Bea cannot stop: … (R-SW-07)"``). It never contains hidden information."""


class SetupError(ValueError):
    """A game cannot be created as asked (wrong player count, unknown option, bad option value)."""


@dataclass(frozen=True)
class Note:
    """One public line of the game's history, produced by an applied action.

    Notes are safe for the shared screen: an engine writes "Ann laid a bid card", never its type.
    ``rule`` is the SPEC id the step carries out (``"R-SW-09"``), or ``""``.
    """

    text: str
    rule: str = ""

    def to_json(self) -> dict[str, str]:
        return {"text": self.text, "rule": self.rule}


@dataclass(frozen=True)
class Prompt:
    """Who must do what next, in plain words, with the rule that asks for it.

    ``player`` is ``None`` when the table as a whole must act (turn a card over, roll the dice) or
    when naming the player would leak a secret (who may stop). ``actions`` lists the action types
    that answer the prompt, so a tablet can offer the right buttons.
    """

    text: str
    rule: str
    player: str | None = None
    actions: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "text": self.text, "rule": self.rule,
                "actions": list(self.actions)}


def merge_options(defaults: Mapping[str, Any], given: Mapping[str, Any] | None,
                  choices: Mapping[str, Sequence[Any]] | None = None) -> dict[str, Any]:
    """Options of a new game: the data file's defaults overridden by ``given``.

    Unknown names and values outside ``choices`` (when the data file lists them) raise
    :class:`SetupError`, so a typo in ``--options`` is reported rather than silently ignored.
    """
    options = dict(defaults)
    for name, value in (given or {}).items():
        if name not in defaults:
            known = ", ".join(sorted(defaults)) or "none"
            raise SetupError(f"unknown option {name!r}; this game's options are: {known}")
        allowed = (choices or {}).get(name)
        if allowed is not None and value not in allowed:
            raise SetupError(f"option {name!r} cannot be {value!r}; choose one of "
                             + ", ".join(repr(a) for a in allowed))
        options[name] = value
    return options


def unverified_values(components: Mapping[str, Any]) -> list[str]:
    """Paths of data entries marked ``verified = false`` (SPEC X5), for the on-screen banner."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            if node.get("verified") is False:
                found.append(path or "(top)")
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                label = value.get("id", i) if isinstance(value, Mapping) else i
                walk(value, f"{path}[{label}]")

    walk(components, "")
    return found


def competition_ranks(players: Sequence[str], key: Callable[[str], Any]) -> list[tuple[str, int]]:
    """``players`` best first by ``key`` (smaller is better), each with its place; equal keys
    share a place and the next place is skipped (1, 1, 3), as a shared win reads at the table."""
    order = sorted(players, key=key)
    ranked: list[tuple[str, int]] = []
    for i, player in enumerate(order):
        same = i > 0 and key(player) == key(order[i - 1])
        ranked.append((player, ranked[-1][1] if same else i + 1))
    return ranked


class Game:
    """Base class of the five rules engines. See the module docstring for the contract."""

    game_id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    #: Action types still accepted once the game is over (say, tiles revealed at the end).
    actions_after_end: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, players: Sequence[str], *, seed: int = 0,
                 options: Mapping[str, Any] | None = None,
                 components: Mapping[str, Any]) -> None:
        """Start a new game. ``players`` are names in clockwise seat order (SPEC X4), checked
        by :meth:`player_names`; ``components`` is the game's parsed data file; ``options``
        override its defaults."""
        self.players: tuple[str, ...] = self.player_names(players)
        self.seed = int(seed)
        self.components: Mapping[str, Any] = components
        self.options: dict[str, Any] = merge_options(
            components.get("options", {}), options, components.get("option_choices"))
        self.actions_applied = 0
        self.state: dict[str, Any] = {}
        self.setup()

    @classmethod
    def player_names(cls, players: Sequence[str]) -> tuple[str, ...]:
        """The players' names as a game of this kind keeps them: without surrounding spaces, as
        many as the game is for, none empty, and no two alike when capitals are ignored ("Ann"
        and "ann " would be one player to the table, two to the engine). :class:`SetupError`
        with the reason otherwise."""
        players = tuple(players)
        if not cls.min_players <= len(players) <= cls.max_players:
            raise SetupError(f"{cls.title or cls.game_id} is for {cls.min_players}–"
                             f"{cls.max_players} players, not {len(players)}")
        if not all(isinstance(name, str) and name.strip() for name in players):
            raise SetupError("every player needs a non-empty name")
        names = tuple(name.strip() for name in players)
        seen: dict[str, str] = {}
        for name in names:
            other = seen.setdefault(name.casefold(), name)
            if other == name and names.count(name) > 1:
                raise SetupError(f"two players are called {name!r}; names must be unique")
            if other != name:
                raise SetupError(f"{other!r} and {name!r} are the same name at the table "
                                 "(capitals and spaces around a name do not count); names "
                                 "must be unique")
        return names

    # -- what a subclass writes ------------------------------------------------------------

    def setup(self) -> None:
        """Fill ``self.state`` for a new game (the rulebook's set-up)."""
        raise NotImplementedError

    def legal_actions(self, player: str | None) -> list[Action]:
        """Every action ``player`` may take now, fully specified. ``None`` asks for the inputs the
        table supplies (chance outcomes, reveals, the stop-window timer); engines keep that list
        small by taking simultaneous chance one item at a time (one die, one card).

        The list may be shown on the shared screen, so it never depends on a secret: where only
        some outcomes are possible and which ones is hidden (the values left in a player's hand),
        it lists every publicly possible outcome, and :meth:`chance_action` draws only possible
        ones. :meth:`apply` must not refuse one for the secret either: a refusal tells the secret
        to whoever tries (docs/protocol.md, "Secrets in every channel")."""
        raise NotImplementedError

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """What ``viewer`` may see, JSON-ready. ``None`` is the shared table screen."""
        raise NotImplementedError

    def prompts(self) -> list[Prompt]:
        """Who must do what next. Safe for the shared screen."""
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        raise NotImplementedError

    def result(self) -> dict[str, Any] | None:
        """``None`` while the game runs; then the ranking, ``winners`` and per-player scores
        with their breakdown."""
        raise NotImplementedError

    # -- what the base class gives ---------------------------------------------------------

    def apply(self, action: Any) -> list[Note]:
        """Apply one action, or raise :class:`IllegalAction` and leave the state untouched.

        Returns the public notes the action produced (for the history)."""
        if not isinstance(action, Mapping):
            raise IllegalAction(f"an action must be a JSON object, not {type(action).__name__}")
        kind = action.get("type")
        if not isinstance(kind, str) or not kind:
            raise IllegalAction("an action needs a 'type'")
        handler = getattr(self, "on_" + kind, None) if kind.isidentifier() else None
        if handler is None:
            raise IllegalAction(f"{self.title or self.game_id} has no action {kind!r}; it knows: "
                                + ", ".join(self.action_types()))
        if "player" not in action:
            raise IllegalAction(f"action {kind!r} needs a 'player' (a name, or null for the table)")
        player = action["player"]
        if player is not None and player not in self.players:
            raise IllegalAction(f"{player!r} is not a player at this table")
        if self.is_over and kind not in self.actions_after_end:
            raise IllegalAction("the game is over")
        # The snapshot makes every handler atomic: a rule check deep inside a handler may raise
        # after earlier steps changed the state. marshal is the fastest exact copy of plain data.
        snapshot = marshal.dumps(self.state)
        try:
            notes = handler(dict(action))
        except IllegalAction:
            self.state = marshal.loads(snapshot)
            raise
        except (KeyError, TypeError, ValueError) as exc:
            # A malformed field that slipped past the handler's own checks: report, never crash.
            self.state = marshal.loads(snapshot)
            raise IllegalAction(f"malformed {kind!r} action: {exc}") from None
        self.actions_applied += 1
        return list(notes or [])

    def label(self, action: Mapping[str, Any]) -> str:
        """A short button label for a legal action ("Ann: stop the bid"). Engines override it
        for their own words; the default spells out the type and the fields."""
        who = action.get("player") or "Table"
        words = str(action.get("type", "")).replace("_", " ")
        extra = ", ".join(f"{k} {v}" for k, v in action.items() if k not in ("type", "player"))
        return f"{who}: {words}" + (f" ({extra})" if extra else "")

    @classmethod
    def action_types(cls) -> list[str]:
        return sorted(name[3:] for name in dir(cls) if name.startswith("on_"))

    # -- corrections (the Fix dialog, SPEC X1) -------------------------------------------------
    #
    # A correction replaces one past action and replays everything after it. These hooks are
    # asked of the game as it is now (the replay of ``actions``, its effective actions in order)
    # about the entry ``actions[index]``. What they answer reaches the shared screen, so, like
    # ``legal_actions(None)``, it must not depend on a secret the engine keeps: neither the list
    # nor whether (and why) a correction is refused may tell two games apart that differ only in
    # their secrets. The replay's answer depends on the entry's content and on every entry after
    # it, so an entry whose content is a secret no longer shown (a card drawn, a crew card of an
    # earlier round) is *sealed*: no alternatives, one refusal, until the game is over.

    def sealed(self, actions: Sequence[Action], index: int) -> str | None:
        """Why ``actions[index]`` cannot be corrected now, in words that name only public
        facts, or ``None`` if it can. The default seals nothing."""
        return None

    def correction_choices(self, actions: Sequence[Action], index: int) -> list[Action]:
        """What a correction may put in place of ``actions[index]``: nothing for a sealed entry;
        by default every action that was legal at that point (the table's inputs first, then
        each player's, in seat order)."""
        if self.sealed(actions, index) is not None:
            return []
        before = self.replayed(actions[:index])
        return [a for actor in [None, *before.players] for a in before.legal_actions(actor)]

    def check_correction(self, actions: Sequence[Action], index: int,
                         replacement: Action | None) -> None:
        """Refuse (:class:`IllegalAction`) a correction of ``actions[index]`` to ``replacement``
        (``None`` strikes the entry) before it is replayed: by default a sealed entry's, with
        :meth:`sealed`'s words; every other correction is the replay's to judge."""
        reason = self.sealed(actions, index)
        if reason is not None:
            raise IllegalAction(reason)

    def replayed(self, actions: Sequence[Action]) -> "Game":
        """A new game with this one's players, seed, options and components, after
        ``actions``."""
        game = type(self)(self.players, seed=self.seed, options=self.options,
                          components=self.components)
        for action in actions:
            game.apply(action)
        return game

    def chance_action(self) -> Action | None:
        """A random legal table input, drawn from the seed kept in the state (simulation and
        demo only; at a real table the outcome comes from the table). ``None`` if the table has
        nothing to supply now. Engines whose table list holds outcomes a secret makes
        impossible override it to draw from what is really possible."""
        options = self.legal_actions(None)
        if not options:
            return None
        return self.rng().choice(options)

    def rng(self) -> random.Random:
        """A generator fixed by the seed and the number of actions applied: the same actions
        in give the same draws out, and nothing but plain data is kept in the state."""
        return random.Random(f"{self.game_id}/{self.seed}/{self.actions_applied}")

    def to_json(self) -> dict[str, Any]:
        """The whole game as plain data; :meth:`from_json` gives it back."""
        return {"game": self.game_id, "players": list(self.players), "seed": self.seed,
                "options": dict(self.options), "actions_applied": self.actions_applied,
                "state": marshal.loads(marshal.dumps(self.state))}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], components: Mapping[str, Any]) -> "Game":
        if data.get("game") != cls.game_id:
            raise SetupError(f"this is a {data.get('game')!r} game, not {cls.game_id!r}")
        game = cls.__new__(cls)
        game.players = tuple(data["players"])
        game.seed = int(data["seed"])
        game.components = components
        game.options = dict(data["options"])
        game.actions_applied = int(data["actions_applied"])
        game.state = marshal.loads(marshal.dumps(data["state"]))
        return game

    # -- small helpers for handlers --------------------------------------------------------

    @staticmethod
    def need(action: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
        """The field ``name`` of ``action``, checked to be of ``kind``; a clear message if not."""
        if name not in action:
            raise IllegalAction(f"action {action.get('type')!r} needs a field {name!r}")
        value = action[name]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            expected = kind.__name__ if isinstance(kind, type) else " or ".join(
                k.__name__ for k in kind)
            raise IllegalAction(f"field {name!r} of {action.get('type')!r} must be {expected}, "
                                f"not {value!r}")
        return value

    def next_player(self, player: str, *, skip: Sequence[str] = ()) -> str:
        """The next player clockwise (SPEC X4) not in ``skip``."""
        i = self.players.index(player)
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(i + step) % len(self.players)]
            if candidate not in skip:
                return candidate
        raise IllegalAction("no player is left to take the turn")
