"""The play log: every saved game as a play, its winners and scores, and each player's record."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import datetime

from tableassist.cli.language import reason, say
from tableassist.games.messages import Message
from tableassist.table import catalog
from tableassist.table.plays import Play, PlayerStats, PlayLog, csv_text, json_value, player_stats
from tableassist.table.store import MAIN, StoreError, default_db
from tableassist.table.stores import open_store

FORMATS = ("table", "csv", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tableassist.cli import database
    from tableassist.cli.language import DB_HELP
    parser.add_argument("--db", type=database, default=None,
                        help=Message("plays.help.db", "the table's database (default {file}; "
                                     "{postgres}); it is only read, so a running server may keep "
                                     "it open", file=str(default_db()), postgres=DB_HELP))
    parser.add_argument("--table", default=MAIN, metavar="NAME",
                        help=Message("plays.help.table", "which table of the database (default "
                                     "{table})", table=MAIN))
    parser.add_argument("--game", default=None, metavar="G",
                        help=Message("plays.help.game", "only the plays of game G (its id: "
                                     "shipwrecked, abandon_ship, …)"))
    parser.add_argument("--player", default=None, metavar="NAME",
                        help=Message("plays.help.player", "only the plays NAME sat at (any "
                                     "capitals), and only NAME's record"))
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help=Message("plays.help.format", "a readable table (default), or csv (one "
                                     "line per player of each play) or json (the plays and the "
                                     "players' records) for export"))


def run(args: argparse.Namespace) -> int:
    db = args.db or default_db()
    try:
        store = open_store(db, args.table, read_only=True)
    except StoreError as exc:
        print(say(Message("plays.cannot_open", "cannot read the table's database: {why}",
                          why=reason(exc))), file=sys.stderr)
        return 2
    try:
        log = PlayLog(store)
        plays = log.plays(game=args.game, player=args.player)
        if args.game is not None and not plays and args.game not in catalog.ENGINES:
            known = sorted({*catalog.ENGINES, *(p.game for p in log.plays())})
            if args.game not in known:
                print(say(Message("plays.no_game", "there is no game {game}: the games are {games}",
                                  game=repr(args.game), games=tuple(known))), file=sys.stderr)
                return 2
    except StoreError as exc:
        print(say(Message("plays.cannot_read", "cannot read the plays: {why}", why=reason(exc))),
              file=sys.stderr)
        return 2
    finally:
        store.close()
    if args.format == "csv":
        sys.stdout.write(csv_text(plays))
    elif args.format == "json":
        print(json.dumps(json_value(plays, args.player), indent=1, ensure_ascii=False))
    else:
        print(say(readable(plays, player_stats(plays, args.player))))
    return 0


def readable(plays: Sequence[Play], stats: Sequence[PlayerStats]) -> str:
    """The plays and the records as two aligned tables, for a terminal (dates in local time)."""
    if not plays:
        return say(Message("plays.none", "no plays"))
    rows = [(f"#{p.row}", when(p.created), p.title, say(length(p.duration)), say(status(p.status)),
             ", ".join(p.players), say(outcome(p))) for p in plays]
    header = (Message("plays.column.row", "row"), Message("plays.column.date", "date"),
              Message("plays.column.game", "game"), Message("plays.column.length", "length"),
              Message("plays.column.status", "status"), Message("plays.column.players", "players"),
              Message("plays.column.result", "result"))
    out = [say(Message("plays.count", "{count, plural, one {# play} other {# plays}}", count=len(plays))),
           *columns([say(h) for h in header], rows)]
    if stats:
        records = (Message("plays.column.player", "player"), header[2],
                  Message("plays.column.plays", "plays"), Message("plays.column.wins", "wins"),
                  Message("plays.column.best", "best"), Message("plays.column.average", "average"))
        out += ["", say(Message("plays.records", "players")), *columns(
            [say(h) for h in records],
            [(s.player, s.title or say(Message("plays.all_games", "all games")), str(s.plays),
              str(s.wins), "" if s.best is None else str(s.best),
              "" if s.average is None else f"{s.average:g}") for s in stats])]
    return "\n".join(out)


#: How a play stands, in words (``tableassist.table.plays.STATUSES``).
def status(value: str) -> Message:
    return Message("plays.status", "{status, select, finished {finished} abandoned {abandoned} "
                   "paused {paused} damaged {damaged} unknown {unknown} other {{status}}}",
                   status=value)


def outcome(play: Play) -> Message | str:
    """"Ann won: Ann 19, Bea 14, Cy 12", or what is known of a play without a result."""
    if play.note and play.status in ("damaged", "unknown"):
        return play.note
    if not play.scores:
        return Message("plays.not_scored", "not scored yet") if play.status == "finished" else ""
    scores = tuple(Message("plays.score", "{player} {score}", player=s.player, score=str(s.score))
                   for s in play.scores)
    if not play.winners:
        return Message("plays.nobody_won", "nobody won: {scores}", scores=scores)
    return Message("plays.won", "{winners} {count, plural, one {won} other {won}}: {scores}",
                   winners=tuple(play.winners), count=len(play.winners), scores=scores)


def when(stored: str) -> str:
    try:
        return datetime.fromisoformat(stored).astimezone().strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return stored or "?"


def length(seconds: int | None) -> Message | str:
    if seconds is None:
        return "–"
    minutes = round(seconds / 60)
    if minutes < 60:
        return Message("plays.minutes", "{minutes} min", minutes=minutes)
    return Message("plays.hours", "{hours} h {minutes} min", hours=minutes // 60,
                   minutes=str(minutes % 60).zfill(2))


def columns(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
            for row in (header, *rows)]
