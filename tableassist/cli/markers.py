"""List the marker registry: which sticker id is which component of which game."""

from __future__ import annotations

import argparse
import json
import sys

from tableassist.markers.registry import RegistryError, load_registry



def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", help="one game's markers (plus the global ones)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    try:
        registry = load_registry()
        if args.game:
            rows = registry.markers(args.game)
        else:  # the global markers once, then each game's own
            rows = [m for g in [None, *registry.games()] for m in registry.markers(g) if m.game == g]
    except RegistryError as exc:
        print(f"tableassist markers: {exc}", file=sys.stderr)
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
    print(f"dictionary {registry.dictionary}; {len(rows)} markers")
    print(f"{'id':>4}  {'game':<12} {'component':<16} {'item':<26} {'side':<6} {'mm':>5}  copies")
    for m in rows:
        print(f"{m.id:>4}  {m.game or '(all)':<12} {m.component:<16} {m.item:<26} {m.side:<6} "
              f"{m.size_mm:>5g}  {m.copies}")
    for c in registry.commands:
        print(f"  QR  {'(all)':<12} {'command':<16} {c.name:<26} {c.text}")
    return 0
