"""List the marker registry: which sticker id is which component of which game."""

from __future__ import annotations

import argparse
import json
import sys

from tableassist import i18n
from tableassist.cli.language import current, error, say
from tableassist.games.messages import Message
from tableassist.i18n.sheets import sheet_words
from tableassist.i18n.registry_words import registry_problem
from tableassist.markers.registry import RegistryError, load_registry



def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", help=Message("markers.help.game", "one game's markers (plus the "
                                               "global ones)"))
    parser.add_argument("--json", action="store_true",
                        help=Message("markers.help.json", "print JSON instead of a table"))


def run(args: argparse.Namespace) -> int:
    try:
        registry = load_registry()
        if args.game:
            rows = registry.markers(args.game)
        else:  # the global markers once, then each game's own
            rows = [m for g in [None, *registry.games()] for m in registry.markers(g) if m.game == g]
    except RegistryError as exc:
        print(say(error("markers", registry_problem(exc))), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({
            "dictionary": registry.dictionary,
            "markers": [{"id": m.id, "game": m.game, "component": m.component, "item": m.item,
                         "side": m.side, "size_mm": m.size_mm,
                         "component_size_mm": list(m.component_size_mm), "copies": m.copies,
                         "secret": m.secret, "label": m.label} for m in rows],
            "commands": [{"name": c.name, "label": c.label, "text": c.text}
                         for c in registry.commands],
        }, ensure_ascii=False, indent=1))
        return 0
    # the registry's ids in the JSON and in English; each component, side and item in the words
    # of another language
    words = sheet_words(current())
    coded = current() == i18n.DEFAULT
    every = say(Message("markers.all", "(all)"))
    print(say(Message("markers.summary", "dictionary {dictionary}; {count, plural, one {# marker} "
                      "other {# markers}}", dictionary=registry.dictionary, count=len(rows))))
    head = [say(h) for h in (Message("markers.column.id", "id"), Message("markers.column.game", "game"),
                             Message("markers.column.component", "component"),
                             Message("markers.column.item", "item"),
                             Message("markers.column.side", "side"),
                             Message("markers.column.copies", "copies"))]
    print(f"{head[0]:>4}  {head[1]:<12} {head[2]:<16} {head[3]:<26} {head[4]:<6} {'mm':>5}  {head[5]}")
    for m in rows:
        component, side = (m.component, m.side) if coded else (words.component_name(m.component),
                                                                words.side_name(m.side))
        print(f"{m.id:>4}  {m.game or every:<12} {component:<16} "
              f"{words.item_name(m.game, m.component, m.item):<26} {side:<6} "
              f"{m.size_mm:>5g}  {m.copies}")
    command = say(Message("markers.command", "command"))
    for c in registry.commands:
        name = c.name if coded else words.command(c.name, c.label, c.does)[0]
        print(f"  QR  {every:<12} {command:<16} {name:<26} {c.text}")
    return 0
