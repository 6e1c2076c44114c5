"""Your box: check, export and import your own values for the components (tableassist box).

``tableassist box check [FILE]`` checks a box file (by default every file of your box folder) with
the checks the "Your box" screen makes, and prints each game's progress; ``tableassist box export
[--game G] [-o FILE]`` writes your box (one game, or all) as a box file to share;
``tableassist box import FILE [--game G]`` takes a box file's entries into your box. A file with
any fault changes nothing. Exit codes: 0 done, 1 problems found by ``check``, 2 refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tableassist.cli.language import os_reason, reason, say
from tableassist.games.messages import Message
from tableassist.table import catalog
from tableassist.table.box import Box, default_box_dir, write_file
from tableassist.table.box_checks import check_box
from tableassist.table.box_file import dump_text, parse_text
from tableassist.table.box_form import BoxError, form


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--box", type=Path, default=None, metavar="DIR",
                        help=Message("box.help.box", "your box folder (default {folder})",
                                     folder=str(default_box_dir())))
    sub = parser.add_subparsers(dest="box_command", metavar="check|export|import", required=True)
    games = tuple(catalog.ENGINES)
    said = Message("box.help.check", "check a box file, or your box folder's files")
    check = sub.add_parser("check", help=said, description=said)
    check.add_argument("file", nargs="?", type=Path, default=None, metavar="FILE",
                       help=Message("box.help.check_file", "the box file to check (default: every "
                                    "game in your box folder)"))
    said = Message("box.help.export", "write your box as a box file to share")
    export = sub.add_parser("export", help=said, description=said)
    export.add_argument("--game", default=None, choices=list(catalog.ENGINES), metavar="GAME",
                        help=Message("box.help.export_game", "one game only ({games}; default: "
                                     "every game with entries)", games=games))
    export.add_argument("-o", "--output", default="-", metavar="FILE",
                        help=Message("box.help.output", "where to write (default '-': standard "
                                     "output)"))
    said = Message("box.help.import", "take a box file's entries into your box")
    imp = sub.add_parser("import", help=said, description=said)
    imp.add_argument("file", type=Path, metavar="FILE", help=Message("box.help.import_file", "the box file"))
    imp.add_argument("--game", default=None, choices=list(catalog.ENGINES), metavar="GAME",
                     help=Message("box.help.import_game", "take one game only ({games}; default: "
                                  "every game in the file)", games=games))


def run(args: argparse.Namespace) -> int:
    box = Box(args.box or default_box_dir())
    return {"check": _check, "export": _export, "import": _import}[args.box_command](args, box)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError as exc:
        print(say(Message("box.cannot_read", "cannot read {file}: {why}", file=str(path),
                          why=os_reason(exc))), file=sys.stderr)
        return None


def _progress(box: Box, games: list[str]) -> None:
    for game in games:
        p = box.progress(game)
        title = catalog.engine_class(game).title
        text = Message("box.progress", "{title}: {done} of {total} checked", title=title,
                       done=p["checked"], total=p["total"]) if p["total"] else \
            Message("box.nothing_to_check", "{title}: nothing to check", title=title)
        print(say(text) + ("" if p["problem"] is None else f" — {say(p['problem'])}"))


def _check(args: argparse.Namespace, box: Box) -> int:
    if args.file is None:
        problems = [box.problem(g) for g in catalog.ENGINES]
        _progress(box, list(catalog.ENGINES))
        found = [p for p in problems if p]
        print(say(Message("box.checked", "{folder}: {count, plural, =0 {every box file is usable} "
                          "one {# box file cannot be used} other {# box files cannot be used}}",
                          folder=str(box.folder), count=len(found))), file=sys.stderr)
        return 1 if found else 0
    raw = _read(args.file)
    if raw is None:
        return 2
    try:
        games = parse_text(raw, str(args.file))
    except BoxError as exc:
        print(say(reason(exc)), file=sys.stderr)
        return 1
    bad = 0
    for game, entries in games.items():
        title = catalog.engine_class(game).title
        try:
            kept = check_box(game, entries)
        except BoxError as exc:
            bad += 1
            for problem in exc.problems:
                print(f"{args.file}: {title}: {say(problem)}", file=sys.stderr)
            continue
        unverified = form(game).unverified
        done = sum(1 for p in unverified if kept.get(p, {}).get("checked"))
        print(say(Message("box.entries", "{title}: {count, plural, one {# entry} other {# entries}}, "
                          "{done} of {total} checked", title=title, count=len(kept), done=done,
                          total=len(unverified))))
    if not games:
        print(say(Message("box.empty", "{file}: a box file with no game's entries",
                          file=str(args.file))), file=sys.stderr)
    return 1 if bad else 0


def _export(args: argparse.Namespace, box: Box) -> int:
    try:
        exported = box.export_entries(args.game)
    except BoxError as exc:
        print(say(Message("box.cannot_export", "cannot export: {why}", why=reason(exc))),
              file=sys.stderr)
        return 2
    text = dump_text(exported)
    if args.output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        path = Path(args.output)
        try:
            write_file(path, text.encode("utf-8"))
        except OSError as exc:
            print(say(Message("box.cannot_write", "cannot write {file}: {why}", file=str(path),
                              why=os_reason(exc))), file=sys.stderr)
            return 2
    games = list(exported)
    where = Message("box.stdout", "standard output") if args.output == "-" else args.output
    titles = tuple(catalog.engine_class(g).title for g in games)
    print(say(Message("box.exported", "exported {what} to {where}",
                      what=titles or Message("box.nothing", "nothing"), where=where)), file=sys.stderr)
    return 0


def _import(args: argparse.Namespace, box: Box) -> int:
    raw = _read(args.file)
    if raw is None:
        return 2
    try:
        report = box.import_text(raw, game=args.game, where=str(args.file))
    except BoxError as exc:
        for problem in exc.problems:
            print(say(problem), file=sys.stderr)
        return 2
    except OSError as exc:
        print(say(Message("box.cannot_save", "cannot write your box in {folder}: {why}",
                          folder=str(box.folder), why=os_reason(exc))), file=sys.stderr)
        return 2
    for game, counts in report.items():
        title = catalog.engine_class(game).title
        print(say(Message("box.imported", "{title}: {added} added, {replaced} replaced, {unchanged} "
                          "unchanged", title=title, added=counts["added"],
                          replaced=counts["replaced"], unchanged=counts["unchanged"])))
    _progress(box, list(report))
    return 0
