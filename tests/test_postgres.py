"""What only the PostgreSQL store has (the shared contract is tested on both stores in
test_store.py, test_session.py, test_backup.py and server/test_faults.py): a venue's tables side
by side in one database, the advisory lock and its owner row across a kill -9, and a connection
that is lost while a game is played. A real server throughout (the ``postgres`` fixture)."""

from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
import textwrap

import psycopg
import pytest

from tableassist.table.postgres_store import LOCK_SPACE
from tableassist.table.session import TableSession
from tableassist.table.store import StoreError
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions
from tests.server.conftest import ROOT, wait_until
from tests.stores import GAME, PLAYERS, play, replayed


@pytest.fixture
def venue(postgres):
    """A fresh database: (its URL, its name)."""
    name = postgres.new_database()
    return postgres.url(name), name


HOLD = textwrap.dedent("""
    import sys
    from tableassist.table.stores import open_store
    store = open_store(sys.argv[1], sys.argv[2])
    print("holding", flush=True)
    sys.stdin.read()  # until the test kills it
""")


def holder(url: str, table: str = "main") -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", HOLD, url, table], cwd=ROOT, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    line = child.stdout.readline()
    assert line.strip() == "holding", child.stderr.read()
    return child


def let_go(child: subprocess.Popen) -> None:
    """Kill the holder (SIGKILL: no clean shutdown, its owner row stays behind)."""
    if child.poll() is None:
        child.kill()
    child.wait()
    for f in (child.stdin, child.stdout, child.stderr):
        f.close()


# -- the writer lock ------------------------------------------------------------------------------

def test_the_owner_row_names_the_holder_and_kill_9_frees_the_table(postgres, venue):
    url, name = venue
    child = holder(url)
    try:
        with postgres.connect(name) as conn:
            row = conn.execute("SELECT id, owner_pid, owner_host, owner_command FROM tables "
                               "WHERE name = 'main'").fetchone()
            table_id, pid, host, command = row
            assert (pid, host) == (child.pid, os.uname().nodename)
            assert command == f"-c {shlex.quote(url.replace(postgres.PASSWORD, '***'))} main"
            # The lock itself is the server's: one advisory lock, held by the child's backend.
            held = conn.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND classid = %s AND objid = %s AND database = (SELECT oid FROM pg_database "
                "WHERE datname = current_database())", (LOCK_SPACE, table_id)).fetchone()[0]
            assert held == 1, conn.execute(
                "SELECT d.datname, a.application_name, a.pid FROM pg_locks l "
                "JOIN pg_database d ON d.oid = l.database "
                "LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory'").fetchall()
        with pytest.raises(StoreError, match=rf"table main in postgresql://tableassist@127.0.0.1:"
                                             rf"{postgres.port}/{name} is in use by another "
                                             rf"tableassist: pid {child.pid} on "):
            open_store(url)
    finally:
        let_go(child)  # kill -9: no clean shutdown, the owner row stays behind
    store = open_store(url)  # the server let the lock go with the dead connection
    with postgres.connect(name) as conn:
        assert conn.execute("SELECT owner_pid FROM tables WHERE name = 'main'").fetchone() == \
            (os.getpid(),)
    store.close()
    with postgres.connect(name) as conn:  # a clean close clears the owner row
        assert conn.execute("SELECT owner_pid FROM tables WHERE name = 'main'").fetchone() == \
            (None,)


def test_a_venues_tables_share_one_database_and_nothing_else(postgres, venue):
    """Two tables, each with its own writer (another process holds one), its own numbering of
    games, its own links; renaming a table keeps its games and its lock."""
    url, name = venue
    child = holder(url, "bar")  # another process runs table "bar"
    try:
        main = open_store(url)  # table main is free
        first = TableSession.create(main, GAME, PLAYERS, seed=7)
        done = play(first, random.Random(1), 4)
        with pytest.raises(StoreError, match=rf"table bar in .* is in use by another "
                                             rf"tableassist: pid {child.pid} "):
            open_store(url, "bar")
        reader = open_store(url, "bar", read_only=True)  # reading is not writing
        assert reader.game_rows() == []
        with pytest.raises(StoreError, match="table bar in .* is open read-only"):
            reader.create_game(GAME, PLAYERS, 1, {}, {})
        reader.close()
    finally:
        let_go(child)
    bar = open_store(url, "bar")
    other = TableSession.create(bar, GAME, PLAYERS, seed=3)
    assert (first.saved.id, other.saved.id) == (1, 1)  # numbered per table
    bar.links().save({"host": "bar-key"})
    assert main.links().load() == {} and bar.links().load() == {"host": "bar-key"}
    assert [g.id for g in bar.listing()] == [1] and bar.entries(1) == []
    bar.close()
    with postgres.connect(name) as conn:  # the venue renames table main
        conn.execute("UPDATE tables SET name = 'window' WHERE name = 'main'")
    main.close()
    window = open_store(url, "window")
    assert TableSession.open(window, 1).game.state == replayed(done)
    with pytest.raises(StoreError, match="there is no table main in"):
        open_store(url, read_only=True)
    window.close()


# -- a lost connection -----------------------------------------------------------------------------

def backends_of(postgres, name: str) -> list[int]:
    with postgres.admin() as conn:
        return [r[0] for r in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND application_name = "
            "'tableassist'", (name,))]


def cut_connections(postgres, name: str) -> None:
    """The server ends the store's connection (as a restart or a network cut would)."""
    with postgres.admin() as conn:
        for pid in backends_of(postgres, name):
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
    wait_until(lambda: not backends_of(postgres, name), what="the connection to end")


def test_a_lost_connection_is_made_again_and_the_action_saved_once(postgres, venue):
    url, name = venue
    store = open_store(url)
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    rng = random.Random(2)
    done = play(session, rng, 3)
    cut_connections(postgres, name)
    done += play(session, rng, 1)  # reconnected, the lock taken again, saved once
    assert [e.action for e in store.entries(session.saved.id)] == done
    with open_store(url) as again:  # a second store of the table in this process: the same writer
        assert TableSession.open(again, session.saved.id).game.state == replayed(done)
    with postgres.connect(name) as conn:
        assert conn.execute("SELECT owner_pid FROM tables").fetchone() == (os.getpid(),)
    store.close()
    assert backends_of(postgres, name) == []  # the last store closed let the table go


def test_a_database_that_is_gone_refuses_the_action_in_words_and_loses_nothing(postgres, venue):
    url, name = venue
    store = open_store(url)
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    rng = random.Random(3)
    done = play(session, rng, 3)
    with postgres.admin() as conn:
        conn.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
    cut_connections(postgres, name)
    before = session.game.to_json()
    with pytest.raises(StoreError) as refused:
        session.submit(rng.choice(all_legal_actions(session.game)))
    assert str(refused.value) == (
        f"lost the connection to the database server, and cannot reconnect: the database "
        f"'{name}' is not accepting connections now: the action was not saved and not applied")
    assert session.game.to_json() == before  # the game as its log has it
    with pytest.raises(StoreError, match="cannot read the game's log: lost the connection"):
        store.entries(session.saved.id)
    with postgres.admin() as conn:
        conn.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
    done += play(session, rng, 1)  # the server is back: the table plays on
    assert [e.action for e in store.entries(session.saved.id)] == done
    store.close()


def test_a_table_taken_while_the_connection_was_lost_is_not_written(postgres, venue):
    url, name = venue
    store = open_store(url)
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    rng = random.Random(4)
    done = play(session, rng, 2)
    cut_connections(postgres, name)
    child = holder(url)  # another process took the table meanwhile
    try:
        with pytest.raises(StoreError, match=rf"cannot reconnect: table main in .* is in use by "
                                             rf"another tableassist: pid {child.pid} on .*: the "
                                             r"action was not saved and not applied"):
            session.submit(rng.choice(all_legal_actions(session.game)))
    finally:
        let_go(child)
    assert session.game.state == replayed(done)
    reader = open_store(url, read_only=True)
    assert [e.action for e in reader.entries(session.saved.id)] == done
    reader.close()
    store.close()


def test_the_password_is_never_in_a_message(postgres, venue):
    url, name = venue
    store = open_store(url)
    assert postgres.PASSWORD in store.db  # kept, to open the table again
    assert postgres.PASSWORD not in store.where and postgres.PASSWORD not in repr(store)
    store.close()
    child = holder(url)  # its command line holds the URL: the owner row leaves the password out
    try:
        with pytest.raises(StoreError) as refused:
            open_store(url)
    finally:
        let_go(child)
    assert "tableassist:***@127.0.0.1" in str(refused.value)
    assert postgres.PASSWORD not in str(refused.value)
    with psycopg.connect(url) as conn:  # the venue's user owns what tableassist made
        assert conn.execute("SELECT schema_owner FROM information_schema.schemata WHERE "
                            "schema_name = 'tableassist'").fetchone() == (postgres.USER,)


def test_a_database_of_schema_1_is_brought_up_to_date_with_its_tables_listed(postgres, venue):
    """A venue's database from before the list of tables was kept there (schema 1): its first
    writer adds the titles and the processes, and every table it had is listed by its name."""
    from tableassist.table.postgres_store import _DDL
    from tableassist.table.stores import open_venue
    url, name = venue
    with postgres.connect(name) as conn:
        conn.execute(_DDL)
        conn.execute("INSERT INTO tableassist.tables (name, created) VALUES ('bar', 'then')")
    venue_ = open_venue(url)
    try:
        assert [(t.name, t.title) for t in venue_.tables()] == [("main", "Main table"),
                                                                ("bar", "bar")]
    finally:
        venue_.release()
    with postgres.connect(name) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("2",)
    store = open_store(url, "bar")   # the table's own store opens it as before
    store.close()


def test_the_tables_nobody_serves_go_one_by_one_to_the_least_loaded_process():
    """Every process computes the same shares from the same snapshot (no asking each other)."""
    from tableassist.table.postgres_venue import Snapshot
    snap = Snapshot({1: "h:1", 2: "h:2", 3: "h:3"},
                    {"main": 1, "a": 1, "b": None, "c": None, "d": None, "e": 3, "f": None},
                    closed=frozenset({"old"}), held_elsewhere=frozenset({"f"}))
    assert snap.orphans() == ["b", "c", "d"]          # f is held by a program that is not a server
    assert snap.shares() == {"b": 2, "c": 2, "d": 3}  # loads 2, 0, 1 -> 2, 1, 1 -> 2, 2, 1 -> …
    assert (snap.address("a"), snap.address("b"), snap.load(1)) == ("h:1", None, 2)
    assert Snapshot({}, {"x": None}, frozenset(), frozenset()).shares() == {}
