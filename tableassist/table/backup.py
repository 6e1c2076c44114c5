"""The export file: saved games as JSON lines, for ``tableassist export`` and ``tableassist import``.

One JSON object per line, in this order::

    {"type": "header", "format": "tableassist-games", "version": 1, "exported": "<UTC time>"}
    {"type": "game", "row": 3, "game": "shipwrecked", "players": ["Ann", "Bea", "Cy"], "seed": 7,
     "options": {…}, "components": {…}, "created": "…", "ended": null,
     "entries": [{"seq": 1, "kind": "action", "action": {…}, "target": null,
                  "source": "tablet", "author": "table", "at": "…"}, …]}
    … one line per game …
    {"type": "end", "games": 2}

A game is one line with its whole log inside, so a game is either in the file or not; ``row`` is
its row in the database it came from (an import gives it a new one). ``components`` is the data
the game started with, so it replays exactly on another machine. The ``end`` line is how an import
knows the file is complete. The links' keys (``<db>.table.json``) are never exported; the logs hold
every hidden card of the games, so an export file is written with mode 0600.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from typing import Any, TextIO

from tableassist.games.messages import Message
from tableassist.table.store import (ENTRY_KINDS, MAX_INTEGER, SOURCES, Entry, SavedGame, Store,
                                     StoreError)

#: The smallest whole number the database keeps (64-bit signed, as :data:`MAX_INTEGER`).
MIN_INTEGER = -MAX_INTEGER - 1

FORMAT = "tableassist-games"
VERSION = 1


class ExportError(ValueError):
    """The file is not a complete tableassist export this version can read; says where and why."""


def header() -> dict[str, Any]:
    return {"type": "header", "format": FORMAT, "version": VERSION,
            "exported": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def game_line(saved: SavedGame, entries: Iterable[Entry]) -> dict[str, Any]:
    """One saved game and its log as an export line (raises :class:`StoreError` if damaged)."""
    log = []
    for e in entries:
        if e.damaged:
            raise StoreError(Message("backup.entry_damaged", "entry {seq} of game #{game} is "
                                     "damaged: {why}", seq=e.seq, game=str(saved.id),
                                     why=e.damaged))
        log.append({"seq": e.seq, "kind": e.kind, "action": e.action, "target": e.target,
                    "source": e.source, "author": e.author, "at": e.at})
    return {"type": "game", "row": saved.id, "game": saved.game, "players": list(saved.players),
            "seed": saved.seed, "options": saved.options, "components": saved.components,
            "created": saved.created, "ended": saved.ended, "entries": log}


def write(store: Store, rows: Iterable[int], out: TextIO) -> tuple[int, list[str]]:
    """Write the games ``rows`` of ``store`` to ``out``. A damaged game is left out and said in
    the returned problems; returns (games written, problems)."""
    out.write(json.dumps(header()) + "\n")
    written, problems = 0, list[str]()   # messages
    for row in rows:
        try:
            line = game_line(store.game(row), store.entries(row))
        except StoreError as exc:
            problems.append(Message("backup.left_out", "game #{game} left out: {why}",
                                    game=str(row), why=exc.args[0] if exc.args else str(exc)))
            continue
        out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        written += 1
    out.write(json.dumps({"type": "end", "games": written}) + "\n")
    return written, problems


def readable(store: Store) -> tuple[list[int], list[int]]:
    """The saved games of ``store`` an export would write (whole) and those it would leave out
    (damaged): what can be rescued from a damaged database. :class:`StoreError` when not even
    the list of games can be read."""
    whole, damaged = [], []
    for row in store.game_rows():
        try:
            game_line(store.game(row), store.entries(row))
        except StoreError:
            damaged.append(row)
            continue
        whole.append(row)
    return whole, damaged


# -- reading ----------------------------------------------------------------------------------

def _is(value: Any, *types: type) -> bool:
    return isinstance(value, types) and not isinstance(value, bool)


def _number(value: Any) -> Message | str:
    """A number as a message shows it: a 4,000-digit one is not printed whole."""
    text = str(value)
    return text if len(text) <= 40 else Message("backup.long_number", "{start}… ({digits} digits)",
                                                start=text[:12], digits=len(text))


def _game(obj: dict[str, Any], where: Message) -> tuple[SavedGame, list[Entry]]:
    def need(ok: bool, what: Message) -> None:
        if not ok:
            raise ExportError(Message("backup.bad_game", "{where}: {what}", where=where,
                                      what=what))

    def whole(value: Any, what: Message, low: int, high: int = MAX_INTEGER) -> None:
        # The database keeps 64-bit integers: a larger one would stop the import in the driver.
        need(_is(value, int), Message("backup.not_whole", "{what} is not a whole number",
                                      what=what))
        need(low <= value <= high, Message("backup.out_of_range", "{what} is {value}, not a whole "
                                           "number from {low} to {high}", what=what,
                                           value=_number(value), low=str(low), high=str(high)))

    def field(name: str) -> Message:
        return Message("backup.field", "'{name}'", name=name)

    def not_a(name: str, kind: str) -> Message:
        # what a field of the game's line should have been
        return Message("backup.not_a", "'{name}' is not {kind, select, game {a game id} names "
                       "{a list of names} object {an object} time {a time} time_or_null "
                       "{a time or null} other {a list}}", name=name, kind=kind)

    players: Any = obj.get("players")
    need(_is(obj.get("game"), str) and bool(obj["game"]), not_a("game", "game"))
    need(_is(players, list) and bool(players) and all(_is(p, str) for p in players),
         not_a("players", "names"))
    whole(obj.get("seed"), field("seed"), MIN_INTEGER)   # any seed a database holds
    if _is(obj.get("row"), int):
        whole(obj["row"], field("row"), 1)
    need(_is(obj.get("options"), dict), not_a("options", "object"))
    need(_is(obj.get("components"), dict), not_a("components", "object"))
    need(_is(obj.get("created"), str), not_a("created", "time"))
    need(obj.get("ended") is None or _is(obj["ended"], str), not_a("ended", "time_or_null"))
    raw: Any = obj.get("entries")
    need(_is(raw, list), not_a("entries", "list"))
    entries = []
    for i, e in enumerate(raw, start=1):
        def bad(what: str, seq: Message | str = "", kind: str = "", source: str = "") -> Message:
            # what is wrong with entry i
            return Message("backup.bad_entry", "{what, select, object {entry {i} is not an "
                           "object} seq {entry {i} has seq {seq}, not {i}} kind {entry {i} has "
                           "an unknown kind {kind}} action {entry {i}'s action is not an object} "
                           "target {entry {i}'s target} source {entry {i} has an unknown source "
                           "{source}} author {entry {i}'s author is not text} other {entry {i}'s "
                           "time is not text}}", i=i, what=what, seq=seq,
                           kind=kind, source=source)
        need(_is(e, dict), bad("object"))
        need(e.get("seq") == i and _is(e["seq"], int), bad("seq", seq=_number(e.get("seq"))))
        need(e.get("kind") in ENTRY_KINDS, bad("kind", kind=repr(e.get("kind"))))
        need(e.get("action") is None or _is(e["action"], dict), bad("action"))
        if e.get("target") is not None:
            # an entry names an earlier one (a correction's), or how far the log is kept (a
            # resume's, 0 for none of it)
            whole(e["target"], bad("target"), 0, i - 1)
        need(e.get("source") in SOURCES, bad("source", source=repr(e.get("source"))))
        need(e.get("author") is None or _is(e["author"], str), bad("author"))
        need(_is(e.get("at"), str), bad("at"))
        entries.append(Entry(e["seq"], e["kind"], e["action"], e["target"], e["source"],
                             e["author"], e["at"]))
    row: Any = obj.get("row")
    saved = SavedGame(id=row if _is(row, int) else 0, game=obj["game"],
                      players=tuple(players), seed=obj["seed"], options=obj["options"],
                      components=obj["components"], created=obj["created"], ended=obj["ended"],
                      entries=len(entries))
    return saved, entries


def _not_export(why: str) -> Message:
    """The file is not an export at all, and how that shows."""
    return Message("backup.not_export", "it is not a tableassist export ({why, select, json {its "
                   "first line is not JSON} header {no tableassist header} other {it is not UTF-8 "
                   "text}})", why=why)


def read(lines: Iterable[str]) -> Iterator[tuple[SavedGame, list[Entry]]]:
    """The games of an export file, checked line by line. Raises :class:`ExportError` at the first
    problem, including at the very end if the file stops before its ``end`` line; a caller that
    writes as it reads (``Store.add_games``) then undoes everything."""
    count = 0
    ended = False
    number = 0
    header_seen = False
    try:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                if not header_seen:
                    raise ExportError(_not_export("json")) from None
                raise ExportError(Message("backup.not_json", "line {line} is damaged (not JSON "
                                          "from character {at} on)", line=number,
                                          at=exc.pos + 1)) from None
            except ValueError:   # a number of more than 4,300 digits (Python's limit)
                raise ExportError(Message("backup.number_too_long", "line {line} holds a number "
                                          "too long to read", line=number)) from None
            except RecursionError:
                raise ExportError(Message("backup.too_deep", "line {line} is nested far too "
                                          "deeply to be a saved game", line=number)) from None
            if not isinstance(obj, dict):
                raise ExportError(Message("backup.not_object", "line {line} is not a JSON object",
                                          line=number))
            if not header_seen:
                header_seen = True
                if obj.get("type") != "header" or obj.get("format") != FORMAT:
                    raise ExportError(_not_export("header"))
                version: Any = obj.get("version")
                if not _is(version, int) or version < 1:
                    raise ExportError(Message("backup.bad_version", "its header has a bad version "
                                              "{version}", version=repr(version)))
                if version > VERSION:
                    raise ExportError(Message("backup.newer", "it was written by a newer tableassist "
                                              "(format {version}; this one reads {reads}); "
                                              "update tableassist", version=_number(version),
                                              reads=str(VERSION)))
                continue
            if ended:
                raise ExportError(Message("backup.after_end", "line {line} comes after the file's "
                                          "end line", line=number))
            kind = obj.get("type")
            if kind == "game":
                yield _game(obj, Message("backup.game_line", "line {line} (game #{row})",
                                         line=number, row=_number(obj.get("row", "?"))))
                count += 1
            elif kind == "end":
                if obj.get("games") != count:
                    raise ExportError(Message("backup.end_count", "the end line says {said} games, "
                                              "the file holds {count}",
                                              said=repr(obj.get("games")), count=count))
                ended = True
            else:
                raise ExportError(Message("backup.unknown_type", "line {line} has an unknown type "
                                          "{kind}", line=number, kind=repr(kind)))
    except UnicodeDecodeError:
        if not header_seen:
            raise ExportError(_not_export("utf8")) from None
        raise ExportError(Message("backup.not_utf8", "line {line} is damaged (not UTF-8 text)",
                                  line=number + 1)) from None
    if not header_seen:
        raise ExportError(Message("backup.empty", "it is empty"))
    if not ended:
        raise ExportError(Message("backup.ends_early", "it ends early, after {count, plural, "
                                  "one {# game} other {# games}} (no end line): it is incomplete",
                                  count=count))
