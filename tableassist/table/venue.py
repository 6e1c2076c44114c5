"""A venue: the tables one server runs, each with its own log; the staff's key; where each table's
store is.

A home has one table, ``main``. A board-game café or a tournament room has many, and the staff
create, rename and close them on the venue page. What the venue keeps of each table is a
:class:`TableEntry`: its ``name`` (fixed at creation: the table's path ``/t/<name>/``, its files,
the camera agent's ``--table``, so a printed join card and an agent's settings keep working) and its
``title`` (what the staff call it, renamed at will), when it was created and whether it is closed.

Where the tables' logs live is behind ``table.stores.open_store(db, name)`` (a store per table):

* SQLite (the default): the home database (``--db``, e.g. ``table.sqlite3``) **is** the table
  ``main``; another table ``NAME`` is the file ``table.NAME.sqlite3`` beside it
  (``sqlite_store.table_file``), with its own writer lock and its own links file (keys). A
  database and links file from before venues existed are the venue's table ``main`` as they are:
  nothing moves, every key keeps working. The venue's own list (:class:`VenueFile`) is
  ``table.venue.json`` beside the home database (mode 0600, replaced atomically), written only by
  the process that holds the home database's writer lock: the process that runs the venue.
* PostgreSQL (``--db postgresql://…``): every table's log and keys, the venue's list of tables and
  the staff key are in the one database (``postgres_venue.PostgresVenue``), which any number of
  processes may serve together.

``table.stores.open_venue(db)`` opens the one or the other.
"""

from __future__ import annotations

import re
import secrets
import threading
import unicodedata
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from tableassist.games.messages import Message
from tableassist.table.files import os_reason, read_json, replace_json
from tableassist.table.sqlite_store import table_file
from tableassist.table.store import MAIN, StoreError
from tableassist.table.writer_lock import LockError, WriterLock

#: A table's name as the venue gives it: what its path, its files and a camera agent's
#: ``--table`` say (a stricter form of the store's ``TABLE_NAME``: no '_', no '-' at the end).
NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?")
#: Longest title the venue page and the join card show.
MAX_TITLE = 40
VENUE_FORMAT = 1


class VenueError(ValueError):
    """A request the venue refuses (the message says why, in the staff's words: a
    :class:`Message`, so the venue page shows it in its language)."""


# -- the venue's refusals, one place for both of its lists (this file's and PostgreSQL's) ----------

def no_such_table(name: object) -> VenueError:
    return VenueError(Message("venue.refuse.no_such_table", "there is no table {name} at this venue",
                              name=repr(str(name)[:40])))


def title_taken(title: str) -> VenueError:
    return VenueError(Message("venue.refuse.title_taken", "there is already a table called {title}",
                              title=repr(title)))


def name_taken(name: str) -> VenueError:
    return VenueError(Message("venue.refuse.name_taken", "there is already a table named {name}",
                              name=repr(name)))


def main_stays_open() -> VenueError:
    return VenueError(Message("venue.refuse.main_stays_open", "the main table cannot be closed "
                              "(it is the one a restart opens first); rename it instead"))


def closed_already(title: str) -> VenueError:
    return VenueError(Message("venue.refuse.closed_already", "{title} is closed already",
                              title=repr(title)))


def open_already(title: str) -> VenueError:
    return VenueError(Message("venue.refuse.open_already", "{title} is open", title=repr(title)))


@dataclass(frozen=True)
class TableEntry:
    """One table of the venue: ``name`` (its path and files), ``title`` (what the staff call it),
    when it was created, and when it was closed (None: open)."""

    name: str
    title: str
    created: str
    closed: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "created": self.created,
                "closed": self.closed}


#: The title ``main`` has until the staff rename it: worded in each screen's language (stored as
#: its English, and taken for it again when read back).
MAIN_TITLE = Message("venue.main_title", "Main table")


def shown_title(name: str, title: str) -> str:
    """``title`` as the screens show it: ``main``'s untouched default in their language."""
    return MAIN_TITLE if name == MAIN and title == MAIN_TITLE else title


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def venue_file(db: str | Path) -> Path:
    """The venue's list of tables and staff key, beside the home database ``db``."""
    db = Path(db)
    return db.with_name(f"{db.stem}.venue.json")


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise VenueError(Message("venue.refuse.bad_name", "a table's name is 1–32 small letters "
                                 "a–z, digits and '-' (not at either end){given, select, yes {, "
                                 "not {name}} other {}}", given="yes" if isinstance(name, str)
                                 else "no", name=repr(name[:40]) if isinstance(name, str) else ""))
    return name


def check_title(title: str) -> str:
    """A title as kept: stripped, 1–40 letters, no control characters."""
    text = " ".join(str(title).split())
    if not text:
        raise VenueError(Message("venue.refuse.no_title",
                                 "give the table a name (such as \"Table 4\" or \"Window\")"))
    if len(text) > MAX_TITLE:
        raise VenueError(Message("venue.refuse.long_title",
                                 "keep a table's name to {most} letters or fewer", most=MAX_TITLE))
    if any(unicodedata.category(c).startswith("C") for c in text):
        raise VenueError(Message("venue.refuse.control_title",
                                 "a table's name cannot hold control characters"))
    return text


def slug(title: str) -> str:
    """A name for a table called ``title``: "Table 4" -> "table-4", "Fenêtre" -> "fenetre"."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:32].strip("-")
    return text or "table"


class Venue(Protocol):
    """The venue's tables and the staff's key (:class:`VenueFile` for SQLite venues,
    ``postgres_venue.PostgresVenue`` for PostgreSQL)."""

    #: The staff's key: the venue page's link carries it (after ``#t=``).
    staff: str
    #: What was wrong with the venue's list when it was opened (a damaged file set aside), for
    #: the console; None when nothing was.
    warning: str | None

    def tables(self) -> list[TableEntry]:
        """Every table, open and closed, in the order they were created (``main`` first)."""
        ...

    def entry(self, name: str) -> TableEntry:
        """Table ``name`` (a :class:`VenueError` if there is none)."""
        ...

    def create(self, title: str, name: str | None = None) -> TableEntry:
        """A new open table called ``title`` (``name`` by default from the title)."""
        ...

    def rename(self, name: str, title: str) -> TableEntry: ...

    def close(self, name: str) -> TableEntry:
        """Close table ``name``: it is no longer served; its log and keys stay (reopen it)."""
        ...

    def reopen(self, name: str) -> TableEntry: ...

    def release(self) -> None:
        """Let go of the venue (the server stops)."""
        ...


class VenueFile:
    """The venue of an SQLite home database ``db``: ``<db stem>.venue.json`` beside it.

    Opening it takes the home database's writer lock (shared with the store of ``main`` in this
    process; another process is refused, naming the holder). A missing file is a venue of one
    table, ``main`` (a home database from before venues), plus any table files found beside it; a
    damaged one is set aside as ``….venue.json.damaged`` and rebuilt the same way, and
    :attr:`warning` says so. Raises :class:`StoreError` when the lock cannot be had, ``OSError``
    when the file cannot be written."""

    def __init__(self, db: str | Path) -> None:
        self.db = Path(db)
        self.path = venue_file(self.db)
        self.warning: str | None = None
        self._lock = threading.Lock()
        try:
            self._writer: WriterLock | None = WriterLock.acquire(self.db)
        except LockError as exc:
            raise StoreError(*exc.args) from None
        try:
            self.staff, self._tables, changed = self._load()
            if changed:
                self._save()
        except BaseException:
            self.release()
            raise

    # -- the file ------------------------------------------------------------------------------

    def _load(self) -> tuple[str, dict[str, TableEntry], bool]:
        try:
            data = read_json(self.path)
            staff, tables = self._parse(data) if data is not None else (None, None)
        except (OSError, ValueError) as exc:
            aside = self.path.with_name(self.path.name + ".damaged")
            self.path.replace(aside)
            why = os_reason(exc) if isinstance(exc, OSError) else \
                exc.args[0] if exc.args and isinstance(exc.args[0], Message) else \
                Message("venue.list.not_json", "it is not JSON")
            self.warning = Message("venue.list.set_aside", "the venue's list of tables {path} could not "
                                   "be read ({why}); it was set aside as {aside} and made again from "
                                   "the table files found beside the database, with a new staff key",
                                   path=str(self.path), why=why, aside=aside.name)
            staff, tables = None, None
        if tables is None:
            return secrets.token_urlsafe(18), self._found(), True
        changed = MAIN not in tables
        if changed:
            tables = {MAIN: TableEntry(MAIN, MAIN_TITLE, _now()), **tables}
        return staff or secrets.token_urlsafe(18), tables, changed or not staff

    @staticmethod
    def _parse(data: Any) -> tuple[str | None, dict[str, TableEntry]]:
        if not isinstance(data, dict) or not isinstance(data.get("tables"), list):
            raise ValueError(Message("venue.list.not_venue", "it is not a venue's list"))
        version = data.get("version", VENUE_FORMAT)
        if not isinstance(version, int) or isinstance(version, bool):
            # compared below: a text there raised TypeError, past the set-aside, as a traceback
            raise ValueError(Message("venue.list.version", "its version is not a whole number"))
        if version > VENUE_FORMAT:
            raise ValueError(Message("venue.list.newer", "a newer tableassist wrote it"))
        tables: dict[str, TableEntry] = {}
        for row in data["tables"]:
            if not isinstance(row, dict):
                raise ValueError(Message("venue.list.row", "a table in it is not a JSON object"))
            name, title = row.get("name"), row.get("title")
            created, closed = row.get("created"), row.get("closed")
            if not (isinstance(name, str) and NAME.fullmatch(name) and isinstance(title, str)
                    and isinstance(created, str) and (closed is None or isinstance(closed, str))):
                raise ValueError(Message("venue.list.table_damaged", "its table {name} is damaged",
                                         name=repr(str(name)[:40])))
            tables[name] = TableEntry(name, shown_title(name, title), created, closed)
        staff = data.get("staff")
        return staff if isinstance(staff, str) and staff else None, tables

    def _found(self) -> dict[str, TableEntry]:
        """``main`` and every table file beside the home database (``<stem>.<name>.sqlite3``)."""
        tables = {MAIN: TableEntry(MAIN, MAIN_TITLE, _now())}
        prefix = self.db.stem + "."
        for path in sorted(self.db.parent.glob(f"{self.db.stem}.*.sqlite3")):
            name = path.name[len(prefix):-len(".sqlite3")]
            if NAME.fullmatch(name) and name != MAIN:
                created = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
                tables[name] = TableEntry(name, name, created.isoformat(timespec="seconds"))
        return tables

    def _save(self) -> None:
        if self._writer is None:
            raise StoreError(Message("venue.closed", "the venue is closed (the server is "
                                     "stopping)"))
        replace_json(self.path, {"version": VENUE_FORMAT, "staff": self.staff,
                                 "tables": [t.to_json() for t in self._tables.values()]})

    def _change(self, entry: TableEntry) -> TableEntry:
        """Keep ``entry`` (new or changed) in the file; the list in memory changes only when
        the file did."""
        tables = dict(self._tables)
        self._tables[entry.name] = entry
        try:
            self._save()
        except OSError as exc:
            self._tables = tables
            raise VenueError(Message("venue.refuse.not_saved", "the venue's list could not be "
                                     "saved ({why}); nothing changed",
                                     why=os_reason(exc))) from None
        return entry

    # -- the protocol --------------------------------------------------------------------------

    def tables(self) -> list[TableEntry]:
        with self._lock:
            return list(self._tables.values())

    def entry(self, name: str) -> TableEntry:
        with self._lock:
            found = self._tables.get(name) if isinstance(name, str) else None
        if found is None:
            raise no_such_table(name)
        return found

    def create(self, title: str, name: str | None = None) -> TableEntry:
        title = check_title(title)
        with self._lock:
            if any(t.title.casefold() == title.casefold() for t in self._tables.values()):
                raise title_taken(title)
            if name is None:
                base, k = slug(title), 1
                name = base
                while name in self._tables or name == MAIN:
                    k += 1
                    name = f"{base[:29].rstrip('-')}-{k}"
            elif check_name(name) in self._tables:
                raise name_taken(name)
            if table_file(self.db, name).exists():   # a file the list does not know: never reuse it
                raise VenueError(Message("venue.refuse.file_exists", "{file} already exists "
                                         "beside the venue's database; choose another name",
                                         file=table_file(self.db, name).name))
            return self._change(TableEntry(name, title, _now()))

    def rename(self, name: str, title: str) -> TableEntry:
        title = check_title(title)
        entry = self.entry(name)
        with self._lock:
            if any(t.title.casefold() == title.casefold() and t.name != name
                   for t in self._tables.values()):
                raise title_taken(title)
            return self._change(replace(entry, title=title))

    def close(self, name: str) -> TableEntry:
        entry = self.entry(name)
        if name == MAIN:
            raise main_stays_open()
        if entry.closed:
            raise closed_already(entry.title)
        with self._lock:
            return self._change(replace(entry, closed=_now()))

    def reopen(self, name: str) -> TableEntry:
        entry = self.entry(name)
        if not entry.closed:
            raise open_already(entry.title)
        with self._lock:
            return self._change(replace(entry, closed=None))

    def release(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.release()
                self._writer = None
