"""The two stores the same tests run against: the ``store_factory`` fixture (``tests/conftest.py``)
gives one of these per test, ``sqlite`` (a file in the test's folder) or ``postgresql`` (a fresh
database on the session's real PostgreSQL server).

A factory opens stores of its database (``store_factory()``, ``store_factory("bar",
read_only=True)``) and closes them at the end of the test, and does what a test needs to do
behind the store's back, in the backend's own way: change rows as a damaged disk or another
program would (:meth:`raw`, SQL with ``?`` placeholders), fill the disk for real
(:meth:`full_disk`), count the work a query does (:meth:`cost`)."""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tableassist.table import catalog
from tableassist.table.session import TableSession
from tableassist.table.store import MAIN, Store, is_postgres
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions

GAME = "shipwrecked"
PLAYERS = ["Ann", "Bea", "Cy"]


def play(session: TableSession, rng: random.Random, n: int) -> list[dict[str, Any]]:
    """``n`` random legal actions submitted (each acknowledged, so logged); returns them."""
    done = []
    for _ in range(n):
        action = rng.choice(all_legal_actions(session.game))
        session.submit(action)
        done.append(action)
    return done


def replayed(actions: list[dict[str, Any]], seed: int = 7) -> dict[str, Any]:
    """The state of a fresh game after ``actions``: what a log of them must replay to."""
    game = catalog.new_game(GAME, PLAYERS, seed=seed)
    for a in actions:
        game.apply(a)
    return game.state


def fill_up(path: Path) -> None:
    """Take every free block of the file system ``path`` is on (a small tmpfs), with one file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        for chunk in (65536, 4096, 512):
            try:
                while True:
                    os.write(fd, b"\0" * chunk)
            except OSError:
                pass
    finally:
        os.close(fd)


def raw(db: str | Path, sql: str, *params: Any) -> None:
    """Change the database ``db`` (a file or a URL) behind the store's back, as a damaged disk
    or another program would: ``sql`` with ``?`` placeholders, run on the backend's own client."""
    if is_postgres(db):
        import psycopg
        with psycopg.connect(str(db), autocommit=True) as conn:
            conn.execute("SET search_path TO tableassist")
            conn.execute(sql.replace("?", "%s"), params)
        return
    with sqlite3.connect(db) as conn:
        conn.execute(sql, params)
    conn.close()


def keys(db: str | Path, table: str = MAIN) -> dict[str, Any]:
    """The table's links as they are saved (read without taking its writer lock)."""
    store = open_store(db, table, read_only=True)
    try:
        return store.links().load()
    finally:
        store.close()


class Backend:
    name: str
    #: What ``--db`` takes for this database.
    db: str | Path
    #: How the store says the disk is full.
    disk_full: str

    def __init__(self) -> None:
        self.opened: list[Store] = []

    def __call__(self, table: str = MAIN, *, read_only: bool = False) -> Store:
        store = open_store(self.db, table, read_only=read_only)
        self.opened.append(store)
        return store

    def close(self) -> None:
        for store in self.opened:
            store.close()

    def __repr__(self) -> str:
        return self.name

    def raw(self, sql: str, *params: Any) -> None:
        raw(self.db, sql, *params)

    def keys(self, table: str = MAIN) -> dict[str, Any]:
        return keys(self.db, table)

    def insert_games(self, store: Store, n: int) -> None:
        """``n`` saved games, written straight into the database; only the oldest not ended."""
        raise NotImplementedError

    @contextmanager
    def full_disk(self, store: Store) -> Iterator[None]:
        """Inside the block, the database cannot grow (for real); afterwards it can again."""
        raise NotImplementedError
        yield

    def cost(self, store: Store, what: str) -> int:
        """The work the database does for the lobby's ``listing`` or ``latest_open``: a count
        (not a time), so the noisy machine cannot make a test flaky."""
        raise NotImplementedError


class SqliteBackend(Backend):
    name = "sqlite"
    disk_full = "the disk is full"

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.db = folder / "table.sqlite3"

    def insert_games(self, store: Store, n: int) -> None:
        components = json.dumps(catalog.load_components(GAME))
        with store._db:  # type: ignore[attr-defined]
            store._db.executemany(  # type: ignore[attr-defined]
                "INSERT INTO games (game, players, seed, options, components, created, ended) "
                "VALUES (?, ?, 0, '{}', ?, 't', ?)",
                [(GAME, json.dumps(PLAYERS), components, None if i == 0 else "t")
                 for i in range(n)])

    @contextmanager
    def full_disk(self, store: Store) -> Iterator[None]:
        """SQLite's max_page_count makes the file full for real (SQLITE_FULL from the pager)."""
        db = store._db  # type: ignore[attr-defined]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 1}")
        try:
            yield
        finally:
            db.execute("PRAGMA max_page_count = 1000000")

    def cost(self, store: Store, what: str) -> int:
        """Virtual-machine steps, counted in hundreds."""
        steps = [0]

        def tick() -> int:
            steps[0] += 1
            return 0

        run: Callable[[], object] = (lambda: store.listing(50)) if what == "listing" else \
            (lambda: store.latest_open(catalog.ENGINES))
        db = store._db  # type: ignore[attr-defined]
        db.set_progress_handler(tick, 100)
        try:
            run()
        finally:
            db.set_progress_handler(None, 100)
        return steps[0]


class PostgresBackend(Backend):
    name = "postgresql"
    disk_full = "the database server's disk is full"

    def __init__(self, server: Any, template: str | None = None) -> None:
        super().__init__()
        self.server = server
        self.dbname = server.new_database(template)
        self.db = server.url(self.dbname)
        self._spaces = 0

    def connections(self) -> list[Any]:
        """tableassist's connections to this database (each store's, or a child process's)."""
        with self.server.admin() as conn:
            return [r[0] for r in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND application_name = "
                "'tableassist'", (self.dbname,))]

    def close(self) -> None:
        """Close the test's stores, then check that none is left open: a store that code forgot
        to close holds its table's lock (and a connection) for as long as its process runs."""
        super().close()
        from tests.server.conftest import wait_until
        # A killed child's connection ends as soon as the server sees its socket close.
        wait_until(lambda: not self.connections(), what="every store of the test to be closed")

    def insert_games(self, store: Store, n: int) -> None:
        components = json.dumps(catalog.load_components(GAME))
        with self.server.connect(self.dbname) as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO games (table_name, id, game, players, seed, options, components, "
                "created, ended) VALUES (%s, %s, %s, %s, 0, '{}', %s, 't', %s)",
                [(store.table, i + 1, GAME, json.dumps(PLAYERS), components,
                  None if i == 0 else "t") for i in range(n)])
            conn.execute("ANALYZE games")

    @contextmanager
    def full_disk(self, store: Store) -> Iterator[None]:
        """The log's table moved to a tablespace on a small tmpfs, filled up: the server's own
        write fails with ENOSPC (SQLSTATE 53100), as when the database server's disk is full."""
        if os.geteuid() != 0:
            pytest.skip("filling the database server's disk needs root (to mount a tmpfs)")
        self._spaces += 1
        name = f"small_{self.dbname}_{self._spaces}"
        try:
            mount = self.server.small_tablespace(name)
        except PermissionError as exc:
            pytest.skip(str(exc))
        with self.server.connect(self.dbname) as conn:
            conn.execute(f"ALTER TABLE entries SET TABLESPACE {name}")
        filler = mount / "filler"
        fill_up(filler)
        try:
            yield
        finally:
            filler.unlink()

    def cost(self, store: Store, what: str) -> int:
        """Buffers the plan touches (shared hits and reads), as EXPLAIN (ANALYZE, BUFFERS) says."""
        from tableassist.table.postgres_store import LATEST_OPEN, LISTING
        sql, params = (LISTING, (store.table, 50)) if what == "listing" else \
            (LATEST_OPEN, (store.table, list(catalog.ENGINES)))
        with self.server.connect(self.dbname) as conn:
            conn.execute(sql, params)  # once first: the cost of a warm lobby, not of planning
            plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql,
                                params).fetchone()[0][0]["Plan"]
        return int(plan["Shared Hit Blocks"]) + int(plan["Shared Read Blocks"])
