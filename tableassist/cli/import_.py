"""Import saved games from an export file into a database, as new rows (never overwriting)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from tableassist.cli.language import os_reason, reason, say
from tableassist.games.messages import Message
from tableassist.table import backup, catalog
from tableassist.table.store import MAIN, Entry, SavedGame, StoreError, default_db
from tableassist.table.stores import open_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE",
                        help=Message("import_.help.file", "an export file; '-' reads standard input"))
    from tableassist.cli import database
    from tableassist.cli.language import DB_HELP
    parser.add_argument("--db", type=database, default=None,
                        help=Message("import_.help.db", "the table's database (default {file}; "
                                     "{postgres}); made if missing. Its server must be stopped: "
                                     "one writer per table", file=str(default_db()),
                                     postgres=DB_HELP))
    parser.add_argument("--table", default=MAIN, metavar="NAME",
                        help=Message("import_.help.table", "which table of the database (default "
                                     "{table}); made if missing", table=MAIN))


def run(args: argparse.Namespace) -> int:
    db = args.db or default_db()
    try:
        source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as exc:
        print(say(Message("import_.cannot_read", "cannot read {file}: {why}", file=args.file,
                          why=os_reason(exc))), file=sys.stderr)
        return 2
    try:
        try:
            store = open_store(db, args.table)
        except StoreError as exc:
            print(say(Message("import_.cannot_open", "cannot open the table's database: {why}",
                              why=reason(exc))), file=sys.stderr)
            return 2
        try:
            games: list[tuple[int, str]] = []

            def checked() -> Iterator[tuple[SavedGame, list[Entry]]]:
                for saved, entries in backup.read(source):
                    games.append((saved.id, saved.game))
                    yield saved, entries

            rows = store.add_games(checked())  # one transaction: all or nothing
        except backup.ExportError as exc:
            print(say(Message("import_.bad_file", "{file}: {why}; nothing was imported",
                              file=args.file, why=reason(exc))), file=sys.stderr)
            return 2
        except StoreError as exc:
            print(say(Message("import_.cannot_import", "cannot import into {where}: {why}",
                              where=store.where, why=reason(exc))), file=sys.stderr)
            return 2
        finally:
            where = store.where
            store.close()
    finally:
        if source is not sys.stdin:
            source.close()
    renumbered = tuple(Message("import_.as", "#{old} as #{new}", old=str(old), new=str(new))
                       for (old, _g), new in zip(games, rows))
    print(say(Message("import_.imported", "imported {count, plural, one {# game} other {# games}} "
                      "into {where}{rows, select, none {} other {: {renumbered}}}",
                      count=len(rows), where=str(where), rows="some" if rows else "none",
                      renumbered=renumbered)))
    unknown = sorted({g for _old, g in games} - set(catalog.game_ids()))
    if unknown:
        print(say(Message("import_.unknown_games", "this installation cannot play {games}; those "
                          "games are listed but cannot be resumed", games=tuple(unknown))))
    return 0
