"""Write the sticker sheets as vector PDFs (A4 and US Letter), one set per game; or, with
``--marker``, one sticker to reprint (a scratched or torn one the camera reported)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tableassist.cli import whole_number
from tableassist.markers.printing import PAPERS, PRINT_DIR, write_sets, write_sticker
from tableassist.markers.registry import RegistryError, load_registry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--game", help="one game's set (default: every game)")
    which.add_argument("--all", action="store_true", help="every game's set (the default)")
    parser.add_argument("--paper", choices=sorted(PAPERS), help="paper size (default: both)")
    parser.add_argument("--marker", type=whole_number("a marker id", 0, 999), metavar="ID",
                        help="only this marker's sticker, at its printed size (with --game for a game's marker)")
    parser.add_argument("--out", type=Path, default=PRINT_DIR, help="output folder (default: ./print)")


def run(args: argparse.Namespace) -> int:
    try:
        registry = load_registry()
    except RegistryError as exc:
        print(f"tableassist print: {exc}", file=sys.stderr)
        return 2
    if args.game and args.game not in registry.titles:
        print(f"tableassist print: no markers for game {args.game!r}; games: "
              f"{', '.join(registry.games())}", file=sys.stderr)
        return 2
    games = [args.game] if args.game else registry.games()
    papers = [args.paper] if args.paper else sorted(PAPERS)
    try:
        if args.marker is not None:
            paths = write_sticker(args.out, args.marker, papers, registry, args.game)
        else:
            paths = write_sets(args.out, games, papers, registry)
    except KeyError as exc:
        print(f"tableassist print: {exc.args[0]}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tableassist print: cannot write to {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0
