"""A venue on PostgreSQL (``--db postgresql://…``): its list of tables and the staff key in the
venue's database, beside every table's log (``postgres_store.py``).

* The list is the ``tables`` table: a row per table (its ``name``, the ``title`` the staff gave
  it, ``created``, ``closed``), the same row whose advisory lock and owner row make one writer
  per table. A table a store opened without the venue (``tableassist import --table x``) is
  listed under its name. The staff key is ``meta.staff``, made once: the venue page's link stays
  the same across restarts and for every process serving the venue.
* Any process of the venue may change the list (the staff's venue page may be answered by any):
  each change is one transaction under the schema lock (``LOCK_SPACE``, 0), so two staff screens
  creating "Table 4" at once make one table, and is announced with ``NOTIFY`` on
  :data:`CHANNEL` so that the other processes hear of it at once.

The venue's own connection (:class:`PostgresVenue`) reconnects when it is lost, as a table's
does.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import psycopg  # stores.open_venue checks first that it is installed

from tableassist.games.messages import Message
from tableassist.table.postgres_store import (LOCK_SPACE, PROCESS_SPACE, SCHEMA, connect_error, explain,
                                              parameters, prepare_schema, shown)
from tableassist.table.store import MAIN, StoreError, now
from tableassist.table.venue import (MAIN_TITLE, TableEntry, check_name, check_title,
                                     closed_already, main_stays_open, name_taken,
                                     no_such_table, open_already, shown_title, slug, title_taken)
from tableassist.table.writer_lock import this_process

#: The channel every process of a venue listens on: the list of tables changed (``{"venue":
#: …}``), a table's row on the venue page changed (``{"row": …}``), a process came or went.
CHANNEL = "tableassist_venue"
#: The longest NOTIFY payload PostgreSQL takes is 8000 bytes.
MAX_PAYLOAD = 7900

T = TypeVar("T")


class _Connection:
    """One autocommitted connection inside tableassist's schema, made again when lost (the work
    is done once more: only work that is safe to repeat goes through :meth:`run`)."""

    def __init__(self, url: str, name: str) -> None:
        self.params = {**parameters(url), "application_name": name}
        self._lock = threading.RLock()
        self.conn: Any = None
        #: Called with each new connection (the process's lock is taken again on it).
        self.on_connect: Callable[[Any], None] | None = None

    def _connect(self) -> Any:
        from psycopg.conninfo import make_conninfo
        try:
            conn = psycopg.connect(make_conninfo(**self.params), autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(connect_error(exc, self.params)) from None
        try:
            with conn.transaction():
                prepare_schema(conn, self.params)
            conn.execute(f"SET search_path TO {SCHEMA}")
            if self.on_connect is not None:
                self.on_connect(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def run(self, work: Callable[[Any], T]) -> T:
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self.conn is None or self.conn.closed:
                        self.conn = self._connect()
                    return work(self.conn)
                except psycopg.Error as exc:
                    lost = self.conn is None or self.conn.closed or \
                        isinstance(exc, psycopg.OperationalError)
                    if lost:
                        self.close()
                        if attempt == 1:
                            continue
                    raise StoreError(Message("postgres_venue.failed", "the venue's database: "
                                             "{why}", why=explain(exc))) from None
            raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            if self.conn is not None:
                try:
                    self.conn.close()
                except psycopg.Error:
                    pass
            self.conn = None


def _entry(row: Any) -> TableEntry:
    name, title, created, closed = row
    return TableEntry(name, shown_title(name, title or (MAIN_TITLE if name == MAIN else name)), created, closed)


_LIST = ("SELECT name, title, created, closed FROM tables "
         "ORDER BY name <> 'main', id")


class PostgresVenue:
    """The venue of the PostgreSQL database ``url`` (see the module docstring); a
    :class:`~tableassist.table.venue.Venue`. Raises :class:`StoreError` when the database cannot
    be reached or used."""

    def __init__(self, url: str) -> None:
        self.url = str(url)
        self.warning: str | None = None
        self._db = _Connection(self.url, "tableassist venue")
        self.where = shown(self._db.params)
        #: Called after this process changed the list (the coordination tells the others).
        self.on_change: Callable[[], None] | None = None

        def start(conn: Any) -> str:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s::int, 0)", (LOCK_SPACE,))
                conn.execute("INSERT INTO tables (name, created, title) VALUES (%s, %s, %s) "
                             "ON CONFLICT (name) DO NOTHING", (MAIN, now(), str(MAIN_TITLE)))
                conn.execute("INSERT INTO meta VALUES ('staff', %s) ON CONFLICT DO NOTHING",
                             (secrets.token_urlsafe(18),))
                return str(conn.execute("SELECT value FROM meta WHERE key = 'staff'")
                           .fetchone()[0])
        self.staff = self._db.run(start)

    # -- reading ---------------------------------------------------------------------------------

    def tables(self) -> list[TableEntry]:
        return [_entry(row) for row in self._db.run(lambda c: c.execute(_LIST).fetchall())]

    def entry(self, name: str) -> TableEntry:
        row = None
        if isinstance(name, str):
            row = self._db.run(lambda c: c.execute(
                "SELECT name, title, created, closed FROM tables WHERE name = %s",
                (name,)).fetchone())
        if row is None:
            raise no_such_table(name)
        return _entry(row)

    # -- changing ----------------------------------------------------------------------------------

    def _change(self, work: Callable[[Any, list[TableEntry]], TableEntry]) -> TableEntry:
        """``work(conn, tables)`` in one transaction under the venue's lock, then the others
        told."""
        def run(conn: Any) -> TableEntry:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s::int, 0)", (LOCK_SPACE,))
                tables = [_entry(row) for row in conn.execute(_LIST).fetchall()]
                entry = work(conn, tables)
                conn.execute("SELECT pg_notify(%s, %s)",
                             (CHANNEL, json.dumps({"venue": entry.name})))
                return entry
        entry = self._db.run(run)
        if self.on_change is not None:
            self.on_change()
        return entry

    @staticmethod
    def _same_title(tables: list[TableEntry], title: str, but: str | None = None) -> None:
        if any(t.title.casefold() == title.casefold() and t.name != but for t in tables):
            raise title_taken(title)

    def create(self, title: str, name: str | None = None) -> TableEntry:
        title = check_title(title)
        if name is not None:
            check_name(name)

        def create(conn: Any, tables: list[TableEntry]) -> TableEntry:
            self._same_title(tables, title)
            names = {t.name for t in tables}
            chosen = name
            if chosen is None:
                base, k = slug(title), 1
                chosen = base
                while chosen in names or chosen == MAIN:
                    k += 1
                    chosen = f"{base[:29].rstrip('-')}-{k}"
            elif chosen in names:
                raise name_taken(chosen)
            entry = TableEntry(chosen, title, now())
            conn.execute("INSERT INTO tables (name, created, title) VALUES (%s, %s, %s)",
                         (entry.name, entry.created, entry.title))
            return entry
        return self._change(create)

    def _update(self, name: str, check: Callable[[TableEntry, list[TableEntry]], TableEntry]
                ) -> TableEntry:
        def update(conn: Any, tables: list[TableEntry]) -> TableEntry:
            found = next((t for t in tables if t.name == name), None)
            if found is None:
                raise no_such_table(name)
            entry = check(found, tables)
            conn.execute("UPDATE tables SET title = %s, closed = %s WHERE name = %s",
                         (entry.title, entry.closed, entry.name))
            return entry
        return self._change(update)

    def rename(self, name: str, title: str) -> TableEntry:
        title = check_title(title)

        def rename(entry: TableEntry, tables: list[TableEntry]) -> TableEntry:
            self._same_title(tables, title, but=name)
            return TableEntry(entry.name, title, entry.created, entry.closed)
        return self._update(name, rename)

    def close(self, name: str) -> TableEntry:
        def close(entry: TableEntry, _tables: list[TableEntry]) -> TableEntry:
            if name == MAIN:
                raise main_stays_open()
            if entry.closed:
                raise closed_already(entry.title)
            return TableEntry(entry.name, entry.title, entry.created, now())
        return self._update(name, close)

    def reopen(self, name: str) -> TableEntry:
        def reopen(entry: TableEntry, _tables: list[TableEntry]) -> TableEntry:
            if not entry.closed:
                raise open_already(entry.title)
            return TableEntry(entry.name, entry.title, entry.created, None)
        return self._update(name, reopen)

    def release(self) -> None:
        self._db.close()


# -- several processes serving one venue ------------------------------------------------------------

_HELD = """EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = {space} AND l.objid = {key} AND l.objsubid = 2)"""
_SNAPSHOT_TABLES = f"""
SELECT t.name, t.closed, t.owner_host, t.owner_pid,
       {_HELD.format(space=LOCK_SPACE, key="t.id")}
FROM tables t ORDER BY t.id"""
_SNAPSHOT_PROCESSES = f"""
SELECT p.id, p.host, p.pid, p.address FROM processes p
WHERE {_HELD.format(space=PROCESS_SPACE, key="p.id")} ORDER BY p.id"""


@dataclass(frozen=True)
class Snapshot:
    """Who serves what, as the database says at one moment: the live processes (``address`` by
    id: a process is live while its advisory lock is held), each open table's owner (the live
    process whose pid and host its owner row names, while the table's lock is held; None: no
    live process holds it), and the tables held by something that is not a serving process
    (``tableassist import``), which nobody may take."""

    processes: dict[int, str]
    owners: dict[str, int | None]
    closed: frozenset[str]
    held_elsewhere: frozenset[str]

    def load(self, process: int) -> int:
        return sum(1 for owner in self.owners.values() if owner == process)

    def address(self, table: str) -> str | None:
        owner = self.owners.get(table)
        return None if owner is None else self.processes.get(owner)

    def orphans(self) -> list[str]:
        """The open tables nobody serves (their process died, or they are new)."""
        return [name for name, owner in self.owners.items()
                if owner is None and name not in self.held_elsewhere]

    def shares(self) -> dict[str, int]:
        """Which live process each orphan goes to: one by one, in the order they were created,
        to the least loaded (the lowest id among equals). Every process computes the same from
        the same snapshot, so each takes its own share without asking the others."""
        loads = {pid: self.load(pid) for pid in self.processes}
        given: dict[str, int] = {}
        for name in self.orphans():
            if not loads:
                break
            pick = min(loads, key=lambda p: (loads[p], p))
            given[name] = pick
            loads[pick] += 1
        return given


class Processes:
    """This process as one of the venue's serving processes: its row in ``processes`` (where the
    proxy reaches it: ``address``) and its advisory lock (``PROCESS_SPACE``, its id), held on a
    connection of its own for as long as it serves, so that the others see it live; the server
    drops the lock the moment the process dies. :meth:`snapshot` says who serves what;
    :meth:`listen` hears the venue's notifications; :meth:`notify` sends some."""

    def __init__(self, url: str, address: str) -> None:
        self.url, self.address = str(url), address
        self.id: int | None = None
        self._db = _Connection(self.url, "tableassist process")
        self._db.on_connect = self._register
        self._db.run(lambda conn: None)
        self._listening: Any = None
        self._stop = threading.Event()

    def _register(self, conn: Any) -> None:
        me = this_process()
        with conn.transaction():
            # rows of processes long gone: nobody holds their lock
            conn.execute(f"DELETE FROM processes p WHERE NOT "
                         f"{_HELD.format(space=PROCESS_SPACE, key='p.id')}")
            if self.id is None:
                self.id = int(conn.execute(
                    "INSERT INTO processes (host, pid, address, command, since) "
                    "VALUES (%s, %s, %s, %s, %s) RETURNING id",
                    (me["host"], me["pid"], self.address, me["command"], me["since"]))
                    .fetchone()[0])
            else:   # a lost connection made again: the same row, its lock taken again
                conn.execute("INSERT INTO processes (id, host, pid, address, command, since) "
                             "OVERRIDING SYSTEM VALUE VALUES (%s, %s, %s, %s, %s, %s) "
                             "ON CONFLICT (id) DO NOTHING",
                             (self.id, me["host"], me["pid"], self.address, me["command"],
                              me["since"]))
        conn.execute("SELECT pg_advisory_lock(%s::int, %s::int)", (PROCESS_SPACE, self.id))

    def snapshot(self) -> Snapshot:
        def read(conn: Any) -> Snapshot:
            with conn.transaction():
                rows = conn.execute(_SNAPSHOT_TABLES).fetchall()
                procs = conn.execute(_SNAPSHOT_PROCESSES).fetchall()
            by_owner = {(host, pid): pid_ for pid_, host, pid, _address in procs}
            owners: dict[str, int | None] = {}
            elsewhere = set()
            closed = set()
            for name, when, host, pid, held in rows:
                if when is not None:
                    closed.add(name)
                    continue
                owner = by_owner.get((host, pid)) if held else None
                owners[name] = owner
                if held and owner is None:
                    elsewhere.add(name)
            return Snapshot({p: a for p, _h, _pid, a in procs}, owners, frozenset(closed),
                            frozenset(elsewhere))
        return self._db.run(read)

    def notify(self, payloads: list[dict[str, Any]]) -> None:
        """Send each of ``payloads`` on :data:`CHANNEL`, all in one statement (one commit)."""
        texts = [text for text in (json.dumps(p) for p in payloads) if len(text) <= MAX_PAYLOAD]
        if texts:
            self._db.run(lambda conn: conn.execute(
                "SELECT pg_notify(%s, t) FROM unnest(%s::text[]) AS t", (CHANNEL, texts)))

    def listen(self, heard: Callable[[dict[str, Any] | None], None], every: float) -> None:
        """Call ``heard(payload)`` for each notification on :data:`CHANNEL`, and ``heard(None)``
        every ``every`` seconds and after a lost connection was made again, until :meth:`close`
        (run it in a thread of its own)."""
        listener = _Connection(self.url, "tableassist listener")
        listener.on_connect = lambda conn: conn.execute(f"LISTEN {CHANNEL}")
        while not self._stop.is_set():
            try:
                conn = listener.run(lambda c: c)
                self._listening = conn
                heard(None)
                for note in conn.notifies(timeout=every):
                    try:
                        payload = json.loads(note.payload)
                    except ValueError:
                        continue
                    if isinstance(payload, dict):
                        heard(payload)
            except (StoreError, psycopg.Error):
                listener.close()
                self._stop.wait(1.0)
        listener.close()

    def close(self) -> None:
        """Stop serving the venue: the row deleted, the lock let go."""
        self._stop.set()
        if self.id is not None:
            try:
                self._db.run(lambda conn: conn.execute("DELETE FROM processes WHERE id = %s",
                                                       (self.id,)))
            except StoreError:
                pass   # closing the connection lets the lock go all the same
        self._db.close()


def live_addresses(url: str) -> list[str]:
    """Where the proxy reaches each process serving the venue ``url`` now."""
    db = _Connection(url, "tableassist proxy")
    try:
        return [row[3] for row in db.run(lambda c: c.execute(_SNAPSHOT_PROCESSES).fetchall())]
    finally:
        db.close()
