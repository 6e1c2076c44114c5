"""Export saved games (one, or all) as JSON lines, with their components: a table's backup."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO, cast

from tableassist.cli.language import os_reason, reason, say, warning
from tableassist.games.messages import Message
from tableassist.table import backup
from tableassist.table.files import replaced
from tableassist.table.store import MAIN, MAX_INTEGER, Store, StoreError, default_db
from tableassist.table.stores import open_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tableassist.cli import database, whole_number
    from tableassist.cli.language import DB_HELP
    parser.add_argument("--db", type=database, default=None,
                        help=Message("export.help.db", "the table's database (default {file}; "
                                     "{postgres}); it is only read, so a running server may keep "
                                     "it open", file=str(default_db()), postgres=DB_HELP))
    parser.add_argument("--table", default=MAIN, metavar="NAME",
                        help=Message("export.help.table", "which table of the database (default "
                                     "{table})", table=MAIN))
    parser.add_argument("--game-row", type=whole_number(Message("export.what.row", "a saved game's number"), 1, MAX_INTEGER),
                        default=None, metavar="N",
                        help=Message("export.help.game_row", "export saved game #N only (default: "
                                     "every saved game)"))
    parser.add_argument("-o", "--output", default="-", metavar="FILE",
                        help=Message("export.help.output", "where to write (default '-': standard "
                                     "output)"))


def run(args: argparse.Namespace) -> int:
    db = args.db or default_db()
    try:
        store = open_store(db, args.table, read_only=True)
    except StoreError as exc:
        print(say(Message("export.cannot_open", "cannot read the table's database: {why}",
                          why=reason(exc))), file=sys.stderr)
        return 2
    if store.damaged is not None:
        print(say(warning(Message("export.damaged", "{where} is damaged ({why}): exporting the "
                                  "games that can still be read whole", where=store.where,
                                  why=store.damaged))), file=sys.stderr)
        if store.damage_report:   # for a technician: what the database itself said
            print(say(Message("export.damage_report", "the database's own words: \"{report}\"",
                              report=store.damage_report)), file=sys.stderr)
    try:
        if args.game_row is not None:
            store.game(args.game_row)  # unknown or damaged: say so and write nothing
            rows = [args.game_row]
        else:
            rows = store.game_rows()
        if args.output == "-":
            written, problems = backup.write(store, rows, sys.stdout)
            sys.stdout.flush()
        else:
            written, problems = _write_file(Path(args.output), store, rows)
    except StoreError as exc:
        print(say(Message("export.cannot_export", "cannot export: {why}", why=reason(exc))),
              file=sys.stderr)
        return 2
    except OSError as exc:
        print(say(Message("export.cannot_write", "cannot write {file}: {why}", file=args.output,
                          why=os_reason(exc))), file=sys.stderr)
        return 2
    finally:
        store.close()
    for problem in problems:
        print(say(problem), file=sys.stderr)
    where = Message("export.stdout", "standard output") if args.output == "-" else args.output
    print(say(Message("export.exported", "exported {count, plural, one {# game} other {# games}} "
                      "to {where}", count=written, where=where)), file=sys.stderr)
    return 1 if problems else 0


def _write_file(path: Path, store: Store, rows: list[int]) -> tuple[int, list[str]]:
    """The export written to ``path`` whole, or not at all (mode 0600: the logs hold every hidden
    card)."""
    with replaced(path) as out:
        return backup.write(store, rows, cast(TextIO, out))   # opened as text
