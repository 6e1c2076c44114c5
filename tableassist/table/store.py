"""The append-only action log of every table, in SQLite.

One database file holds any number of saved games. Each game row keeps what is needed to replay
it exactly: the game id, the players in seat order, the seed, the options and the component data it
started with. Each entry of its log is an accepted action, an undo, a redo or a correction, with the
input's source (``camera``, ``tablet``, ``clock``) and author. An entry is committed with
``synchronous=FULL`` in WAL mode before the caller acknowledges it, so a killed process loses
nothing that was acknowledged.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

APPLICATION_ID = 0x54415353  # "TASS": marks the file as ours, so a foreign SQLite file is refused
SCHEMA_VERSION = 1
ENTRY_KINDS = ("action", "undo", "redo", "correction")
SOURCES = ("tablet", "camera", "clock", "script")

_SCHEMA = """
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
CREATE TABLE entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,   -- 1, 2, 3 … per game
    kind    TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'redo', 'correction')),
    action  TEXT,               -- JSON action (for 'action' and 'correction'; null strikes)
    target  INTEGER,            -- the corrected entry's seq (for 'correction')
    source  TEXT NOT NULL,
    author  TEXT,
    at      TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


class StoreError(RuntimeError):
    """The database cannot be used: not a tableassist file, damaged, or from a newer version."""


@dataclass(frozen=True)
class Entry:
    """One line of a game's log."""

    seq: int
    kind: str
    action: dict[str, Any] | None
    target: int | None
    source: str
    author: str | None
    at: str


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


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Store:
    """A tableassist database file. Safe to share between threads (one lock around it)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a folder, not a database file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._check_and_init()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a tableassist database ({exc}); "
                             "choose another file with --db") from None

    def _check_and_init(self) -> None:
        db = self._db
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
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
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise StoreError(f"{self.path} is damaged ({check})")
            db.execute("PRAGMA journal_mode=WAL")
        # FULL: an acknowledged entry survives a power cut, not only a killed process.
        db.execute("PRAGMA synchronous=FULL")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- games -----------------------------------------------------------------------------

    def create_game(self, game: str, players: Sequence[str], seed: int,
                    options: Mapping[str, Any], components: Mapping[str, Any]) -> int:
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO games (game, players, seed, options, components, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game, json.dumps(list(players)), int(seed), json.dumps(dict(options)),
                 json.dumps(components, separators=(",", ":")), _now()))
            return int(cur.lastrowid)

    def game(self, game_id: int) -> SavedGame:
        with self._lock:
            row = self._db.execute(
                "SELECT g.id, g.game, g.players, g.seed, g.options, g.components, g.created, "
                "g.ended, (SELECT count(*) FROM entries e WHERE e.game_id = g.id) "
                "FROM games g WHERE g.id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"there is no saved game #{game_id} in {self.path}")
        return self._saved(row)

    def games(self) -> list[SavedGame]:
        """Every saved game, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.game, g.players, g.seed, g.options, g.components, g.created, "
                "g.ended, (SELECT count(*) FROM entries e WHERE e.game_id = g.id) "
                "FROM games g ORDER BY g.id DESC").fetchall()
        return [self._saved(row) for row in rows]

    @staticmethod
    def _saved(row: Sequence[Any]) -> SavedGame:
        try:
            return SavedGame(id=row[0], game=row[1], players=tuple(json.loads(row[2])),
                             seed=row[3], options=json.loads(row[4]),
                             components=json.loads(row[5]), created=row[6], ended=row[7],
                             entries=row[8])
        except (ValueError, TypeError) as exc:
            raise StoreError(f"saved game #{row[0]} is damaged: {exc}") from None

    def end_game(self, game_id: int) -> None:
        with self._lock:
            self._db.execute("UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL",
                             (_now(), game_id))

    # -- the log ---------------------------------------------------------------------------

    def append(self, game_id: int, kind: str, *, action: Mapping[str, Any] | None = None,
               target: int | None = None, source: str = "tablet",
               author: str | None = None) -> Entry:
        """Commit one entry durably and return it; only then may the caller acknowledge it."""
        if kind not in ENTRY_KINDS:
            raise ValueError(f"unknown entry kind {kind!r}")
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")
        text = None if action is None else json.dumps(dict(action), separators=(",", ":"))
        at = _now()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                seq = self._db.execute("SELECT coalesce(max(seq), 0) + 1 FROM entries "
                                       "WHERE game_id = ?", (game_id,)).fetchone()[0]
                self._db.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 (game_id, seq, kind, text, target, source, author, at))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Entry(seq, kind, None if action is None else dict(action), target, source,
                     author, at)

    def entries(self, game_id: int) -> list[Entry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, action, target, source, author, at FROM entries "
                "WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        out = []
        for seq, kind, action, target, source, author, at in rows:
            try:
                parsed = None if action is None else json.loads(action)
            except ValueError:
                raise StoreError(f"entry {seq} of game #{game_id} is damaged") from None
            out.append(Entry(seq, kind, parsed, target, source, author, at))
        return out
