"""Which games exist, where their component data lives, and how a game is created or restored.

This is the one place that reads the games' data files (``tableassist/games/data/<game>.toml``) and
their box forms (``data/box/<game>.toml``), so the engines themselves stay free of file access; a
players' box (:class:`tableassist.table.box.Box`, their own values in their data folder) is merged
over the shipped data here, in :func:`load_components`. It is also the one place that parses
component data into an engine's frozen components (:meth:`Game.parse_components`): once per
distinct content, so every replay, undo and simulation of a game shares one parse.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
import importlib
import json
import threading
import tomllib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, Protocol, TypedDict

from tableassist.games.protocol import Game, Message, SetupError, unverified_values
from tableassist.games.data_words import worded
from tableassist.games.toml_words import toml_problem

__all__ = ["ENGINES", "RuleText", "Rulebook", "engine_class", "game_ids", "load_box_form",
           "load_components", "new_game", "parsed", "restore", "rule_texts", "rulebook",
           "shipped_components", "unverified_values"]

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


def engine_class(game_id: str) -> type[Game[Any, Any]]:
    try:
        target = ENGINES[game_id]
    except KeyError:
        raise SetupError(Message("catalog.setup.unknown_game",
                                 "unknown game {game}; choose one of: {games}",
                                 game=repr(game_id), games=tuple(ENGINES))) from None
    module, _, name = target.partition(":")
    cls: type[Game[Any, Any]] = getattr(importlib.import_module(module), name)
    return cls


def _read_data(game_id: str, *parts: str,
               unreadable: Callable[[Message], Message]) -> dict[str, Any]:
    """One of the package's TOML files of ``game_id`` (``data/<parts>``), read; ``unreadable``
    gives the error's message for what the TOML parser found wrong (in words) when it cannot be
    read."""
    engine_class(game_id)  # a clear error for an unknown game before any file is opened
    text = resources.files("tableassist.games").joinpath("data", *parts).read_text(
        encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(unreadable(toml_problem(str(exc)))) from None


@cache
def _load_components(game_id: str) -> dict[str, Any]:
    return _read_data(game_id, f"{game_id}.toml", unreadable=lambda detail: Message(
        "catalog.setup.unreadable_data", "the data file of {game} cannot be read: {detail}",
        game=game_id, detail=detail))


class RuleText(TypedDict, total=False):
    """One rule the engines can cite (``tableassist/games/rules/<game>.toml``): ``statement``
    (what the engine enforces, SPEC's words), ``kind`` ("rule", or "gap" with the ``question`` the
    rulebook leaves open and the ``tag`` of the default chosen), SPEC's ``section``, and
    ``source``: the rulebook's own words for it, one or more verbatim passages, chosen by reading
    the rulebook; none when the rulebook does not say it in words (SPEC's reading)."""

    kind: str
    statement: str
    question: str
    tag: str
    section: str
    source: list[str]


class Rulebook(TypedDict):
    """The rulebook a game's rules file quotes: its ``file`` in the project's rules folder, its
    ``language`` (``"en"``, ``"es"``) and that language's ``name`` in itself."""

    file: str
    language: str
    name: str


@cache
def _rules_file(game_id: str) -> dict[str, Any]:
    engine_class(game_id)
    text = resources.files("tableassist.games").joinpath("rules", f"{game_id}.toml").read_text(
        encoding="utf-8")
    return tomllib.loads(text)


def rule_texts(game_id: str) -> dict[str, RuleText]:
    """Rule id -> its :class:`RuleText`, in SPEC's order. Shared: read it, do not change it."""
    return {rule: text for rule, text in _rules_file(game_id).items() if rule != "rulebook"}


def rulebook(game_id: str) -> Rulebook:
    """The rulebook ``game_id``'s rules quote (:class:`Rulebook`). Shared: read it only."""
    book: Rulebook = _rules_file(game_id)["rulebook"]
    return book


class BoxLike(Protocol):
    """What :func:`load_components` needs of a players' box (:class:`tableassist.table.box.Box`)."""

    def components(self, game_id: str, shipped: Mapping[str, Any]) -> dict[str, Any]: ...


def load_components(game_id: str, box: BoxLike | None = None) -> dict[str, Any]:
    """The parsed data file of ``game_id`` (a fresh copy the caller may keep), with the players'
    ``box`` merged over it when given: what a new game is played with. A box file that cannot be
    used raises its :class:`~tableassist.table.box_form.BoxError` (a ``ValueError``) rather than
    playing with other components than the players chose."""
    if box is not None:
        return box.components(game_id, _load_components(game_id))
    return copy.deepcopy(_load_components(game_id))


def shipped_components(game_id: str) -> Mapping[str, Any]:
    """The data file of ``game_id`` as shipped, shared: read it, never change it."""
    return _load_components(game_id)


@cache
def load_box_form(game_id: str) -> dict[str, Any]:
    """The box form of ``game_id`` (``data/box/<game>.toml``: what the "Your box" screen asks of
    each entry of its data), as read; :mod:`tableassist.table.box_form` parses it."""
    return _read_data(game_id, "box", f"{game_id}.toml", unreadable=lambda detail: Message(
        "catalog.setup.unreadable_box_form", "the box form of {game} cannot be read: {detail}",
        game=game_id, detail=detail))


# -- parsed components, cached by content ------------------------------------------------------

#: (game id, digest of the data's canonical JSON) -> the engine's parsed components. Bounded: a
#: table holds a few distinct data versions (the file's, and those saved games started with).
_PARSED: OrderedDict[tuple[str, str], Any] = OrderedDict()
_PARSED_MAX = 32
_PARSED_LOCK = threading.Lock()


def _toml_value(value: Any) -> Any:
    # TOML's dates and times: not JSON; tagged so a date never equals the string of its text.
    if isinstance(value, (datetime.date, datetime.time)):
        return {"$toml": type(value).__name__, "value": value.isoformat()}
    raise TypeError(f"{type(value).__name__} is not component data")


def content_key(data: Mapping[str, Any]) -> str:
    """A digest of ``data``'s content: equal for equal data, whatever its key order."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=_toml_value)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def parsed(game_id: str, data: Mapping[str, Any]) -> Any:
    """``data`` parsed by the engine of ``game_id`` (:meth:`Game.parse_components`), once per
    distinct content. Data the engine cannot read is a :class:`SetupError`."""
    cls = engine_class(game_id)
    key = (game_id, content_key(data))
    with _PARSED_LOCK:
        if key in _PARSED:
            _PARSED.move_to_end(key)
            return _PARSED[key]
    try:
        # The words a screen shows (goods' names, the start space) as messages in its language.
        value = cls.parse_components(worded(game_id, data, _load_components(game_id)))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        if isinstance(exc, SetupError):
            raise
        raise SetupError(Message("catalog.setup.bad_data",
                                 "the component data of {game} is not as its engine reads it: "
                                 "{problem} {detail}", game=game_id,
                                 problem=type(exc).__name__, detail=str(exc))) from None
    with _PARSED_LOCK:
        _PARSED[key] = value
        while len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return value


@cache
def _file_parsed(game_id: str) -> Any:
    return parsed(game_id, _load_components(game_id))


def _data_and_parsed(game_id: str,
                     components: Mapping[str, Any] | None) -> tuple[Mapping[str, Any], Any]:
    if components is None:
        # The data file as read: shared, never changed (load_components gives callers copies).
        return _load_components(game_id), _file_parsed(game_id)
    return components, parsed(game_id, components)


def new_game(game_id: str, players: Sequence[str], *, seed: int = 0,
             options: Mapping[str, Any] | None = None,
             components: Mapping[str, Any] | None = None, saved: bool = False) -> Game[Any, Any]:
    """Create a new game of ``game_id`` for ``players`` (clockwise seat order).

    ``components`` defaults to the game's data file; a saved game passes the data it started with,
    so editing the data file never changes a game already being played, and ``saved=True``: its
    players are taken as it recorded them (names checked when it was created).
    """
    cls = engine_class(game_id)
    data, comps = _data_and_parsed(cls.game_id, components)
    return cls(players, seed=seed, options=options, data=data, components=comps, saved=saved)


def restore(snapshot: Mapping[str, Any],
            components: Mapping[str, Any] | None = None) -> Game[Any, Any]:
    """A game from :meth:`Game.to_json` output."""
    cls = engine_class(str(snapshot.get("game")))
    data, comps = _data_and_parsed(cls.game_id, components)
    return cls.from_json(snapshot, data, comps)
