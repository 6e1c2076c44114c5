"""The ``tableassist`` command: one console script, one module per subcommand.

Each subcommand module has ``add_arguments(parser)`` and ``run(args) -> int`` (the exit code); its
one-line summary, the command's help, is in :data:`language.SUMMARIES` (a message, in the
command's language). Every number on the command line is read by one of the
argparse types below (:func:`whole_number`, :data:`port`, :data:`seed`, :func:`camera_size`), so a
number out of range is refused with what it may be (exit code 2) rather than wrapping round or
failing later.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from tableassist import i18n
from tableassist.cli import language
from tableassist.games.messages import Message
from tableassist.table.store import MAX_INTEGER, is_postgres

#: subcommand -> module. Listed here once the subcommand works.
COMMANDS: dict[str, str] = {
    "serve": "tableassist.cli.serve",
    "camera": "tableassist.cli.camera",
    "demo": "tableassist.cli.demo",
    "replay": "tableassist.cli.replay",
    "replay-camera": "tableassist.cli.replay_camera",
    "markers": "tableassist.cli.markers",
    "print": "tableassist.cli.print",
    "detect": "tableassist.cli.detect",
    "camera-check": "tableassist.cli.camera_check",
    "export": "tableassist.cli.export",
    "import": "tableassist.cli.import_",
    "plays": "tableassist.cli.plays",
    "box": "tableassist.cli.box",
    "proxy": "tableassist.cli.proxy",
}


def whole_number(what: Message | str, low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high``. Anything else is refused
    with "``what`` is a whole number ``low``–``high``, not …" (argparse prints it and exits 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(language.say(
                language.not_a_whole_number(what, low, high, text)))
        return value

    return parse


#: A TCP port (0: the system picks a free one). Without a bound 99999 became port 34463.
port = whole_number(language.PORT, 0, 65535)
#: A game's seed: any number the table's database can keep (SQLite's 64-bit INTEGER).
seed = whole_number(language.SEED, 0, MAX_INTEGER)


def database(text: str) -> str | Path:
    """An argparse ``type`` for ``--db``: a URL (``postgresql://…``, or another scheme, which the
    store then refuses in words) stays text — a path would fold its ``//`` and make it a file name —,
    anything else is the SQLite file's path."""
    return text if is_postgres(text) or re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text) \
        else Path(text)


def camera_size(text: str) -> tuple[int, int]:
    """An argparse ``type`` for ``--camera-size``: "1920x1080" as (1920, 1080), each side 16–16384."""
    w, sep, h = text.strip().lower().replace("×", "x").partition("x")
    if sep and w.isdigit() and h.isdigit() and 16 <= int(w) <= 16384 and 16 <= int(h) <= 16384:
        return int(w), int(h)
    raise argparse.ArgumentTypeError(language.say(language.not_a_camera_size(text)))


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the subcommand named in ``argv`` (all of them when none is) is imported."""
    parser = language.ArgumentParser(
        prog="tableassist",
        description=language.SUMMARY)
    lang_help = language.LANG_HELP
    parser.add_argument("--lang", choices=i18n.LANGUAGES, default=language.wanted(argv or []),
                        help=lang_help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    words = list(argv or [])
    chosen = next((a for i, a in enumerate(words) if not a.startswith("-")
                   and (i == 0 or words[i - 1] != "--lang")), None)
    for name, module_name in COMMANDS.items():
        p = sub.add_parser(name, help=language.SUMMARIES[name],
                           description=language.SUMMARIES[name])
        # also after the subcommand (`tableassist print --lang de`); the default is the one above
        p.add_argument("--lang", choices=i18n.LANGUAGES, default=argparse.SUPPRESS, help=lang_help)
        if chosen is None or chosen == name:
            module = importlib.import_module(module_name)
            module.add_arguments(p)
            p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    with language.speaking(language.wanted(argv)):
        args = build_parser(argv).parse_args(argv)
        try:
            return int(args._run(args) or 0)
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:  # `tableassist replay … | head`
            return 0


if __name__ == "__main__":
    sys.exit(main())
