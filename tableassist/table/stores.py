"""Which store a ``--db`` names, and opening it: :func:`open_store`; the venue it is the home of:
:func:`open_venue`.

The contract every store keeps is ``store.py``; its two implementations, ``sqlite_store.py`` and
``postgres_store.py``, import the contract, and this module imports them (PostgreSQL's only when a
``postgresql://`` database is opened), so the contract imports neither.
"""

from __future__ import annotations

import os
import re
import shlex

from tableassist.table import backup
from tableassist.table.store import MAIN, DamagedStore, Store, StoreError, is_postgres
from tableassist.table.venue import Venue, VenueFile

__all__ = ["implementation", "open_store", "open_venue"]


def open_store(db: str | os.PathLike[str], table: str = MAIN, *,
               read_only: bool = False) -> Store:
    """The store of table ``table`` in the database ``db``: a ``postgresql://`` URL opens
    :class:`~tableassist.table.postgres_store.PostgresStore`, anything else is an SQLite file
    (:class:`~tableassist.table.sqlite_store.SqliteStore`). By default the store is the table's
    writer (it takes the writer lock, creates or migrates the schema); ``read_only=True`` only
    reads, without the lock (``tableassist export`` while the server runs). Raises
    :class:`StoreError` with one line naming what is wrong; for a damaged database
    (:class:`DamagedStore`) the writer's line also says which games can still be read and how
    to save them, and a reader opens it all the same (:attr:`Store.damaged`)."""
    kind = implementation(db)
    try:
        return kind(db, table, read_only=read_only)
    except DamagedStore as exc:
        if read_only:
            raise
        raise DamagedStore(f"{exc} and is not opened for writing, so nothing in it changes; "
                           f"{_rescue(kind, db, table)}") from None


#: How many game numbers a message names before it counts the rest.
_NAMED = 8


def _rescue(kind: type[Store], db: str | os.PathLike[str], table: str) -> str:
    """What can still be read of a damaged database, and the commands that save it."""
    try:
        with kind(db, table, read_only=True) as reader:
            whole, damaged = backup.readable(reader)
    except StoreError:
        return "no saved game can be read from it"
    if not whole:
        return (f"none of its {len(damaged)} saved games can be read whole" if damaged else
                "it holds no saved game")
    named = ", ".join(f"#{row}" for row in whole[:_NAMED]) + \
        (f" and {len(whole) - _NAMED} more" if len(whole) > _NAMED else "")
    some = "its saved game" if len(whole) == 1 else f"its {len(whole)} saved games"
    if damaged:
        some = f"{len(whole)} of its {len(whole) + len(damaged)} saved games"
    option = "" if table == MAIN else f" --table {table}"
    them = "it" if len(whole) == 1 else "them"
    return (f"{some} can still be read whole ({named}): save {them} with `tableassist export "
            f"--db {shlex.quote(os.fspath(db))}{option} -o rescued.jsonl`, then `tableassist "
            f"import rescued.jsonl --db NEW-FILE` puts {them} in a new database")


def implementation(db: str | os.PathLike[str]) -> type[Store]:
    """The store class ``db`` names (PostgreSQL's is imported only when asked for)."""
    if is_postgres(db):
        from tableassist.table.postgres_store import PostgresStore
        return PostgresStore
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", os.fspath(db))
    if scheme:
        raise StoreError(f"--db {scheme.group(1)}://… is not a database tableassist can use: give "
                         "a file (SQLite) or a postgresql:// URL")
    from tableassist.table.sqlite_store import SqliteStore
    return SqliteStore


def open_venue(db: str | os.PathLike[str]) -> Venue:
    """The venue whose home database is ``db``: :class:`~tableassist.table.venue.VenueFile`
    beside an SQLite file, :class:`~tableassist.table.postgres_venue.PostgresVenue` in a
    PostgreSQL database (imported only then). Raises :class:`StoreError` (the database cannot be
    had), ``OSError`` (the venue's file cannot be written)."""
    if is_postgres(db):
        from tableassist.table.postgres_store import parameters
        parameters(os.fspath(db))   # psycopg missing, a URL that cannot be read: said in words
        from tableassist.table.postgres_venue import PostgresVenue
        return PostgresVenue(os.fspath(db))
    return VenueFile(os.fspath(db))
