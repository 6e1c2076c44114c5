"""Import saved games from an export file into a database, as new rows (never overwriting)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from tableassist.table import backup, catalog
from tableassist.table.store import MAIN, Entry, SavedGame, StoreError, default_db
from tableassist.table.stores import open_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="an export file; '-' reads standard input")
    from tableassist.cli import DB_HELP, database
    parser.add_argument("--db", type=database, default=None,
                        help=f"the table's database (default {default_db()}{DB_HELP}); made if "
                             "missing. Its server must be stopped: one writer per table")
    parser.add_argument("--table", default=MAIN, metavar="NAME",
                        help=f"which table of the database (default {MAIN}); made if missing")


def run(args: argparse.Namespace) -> int:
    db = args.db or default_db()
    try:
        source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as exc:
        print(f"cannot read {args.file}: {(exc.strerror or str(exc)).lower()}", file=sys.stderr)
        return 2
    try:
        try:
            store = open_store(db, args.table)
        except StoreError as exc:
            print(f"cannot open the table's database: {exc}", file=sys.stderr)
            return 2
        try:
            games: list[tuple[int, str]] = []

            def checked() -> Iterator[tuple[SavedGame, list[Entry]]]:
                for saved, entries in backup.read(source):
                    games.append((saved.id, saved.game))
                    yield saved, entries

            rows = store.add_games(checked())  # one transaction: all or nothing
        except backup.ExportError as exc:
            print(f"{args.file}: {exc}; nothing was imported", file=sys.stderr)
            return 2
        except StoreError as exc:
            print(f"cannot import into {store.where}: {exc}", file=sys.stderr)
            return 2
        finally:
            where = store.where
            store.close()
    finally:
        if source is not sys.stdin:
            source.close()
    print(f"imported {len(rows)} game{'s' if len(rows) != 1 else ''} into {where}"
          + (": " + ", ".join(f"#{old} as #{new}" for (old, _g), new in zip(games, rows))
             if rows else ""))
    unknown = sorted({g for _old, g in games} - set(catalog.game_ids()))
    if unknown:
        print("this installation cannot play " + ", ".join(unknown)
              + "; those games are listed but cannot be resumed")
    return 0
