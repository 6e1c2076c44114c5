"""A table's log in an SQLite file: the default store (``--db PATH``).

The home database file is the table ``main``; another table ``NAME`` is the file
``<db stem>.NAME.sqlite3`` beside it (:func:`table_file`), with its own writer lock and its own
links file. One file holds any number of saved games (the contract: ``store.py``). An entry is
committed with ``synchronous=FULL`` in WAL mode before the caller acknowledges it, so a killed
process loses nothing that was acknowledged; :meth:`SqliteStore.close` checkpoints the WAL, so after
a clean stop the ``.sqlite3`` file alone holds everything.

One writer per file: a store holds the file's :class:`~tableassist.table.writer_lock.WriterLock`
for its lifetime, so a second process refuses at start and names the holder.

Reading never trusts the file: text that is no longer UTF-8 after a flipped bit is decoded
losslessly and reported as damaged by the shared readers of ``store.py``.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tableassist.games.messages import Message
from tableassist.table.files import os_reason
from tableassist.table.links import JsonLinks, links_file
from tableassist.table.store import (CANNOT_READ_GAMES, CANNOT_READ_LOG, CLOSED, MAIN, NOT_ENDED,
                                     NOT_SAVED, NOTHING_IMPORTED, DamagedStore, Entry, GameSummary,
                                     NewEntry, SavedGame, StaleLog, Store, StoreError,
                                     check_table_name, compact, damaged, damaged_version, entry,
                                     imported_rows, newer, no_saved_game, now, problems_said, said,
                                     saved_game, stale, summary)
from tableassist.table.writer_lock import LockError, WriterLock

log = logging.getLogger("tableassist.table")

APPLICATION_ID = 0x54415353  # "TASS": marks the file as ours, so a foreign SQLite file is refused
SCHEMA_VERSION = 2

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
#: The columns every query reads: a flipped byte in the schema's text can rename one and still
#: leave SQL that parses.
_COLUMNS = {"games": ("id", "game", "players", "seed", "options", "components", "created", "ended"),
            "entries": ("game_id", "seq", "kind", "action", "target", "source", "author", "at")}


def _inserted(cur: sqlite3.Cursor) -> int:
    """The row an INSERT just made (``lastrowid`` is typed optional; after an INSERT it is set)."""
    assert cur.lastrowid is not None
    return cur.lastrowid


def table_file(db: Path, table: str) -> Path:
    """The file of table ``table`` of the home database ``db`` (``main`` is ``db`` itself)."""
    return db if table == MAIN else db.with_name(f"{db.stem}.{table}.sqlite3")


def _text(raw: bytes) -> str:
    # A flipped bit can make a TEXT value invalid UTF-8; sqlite3's own decoding would then raise in
    # the middle of a query and lose every row after it. Decode losslessly instead and let each
    # reader say which field is damaged (store.is_text).
    return raw.decode("utf-8", "surrogateescape")


#: What SQLite's reports of damage mean, by words they contain (SQLite says them in English,
#: for its developers: "On tree page 4 cell 5: Extends off end of page", "row 3 missing from
#: index …"). The first kind that fits a report says it; the report itself goes to the log.
_DAMAGE = (
    (("malformed database schema", "sqlite_master", "sqlite_schema"),
     Message("sqlite_store.damage.schema", "the list of its tables is damaged")),
    (("index",),
     Message("sqlite_store.damage.index", "an index of it does not agree with its table")),
    (("constraint failed", "NULL value", "datatype mismatch"),
     Message("sqlite_store.damage.row", "a row holds what its table does not allow")),
    (("page", "cell", "freelist", "btree", "malformed", "overflow", "fragmentation"),
     Message("sqlite_store.damage.pages", "the file's pages do not agree with each other")),
)
_DAMAGE_OTHER = Message("sqlite_store.damage.other", "SQLite's check of the file fails")


def damage(reports: Sequence[str]) -> Message:
    """What SQLite's reports of damage (``PRAGMA integrity_check``, a ``SQLITE_CORRUPT`` error)
    mean, in the table's words: each kind of damage once. SQLite's own words are logged for a
    technician (``tableassist export`` of the file prints them too: ``Store.damage_report``)."""
    log.info("SQLite reports damage: %s", "; ".join(reports))
    kinds: list[Message] = []
    for report in reports:
        kind = next((said for words, said in _DAMAGE
                     if any(w.lower() in report.lower() for w in words)), _DAMAGE_OTHER)
        if kind not in kinds:
            kinds.append(kind)
    return problems_said(kinds or [_DAMAGE_OTHER])


def _damaged(detail: str) -> Message:
    return Message("sqlite_store.damaged", "the file is damaged ({detail})",
                   detail=damage([detail]))


def _said(exc: UnicodeDecodeError) -> Message:
    # sqlite3 raises UnicodeDecodeError, not sqlite3.Error, when SQLite's own message quotes
    # damaged bytes ("malformed database schema (games_open) - near \"\xb0…\""): say those.
    raw = exc.object if isinstance(exc.object, bytes) else bytes(exc.object)
    return _damaged(raw.decode('utf-8', 'replace'))


def explain(exc: sqlite3.Error | UnicodeDecodeError) -> Message | str:
    """What an SQLite error means for the table, in words (the primary result code decides; an
    error we have no words for is SQLite's own, English, text)."""
    if isinstance(exc, UnicodeDecodeError):
        return _said(exc)
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    message = str(exc)
    if primary == sqlite3.SQLITE_FULL or "disk is full" in message:
        return Message("sqlite_store.disk_full", "the disk is full")
    if primary == sqlite3.SQLITE_READONLY:
        return Message("sqlite_store.read_only", "the database cannot be written (the file or its "
                       "folder is read-only)")
    if primary == sqlite3.SQLITE_CANTOPEN:
        return Message("sqlite_store.cannot_open", "the database file cannot be opened (is its "
                       "folder read-only, or gone?)")
    if primary == sqlite3.SQLITE_NOTADB:
        return Message("sqlite_store.not_a_database_file", "it is not a database file")
    if primary == sqlite3.SQLITE_CORRUPT:
        return _damaged(message)
    if primary == sqlite3.SQLITE_IOERR:
        return Message("sqlite_store.io_error", "the disk reported an input/output error")
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return Message("sqlite_store.busy", "another program is using the database")
    return message


class SqliteStore(Store):
    """A table's SQLite file. Safe to share between threads (one lock around it).

    By default the store is the file's writer: it takes the writer lock (a second process is
    refused with a :class:`StoreError` naming the holder) and creates or migrates the file.
    ``read_only=True`` opens an existing file for reading only, without the lock (``tableassist
    export`` reads a table while its server runs)."""

    def __init__(self, db: str | os.PathLike[str], table: str = MAIN, *,
                 read_only: bool = False) -> None:
        self.db = os.fspath(db)
        self.table = check_table_name(table)
        self.path = table_file(Path(db), table)
        self.where = str(self.path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._writer: WriterLock | None = None
        if self.path.is_dir():
            raise StoreError(Message("sqlite_store.is_a_folder", "{path} is a folder, not a database file",
                                     path=str(self.path)))
        if read_only:
            if not self.path.is_file():
                raise StoreError(Message("sqlite_store.no_database", "there is no database at {path}",
                                         path=str(self.path)))
        else:
            self._claim()
        try:
            uri = self.path.resolve().as_uri() + ("?mode=ro" if read_only else "")
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False,
                                       isolation_level=None)
            self._db.text_factory = _text
            self._check_and_init()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            self.close()
            primary = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
            if primary == sqlite3.SQLITE_NOTADB:
                # (SQLite's own words, "file is not a database", are English)
                raise StoreError(Message("sqlite_store.not_ours", "{path} is not a tableassist "
                                         "database; choose another file with --db",
                                         path=str(self.path))) from None
            said = Message("sqlite_store.at", "{path}: {why}", path=str(self.path),
                           why=explain(exc))
            if primary == sqlite3.SQLITE_CORRUPT or isinstance(exc, UnicodeDecodeError):
                raise DamagedStore(said) from None
            raise StoreError(said) from None
        except StoreError:
            self.close()
            raise

    def _claim(self) -> None:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(Message("sqlite_store.cannot_create_folder", "cannot create the "
                                     "folder {folder}: {why}", folder=str(folder),
                                     why=os_reason(exc))) from None
        # access() also says "no" on a read-only mount, even to root; SQLite would otherwise open
        # the file read-only in silence and fail at the first write.
        if not os.access(folder, os.W_OK) or \
                (self.path.exists() and not os.access(self.path, os.W_OK)):
            raise StoreError(Message("sqlite_store.cannot_write_folder", "cannot write in "
                                     "{folder}: the folder or the database is read-only. "
                                     "tableassist keeps the table's database, its lock and its "
                                     "links there; make it writable, or choose another --db",
                                     folder=str(folder)))
        try:
            self._writer = WriterLock.acquire(self.path)
        except LockError as exc:
            raise StoreError(*exc.args) from None

    def _check_and_init(self) -> None:
        db = self._db
        assert db is not None
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id == 0 and tables == 0 and self.read_only:
            raise StoreError(Message("sqlite_store.empty", "{path} is empty: there is no saved "
                                     "game in it", path=str(self.path)))
        if app_id == 0 and tables == 0:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript("BEGIN;" + _SCHEMA + f"PRAGMA application_id={APPLICATION_ID};"
                             f"PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")
        elif app_id != APPLICATION_ID:
            raise StoreError(Message("sqlite_store.another_program", "{path} is an SQLite file "
                                     "of another program; tableassist will not write into it",
                                     path=str(self.path)))
        else:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(newer(str(self.path), str(version)))
            if version < 1:  # every file we wrote says 1 or more: a damaged header
                raise StoreError(damaged_version(str(self.path), str(version)))
            self._check_schema()
            # The writer checks everything, indexes too (quick_check skips them, and a damaged
            # index gives wrong answers: a log's last entry, the newest open game). A reader only
            # notes the damage: it is how the games still whole are exported.
            try:
                problems = [r[0] for r in db.execute("PRAGMA integrity_check(5)")]
            except sqlite3.DatabaseError as exc:   # the check itself may stop on a damaged page
                problems = [str(exc)]
            if problems != ["ok"]:
                reports = [p.replace("\n", " ").replace("*** in database main ***", "").strip()
                           for p in problems]
                if not self.read_only:
                    raise DamagedStore(damaged(str(self.path), damage(reports)))
                self.damaged = damage(reports)
                self.damage_report = "; ".join(reports)
            if not self.read_only:
                db.execute("PRAGMA journal_mode=WAL")
                if version < 2:
                    self._migrate_1_to_2()
        # FULL: an acknowledged entry survives a power cut, not only a killed process.
        db.execute("PRAGMA synchronous=FULL")

    def _check_schema(self) -> None:
        """:class:`DamagedStore` unless the tables have the columns every query reads."""
        assert self._db is not None
        for table, columns in _COLUMNS.items():
            found = tuple(r[1] for r in self._db.execute(f"PRAGMA table_info({table})"))
            if found != columns:
                missing = [c for c in columns if c not in found]
                why = (Message("sqlite_store.no_table", "it has no table {table}", table=table)
                       if not found else
                       Message("sqlite_store.no_column", "its table {table} has no column "
                               "{columns}", table=table, columns=tuple(missing)) if missing
                       else Message("sqlite_store.other_columns", "its table {table} has the "
                                    "columns {columns}", table=table, columns=tuple(found)))
                raise DamagedStore(damaged(str(self.path), why))

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
                except (sqlite3.Error, UnicodeDecodeError):
                    pass  # closing still checkpoints when it can; never fail a shutdown
                self._db.close()
                self._db = None
            if self._writer is not None:
                self._writer.release()
                self._writer = None

    @contextmanager
    def _conn(self, doing: Message | None = None) -> Iterator[sqlite3.Connection]:
        """The connection, under the store's lock, with SQLite's errors said in words."""
        with self._lock:
            if self._db is None:
                raise StoreError(CLOSED)
            try:
                yield self._db
            except (sqlite3.Error, UnicodeDecodeError) as exc:
                raise StoreError(said(doing, explain(exc))) from None

    @property
    def _scan(self) -> str:
        # A damaged file (open only to read) may have a damaged index, which would leave entries
        # out of a log without a word: read the table itself.
        return " NOT INDEXED" if self.damaged is not None else ""

    def links(self) -> JsonLinks:
        return JsonLinks(links_file(self.path))

    # -- games -----------------------------------------------------------------------------

    def create_game(self, game: str, players: Sequence[str], seed: int,
                    options: Mapping[str, Any], components: Mapping[str, Any]) -> int:
        self._writable()
        with self._conn(NOT_SAVED) as db:
            cur = db.execute(
                "INSERT INTO games (game, players, seed, options, components, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game, json.dumps(list(players)), int(seed), json.dumps(dict(options)),
                 compact(components), now()))
            return _inserted(cur)

    def game(self, game_id: int) -> SavedGame:
        with self._conn(CANNOT_READ_GAMES) as db:
            row = db.execute(
                "SELECT id, game, players, seed, options, components, created, ended, "
                f"coalesce((SELECT max(seq) FROM entries e{self._scan} "
                "WHERE e.game_id = g.id), 0) "
                "FROM games g WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(no_saved_game(game_id, self.where))
        return saved_game(row)

    def listing(self, limit: int = 50) -> list[GameSummary]:
        # SQLite says whether options and components are JSON objects: they are never read.
        with self._conn(CANNOT_READ_GAMES) as db:
            rows = db.execute(
                "SELECT id, game, players, seed, created, ended, "
                "CASE WHEN typeof(options) = 'text' AND json_valid(options) "
                "     THEN json_type(options) END, "
                "CASE WHEN typeof(components) = 'text' AND json_valid(components) "
                "     THEN json_type(components) END, "
                f"coalesce((SELECT max(seq) FROM entries e{self._scan} "
                "WHERE e.game_id = g.id), 0) "
                "FROM games g ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [summary(row) for row in rows]

    def latest_open(self, game_ids: Iterable[str]) -> int | None:
        ids = list(game_ids)
        if not ids:
            return None
        with self._conn(CANNOT_READ_GAMES) as db:
            row = db.execute(
                "SELECT id FROM games WHERE ended IS NULL AND game IN "
                f"({', '.join('?' * len(ids))}) ORDER BY id DESC LIMIT 1", ids).fetchone()
        return None if row is None else int(row[0])

    def game_rows(self) -> list[int]:
        with self._conn(CANNOT_READ_GAMES) as db:
            return [int(r[0]) for r in db.execute("SELECT id FROM games ORDER BY id")]

    def end_game(self, game_id: int) -> None:
        self._writable()
        with self._conn(NOT_ENDED) as db:
            db.execute("UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL",
                       (now(), game_id))

    # -- the log ---------------------------------------------------------------------------

    def append(self, game_id: int, kind: str, *, expected_seq: int,
               action: Mapping[str, Any] | None = None, target: int | None = None,
               source: str = "tablet", author: str | None = None) -> Entry:
        return self.append_all(game_id, [NewEntry(kind, expected_seq, action, target, source,
                                                  author)])[0]

    def append_all(self, game_id: int, entries: Sequence[NewEntry]) -> list[Entry]:
        texts = [self._checked_entry(e.kind, e.source, e.action) for e in entries]
        self._writable()
        at = now()
        with self._conn() as db:
            with self._transaction(db):
                seq = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM entries "
                                 "WHERE game_id = ?", (game_id,)).fetchone()[0]
                for e, text in zip(entries, texts):
                    if seq != e.expected_seq:
                        raise StaleLog(stale(game_id, seq - 1, e.expected_seq - 1))
                    db.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                               (game_id, seq, e.kind, text, e.target, e.source, e.author, at))
                    seq += 1
        return [Entry(e.expected_seq, e.kind, None if e.action is None else dict(e.action),
                      e.target, e.source, e.author, at) for e in entries]

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
        with self._conn(CANNOT_READ_LOG) as db:
            rows = db.execute(
                "SELECT seq, kind, action, target, source, author, at FROM entries"
                f"{self._scan} WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return [entry(row) for row in rows]

    def add_games(self, games: Iterable[tuple[SavedGame, Sequence[Entry]]]) -> list[int]:
        self._writable()
        rows = []
        with self._conn(NOTHING_IMPORTED) as db:
            with self._transaction(db):
                for saved, log in games:
                    values, entries = imported_rows(saved, log)
                    cur = db.execute(
                        "INSERT INTO games (game, players, seed, options, components, created, "
                        "ended) VALUES (?, ?, ?, ?, ?, ?, ?)", values)
                    row = _inserted(cur)
                    db.executemany("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                   [(row, *e) for e in entries])
                    rows.append(row)
        return rows
