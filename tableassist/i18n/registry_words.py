"""The marker registry's faults in each language: a :class:`~tableassist.markers.registry.RegistryError`'s
``code`` and ``params`` as a catalogue message (``markers`` has no catalogue; its own text is the
log's English). A file's name, a key and a value found in it are quoted as they are."""

from __future__ import annotations

from typing import Any

from tableassist.games.messages import Message

__all__ = ["registry_problem"]


def _where(p: dict[str, Any]) -> Message:
    if p.get("component"):
        return Message("registry_words.where_component", "{file}, group {group} ({component})",
                       file=p["file"], group=p["group"], component=p["component"])
    return Message("registry_words.where_group", "{file}, group {group}", file=p["file"],
                   group=p["group"])


def registry_problem(exc: Any) -> Message | str:
    """What ``exc`` (a ``RegistryError``) says, as a message; its English text for a code this
    does not know."""
    code, p = getattr(exc, "code", ""), dict(getattr(exc, "params", {}))
    if "group" in p:
        p["where"] = _where(p)
    said = {
        "no_game": lambda: Message("registry_words.no_game", "no markers for game {game}; games: "
                                   "{games}", game=repr(p["game"]), games=p["games"]),
        "no_files": lambda: Message("registry_words.no_files", "no marker files (`*.toml`) in {folder}",
                                    folder=p["folder"]),
        "not_toml": lambda: Message("registry_words.not_toml", "{file}: not valid TOML: {why}",
                                    file=p["file"], why=p["why"]),
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
                                    "and {second}", file=p["file"], id=p["id"], first=p["first"],
                                    second=p["second"]),
        "listed_twice": lambda: Message("registry_words.listed_twice", "{file}: {label} is listed twice",
                                        file=p["file"], label=p["label"]),
        "back_face_item": lambda: Message("registry_words.back_face_item", "{file}: {label} names a "
                                          "face item; a back may name only the owner's colour or "
                                          "the kind of component (SPEC X2)", file=p["file"],
                                          label=p["label"]),
        "back_copies": lambda: Message("registry_words.back_copies", "{file}: {label} is printed "
                                       "{copies} times but covers {covered} cards: every card it "
                                       "covers needs the same back (SPEC X2)", file=p["file"],
                                       label=p["label"], copies=p["copies"],
                                       covered=p["covered"]),
    }.get(code)
    return said() if said is not None else str(exc)
