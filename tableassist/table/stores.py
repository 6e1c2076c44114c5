"""Which store a ``--db`` names, and opening it: :func:`open_store`.

The contract every store keeps is ``store.py``; its two implementations, ``sqlite_store.py`` and
``postgres_store.py``, import the contract, and this module imports them (PostgreSQL's only when a
``postgresql://`` database is opened), so the contract imports neither.
"""

from __future__ import annotations

import os
import re

from tableassist.table.store import MAIN, Store, StoreError, is_postgres

__all__ = ["implementation", "open_store"]


def open_store(db: str | os.PathLike[str], table: str = MAIN, *,
               read_only: bool = False) -> Store:
    """The store of table ``table`` in the database ``db``: a ``postgresql://`` URL opens
    :class:`~tableassist.table.postgres_store.PostgresStore`, anything else is an SQLite file
    (:class:`~tableassist.table.sqlite_store.SqliteStore`). By default the store is the table's
    writer (it takes the writer lock, creates or migrates the schema); ``read_only=True`` only
    reads, without the lock (``tableassist export`` while the server runs). Raises
    :class:`StoreError` with one line naming what is wrong."""
    return implementation(db)(db, table, read_only=read_only)


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
