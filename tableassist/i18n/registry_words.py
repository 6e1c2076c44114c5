"""The marker registry's faults in each language: a :class:`~tableassist.markers.registry.RegistryError`'s
``code`` and ``params`` as a catalogue message (``markers`` has no catalogue; its own text is the
log's English). A file's name, a key and a value found in it are quoted as they are."""

from __future__ import annotations

from typing import Any

from tableassist.games.messages import Message
from tableassist.games.toml_words import toml_problem
from tableassist.i18n.sheets import component_message, marker_label

__all__ = ["no_such_marker", "registry_problem", "unreadable_registry"]


def unreadable_registry(exc: Any) -> Message:
    """"the marker registry cannot be read: …" (``exc`` a ``RegistryError``), as a command or
    the server says it when it needs the markers to go on."""
    return Message("registry_words.unreadable", "the marker registry cannot be read: {why}",
                   why=registry_problem(exc))


def _no_game(game: str, games: Any) -> Message:
    return Message("registry_words.no_game", "no markers for game {game}; games: {games}",
                   game=repr(game), games=tuple(games))


def no_such_marker(exc: Any) -> Message:
    """Why no marker answers (a :class:`~tableassist.markers.printing.NoSuchMarker`: its ``why``,
    ids and games), in words."""
    if exc.why == "game":
        return _no_game(exc.game, exc.games)
    if exc.why == "in_game":
        return Message("registry_words.not_in_game", "{game} has no marker {marker}",
                       game=str(exc.game), marker=str(exc.marker_id))
    if exc.why == "several":
        return Message("registry_words.several", "marker {marker} is in several games ({games}): "
                       "say which with --game", marker=str(exc.marker_id), games=tuple(exc.games))
    return Message("registry_words.no_marker", "no game has a marker {marker}",
                   marker=str(exc.marker_id))


def _label(p: dict[str, Any], key: str = "") -> Message | str:
    """A marker's label (``label``, ``first``, ``second``) in words, from its parts where the
    error carries them (``parts``, ``first_parts``…: a kind, side and item the sheets word)."""
    parts = p.get(f"{key}_parts" if key else "parts")
    if isinstance(parts, tuple) and len(parts) == 5:
        game, title, component, item, side = parts
        return marker_label(game or None, title, component, item, side)
    return str(p[key or "label"])


def _where(p: dict[str, Any]) -> Message:
    if p.get("component"):
        return Message("registry_words.where_component", "{file}, group {group} ({component})",
                       file=p["file"], group=p["group"],
                       component=component_message(p["component"]))
    return Message("registry_words.where_group", "{file}, group {group}", file=p["file"],
                   group=p["group"])


def registry_problem(exc: Any) -> Message | str:
    """What ``exc`` (a ``RegistryError``) says, as a message; its English text for a code this
    does not know."""
    code, p = getattr(exc, "code", ""), dict(getattr(exc, "params", {}))
    if "group" in p:
        p["where"] = _where(p)
    said = {
        "no_game": lambda: _no_game(p["game"], p["games"]),
        "no_files": lambda: Message("registry_words.no_files", "no marker files (`*.toml`) in {folder}",
                                    folder=p["folder"]),
        "not_toml": lambda: Message("registry_words.not_toml", "{file}: not valid TOML: {why}",
                                    file=p["file"], why=toml_problem(p["why"])),
        "no_global": lambda: Message("registry_words.no_global", "{folder}: global.toml (dictionary, "
                                     "table corners, seats) is missing", folder=p["folder"]),
        "dictionary": lambda: Message("registry_words.dictionary", "global.toml: dictionary "
                                      "{dictionary} is not an OpenCV predefined dictionary; "
                                      "choose one of: {choices}", dictionary=p["dictionary"],
                                      choices=p["choices"]),
        "no_title": lambda: Message("registry_words.no_title", "{file}: needs `game = \"<id>\"` and "
                                    "`title = \"...\"` at the top", file=p["file"]),
        "game_twice": lambda: Message("registry_words.game_twice", "{file}: game {game} is already "
                                      "described by another file", file=p["file"], game=p["game"]),
        "game_commands": lambda: Message("registry_words.game_commands", "{file}: command cards are "
                                         "global; list them in global.toml", file=p["file"]),
        "commands_twice": lambda: Message("registry_words.commands_twice", "global.toml: two command "
                                          "cards share a name or a text"),
        "unknown_keys": lambda: Message("registry_words.unknown_keys", "{where}: unknown keys {keys}; "
                                        "allowed: {allowed}", where=p["where"], keys=p["keys"],
                                        allowed=p["allowed"]),
        "items": lambda: Message("registry_words.items", "{where}: `items` must be a non-empty list of "
                                 "names", where=p["where"]),
        "side_or_sides": lambda: Message("registry_words.side_or_sides", "{where}: give either "
                                         "`side = \"...\"` or `sides = [...]`", where=p["where"]),
        "sides": lambda: Message("registry_words.sides", "{where}: `sides` must be non-empty names",
                                 where=p["where"]),
        "component_size": lambda: Message("registry_words.component_size", "{where}: "
                                          "component_size_mm must be [width, height] in mm",
                                          where=p["where"]),
        "copies": lambda: Message("registry_words.copies", "{where}: `copies` must be a whole number "
                                  ">= 1, not {value}", where=p["where"], value=p["value"]),
        "secret": lambda: Message("registry_words.secret", "{where}: `secret` must be true or false",
                                  where=p["where"]),
        "sizes": lambda: Message("registry_words.sizes", "{where}: sizes must be positive (size_mm "
                                 "{size}, component_size_mm {component_size})", where=p["where"],
                                 size=p["size"], component_size=p["component_size"]),
        "too_small": lambda: Message("registry_words.too_small", "{where}: a {size} mm marker with its "
                                     "quiet zone ({sticker} mm) does not fit on a {width} x "
                                     "{height} mm component", where=p["where"], size=p["size"],
                                     sticker=p["sticker"], width=p["width"], height=p["height"]),
        "ids_outside": lambda: Message("registry_words.ids_outside", "{where}: ids {first}..{last} are "
                                       "outside {dictionary} (0..{top})", where=p["where"],
                                       first=p["first"], last=p["last"],
                                       dictionary=p["dictionary"], top=p["top"]),
        "key_type": lambda: Message("registry_words.key_type", "{where}: `{key}` is missing or has the "
                                    "wrong type ({value})", where=p["where"], key=p["key"],
                                    value=p["value"]),
        "command_keys": lambda: Message("registry_words.command_keys", "{file}: a command card needs "
                                        "exactly `name`, `label`, `does` and `text`: {entry}",
                                        file=p["file"], entry=p["entry"]),
        "id_twice": lambda: Message("registry_words.id_twice", "{file}: id {id} is used twice: {first} "
                                    "and {second}", file=p["file"], id=p["id"], first=_label(p, "first"),
                                    second=_label(p, "second")),
        "listed_twice": lambda: Message("registry_words.listed_twice", "{file}: {label} is listed twice",
                                        file=p["file"], label=_label(p)),
        "back_face_item": lambda: Message("registry_words.back_face_item", "{file}: {label} names a "
                                          "face item; a back may name only the owner's colour or "
                                          "the kind of component (SPEC X2)", file=p["file"],
                                          label=_label(p)),
        "back_copies": lambda: Message("registry_words.back_copies", "{file}: {label} is printed "
                                       "{copies} times but covers {covered} cards: every card it "
                                       "covers needs the same back (SPEC X2)", file=p["file"],
                                       label=_label(p), copies=p["copies"],
                                       covered=p["covered"]),
    }.get(code)
    return said() if said is not None else str(exc)
