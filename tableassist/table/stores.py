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

from tableassist.games.messages import Message
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
        raise DamagedStore(Message("stores.damaged_writer", "{why} and is not opened for "
                                   "writing, so nothing in it changes; {rescue}",
                                   why=exc.args[0] if exc.args else str(exc),
                                   rescue=_rescue(kind, db, table))) from None


#: How many game numbers a message names before it counts the rest.
_NAMED = 8


def _rescue(kind: type[Store], db: str | os.PathLike[str], table: str) -> Message:
    """What can still be read of a damaged database, and the commands that save it."""
    try:
        with kind(db, table, read_only=True) as reader:
            whole, damaged = backup.readable(reader)
    except StoreError:
        return Message("stores.rescue.unreadable", "no saved game can be read from it")
    if not whole:
        return Message("stores.rescue.none_whole", "{damaged, plural, =0 {it holds no saved "
                       "game} one {none of its # saved games can be read whole} other {none of "
                       "its # saved games can be read whole}}", damaged=len(damaged))
    numbers = tuple(f"#{row}" for row in whole[:_NAMED])
    named = numbers if len(whole) <= _NAMED else \
        Message("stores.rescue.more", "{games} and {more} more", games=numbers,
                more=len(whole) - _NAMED)
    return Message("stores.rescue.some", "{damaged, plural, =0 {{whole, plural, one {its saved "
                   "game} other {its # saved games}}} one {{whole} of its {total} saved games} other "
                   "{{whole} of its {total} saved games}} "
                   "can still be read whole ({named}): save {whole, plural, one {it} other {them}} "
                   "with `tableassist export --db {db}{table, select, main {} other { --table "
                   "{table}}} -o rescued.jsonl`, then `tableassist import rescued.jsonl --db "
                   "NEW-FILE` puts {whole, plural, one {it} other {them}} in a new database",
                   damaged=len(damaged), whole=len(whole), total=len(whole) + len(damaged),
                   named=named, db=shlex.quote(os.fspath(db)), table=table)


def implementation(db: str | os.PathLike[str]) -> type[Store]:
    """The store class ``db`` names (PostgreSQL's is imported only when asked for)."""
    if is_postgres(db):
        from tableassist.table.postgres_store import PostgresStore
        return PostgresStore
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", os.fspath(db))
    if scheme:
        raise StoreError(Message("stores.unknown_scheme", "--db {scheme}://… is not a database "
                                 "tableassist can use: give a file (SQLite) or a postgresql:// "
                                 "URL", scheme=scheme.group(1)))
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
