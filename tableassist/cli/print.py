"""Write the sticker sheets as vector PDFs (A4 and US Letter), one set per game; or, with
``--marker``, one sticker to reprint (a scratched or torn one the camera reported).

The sheets are printed in the command's language (``tableassist --lang de print``): English ones
as ``<out>/<game>-<paper>.pdf``, the others in a folder of their language's code beside them
(``<out>/de/<game>-<paper>.pdf``), so the English sheets keep their addresses.
``--every-language`` writes all three (``print/`` in the checkout holds them ready-made)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tableassist import i18n
from tableassist.cli import whole_number
from tableassist.cli.language import error, os_reason, say
from tableassist.games.messages import Message
from tableassist.i18n.sheets import sheet_words
from tableassist.markers.printing import PAPERS, PRINT_DIR, NoSuchMarker, write_sets, write_sticker
from tableassist.i18n.registry_words import no_such_marker, registry_problem
from tableassist.markers.registry import RegistryError, load_registry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--game", help=Message("print.help.game", "one game's set (default: every "
                                              "game)"))
    which.add_argument("--all", action="store_true",
                       help=Message("print.help.all", "every game's set (the default)"))
    parser.add_argument("--paper", choices=sorted(PAPERS),
                        help=Message("print.help.paper", "paper size (default: both)"))
    parser.add_argument("--marker", type=whole_number(Message("print.what.marker", "a marker id"), 0, 999), metavar="ID",
                        help=Message("print.help.marker", "only this marker's sticker, at its "
                                     "printed size (with --game for a game's marker)"))
    parser.add_argument("--every-language", action="store_true",
                        help=Message("print.help.every_language", "the sheets in every language "
                                     "({languages}), not only --lang's",
                                     languages=i18n.LANGUAGES))
    parser.add_argument("--out", type=Path, default=PRINT_DIR,
                        help=Message("print.help.out", "output folder (default: ./print)"))


def sheets_folder(out: Path, lang: str) -> Path:
    """Where the sheets in ``lang`` go under ``out``: ``out`` itself for English, ``out/<lang>``
    for the others."""
    return out if lang == i18n.DEFAULT else out / lang


def run(args: argparse.Namespace) -> int:
    try:
        registry = load_registry()
    except RegistryError as exc:
        print(say(error("print", registry_problem(exc))), file=sys.stderr)
        return 2
    if args.game and args.game not in registry.titles:
        print(say(error("print", no_such_marker(NoSuchMarker("game", 0, args.game, registry.games(),
                                                              "")))), file=sys.stderr)
        return 2
    games = [args.game] if args.game else registry.games()
    papers = [args.paper] if args.paper else sorted(PAPERS)
    langs = list(i18n.LANGUAGES) if args.every_language else [args.lang]
    paths = []
    for lang in langs:
        out = sheets_folder(args.out, lang)
        try:
            if args.marker is not None:
                paths += write_sticker(out, args.marker, papers, registry, args.game,
                                       words=sheet_words(lang))
            else:
                paths += write_sets(out, games, papers, registry, words=sheet_words(lang))
        except NoSuchMarker as exc:
            print(say(error("print", no_such_marker(exc))), file=sys.stderr)
            return 2
        except OSError as exc:
            print(say(error("print", Message("print.cannot_write", "cannot write to {folder}: {why}",
                                             folder=str(out), why=os_reason(exc)))), file=sys.stderr)
            return 1
    for path in paths:
        print(path)
    return 0
