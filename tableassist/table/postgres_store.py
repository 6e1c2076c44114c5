"""A table's log in PostgreSQL: a venue's one database for all its tables (``--db postgresql://…``).

The contract is the SQLite store's (``store.py``); what differs is where things are:

* Everything lives in the schema ``tableassist`` of the database the URL names (so the venue's
  database may hold other programs' tables): ``meta`` (the schema version), ``tables`` (one row
  per table: its number, the advisory lock's key, and its **owner row**: who holds its writer
  lock), ``games`` and ``entries`` (every row keyed by ``table_name``; game numbers count 1, 2,
  3 … per table, as in a table's SQLite file), and ``links`` (each table's keys and links, what
  SQLite keeps in ``<db>.table.json``). Renaming a table is one ``UPDATE tables SET name``: the
  other tables follow (``ON UPDATE CASCADE``), and the lock's key, the table's number, stays.
* One writer per table: the writing store's connection holds the session-level advisory lock
  ``pg_try_advisory_lock(LOCK_SPACE, tables.id)`` for as long as it is open, and writes the owner
  row (pid, host, command, since), which a second writer's refusal names. The server releases a
  session lock when its connection drops, so a killed writer (``kill -9``, a power cut on the
  table's computer) blocks nothing; the stale owner row is overwritten by the next holder.
  Within one process every writing store of one table shares that connection (as SQLite's share
  the file lock): they are one writer, their appends ordered by ``expected_seq``.
* Durability: each entry is one autocommitted statement (the entries of one change,
  ``append_all``, one transaction), acknowledged by the server only once its WAL record is flushed (``synchronous_commit`` on, PostgreSQL's default); the statement
  inserts only if the log ends where the caller expects, so a stale writer is refused.
* A lost connection (the server restarted, a network blip) is not the end of the table: the next
  call reconnects, takes the lock again (refused, naming the holder, if another process took
  the table meanwhile) and retries once; an append whose commit was in doubt is recognised in
  the log as the one it sent (its time, kind and action) rather than written twice.

JSON fields are ``text``, as in SQLite, so a row damaged by hand is reported as damaged by the
same readers (``store.py``) rather than refused by the column's type. Every fault is said in words
(:func:`explain`, :func:`connect_error`), and the URL is never printed with its password.
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

from tableassist.games.messages import Message
from tableassist.table.store import (CANNOT_READ_GAMES, CANNOT_READ_LOG, CLOSED, MAIN, NOT_ENDED,
                                     NOT_SAVED, NOTHING_IMPORTED, Entry, GameSummary, NewEntry,
                                     SavedGame, StaleLog, Store, StoreError, TableHeld,
                                     check_table_name, damaged_version, entry, imported_rows,
                                     newer, no_saved_game, now, said, saved_game, stale, summary)
from tableassist.table.writer_lock import in_use, this_process

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
except ImportError:  # SQLite needs nothing; a venue installs tableassist[postgresql]
    psycopg = None  # type: ignore[assignment]

SCHEMA = "tableassist"
SCHEMA_VERSION = 2
#: The first key of every advisory lock tableassist takes ("TASS"); the second is the table's
#: number (``tables.id``, from 1), or 0 for the lock that serialises creating the schema and
#: changing the venue's list of tables.
LOCK_SPACE = 0x54415353
#: The first key of a serving process's advisory lock ("TASP"); the second is its row in
#: ``processes``: held for as long as the process serves the venue (``table/postgres_venue.py``).
PROCESS_SPACE = 0x54415350
CONNECT_TIMEOUT = 5  # seconds; a server that does not answer is said so, not waited for
#: How soon the server notices a writer that vanished without closing its connection (its
#: computer lost power, its network went): TCP keepalives on the writer's connection, asked of
#: the server for that session, end it after about 30 + 3 × 10 s of silence, and so free the
#: table's lock. (A killed process closes its socket: the server notices at once.)
SERVER_KEEPALIVES = {"tcp_keepalives_idle": 30, "tcp_keepalives_interval": 10,
                     "tcp_keepalives_count": 3}
#: How long a writer waits for the server to notice that the process its owner row names, on
#: this computer, is gone (its lock is released the moment the server sees the socket close).
DEAD_OWNER_WAIT = 5.0

_DDL = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE TABLE {SCHEMA}.meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE {SCHEMA}.tables (
    id            integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- the writer lock's key
    name          text NOT NULL UNIQUE,
    created       text NOT NULL,
    -- who holds the table's writer lock (null when it was let go cleanly)
    owner_pid     integer,
    owner_host    text,
    owner_command text,
    owner_since   text
);
CREATE TABLE {SCHEMA}.games (
    table_name text NOT NULL REFERENCES {SCHEMA}.tables(name) ON UPDATE CASCADE,
    id         bigint NOT NULL,  -- 1, 2, 3 … per table
    game       text NOT NULL,
    players    text NOT NULL,    -- JSON list, clockwise seat order
    seed       bigint NOT NULL,
    options    text NOT NULL,    -- JSON object as given at creation
    components text NOT NULL,    -- JSON: the data file the game started with
    created    text NOT NULL,
    ended      text,             -- set when the table ends the game (not when the rules do)
    PRIMARY KEY (table_name, id)
);
-- resume_latest asks for the newest game not ended: with this index it reads one row, not all.
CREATE INDEX games_open ON {SCHEMA}.games (table_name, id) WHERE ended IS NULL;
CREATE TABLE {SCHEMA}.entries (
    table_name text NOT NULL,
    game_id    bigint NOT NULL,
    seq        bigint NOT NULL,  -- 1, 2, 3 … per game
    kind       text NOT NULL CHECK (kind IN ('action', 'undo', 'redo', 'correction', 'resume')),
    action     text,             -- JSON action ('action', 'correction'; null strikes)
    target     bigint,           -- the corrected entry ('correction'); the last entry kept ('resume')
    source     text NOT NULL,
    author     text,
    at         text NOT NULL,
    PRIMARY KEY (table_name, game_id, seq),
    FOREIGN KEY (table_name, game_id) REFERENCES {SCHEMA}.games ON UPDATE CASCADE
);
CREATE TABLE {SCHEMA}.links (
    table_name text PRIMARY KEY REFERENCES {SCHEMA}.tables(name) ON UPDATE CASCADE,
    data       text NOT NULL     -- JSON: the table's keys and links (server/tokens.py)
);
-- The JSON type of a text (null if it is not JSON): the lobby checks options and components
-- without sending them (PostgreSQL 15 has no IS JSON).
CREATE FUNCTION {SCHEMA}.json_kind(value text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN jsonb_typeof(value::jsonb);
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$;
INSERT INTO {SCHEMA}.meta VALUES ('application', 'tableassist'), ('schema', '1');
"""
#: What each schema version adds to the one before (a database of an older tableassist is
#: brought up to date by its first writer, under the schema lock). 2: the venue's list of tables
#: (each table's title and when it was closed; the staff key is ``meta.staff``) and the serving
#: processes of a venue served by several (``postgres_venue.py``).
_MIGRATIONS = {
    2: f"""
ALTER TABLE {SCHEMA}.tables ADD COLUMN title text, ADD COLUMN closed text;
CREATE TABLE {SCHEMA}.processes (
    id      integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- its advisory lock's key
    host    text NOT NULL,
    pid     integer NOT NULL,
    address text NOT NULL,   -- where the proxy reaches it (host:port)
    command text NOT NULL,
    since   text NOT NULL
);
""",
}

# The lobby's and resume_latest's queries, named so that tests can ask the server how much work
# each one does (EXPLAIN … BUFFERS): a count, not a time.
LISTING = """
SELECT id, game, players, seed, created, ended, json_kind(options), json_kind(components),
       coalesce((SELECT max(seq) FROM entries e
                 WHERE e.table_name = g.table_name AND e.game_id = g.id), 0)
FROM games g WHERE table_name = %s ORDER BY id DESC LIMIT %s"""
LATEST_OPEN = """
SELECT id FROM games WHERE table_name = %s AND ended IS NULL AND game = ANY(%s)
ORDER BY id DESC LIMIT 1"""
# One statement, so one round trip: it inserts only if the log ends where the caller expects.
_APPEND = """
INSERT INTO entries (table_name, game_id, seq, kind, action, target, source, author, at)
SELECT %(table)s, %(game)s, %(seq)s, %(kind)s, %(action)s, %(target)s, %(source)s, %(author)s,
       %(at)s
WHERE (SELECT coalesce(max(seq), 0) FROM entries
       WHERE table_name = %(table)s AND game_id = %(game)s) = %(seq)s - 1
RETURNING seq"""
_CREATE_GAME = """
INSERT INTO games (table_name, id, game, players, seed, options, components, created, ended)
SELECT %s, coalesce(max(id), 0) + 1, %s, %s, %s, %s, %s, %s, %s FROM games WHERE table_name = %s
RETURNING id"""

T = TypeVar("T")


# -- the URL and the faults, in words -------------------------------------------------------------

#: Who libpq connects as when the URL names no user, where a command shows what to type.
LOGIN_NAME = Message("postgres_store.login_name", "(your login name)")
#: What failed, before why (``store.said``): the table's links (``PostgresLinks``).
CANNOT_READ_LINKS = Message("postgres_store.doing.cannot_read_links", "cannot read the table's "
                            "links")
LINKS_NOT_SAVED = Message("postgres_store.doing.links_not_saved", "the table's links were not "
                          "saved")


def another_program(params: Mapping[str, str]) -> Message:
    """The database's schema ``tableassist`` is not ours."""
    return Message("postgres_store.another_program", "{where} has a schema '{schema}' of another "
                   "program; tableassist will not write into it", where=shown(params),
                   schema=SCHEMA)


def parameters(url: str) -> dict[str, str]:
    """libpq's parameters from ``url``, with tableassist's defaults (a short connect timeout, a
    name the venue's staff see in ``pg_stat_activity``). Raises :class:`StoreError`."""
    if psycopg is None:
        raise StoreError(Message("postgres_store.no_psycopg", "a postgresql:// database needs "
                                 "the package `psycopg`: `pip install "
                                 "'tableassist[postgresql]'`"))
    try:
        params = {k: str(v) for k, v in conninfo_to_dict(url).items()}
    except psycopg.Error as exc:
        # libpq's own reason is quoted as it says it (its words, like the server's)
        raise StoreError(Message("postgres_store.bad_url", "--db is not a PostgreSQL URL that "
                                 "can be read ({reason}); it looks like "
                                 "postgresql://USER:PASSWORD@HOST:PORT/DATABASE",
                                 reason=_first_line(exc))) from None
    params.setdefault("connect_timeout", str(CONNECT_TIMEOUT))
    params.setdefault("application_name", "tableassist")
    # The client's side of the same: a vanished server is noticed, not waited on forever.
    params.setdefault("keepalives_idle", "30")
    params.setdefault("keepalives_interval", "10")
    params.setdefault("keepalives_count", "3")
    return params


def shown(params: Mapping[str, str]) -> str:
    """The database as a URL without its password (what messages and the console print)."""
    user = params.get("user")
    host = params.get("host", "")
    port = params.get("port")
    at = "" if host.startswith("/") else host + (f":{port}" if port else "")
    query = f"?host={host}" if host.startswith("/") else ""
    return f"postgresql://{user + '@' if user else ''}{at}/{params.get('dbname', '')}{query}"


def _server(params: Mapping[str, str]) -> str:
    host = params.get("host") or "localhost"
    return f"{host}:{params.get('port') or 5432}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def connect_error(exc: Exception, params: Mapping[str, str]) -> Message:
    """Why a connection could not be made, and what to do about it."""
    text = str(exc)
    server = _server(params)
    user = params.get("user") or ""
    dbname = params.get("dbname") or user
    if "Connection refused" in text or "No such file or directory" in text:
        return Message("postgres_store.connect.refused", "cannot reach the PostgreSQL server at "
                       "{server} (connection refused): is it running, and is that its address "
                       "and port?", server=server)
    if "timeout expired" in text:
        return Message("postgres_store.connect.timeout", "the PostgreSQL server at {server} does "
                       "not answer (no reply within {seconds} s)", server=server,
                       seconds=params.get("connect_timeout") or "")
    if "failed to resolve host" in text or "could not translate host name" in text:
        return Message("postgres_store.connect.no_host", "cannot find the database server's host "
                       "{host}", host=repr(params.get("host")))
    # who: the user named, else the login name libpq uses
    who = Message("postgres_store.connect.user", "user '{user}'", user=user) if user else \
        Message("postgres_store.connect.login_user", "user '(your login name)'")
    login = user or LOGIN_NAME   # in a command: what to type there
    if "password authentication failed" in text:
        return Message("postgres_store.connect.bad_password", "the PostgreSQL server at {server} "
                       "refused the password of {who} (or there is no such user)", server=server,
                       who=who)
    if "no password supplied" in text:
        return Message("postgres_store.connect.no_password", "the PostgreSQL server at {server} "
                       "wants a password for {who}: give it in the URL (postgresql://{login}:PASSWORD@…) "
                       "or in ~/.pgpass", server=server, who=who, login=login)
    if f'database "{dbname}" does not exist' in text or "does not exist" in text and \
            "database" in text:
        return Message("postgres_store.connect.no_database", "there is no database '{dbname}' on "
                       "the PostgreSQL server at {server}: create it (createdb -O {login} {dbname}), or "
                       "check the --db URL", dbname=dbname or login, server=server, login=login)
    if "role" in text and "does not exist" in text:
        return Message("postgres_store.connect.no_user", "there is no {who} on the PostgreSQL "
                       "server at {server}: create it (createuser --pwprompt {login})", who=who,
                       server=server, login=login)
    if "no pg_hba.conf entry" in text:
        return Message("postgres_store.connect.not_allowed", "the PostgreSQL server at {server} "
                       "does not let {who} connect from here (no pg_hba.conf entry)",
                       server=server, who=who)
    if "is not currently accepting connections" in text:
        return Message("postgres_store.connect.not_accepting", "the database '{dbname}' is not "
                       "accepting connections now", dbname=dbname or login)
    if "too many" in text and "connections" in text:
        return Message("postgres_store.connect.too_many", "the PostgreSQL server at {server} has "
                       "no free connection (max_connections)", server=server)
    reason = re.sub(r"^(connection (is bad|failed): )+(connection to server at .*? failed: )?"
                    r"(FATAL: +)?", "", _first_line(exc))
    return Message("postgres_store.connect.failed", "cannot connect to the PostgreSQL server at "
                   "{server} ({reason})", server=server, reason=reason)


def explain(exc: Exception) -> Message:
    """What a PostgreSQL error during use means for the table, in words (SQLSTATE decides; the
    server's own line, where one is quoted, is in the server's language)."""
    state = getattr(exc, "sqlstate", None) or ""
    if state == "53100":
        return Message("postgres_store.disk_full", "the database server's disk is full")
    if state.startswith("53"):
        return Message("postgres_store.out_of_resources", "the database server is out of "
                       "resources ({reason})", reason=_first_line(exc))
    if state == "25006":
        return Message("postgres_store.read_only", "the database cannot be written (the server "
                       "says it is read-only)")
    if state == "42501":
        return Message("postgres_store.not_permitted", "the database user may not do this "
                       "({reason})", reason=_first_line(exc))
    if state in ("57P01", "57P02", "57P03") or state.startswith("08") or _is_lost(exc):
        return Message("postgres_store.lost", "lost the connection to the database server")
    return Message("postgres_store.refused", "the database server refused it ({reason})",
                   reason=_first_line(exc))


def _is_lost(exc: Exception) -> bool:
    state = getattr(exc, "sqlstate", None) or ""
    return (state.startswith("08") or state in ("57P01", "57P02", "57P03")
            or psycopg is not None and isinstance(exc, psycopg.OperationalError) and not state)


# -- the schema ------------------------------------------------------------------------------------

def schema_version(conn: Any, params: Mapping[str, str]) -> int | None:
    """The schema version the database holds (None: no tableassist schema yet)."""
    if conn.execute(f"SELECT to_regclass('{SCHEMA}.meta')").fetchone()[0] is None:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = %s",
                              (SCHEMA,)).fetchone()[0]
        if tables:
            raise StoreError(another_program(params))
        return None
    rows = dict(conn.execute(f"SELECT key, value FROM {SCHEMA}.meta").fetchall())
    if rows.get("application") != "tableassist":
        raise StoreError(another_program(params))
    text = rows.get("schema", "")
    if not text.isdigit() or int(text) < 1:
        raise StoreError(damaged_version(shown(params), repr(text)))
    version = int(text)
    if version > SCHEMA_VERSION:
        raise StoreError(newer(shown(params), str(version)))
    return version


def prepare_schema(conn: Any, params: Mapping[str, str]) -> None:
    """Create the schema if the database has none, or bring an older one up to date, inside the
    caller's transaction (a writer's, or the venue's). Raises :class:`StoreError`."""
    # Two writers starting on a fresh database: one creates the schema, then the other finds it.
    conn.execute("SELECT pg_advisory_xact_lock(%s::int, 0)", (LOCK_SPACE,))
    version = schema_version(conn, params)
    try:
        if version is None:
            conn.execute(_DDL)
            version = 1
        for step in range(version + 1, SCHEMA_VERSION + 1):
            conn.execute(_MIGRATIONS[step])
            conn.execute(f"UPDATE {SCHEMA}.meta SET value = %s WHERE key = 'schema'",
                         (str(step),))
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(Message(
            "postgres_store.may_not_create", "user '{user}' may not create tableassist's tables "
            "in {where} ({reason}): make it the database's owner (createdb -O {user} …) or GRANT "
            "CREATE ON DATABASE to it", user=params.get("user") or LOGIN_NAME, where=shown(params),
            reason=_first_line(exc))) from None


# -- one table's connection ----------------------------------------------------------------------

class _Link:
    """The connection of one table's store: a writer's holds the table's advisory lock for as long
    as it is open (and is shared by every writing store of that table in this process), a
    reader's only reads. Reconnects when the connection is lost."""

    def __init__(self, url: str, params: dict[str, str], table: str, where: str,
                 writer: bool) -> None:
        self.url, self.params, self.table, self.where = url, params, table, where
        self.writer = writer
        self.lock = threading.RLock()
        self.count = 0
        self.table_id: int | None = None
        self.conn: Any = None
        self.conn = self._connect()

    # -- connecting ----------------------------------------------------------------------------

    def _connect(self) -> Any:
        try:
            conn = psycopg.connect(make_conninfo(**self.params), autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(connect_error(exc, self.params)) from None
        try:
            conn.execute(f"SET search_path TO {SCHEMA}")
            if self.writer:
                for name, value in SERVER_KEEPALIVES.items():
                    conn.execute(f"SET {name} = {int(value)}")
                self.table_id = self._prepare(conn)
                self._take_lock(conn)
            else:
                conn.execute("SET default_transaction_read_only = on")
                self._check_readable(conn)
        except StoreError:
            conn.close()
            raise
        except psycopg.Error as exc:
            conn.close()
            raise StoreError(Message("postgres_store.where", "{where}: {why}", where=self.where,
                                     why=explain(exc))) from None
        return conn

    def _prepare(self, conn: Any) -> int:
        """Create the schema if the database has none, the table's row if it is new; its id."""
        with conn.transaction():
            prepare_schema(conn, self.params)
            conn.execute("INSERT INTO tables (name, created) VALUES (%s, %s) "
                         "ON CONFLICT (name) DO NOTHING", (self.table, now()))
            return int(conn.execute("SELECT id FROM tables WHERE name = %s",
                                    (self.table,)).fetchone()[0])

    def _take_lock(self, conn: Any) -> None:
        deadline = time.monotonic() + DEAD_OWNER_WAIT
        while not conn.execute("SELECT pg_try_advisory_lock(%s::int, %s::int)",
                               (LOCK_SPACE, self.table_id)).fetchone()[0]:
            row = conn.execute("SELECT owner_pid, owner_host, owner_command, owner_since "
                               "FROM tables WHERE id = %s", (self.table_id,)).fetchone()
            owner = None if row is None or row[0] is None else \
                dict(zip(("pid", "host", "command", "since"), row))
            # A holder that died on this computer a moment ago: its connection is closing.
            if owner is None or not _gone(owner) or time.monotonic() > deadline:
                raise TableHeld(in_use(self.where, owner))
            time.sleep(0.05)
        me = this_process()
        conn.execute("UPDATE tables SET owner_pid = %s, owner_host = %s, owner_command = %s, "
                     "owner_since = %s WHERE id = %s",
                     (me["pid"], me["host"], me["command"], me["since"], self.table_id))

    def _check_readable(self, conn: Any) -> None:
        if schema_version(conn, self.params) is None:
            raise StoreError(Message("postgres_store.no_log", "there is no tableassist log in "
                                     "{where}", where=shown(self.params)))
        if conn.execute("SELECT 1 FROM tables WHERE name = %s", (self.table,)).fetchone() is None:
            raise StoreError(Message("postgres_store.no_table", "there is no table {table} in "
                                     "{where}", table=self.table, where=shown(self.params)))

    # -- using it ------------------------------------------------------------------------------

    def run(self, doing: Message | str | None, work: Callable[[Any], T], *, retry: bool = True) -> T:
        """``work(connection)`` under the lock, PostgreSQL's errors said in words. A lost
        connection is made again (the lock taken again) and, if ``retry``, the work is done
        once more: only work that is safe to repeat may retry."""
        with self.lock:
            for attempt in (1, 2):
                if self.conn is None or self.conn.closed:
                    try:
                        self.conn = self._connect()
                    except StoreError as exc:
                        raise StoreError(said(doing, Message(
                            "postgres_store.cannot_reconnect", "lost the connection to the "
                            "database server, and cannot reconnect: {why}",
                            why=exc.args[0] if exc.args else str(exc)))) from None
                try:
                    return work(self.conn)
                except psycopg.Error as exc:
                    lost = _is_lost(exc) or self.conn.closed
                    if lost:
                        self._drop()
                        if retry and attempt == 1:
                            continue
                    raise StoreError(said(doing, explain(exc))) from None
            raise AssertionError("unreachable")

    def _drop(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            except psycopg.Error:
                pass
        self.conn = None

    def close(self) -> None:
        """Let the table go: the owner row cleared, the lock released, the connection closed."""
        with self.lock:
            if self.conn is not None and not self.conn.closed and self.writer:
                try:
                    self.conn.execute("UPDATE tables SET owner_pid = NULL, owner_host = NULL, "
                                      "owner_command = NULL, owner_since = NULL WHERE id = %s",
                                      (self.table_id,))
                    self.conn.execute("SELECT pg_advisory_unlock(%s::int, %s::int)",
                                      (LOCK_SPACE, self.table_id))
                except psycopg.Error:
                    pass  # closing the connection releases the lock anyway
            self._drop()


def _gone(owner: Mapping[str, Any]) -> bool:
    """Whether the owner row names a process of this computer that no longer runs."""
    if owner.get("host") != socket.gethostname():
        return False
    try:
        os.kill(int(owner["pid"]), 0)
    except ProcessLookupError:
        return True
    except (OSError, ValueError, TypeError):
        return False
    return False


# Every writing store of one table in this process shares one link (they are one writer).
_writers: dict[tuple[Any, ...], _Link] = {}
_writers_lock = threading.Lock()
_opening: dict[tuple[Any, ...], threading.Lock] = {}   # per table: one opener at a time


def _writer_key(params: Mapping[str, str], table: str) -> tuple[Any, ...]:
    return (tuple(sorted((k, v) for k, v in params.items() if k != "password")), table)


class PostgresStore(Store):
    """One table's log in a venue's PostgreSQL database. Safe to share between threads.

    By default the store is the table's writer: it creates the schema in an empty database,
    the table's row if the table is new, and takes the table's writer lock (a second process is
    refused with a :class:`StoreError` naming the holder). ``read_only=True`` reads an existing
    table without the lock."""

    def __init__(self, db: str, table: str = MAIN, *, read_only: bool = False) -> None:
        self.db = str(db)
        self.table = check_table_name(table)
        self.read_only = read_only
        self._params = parameters(self.db)
        self.where = Message("postgres_store.table_where", "table {table} in {url}",
                             table=self.table, url=shown(self._params))
        self._link: _Link | None = None
        if read_only:
            self._link = _Link(self.db, self._params, self.table, self.where, writer=False)
            self._link.count = 1
            return
        key = _writer_key(self._params, self.table)
        self._key = key
        with _writers_lock:
            opening = _opening.setdefault(key, threading.Lock())
        # One table's writer is made once (its lock taken on one connection); other tables of
        # the process open meanwhile (a process taking over many tables opens several at once).
        with opening:
            with _writers_lock:
                link = _writers.get(key)
            if link is None:
                link = _Link(self.db, self._params, self.table, self.where, writer=True)
            with _writers_lock:
                _writers[key] = link
                link.count += 1
                self._link = link

    def close(self) -> None:
        link, self._link = self._link, None
        if link is None:
            return
        if self.read_only:
            link.close()
            return
        with _writers_lock:
            opening = _opening.setdefault(self._key, threading.Lock())
        with opening:   # held while closing: a new store of this table waits, then locks
            with _writers_lock:
                link.count -= 1
                if link.count > 0:
                    return
                _writers.pop(self._key, None)
            link.close()

    def _run(self, doing: Message | str | None, work: Callable[[Any], T], *, retry: bool = True) -> T:
        if self._link is None:
            raise StoreError(CLOSED)
        return self._link.run(doing, work, retry=retry)

    def links(self) -> "PostgresLinks":
        return PostgresLinks(self)

    # -- games ---------------------------------------------------------------------------------

    def create_game(self, game: str, players: Sequence[str], seed: int,
                    options: Mapping[str, Any], components: Mapping[str, Any]) -> int:
        self._writable()
        saved = SavedGame(0, game, tuple(players), int(seed), dict(options), dict(components),
                          now(), None, 0)
        values, _ = imported_rows(saved, ())

        def create(conn: Any) -> int:
            # A retry after a lost connection first looks for the row the first try sent.
            found = conn.execute("SELECT id FROM games WHERE table_name = %s AND game = %s AND "
                                 "players = %s AND seed = %s AND created = %s",
                                 (self.table, *values[:3], values[5])).fetchone()
            if found is not None:
                return int(found[0])
            return int(conn.execute(_CREATE_GAME, (self.table, *values, self.table))
                       .fetchone()[0])
        return self._run(NOT_SAVED, create)

    def game(self, game_id: int) -> SavedGame:
        row = self._run(CANNOT_READ_GAMES, lambda conn: conn.execute(
            "SELECT id, game, players, seed, options, components, created, ended, "
            "coalesce((SELECT max(seq) FROM entries e WHERE e.table_name = g.table_name "
            "          AND e.game_id = g.id), 0) "
            "FROM games g WHERE table_name = %s AND id = %s", (self.table, game_id)).fetchone())
        if row is None:
            raise StoreError(no_saved_game(game_id, self.where))
        return saved_game(row)

    def listing(self, limit: int = 50) -> list[GameSummary]:
        rows = self._run(CANNOT_READ_GAMES, lambda conn: conn.execute(
            LISTING, (self.table, limit)).fetchall())
        return [summary(row) for row in rows]

    def latest_open(self, game_ids: Iterable[str]) -> int | None:
        ids = list(game_ids)
        if not ids:
            return None
        row = self._run(CANNOT_READ_GAMES, lambda conn: conn.execute(
            LATEST_OPEN, (self.table, ids)).fetchone())
        return None if row is None else int(row[0])

    def game_rows(self) -> list[int]:
        return self._run(CANNOT_READ_GAMES, lambda conn: [int(r[0]) for r in conn.execute(
            "SELECT id FROM games WHERE table_name = %s ORDER BY id", (self.table,))])

    def end_game(self, game_id: int) -> None:
        self._writable()
        self._run(NOT_ENDED, lambda conn: conn.execute(
            "UPDATE games SET ended = %s WHERE table_name = %s AND id = %s AND ended IS NULL",
            (now(), self.table, game_id)))

    # -- the log -------------------------------------------------------------------------------

    def append(self, game_id: int, kind: str, *, expected_seq: int,
               action: Mapping[str, Any] | None = None, target: int | None = None,
               source: str = "tablet", author: str | None = None) -> Entry:
        return self.append_all(game_id, [NewEntry(kind, expected_seq, action, target, source,
                                                  author)])[0]

    def append_all(self, game_id: int, entries: Sequence[NewEntry]) -> list[Entry]:
        texts = [self._checked_entry(e.kind, e.source, e.action) for e in entries]
        self._writable()
        at = now()
        rows = [{"table": self.table, "game": game_id, "seq": e.expected_seq, "kind": e.kind,
                 "action": text, "target": e.target, "source": e.source, "author": e.author,
                 "at": at} for e, text in zip(entries, texts)]

        def write(conn: Any) -> None:
            if len(rows) == 1:
                one(conn, rows[0], nullcontext())        # autocommitted
                return
            with conn.transaction():                     # all of them or none
                for values in rows:
                    # a savepoint: a refused insert must not end the transaction
                    one(conn, values, conn.transaction())

        def one(conn: Any, values: dict[str, Any], attempt: AbstractContextManager[Any]) -> None:
            try:
                with attempt:
                    if conn.execute(_APPEND, values).fetchone() is not None:
                        return
            except psycopg.errors.UniqueViolation:
                pass  # another connection wrote the same entry number first
            last, ours = conn.execute(
                "SELECT (SELECT coalesce(max(seq), 0) FROM entries WHERE table_name = %(table)s "
                "        AND game_id = %(game)s), "
                "EXISTS (SELECT 1 FROM entries WHERE table_name = %(table)s AND game_id = "
                "        %(game)s AND seq = %(seq)s AND kind = %(kind)s AND at = %(at)s AND "
                "        action IS NOT DISTINCT FROM %(action)s AND source = %(source)s AND "
                "        author IS NOT DISTINCT FROM %(author)s)", values).fetchone()
            if ours:
                return  # the first try was committed before its connection was lost
            raise StaleLog(stale(game_id, last, values['seq'] - 1))
        self._run(None, write)
        return [Entry(e.expected_seq, e.kind, None if e.action is None else dict(e.action),
                      e.target, e.source, e.author, at) for e in entries]

    def entries(self, game_id: int) -> list[Entry]:
        rows = self._run(CANNOT_READ_LOG, lambda conn: conn.execute(
            "SELECT seq, kind, action, target, source, author, at FROM entries "
            "WHERE table_name = %s AND game_id = %s ORDER BY seq", (self.table, game_id))
            .fetchall())
        return [entry(row) for row in rows]

    def add_games(self, games: Iterable[tuple[SavedGame, Sequence[Entry]]]) -> list[int]:
        self._writable()

        def add(conn: Any) -> list[int]:
            rows = []
            with conn.transaction():
                for saved, log in games:
                    values, entries = imported_rows(saved, log)
                    row = int(conn.execute(_CREATE_GAME, (self.table, *values, self.table))
                              .fetchone()[0])
                    with conn.cursor() as cur:
                        cur.executemany(
                            "INSERT INTO entries (table_name, game_id, seq, kind, action, "
                            "target, source, author, at) "
                            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                            [(self.table, row, *e) for e in entries])
                    rows.append(row)
            return rows
        # Not retried: whether a lost commit went through is for the person importing to check.
        return self._run(NOTHING_IMPORTED, add, retry=False)


class PostgresLinks:
    """A table's keys and links in its row of the ``links`` table, written by its writer."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.where: str = Message("postgres_store.links_where", "in {where}", where=store.where)

    def load(self) -> dict[str, Any]:
        row = self.store._run(CANNOT_READ_LINKS, lambda conn: conn.execute(
            "SELECT data FROM links WHERE table_name = %s", (self.store.table,)).fetchone())
        try:
            data = json.loads(row[0]) if row is not None else {}
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def save(self, data: dict[str, Any]) -> None:
        self.store._writable()
        self.store._run(LINKS_NOT_SAVED, lambda conn: conn.execute(
            "INSERT INTO links (table_name, data) VALUES (%s, %s) "
            "ON CONFLICT (table_name) DO UPDATE SET data = excluded.data",
            (self.store.table, json.dumps(data))))
