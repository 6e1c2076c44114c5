"""Write the sticker sheets as vector PDFs (A4 and US Letter), one set per game."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tableassist.markers.printing import PAPERS, PRINT_DIR, write_sets
from tableassist.markers.registry import RegistryError, load_registry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--game", help="one game's set (default: every game)")
    which.add_argument("--all", action="store_true", help="every game's set (the default)")
    parser.add_argument("--paper", choices=sorted(PAPERS), help="paper size (default: both)")
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
        paths = write_sets(args.out, games, papers, registry)
    except OSError as exc:
        print(f"tableassist print: cannot write to {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0
