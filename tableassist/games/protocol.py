"""The game protocol every rules engine follows.

An engine is a pure state machine, in the manner of OpenSpiel's games: it takes actions (plain JSON
objects with a ``type`` and the acting ``player``), refuses illegal ones with :class:`IllegalAction`
and leaves its state untouched, lists legal actions, and shows per-viewer views. It never touches
files, sockets, cameras or clocks: components arrive as already-parsed data, chance outcomes arrive
as actions from the table, and the only randomness (for simulation and demo) comes from the seed
kept in the state.

A subclass (docs/protocol.md, "Writing an engine") supplies:

* ``game_id``, ``title`` and ``min_players``/``max_players``;
* ``Phase``, a :class:`~enum.StrEnum` of its phases, the last one ``over``; and ``waiting``, what
  the game waits for in each phase (for the uniform "cannot … now" refusal; ``waiting_for`` when
  the words name who is awaited);
* ``parse_components(data)``: the data file parsed into a frozen dataclass (the catalog calls it
  once per distinct content and hands the result in);
* ``setup(self)`` that fills ``self.state`` (a JSON-ready dict) for a new game;
* one method ``on_<type>(self, action) -> list[Note]`` per action type, which begins with
  :meth:`Game.table_input` or :meth:`Game.player_input`;
* ``labels``, one :class:`~tableassist.games.messages.Template` per action type;
* ``legal_actions``, ``view``, ``prompts`` and ``result``;
* read-only properties for what readers and screens ask (``game.phase``, ``game.bid``), returning
  small frozen values: code outside ``games/`` never reads ``state``, nor picks facts out of a
  view (a view goes to the screens whole).

The base class gives every engine the same checks on an action's shape, atomic ``apply`` (a failed
action restores the state snapshot, whatever the handler had already changed), JSON round-trip, a
seeded chance generator and the table's facts every game has, which an engine overrides where it
keeps them its own way: ``is_over``, ``turn``, ``first_player``, ``round``, ``timer`` (a
:class:`Timer`) and ``round_chart`` (a :class:`RoundChart`). Every text is a :class:`Message`.
"""

from __future__ import annotations

import marshal
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Final, Generic, Self, TypeVar, cast

from tableassist.games.messages import Message, Param, Template

__all__ = ["OVER", "Action", "Game", "IllegalAction", "Message", "Note", "Prompt", "RoundChart",
           "SetupError", "Tally", "Template", "Timer", "competition_ranks", "mark_ties",
           "merge_options", "names", "opt_str", "sheet_row", "unverified_values"]

Action = dict[str, Any]
"""An action: a JSON object with at least ``type`` (str) and ``player`` (a player's name, or
``None`` for an input the table itself supplies, such as a card turned over or a die rolled)."""

PhaseT = TypeVar("PhaseT", bound=StrEnum)
ComponentsT = TypeVar("ComponentsT")

#: The last phase of every engine: once the state's phase is this, :attr:`Game.is_over`.
OVER: Final = "over"


class IllegalAction(ValueError):
    """An action the rules do not allow now. The message says what was wrong, in the table's words,
    and cites the rule (``"Bea cannot stop: … (R-SW-07)"``). It never contains hidden information.
    ``details`` after the message are the caller's own (the camera loop keeps what it saw)."""

    def __init__(self, message: Message, *details: object) -> None:
        super().__init__(message, *details)

    @property
    def message(self) -> Message:
        return cast(Message, self.args[0])


class SetupError(ValueError):
    """A game cannot be created as asked (wrong player count, unknown option, bad option value)."""

    def __init__(self, message: Message) -> None:
        super().__init__(message)

    @property
    def message(self) -> Message:
        return cast(Message, self.args[0])


def _text_json(text: Message) -> dict[str, Any]:
    # An engine not converted to messages yet passes a plain str (docs/protocol.md).
    return text.to_json() if isinstance(text, Message) else {}


@dataclass(frozen=True)
class Note:
    """One public line of the game's history, produced by an applied action.

    Notes are safe for the shared screen: an engine writes "Ann laid a bid card", never its type.
    ``rule`` is the SPEC id the step carries out (``"R-SW-09"``), or ``""``.
    """

    text: Message
    rule: str = ""

    def to_json(self) -> dict[str, Any]:
        """``text`` (English) and ``rule``, with the message's ``id`` and ``params``."""
        return {"text": str(self.text), "rule": self.rule, **_text_json(self.text)}


@dataclass(frozen=True)
class Prompt:
    """Who must do what next, in plain words, with the rule that asks for it.

    ``player`` is ``None`` when the table as a whole must act (turn a card over, roll the dice) or
    when naming the player would leak a secret (who may stop). ``actions`` lists the action types
    that answer the prompt, so a tablet can offer the right buttons.
    """

    text: Message
    rule: str
    player: str | None = None
    actions: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "text": str(self.text), "rule": self.rule,
                "actions": list(self.actions), **_text_json(self.text)}


@dataclass(frozen=True)
class Tally:
    """The number the game is won by, as the shared screen may see it now, per player (or, where
    who owns what is secret, per piece: Abandon Ship's rats). The end screen charts it over the
    whole game; ``label`` names it in the table's words ("Money (millions)") and ``unit`` is what
    one counts ("million": "finished with 686 million"), both :class:`Message` values."""

    label: Message
    values: Mapping[str, int]
    unit: Message


@dataclass(frozen=True)
class RoundChart:
    """A chart a game's own screen keeps as the game goes (Wreckers' money panel): its
    :meth:`Game.tally` at the start, at the end of every :attr:`Game.round` and now
    (``table/chronicle.py`` follows it). ``name`` is the key the series has in the screens'
    payload (``"money"``). The end screen charts the same tally over every step."""

    name: str


@dataclass(frozen=True)
class Timer:
    """A countdown the engine asks the table's clock to run (Shipwrecked's stop window, G-SW-13):
    after ``seconds`` the server's clock submits ``action``, an input of the table, unless the
    game moved on; ``label`` is the action's button label, which the screens show beside the
    time left. The engine keeps no clock: the seconds are data, the server counts them."""

    seconds: float
    action: Mapping[str, Any]
    label: Message


def sheet_row(label: Message, values: Mapping[str, int | Message]) -> dict[str, Any]:
    """One row of a result's ``sheet`` (the end screen's breakdown): a label in plain words and
    each player's value, so no screen ever shows a raw key such as ``FOOD``.

    ``label`` is the English text with the message's ``id`` and ``params`` beside it; a value in
    words (``"in business"``) is a :class:`Message` too, written out as its English text, with
    its ``id`` and ``params`` under ``messages``."""
    # The label and the values in words stay messages: a screen reads them in its language.
    row: dict[str, Any] = {**label.to_json(), "label": label,
                           "values": dict(values)}
    words = {k: v.to_json() for k, v in values.items() if isinstance(v, Message)}
    if words:
        row["messages"] = words
    return row


def merge_options(defaults: Mapping[str, Any], given: Mapping[str, Any] | None,
                  choices: Mapping[str, Sequence[Any]] | None = None) -> dict[str, Any]:
    """Options of a new game: the data file's defaults overridden by ``given``.

    Unknown names and values outside ``choices`` (when the data file lists them) raise
    :class:`SetupError`, so a typo in ``--options`` is reported rather than silently ignored.
    """
    options = dict(defaults)
    for name, value in (given or {}).items():
        if name not in defaults:
            if not defaults:
                raise SetupError(Message("protocol.setup.no_options",
                                         "unknown option {name}; this game has no options",
                                         name=repr(name)))
            raise SetupError(Message("protocol.setup.unknown_option",
                                     "unknown option {name}; this game's options are: {known}",
                                     name=repr(name), known=tuple(sorted(defaults))))
        allowed = (choices or {}).get(name)
        if allowed is not None and value not in allowed:
            raise SetupError(Message("protocol.setup.bad_option_value",
                                     "option {name} cannot be {value}; choose one of {allowed}",
                                     name=repr(name), value=repr(value),
                                     allowed=tuple(repr(a) for a in allowed)))
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


def competition_ranks(players: Sequence[str],
                      key: Callable[[str], Any]) -> list[tuple[str, int]]:
    """``players`` best first by ``key`` (smaller is better), each with its place; equal keys
    share a place and the next place is skipped (1, 1, 3), as a shared win reads at the table."""
    order = sorted(players, key=key)
    ranked: list[tuple[str, int]] = []
    for i, player in enumerate(order):
        same = i > 0 and key(player) == key(order[i - 1])
        ranked.append((player, ranked[-1][1] if same else i + 1))
    return ranked


def mark_ties(ranking: list[dict[str, Any]], key: str | None, breaker: Message | None,
              rule: str | None, shared_rule: str | None = None) -> list[dict[str, Any]]:
    """The result's ``ranking`` rows (``player``, ``score``, ``rank``) with ``tie`` on each row
    level on score with another: how the tie was settled, in words, with its rule. ``key`` is
    the row's value that breaks a tie (``"cheese"``), ``breaker`` what it is in words ("cheese
    points"); where they too are level the place is shared. ``None`` for both: ties share the
    place (Schmuggler's R-SB-15); ``shared_rule`` is the rule of a shared place where it is
    another (Abandon Ship's G-AS-17). ``tie`` travels as a note does (``text``, ``id``, ``params``,
    ``rule``), so the screens show it in their language beside the rule's chip."""
    for row in ranking:
        level = [r for r in ranking if r is not row and r["score"] == row["score"]]
        if not level:
            continue
        others = names(tuple(r["player"] for r in level))
        shared = all(r["rank"] == row["rank"] for r in level)
        if shared:
            text = Message("protocol.tie.shared", "level with {others} on {score}{breaker, select, "
                           "none {} other { and on {breaker}}}: the place is shared",
                           others=others, score=row["score"], breaker=breaker or "none")
        else:
            assert key is not None and breaker is not None
            values = tuple(Message("protocol.tie.value", "{player} {value}", player=r["player"],
                                   value=r[key]) for r in [row, *level])
            text = Message("protocol.tie.broken", "level with {others} on {score}: {breaker} "
                           "decide ({values})", others=others, score=row["score"],
                           breaker=breaker, values=values)
        row["tie"] = {"text": str(text), **text.to_json(),
                      "rule": (shared_rule or rule) if shared else rule}
    return ranking


def opt_str(value: Any) -> str | None:
    """A name read from the state, or ``None`` where the state holds none (no turn yet)."""
    return None if value is None else str(value)


def names(items: Sequence[Param]) -> Message:
    """``"Ann"``, ``"Ann and Bea"``, ``"Ann, Bea and Cy"``: a list of names joined once, as each
    language joins it ("Ann, Bea und Cy", "Ann, Bea y Cy"; the names but the last as a list
    would be joined again by the language: "Ann, Bea und Cy und Dee")."""
    return Message("protocol.word.names",
                   "{count, plural, one {{last}} other {{rest} and {last}}}",
                   count=len(items), rest=_commas(items[:-1]) if len(items) > 1 else "",
                   last=items[-1])


def _commas(items: Sequence[Param]) -> Param:
    """``"Ann, Bea, Cy"``: names with commas, as English, German and Spanish write them."""
    if len(items) == 1:
        return items[0]
    return Message("protocol.word.commas", "{first}, {rest}", first=items[0],
                   rest=_commas(items[1:]))


_DEFAULT_LABEL = Template("protocol.label.default", "{who}: {words}")
_DEFAULT_LABEL_FIELDS = Template("protocol.label.default_fields", "{who}: {words} ({fields})")
_FIELD = Template("protocol.label.field", "{name} {value}")


class Game(Generic[PhaseT, ComponentsT]):
    """Base class of the five rules engines. See the module docstring for the contract.

    ``Game[Phase, Components]``: the engine's phases and its parsed components, so that
    ``game.phase`` and ``game.components`` have the engine's own types."""

    game_id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    #: Action types still accepted once the game is over (say, tiles revealed at the end).
    actions_after_end: ClassVar[frozenset[str]] = frozenset()
    #: The engine's phases (a ``StrEnum``; the state keeps the plain value, so JSON round-trips).
    Phase: type[PhaseT]
    #: Phase -> what the game waits for in it ("bid cards to be laid"), for refusals.
    waiting: ClassVar[Mapping[str, Message]] = {}
    #: Action type -> the template of its button label. Its parameters are the action's fields
    #: and whatever :meth:`label_params` adds.
    labels: ClassVar[Mapping[str, Template]] = {}
    #: The chart the game's own screen keeps over its rounds, or ``None`` (most games: none).
    round_chart: ClassVar[RoundChart | None] = None

    def __init__(self, players: Sequence[str], *, seed: int = 0,
                 options: Mapping[str, Any] | None = None, data: Mapping[str, Any],
                 components: ComponentsT, saved: bool = False) -> None:
        """Start a new game. ``players`` are names in clockwise seat order (SPEC X4), checked
        by :meth:`player_names` (``saved``: taken as a saved game recorded them, since a game
        saved before a check was added must still replay); ``data`` is the game's data file as
        read (options come from it) and ``components`` its :meth:`parse_components`;
        ``options`` override the data file's defaults."""
        self.players: tuple[str, ...] = tuple(players) if saved else self.player_names(players)
        self.seed = int(seed)
        self.data: Mapping[str, Any] = data
        self.components: ComponentsT = components
        self.options: dict[str, Any] = merge_options(
            data.get("options", {}), options, data.get("option_choices"))
        self.actions_applied = 0
        self.state: dict[str, Any] = {}
        self.setup()

    @classmethod
    def parse_components(cls, data: Mapping[str, Any]) -> ComponentsT:
        """The data file parsed into the engine's frozen components (pure; the catalog calls it
        once per distinct content). Bad data raises ``KeyError``/``TypeError``/``ValueError``,
        which the catalog reports as a :class:`SetupError`. An engine that parses nothing gets
        the data itself."""
        return cast(ComponentsT, data)

    @classmethod
    def player_names(cls, players: Sequence[str]) -> tuple[str, ...]:
        """The players' names as a game of this kind keeps them: without surrounding spaces, as
        many as the game is for, none empty, and no two alike when capitals are ignored ("Ann"
        and "ann " would be one player to the table, two to the engine). :class:`SetupError`
        with the reason otherwise."""
        players = tuple(players)
        if not cls.min_players <= len(players) <= cls.max_players:
            raise SetupError(Message("protocol.setup.player_count",
                                     "{game} is for {min}–{max} players, not {count}",
                                     game=cls.title or cls.game_id, min=cls.min_players,
                                     max=cls.max_players, count=len(players)))
        if not all(isinstance(name, str) and name.strip() for name in players):
            raise SetupError(Message("protocol.setup.empty_name",
                                     "every player needs a non-empty name"))
        names = tuple(name.strip() for name in players)
        seen: dict[str, str] = {}
        for name in names:
            other = seen.setdefault(name.casefold(), name)
            if other == name and names.count(name) > 1:
                raise SetupError(Message("protocol.setup.same_name",
                                         "two players are called {name}; names must be unique",
                                         name=repr(name)))
            if other != name:
                raise SetupError(Message(
                    "protocol.setup.names_alike",
                    "{one} and {other} are the same name at the table (capitals and spaces "
                    "around a name do not count); names must be unique",
                    one=repr(other), other=repr(name)))
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

    def result(self) -> dict[str, Any] | None:
        """``None`` while the game runs; then the ranking, ``winners`` and per-player scores
        with their breakdown, and ``sheet``: the breakdown as rows of :func:`sheet_row`."""
        raise NotImplementedError

    def tally(self) -> Tally | None:
        """The public number the game is won by, now (see :class:`Tally`); ``None``: none."""
        return None

    def story(self) -> Tally | None:
        """The public number the end screen charts over the whole game, now: the tally, unless
        the tally says nothing until the end (Abandon Ship's rats score only once they reach
        the top deck, so its chart follows each rat's climb instead)."""
        return self.tally()

    # -- what the base class gives ---------------------------------------------------------

    _phases: ClassVar[Mapping[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "Phase" in cls.__dict__:
            cls._phases = {str(p): p for p in cls.Phase}   # a dict is faster than Phase(value)

    @property
    def phase(self) -> PhaseT:
        """The phase the game is in."""
        return cast(PhaseT, self._phases[self.state["phase"]])

    @phase.setter
    def phase(self, phase: PhaseT) -> None:
        # The plain value: the state stays plain data (JSON, marshal).
        self.state["phase"] = str(phase)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (its phase is ``over``)."""
        return bool(self.state["phase"] == OVER)

    # The table's facts every game has. The base reads them where an engine whose turns go round
    # the table keeps them (the state's ``turn`` and ``first_player``); an engine that keeps them
    # its own way, or counts rounds, runs a timer or keeps a chart, overrides them.

    @property
    def turn(self) -> str | None:
        """Whose turn it is, or ``None`` while it is nobody's (before the first turn, between
        turns, once the game is over)."""
        return opt_str(self.state["turn"])

    @property
    def first_player(self) -> str | None:
        """Who goes first, once the table has settled it (drawn, named or bid for): ``None``
        until then, and in a game whose table settles none at the start."""
        return opt_str(self.state.get("first_player"))

    @property
    def round(self) -> int | None:
        """The round the game is in, as the table counts them (ShipShape's voyage), or ``None``
        for a game that counts none."""
        return None

    @property
    def timer(self) -> Timer | None:
        """The countdown the table's clock runs now (see :class:`Timer`), or ``None``."""
        return None

    def apply(self, action: Any) -> list[Note]:
        """Apply one action, or raise :class:`IllegalAction` and leave the state untouched.

        Returns the public notes the action produced (for the history)."""
        if not isinstance(action, Mapping):
            raise IllegalAction(Message("protocol.refuse.not_an_object",
                                        "an action must be a JSON object, not {kind}",
                                        kind=type(action).__name__))
        kind = action.get("type")
        if not isinstance(kind, str) or not kind:
            raise IllegalAction(Message("protocol.refuse.no_type", "an action needs a 'type'"))
        handler = getattr(self, "on_" + kind, None) if kind.isidentifier() else None
        if handler is None:
            raise IllegalAction(Message("protocol.refuse.unknown_type",
                                        "{game} has no action {type}; it knows: {known}",
                                        game=self.title or self.game_id, type=repr(kind),
                                        known=tuple(self.action_types())))
        if "player" not in action:
            raise IllegalAction(Message(
                "protocol.refuse.no_player",
                "action {type} needs a 'player' (a name, or null for the table)",
                type=repr(kind)))
        player = action["player"]
        if player is not None and player not in self.players:
            raise IllegalAction(Message("protocol.refuse.not_a_player",
                                        "{player} is not a player at this table",
                                        player=repr(player)))
        if self.is_over and kind not in self.actions_after_end:
            raise IllegalAction(Message("protocol.refuse.over", "the game is over"))
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
            # (The detail is Python's words: a translation shows it as it is.)
            self.state = marshal.loads(snapshot)
            raise IllegalAction(Message("protocol.refuse.malformed",
                                        "malformed {type} action: {detail}",
                                        type=repr(kind), detail=str(exc))) from None
        self.actions_applied += 1
        return list(notes or [])

    # -- the checks every handler begins with ------------------------------------------------

    def table_input(self, action: Action, phases: str | Collection[str], does: Message) -> None:
        """Check an input the table supplies (``player`` null) in one of ``phases``. ``does``
        says what the action does, as a verb phrase ("turn a row face up")."""
        if action["player"] is not None:
            raise IllegalAction(Message(
                "protocol.refuse.table_input",
                "{type} is an input of the table: send it with 'player': null",
                type=repr(action["type"])))
        self.require_phase(phases, does)

    def player_input(self, action: Action, phases: str | Collection[str], does: Message, *,
                     only: str | Collection[str] | None = None, role: Message | None = None,
                     rule: str = "") -> str:
        """Check a player's move in one of ``phases`` and return who makes it. ``only``: the
        player (or players) who may make it now, ``role`` why ("whose turn it is"), ``rule``
        the SPEC ids to cite."""
        player = action["player"]
        if player is None:
            raise IllegalAction(Message(
                "protocol.refuse.player_input",
                "{type} is a player's move: send it with the name of the player who makes it, "
                "not 'player': null", type=repr(action["type"])))
        self.require_phase(phases, does)
        if only is not None:
            self.require_player(player, only, does, role=role, rule=rule)
        return str(player)

    def require_player(self, player: str, only: str | Collection[str], does: Message, *,
                       role: Message | None = None, rule: str = "") -> None:
        """Refuse ``player`` unless they are ``only`` (or one of them), in the words of
        :meth:`player_input`. For a check that can be put only once the phase is known to be
        right (who owes is known only while a debt is being paid)."""
        allowed = (only,) if isinstance(only, str) else tuple(only)
        if player in allowed:
            return
        if role is None:
            raise IllegalAction(Message("protocol.refuse.not_yours",
                                        "only {allowed} may {does} ({rule})",
                                        allowed=allowed, does=does, rule=rule))
        raise IllegalAction(Message("protocol.refuse.not_yours_role",
                                    "only {allowed}, {role}, may {does} ({rule})",
                                    allowed=allowed, role=role, does=does, rule=rule))

    def require_phase(self, phases: str | Collection[str], does: Message) -> None:
        """Refuse unless the game is in one of ``phases``, in the words of :meth:`table_input`
        ("cannot … now: the game is waiting for …"). For a handler whose action is neither plainly
        the table's nor a player's (ShipShape's crew card, read by the table or by its owner), or
        that checks the action's own fields before the phase."""
        phase = self.state["phase"]
        if phase == phases if isinstance(phases, str) else phase in phases:
            return
        raise IllegalAction(Message("protocol.refuse.not_now",
                                    "cannot {does} now: the game is waiting for {waiting}",
                                    does=does, waiting=self.waiting_for(phase)))

    def waiting_for(self, phase: str) -> Message:
        """What the game waits for in ``phase``, for the uniform "cannot … now" refusal: the
        entry of :attr:`waiting`. An engine whose words name who is awaited ("the faces of
        Ann's roll") overrides it; like every refusal, it names public facts only."""
        return self.waiting[phase]

    # -- labels -----------------------------------------------------------------------------

    def label(self, action: Mapping[str, Any]) -> Message:
        """A short button label for a legal action ("Ann: stop the bid"): the action type's
        template in :attr:`labels`, filled with the action's fields and :meth:`label_params`.
        An action type without a template spells out its type and fields."""
        template = self.labels.get(str(action.get("type")))
        if template is not None:
            return template(**{**action, **self.label_params(action)})
        who = action.get("player") or Message("protocol.word.table", "Table")
        words = str(action.get("type", "")).replace("_", " ")
        fields = tuple(_FIELD(name=str(k), value=str(v)) for k, v in action.items()
                       if k not in ("type", "player"))
        if fields:
            return _DEFAULT_LABEL_FIELDS(who=who, words=words, fields=fields)
        return _DEFAULT_LABEL(who=who, words=words)

    def label_params(self, action: Mapping[str, Any]) -> Mapping[str, Any]:
        """Parameters of an action's label beyond its fields (a card's value, a field written as
        a list); none by default."""
        return {}

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

    def sealed(self, actions: Sequence[Action], index: int) -> Message | None:
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

    def replayed(self, actions: Sequence[Action]) -> Self:
        """A new game with this one's players, seed, options and components, after
        ``actions``."""
        game = type(self)(self.players, seed=self.seed, options=self.options, data=self.data,
                          components=self.components, saved=True)
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
    def from_json(cls, snapshot: Mapping[str, Any], data: Mapping[str, Any],
                  components: Any) -> Self:
        """The game :meth:`to_json` gave, with its data file and parsed components."""
        if snapshot.get("game") != cls.game_id:
            raise SetupError(Message("protocol.setup.other_game",
                                     "this is a {game} game, not {expected}",
                                     game=repr(snapshot.get("game")),
                                     expected=repr(cls.game_id)))
        game = cls.__new__(cls)
        game.players = tuple(snapshot["players"])
        game.seed = int(snapshot["seed"])
        game.data = data
        game.components = components
        game.options = dict(snapshot["options"])
        game.actions_applied = int(snapshot["actions_applied"])
        game.state = marshal.loads(marshal.dumps(snapshot["state"]))
        return game

    def copy(self) -> Self:
        """An independent copy (a reader tries an action on it; the live game is untouched)."""
        return type(self).from_json(self.to_json(), self.data, self.components)

    # -- small helpers for handlers --------------------------------------------------------

    @staticmethod
    def need(action: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
        """The field ``name`` of ``action``, checked to be of ``kind``; a clear message if not."""
        if name not in action:
            raise IllegalAction(Message("protocol.refuse.no_field",
                                        "action {type} needs a field {name}",
                                        type=repr(action.get("type")), name=repr(name)))
        value = action[name]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            kinds = (kind,) if isinstance(kind, type) else kind
            raise IllegalAction(Message(
                "protocol.refuse.field_type",
                "field {name} of {type} must be {expected}, not {value}",
                name=repr(name), type=repr(action.get("type")), value=repr(value),
                expected=Message("protocol.word.alternatives",
                                 "{count, plural, one {{first}} other {{first} or {rest}}}",
                                 count=len(kinds), first=kinds[0].__name__,
                                 rest=tuple(k.__name__ for k in kinds[1:]))))
        return value

    def next_player(self, player: str, *, skip: Collection[str] = ()) -> str:
        """The next player clockwise (SPEC X4) not in ``skip``."""
        i = self.players.index(player)
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(i + step) % len(self.players)]
            if candidate not in skip:
                return candidate
        raise IllegalAction(Message("protocol.refuse.nobody_left",
                                    "no player is left to take the turn"))
