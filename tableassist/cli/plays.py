"""The play log: every saved game as a play, its winners and scores, and each player's record."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import datetime

from tableassist.table import catalog
from tableassist.table.plays import Play, PlayerStats, PlayLog, csv_text, json_value, player_stats
from tableassist.table.store import MAIN, StoreError, default_db
from tableassist.table.stores import open_store

FORMATS = ("table", "csv", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tableassist.cli import DB_HELP, database
    parser.add_argument("--db", type=database, default=None,
                        help=f"the table's database (default {default_db()}{DB_HELP}); it is "
                             "only read, so a running server may keep it open")
    parser.add_argument("--table", default=MAIN, metavar="NAME",
                        help=f"which table of the database (default {MAIN})")
    parser.add_argument("--game", default=None, metavar="G",
                        help="only the plays of game G (its id: shipwrecked, abandon_ship, …)")
    parser.add_argument("--player", default=None, metavar="NAME",
                        help="only the plays NAME sat at (any capitals), and only NAME's record")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="a readable table (default), or csv (one line per player of each "
                             "play) or json (the plays and the players' records) for export")


def run(args: argparse.Namespace) -> int:
    db = args.db or default_db()
    try:
        store = open_store(db, args.table, read_only=True)
    except StoreError as exc:
        print(f"cannot read the table's database: {exc}", file=sys.stderr)
        return 2
    try:
        log = PlayLog(store)
        plays = log.plays(game=args.game, player=args.player)
        if args.game is not None and not plays and args.game not in catalog.ENGINES:
            known = sorted({*catalog.ENGINES, *(p.game for p in log.plays())})
            if args.game not in known:
                print(f"there is no game {args.game!r}: the games are {', '.join(known)}",
                      file=sys.stderr)
                return 2
    except StoreError as exc:
        print(f"cannot read the plays: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    if args.format == "csv":
        sys.stdout.write(csv_text(plays))
    elif args.format == "json":
        print(json.dumps(json_value(plays, args.player), indent=1, ensure_ascii=False))
    else:
        print(readable(plays, player_stats(plays, args.player)))
    return 0


def readable(plays: Sequence[Play], stats: Sequence[PlayerStats]) -> str:
    """The plays and the records as two aligned tables, for a terminal (dates in local time)."""
    if not plays:
        return "no plays"
    rows = [(f"#{p.row}", when(p.created), p.title, length(p.duration), p.status,
             ", ".join(p.players), outcome(p)) for p in plays]
    out = [f"{len(plays)} play{'s' if len(plays) != 1 else ''}",
           *columns(("row", "date", "game", "length", "status", "players", "result"), rows)]
    if stats:
        out += ["", "players", *columns(
            ("player", "game", "plays", "wins", "best", "average"),
            [(s.player, s.title or "all games", str(s.plays), str(s.wins),
              "" if s.best is None else str(s.best),
              "" if s.average is None else f"{s.average:g}") for s in stats])]
    return "\n".join(out)


def outcome(play: Play) -> str:
    """"Ann won: Ann 19, Bea 14, Cy 12", or what is known of a play without a result."""
    if play.note and play.status in ("damaged", "unknown"):
        return play.note
    if not play.scores:
        return "not scored yet" if play.status == "finished" else ""
    scores = ", ".join(f"{s.player} {s.score}" for s in play.scores)
    won = " and ".join(play.winners) + " won" if play.winners else "nobody won"
    return f"{won}: {scores}"


def when(stored: str) -> str:
    try:
        return datetime.fromisoformat(stored).astimezone().strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return stored or "?"


def length(seconds: int | None) -> str:
    if seconds is None:
        return "–"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def columns(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
            for row in (header, *rows)]
