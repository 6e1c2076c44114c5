"""The append-only action log of every table, in SQLite.

One database file holds any number of saved games. Each game row keeps what is needed to replay
it exactly: the game id, the players in seat order, the seed, the options and the component data it
started with. Each entry of its log is an accepted action, an undo, a redo, a correction or a
``resume`` marker (see below), with the input's source (``camera``, ``tablet``, ``clock``) and
author. An entry is committed with ``synchronous=FULL`` in WAL mode before the caller acknowledges
it, so a killed process loses nothing that was acknowledged; :meth:`Store.close` checkpoints the
WAL, so after a clean stop the ``.sqlite3`` file alone holds everything.

One writer per database: a :class:`Store` holds the file's :class:`~tableassist.table.writer_lock.
WriterLock` for its lifetime, so a second process refuses at start and names the holder. Within
the file, :meth:`Store.append` writes only at the position its caller expects (``expected_seq``,
checked in the same transaction), so a writer whose picture of the log is stale can never append.

A ``resume`` entry with ``target = n`` sets aside the entries after ``n`` that came before it: the
game is replayed as the log stood at entry ``n``, then on from the marker. The table writes one
when a game whose log no longer replays past entry ``n`` is played on; nothing is ever deleted.

Reading never trusts the file: a damaged row or entry (bad JSON, bytes that are not UTF-8 after a
flipped bit, a value of the wrong type) is reported as damaged, and the rest stays readable.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tableassist.table.writer_lock import LockError, WriterLock

APPLICATION_ID = 0x54415353  # "TASS": marks the file as ours, so a foreign SQLite file is refused
SCHEMA_VERSION = 2
ENTRY_KINDS = ("action", "undo", "redo", "correction", "resume")
SOURCES = ("tablet", "camera", "clock", "script")
#: The largest whole number the database keeps (SQLite's INTEGER is 64-bit signed): the bound of
#: every seed, saved-game row and entry number the command line or a screen may give.
MAX_INTEGER = 2**63 - 1

_GAMES = """
CREATE TABLE games (
    id         INTEGER PRIMARY KEY,
    game       TEXT NOT NULL,
    players    TEXT NOT NULL,   -- JSON list, clockwise seat order
    seed       INTEGER NOT NULL,
    options    TEXT NOT NULL,   -- JSON object as given at creation
    components TEXT NOT NULL,   -- JSON: the data file the game started with
    created    TEXT NOT NULL,
    ended      TEXT             -- set when the table ends the game (not when the rules do)
);
"""
_ENTRIES = """
CREATE TABLE {name} (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,   -- 1, 2, 3 … per game
    kind    TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'redo', 'correction', 'resume')),
    action  TEXT,               -- JSON action (for 'action' and 'correction'; null strikes)
    target  INTEGER,            -- the corrected entry's seq ('correction'); the last entry kept ('resume')
    source  TEXT NOT NULL,
    author  TEXT,
    at      TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""
# resume_latest asks for the newest game not ended: with this index it reads one row, not all.
_OPEN_INDEX = "CREATE INDEX games_open ON games(id) WHERE ended IS NULL;"
_SCHEMA = _GAMES + _ENTRIES.format(name="entries") + _OPEN_INDEX


def _inserted(cur: sqlite3.Cursor) -> int:
    """The row an INSERT just made (``lastrowid`` is typed optional; after an INSERT it is set)."""
    assert cur.lastrowid is not None
    return cur.lastrowid


def default_db() -> Path:
    """The table's database in the user's data folder (XDG on Linux)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "tableassist" / "table.sqlite3"


class StoreError(RuntimeError):
    """The database cannot be used: not a tableassist file, damaged, from a newer version, held
    by another process, or a write failed (the message says why, in the table's words)."""


class StaleLog(StoreError):
    """An append at a position the log has already passed: someone else wrote to this game."""


@dataclass(frozen=True)
class Entry:
    """One line of a game's log. ``damaged`` says what is wrong with an entry the file no longer
    holds intact (its other fields are then placeholders)."""

    seq: int
    kind: str
    action: dict[str, Any] | None
    target: int | None
    source: str
    author: str | None
    at: str
    damaged: str | None = None


@dataclass(frozen=True)
class SavedGame:
    """A game's row: everything needed to replay it, and its bookkeeping."""

    id: int
    game: str
    players: tuple[str, ...]
    seed: int
    options: dict[str, Any]
    components: dict[str, Any]
    created: str
    ended: str | None
    entries: int


@dataclass(frozen=True)
class GameSummary:
    """A game as the lobby lists it: no components, and what is damaged instead of an error."""

    id: int
    game: str
    players: tuple[str, ...]
    created: str
    ended: str | None
    entries: int
    damaged: str | None = None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _text(raw: bytes) -> str:
    # A flipped bit can make a TEXT value invalid UTF-8; sqlite3's own decoding would then raise in
    # the middle of a query and lose every row after it. Decode losslessly instead and let each
    # reader say which field is damaged (see _is_text).
    return raw.decode("utf-8", "surrogateescape")


def _is_text(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def explain(exc: sqlite3.Error) -> str:
    """What an SQLite error means for the table, in words (the primary result code decides)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    message = str(exc)
    if primary == sqlite3.SQLITE_FULL or "disk is full" in message:
        return "the disk is full"
    if primary == sqlite3.SQLITE_READONLY:
        return "the database cannot be written (the file or its folder is read-only)"
    if primary == sqlite3.SQLITE_CANTOPEN:
        return "the database file cannot be opened (is its folder read-only, or gone?)"
    if primary == sqlite3.SQLITE_NOTADB:
        return f"it is not a database file ({message})"
    if primary == sqlite3.SQLITE_CORRUPT:
        return f"the file is damaged ({message})"
    if primary == sqlite3.SQLITE_IOERR:
        return f"the disk reported an input/output error ({message})"
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return "another program is using the database"
    return message


def _header_problems(game: Any, players: Any, seed: Any, created: Any,
                     ended: Any) -> tuple[tuple[str, ...], list[str]]:
    """The parsed players of a game row and what is wrong with its small fields."""
    problems = []
    if not _is_text(game):
        problems.append("its game name is damaged")
    names: tuple[str, ...] = ()
    try:
        parsed = json.loads(players) if _is_text(players) else None
    except ValueError:
        parsed = None
    if isinstance(parsed, list) and parsed and all(_is_text(p) for p in parsed):
        names = tuple(parsed)
    else:
        problems.append("its players are damaged (not a JSON list of names)")
    if isinstance(seed, bool) or not isinstance(seed, int):
        problems.append("its seed is damaged (not a whole number)")
    if not _is_text(created):
        problems.append("its creation time is damaged")
    if ended is not None and not _is_text(ended):
        problems.append("its end time is damaged")
    return names, problems


def _json_object(text: Any, what: str, problems: list[str]) -> dict[str, Any]:
    try:
        value = json.loads(text) if _is_text(text) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        problems.append(f"its {what} are damaged (not a JSON object)")
        return {}
    return value


def _entry(row: Sequence[Any]) -> Entry:
    seq, kind, action, target, source, author, at = row
    problems = []
    if kind not in ENTRY_KINDS:
        problems.append("its kind is damaged")
    parsed = None
    if action is not None:
        try:
            parsed = json.loads(action) if _is_text(action) else None
        except ValueError:
            pass
        if not isinstance(parsed, dict):
            problems.append("its action is not a JSON object")
            parsed = None
    if target is not None and (isinstance(target, bool) or not isinstance(target, int)):
        problems.append("its target is damaged")
    if not _is_text(source) or (author is not None and not _is_text(author)) or \
            not _is_text(at):
        problems.append("its source, author or time is damaged")
    if problems:
        return Entry(seq, kind if _is_text(kind) else "?", None, None, "?", None, "",
                     damaged="; ".join(problems))
    return Entry(seq, kind, parsed, target, source, author, at)


class Store:
    """A tableassist database file. Safe to share between threads (one lock around it).

    By default the store is the file's writer: it takes the writer lock (a second process is
    refused with a :class:`StoreError` naming the holder) and creates or migrates the file.
    ``read_only=True`` opens an existing file for reading only, without the lock (``tableassist
    export`` reads a table while its server runs)."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._writer: WriterLock | None = None
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a folder, not a database file")
        if read_only:
            if not self.path.is_file():
                raise StoreError(f"there is no database at {self.path}")
        else:
            self._claim()
        try:
            uri = self.path.resolve().as_uri() + ("?mode=ro" if read_only else "")
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False,
                                       isolation_level=None)
            self._db.text_factory = _text
            self._check_and_init()
        except sqlite3.Error as exc:
            self.close()
            if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == sqlite3.SQLITE_NOTADB:
                raise StoreError(f"{self.path} is not a tableassist database ({exc}); "
                                 "choose another file with --db") from None
            raise StoreError(f"{self.path}: {explain(exc)}") from None
        except StoreError:
            self.close()
            raise

    def _claim(self) -> None:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder {folder}: {exc.strerror}") from None
        # access() also says "no" on a read-only mount, even to root; SQLite would otherwise open
        # the file read-only in silence and fail at the first write.
        if not os.access(folder, os.W_OK) or \
                (self.path.exists() and not os.access(self.path, os.W_OK)):
            raise StoreError(f"cannot write in {folder}: the folder or the database is "
                             "read-only. tableassist keeps the table's database, its lock and "
                             "its links there; make it writable, or choose another --db")
        try:
            self._writer = WriterLock.acquire(self.path)
        except LockError as exc:
            raise StoreError(str(exc)) from None

    def _check_and_init(self) -> None:
        db = self._db
        assert db is not None
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id == 0 and tables == 0 and self.read_only:
            raise StoreError(f"{self.path} is empty: there is no saved game in it")
        if app_id == 0 and tables == 0:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript("BEGIN;" + _SCHEMA + f"PRAGMA application_id={APPLICATION_ID};"
                             f"PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")
        elif app_id != APPLICATION_ID:
            raise StoreError(f"{self.path} is an SQLite file of another program; "
                             "tableassist will not write into it")
        else:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} was written by a newer tableassist "
                                 f"(schema {version}); update tableassist to open it")
            if version < 1:  # every file we wrote says 1 or more: a damaged header
                raise StoreError(f"{self.path} is damaged (its schema version reads {version})")
            problems = [r[0] for r in db.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                said = "; ".join(p.replace("\n", " ").replace("*** in database main ***", "")
                                 .strip() for p in problems)
                raise StoreError(f"{self.path} is damaged ({said})")
            if not self.read_only:
                db.execute("PRAGMA journal_mode=WAL")
                if version < 2:
                    self._migrate_1_to_2()
        # FULL: an acknowledged entry survives a power cut, not only a killed process.
        db.execute("PRAGMA synchronous=FULL")

    def _migrate_1_to_2(self) -> None:
        """Schema 2 adds the ``resume`` entry kind (SQLite cannot alter a CHECK constraint, so the
        entries table is rebuilt) and the index of games not ended. One transaction: a failure
        leaves the file at version 1."""
        assert self._db is not None
        self._db.executescript(
            "BEGIN IMMEDIATE;" + _ENTRIES.format(name="entries_v2")
            + "INSERT INTO entries_v2 SELECT game_id, seq, kind, action, target, source, author, at "
              "FROM entries; DROP TABLE entries; ALTER TABLE entries_v2 RENAME TO entries;"
            + _OPEN_INDEX + "PRAGMA user_version=2; COMMIT;")

    def close(self) -> None:
        """Checkpoint the WAL into the database file, close it and give up the writer lock (so
        the ``.sqlite3`` file alone, copied as a backup, holds every entry). Idempotent."""
        with self._lock:
            if self._db is not None:
                try:
                    if not self.read_only:
                        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error:
                    pass  # closing still checkpoints when it can; never fail a shutdown
                self._db.close()
                self._db = None
            if self._writer is not None:
                self._writer.release()
                self._writer = None

    @contextmanager
    def _conn(self, doing: str | None = None) -> Iterator[sqlite3.Connection]:
        """The connection, under the store's lock, with SQLite's errors said in words."""
        with self._lock:
            if self._db is None:
                raise StoreError("the table's database is closed (the server is stopping)")
            try:
                yield self._db
            except sqlite3.Error as exc:
                reason = explain(exc)
                raise StoreError(reason if doing is None else f"{doing}: {reason}") from None

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(f"{self.path} is open read-only")

    # -- games -----------------------------------------------------------------------------

    def create_game(self, game: str, players: Sequence[str], seed: int,
                    options: Mapping[str, Any], components: Mapping[str, Any]) -> int:
        self._writable()
        with self._conn("the game was not saved") as db:
            cur = db.execute(
                "INSERT INTO games (game, players, seed, options, components, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game, json.dumps(list(players)), int(seed), json.dumps(dict(options)),
                 json.dumps(components, separators=(",", ":")), _now()))
            return _inserted(cur)

    def game(self, game_id: int) -> SavedGame:
        """The game's row, parsed; a :class:`StoreError` says what is damaged."""
        with self._conn("cannot read the saved games") as db:
            row = db.execute(
                "SELECT id, game, players, seed, options, components, created, ended, "
                "coalesce((SELECT max(seq) FROM entries e WHERE e.game_id = g.id), 0) "
                "FROM games g WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"there is no saved game #{game_id} in {self.path}")
        gid, game, players, seed, options, components, created, ended, entries = row
        names, problems = _header_problems(game, players, seed, created, ended)
        parsed_options = _json_object(options, "options", problems)
        parsed_components = _json_object(components, "components", problems)
        if problems:
            raise StoreError(f"saved game #{gid} is damaged: {'; '.join(problems)}")
        return SavedGame(id=gid, game=game, players=names, seed=seed, options=parsed_options,
                         components=parsed_components, created=created, ended=ended,
                         entries=entries)

    def listing(self, limit: int = 50) -> list[GameSummary]:
        """The ``limit`` newest games, for the lobby: without their components (SQLite checks that
        options and components are JSON objects), so its cost does not grow with the number of
        saved games. A damaged row is listed with what is wrong, never raised."""
        with self._conn("cannot read the saved games") as db:
            rows = db.execute(
                "SELECT id, game, players, seed, created, ended, "
                "CASE WHEN typeof(options) = 'text' AND json_valid(options) "
                "     THEN json_type(options) END, "
                "CASE WHEN typeof(components) = 'text' AND json_valid(components) "
                "     THEN json_type(components) END, "
                "coalesce((SELECT max(seq) FROM entries e WHERE e.game_id = g.id), 0) "
                "FROM games g ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        out = []
        for gid, game, players, seed, created, ended, options, components, entries in rows:
            names, problems = _header_problems(game, players, seed, created, ended)
            for what, kind in (("options", options), ("components", components)):
                if kind != "object":
                    problems.append(f"its {what} are damaged (not a JSON object)")
            out.append(GameSummary(
                id=gid, game=game if _is_text(game) else "?", players=names,
                created=created if _is_text(created) else "", ended=ended if _is_text(ended)
                else None, entries=entries, damaged="; ".join(problems) or None))
        return out

    def latest_open(self, game_ids: Iterable[str]) -> int | None:
        """The newest game not ended among those of ``game_ids`` (the engines this installation
        has), or ``None``; one indexed lookup however many games are saved."""
        ids = list(game_ids)
        if not ids:
            return None
        with self._conn("cannot read the saved games") as db:
            row = db.execute(
                "SELECT id FROM games WHERE ended IS NULL AND game IN "
                f"({', '.join('?' * len(ids))}) ORDER BY id DESC LIMIT 1", ids).fetchone()
        return None if row is None else int(row[0])

    def game_rows(self) -> list[int]:
        """Every saved game's row number, oldest first (for ``tableassist export``)."""
        with self._conn("cannot read the saved games") as db:
            return [int(r[0]) for r in db.execute("SELECT id FROM games ORDER BY id")]

    def end_game(self, game_id: int) -> None:
        self._writable()
        with self._conn("the game was not ended") as db:
            db.execute("UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL",
                       (_now(), game_id))

    # -- the log ---------------------------------------------------------------------------

    def append(self, game_id: int, kind: str, *, expected_seq: int,
               action: Mapping[str, Any] | None = None, target: int | None = None,
               source: str = "tablet", author: str | None = None) -> Entry:
        """Commit one entry durably as entry ``expected_seq`` of the game's log and return it; only
        then may the caller acknowledge it.

        Raises :class:`StaleLog` if the log already has entry ``expected_seq`` (another writer got
        there first: the caller's picture of the game is stale), :class:`StoreError` with the
        reason in words ("the disk is full") if the write fails. Either way nothing is written."""
        if kind not in ENTRY_KINDS:
            raise ValueError(f"unknown entry kind {kind!r}")
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")
        self._writable()
        text = None if action is None else json.dumps(dict(action), separators=(",", ":"))
        at = _now()
        with self._conn() as db:
            with self._transaction(db):
                seq = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM entries "
                                 "WHERE game_id = ?", (game_id,)).fetchone()[0]
                if seq != expected_seq:
                    raise StaleLog(
                        f"another program wrote to the log of game #{game_id} (it has "
                        f"{seq - 1} entries, this table knew of {expected_seq - 1})")
                db.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (game_id, seq, kind, text, target, source, author, at))
        return Entry(seq, kind, None if action is None else dict(action), target, source,
                     author, at)

    @staticmethod
    @contextmanager
    def _transaction(db: sqlite3.Connection) -> Iterator[None]:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
            db.execute("COMMIT")
        except BaseException:
            # SQLite may already have rolled back (a full disk does): then ROLLBACK itself fails
            # and would hide the error that matters.
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise

    def entries(self, game_id: int) -> list[Entry]:
        """The game's whole log in order; a damaged entry is returned with ``damaged`` set."""
        with self._conn("cannot read the game's log") as db:
            rows = db.execute(
                "SELECT seq, kind, action, target, source, author, at FROM entries "
                "WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return [_entry(row) for row in rows]

    def add_games(self, games: Iterable[tuple[SavedGame, Sequence[Entry]]]) -> list[int]:
        """Add each game (its row and its log, as another file had them) as a new row, all in one
        transaction: if ``games`` raises part-way (a damaged import file), nothing is added.
        Returns the new rows in order."""
        self._writable()
        rows = []
        with self._conn("nothing was imported") as db:
            with self._transaction(db):
                for saved, log in games:
                    cur = db.execute(
                        "INSERT INTO games (game, players, seed, options, components, created, "
                        "ended) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (saved.game, json.dumps(list(saved.players)), saved.seed,
                         json.dumps(saved.options),
                         json.dumps(saved.components, separators=(",", ":")), saved.created,
                         saved.ended))
                    row = _inserted(cur)
                    db.executemany(
                        "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [(row, e.seq, e.kind, None if e.action is None else
                          json.dumps(e.action, separators=(",", ":")), e.target, e.source,
                          e.author, e.at) for e in log])
                    rows.append(row)
        return rows
