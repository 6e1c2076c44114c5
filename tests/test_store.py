"""The store under faults: one writer, stale writers, damaged rows and entries, a log that stops
replaying, a full disk, the v1 → v2 migration, and a lobby that costs the same at 10 and 1,000
saved games. Most run against both stores (``store_factory``: a real SQLite file, a real
PostgreSQL server); a real full file system where mounting is allowed."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tableassist.table import catalog
from tableassist.table.postgres_store import PostgresStore
from tableassist.table.session import TableSession
from tableassist.table.sqlite_store import SqliteStore
from tableassist.table.store import Store, StoreError
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions
from tests.stores import GAME, PLAYERS, fill_up, play, replayed
ROOT = Path(__file__).resolve().parents[1]


def raw(path: Path, sql: str, *params) -> None:
    """Change the file behind the store's back, as a damaged disk or another program would."""
    with sqlite3.connect(path) as db:
        db.execute(sql, params)
    db.close()


@pytest.fixture
def path(tmp_path):
    return tmp_path / "table.sqlite3"


# -- one writer ---------------------------------------------------------------------------------

HOLD = textwrap.dedent("""
    import sys
    from tableassist.table.store import StoreError
    from tableassist.table.stores import open_store
    try:
        open_store(sys.argv[1])
    except StoreError as exc:
        print(exc)
        sys.exit(2)
    print("opened")
""")


def hold(db) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", HOLD, str(db)], cwd=ROOT,
                          capture_output=True, text=True, timeout=30)


def test_a_second_process_is_refused_and_told_who_holds_the_table(store_factory):
    store, again = store_factory(), store_factory()  # one process: one writer, two stores
    child = hold(store_factory.db)
    assert child.returncode == 2
    message = child.stdout.strip()
    assert message.startswith(f"{store.where} is in use by another tableassist: pid "
                              f"{os.getpid()} on ")
    # The command is quoted as repr quotes it: "…" once it holds a ' (pytest -m 'not slow').
    assert ("running '" in message or 'running "' in message) and "since " in message
    assert "Stop it first" in message
    again.close()
    assert hold(store_factory.db).returncode == 2  # the other store still holds it
    store.close()  # the writer lets go: the next one may write
    child = hold(store_factory.db)
    assert (child.returncode, child.stdout.strip()) == (0, "opened")


def test_a_stale_writer_is_refused_reloads_and_says_so(store_factory):
    """Two stores on one table (one process, so they share the writer lock): each session
    appends only where it expects, so the one whose picture is stale can never append."""
    a, b = store_factory(), store_factory()
    first = TableSession.create(a, GAME, PLAYERS, seed=7)
    second = TableSession.open(b, first.saved.id)
    rng = random.Random(1)
    done = play(first, rng, 3)
    heard = []
    second.subscribe(lambda change: heard.append((change.kind, len(change.session.steps))))
    stale = all_legal_actions(second.game)[0]  # legal in second's out-of-date picture
    with pytest.raises(StoreError, match=r"another program wrote to the log of game #1 \(it has "
                                         r"3 entries, this table knew of 0\): the action was not "
                                         r"saved and not applied; the table reloaded"):
        second.submit(stale)
    assert len(a.entries(first.saved.id)) == 3  # nothing was written
    assert second.game.state == first.game.state == replayed(done)
    assert heard == [("reload", 3)]  # the screens were sent the reloaded game
    # Reloaded, the second session writes at the right place; now the first is the stale one.
    second.submit(rng.choice(all_legal_actions(second.game)))
    with pytest.raises(StoreError, match="the undo was not saved and not applied"):
        first.undo()
    assert first.game.state == second.game.state
    assert [e.kind for e in a.entries(first.saved.id)] == ["action"] * 4


# -- damaged rows and entries ---------------------------------------------------------------------

def test_damaged_rows_are_listed_with_what_is_wrong(store_factory):
    store = store_factory()
    rows = [TableSession.create(store, GAME, PLAYERS, seed=s).saved.id for s in range(5)]
    store_factory.raw("UPDATE games SET players = '[\"Ann\", \"Be' WHERE id = ?", rows[1])
    store_factory.raw("UPDATE games SET components = '{\"game\": ' WHERE id = ?", rows[3])
    store_factory.raw("UPDATE games SET options = '[1, 2]' WHERE id = ?", rows[4])
    if store_factory.name == "sqlite":
        # A flipped bit that leaves the text invalid UTF-8 (sqlite3 would raise
        # UnicodeDecodeError); PostgreSQL refuses such text at the door.
        store_factory.raw("UPDATE games SET game = CAST(x'736869ff' AS TEXT) WHERE id = ?",
                          rows[2])
    else:
        store_factory.raw("UPDATE games SET players = '[]' WHERE id = ?", rows[2])
    listing = {s.id: s for s in store.listing()}
    assert sorted(listing) == rows  # every game is listed
    assert listing[rows[0]].damaged is None and listing[rows[0]].players == tuple(PLAYERS)
    assert listing[rows[1]].damaged == "its players are damaged (not a JSON list of names)"
    assert listing[rows[1]].players == ()
    assert listing[rows[2]].damaged == ("its game name is damaged" if store_factory.name ==
                                        "sqlite" else
                                        "its players are damaged (not a JSON list of names)")
    assert listing[rows[3]].damaged == "its components are damaged (not a JSON object)"
    assert listing[rows[4]].damaged == "its options are damaged (not a JSON object)"
    for row in rows[1:]:
        with pytest.raises(StoreError, match=f"saved game #{row} is damaged: its"):
            store.game(row)
    assert store.game(rows[0]).players == tuple(PLAYERS)


def test_a_log_that_stops_replaying_resumes_short_of_it_and_keeps_everything(store_factory):
    store = store_factory()
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    done = play(session, random.Random(2), 8)
    row = session.saved.id
    store_factory.raw("UPDATE entries SET action = ? WHERE game_id = ? AND seq = 5",
                      json.dumps({"type": "turn_over_card", "player": None,
                                  "card": "NO-SUCH-CARD"}), row)
    opened = TableSession.open(store, row)
    assert opened.warning is not None
    assert opened.warning.startswith(f"entries 5… of game #{row} no longer replay (entry 5 "
                                     "(turn_over_card): ")
    assert opened.warning.endswith("); resumed at entry 4; nothing was deleted")
    assert opened.game.state == replayed(done[:4])
    assert [s.seq for s in opened.steps] == [1, 2, 3, 4]
    # The table plays on: a marker sets the broken tail aside, the new action goes at the end.
    action = all_legal_actions(opened.game)[0]
    opened.submit(action, author="Ann")
    log = store.entries(row)
    assert len(log) == 10  # nothing deleted
    assert (log[8].kind, log[8].target, log[8].author) == ("resume", 4, "Ann")
    assert (log[9].kind, log[9].action) == ("action", action)
    again = TableSession.open(store, row)
    assert again.warning is None  # the marker made the log replay again
    assert again.game.state == replayed(done[:4] + [action])
    assert [s.seq for s in again.steps] == [1, 2, 3, 4, 10]
    again.undo()
    assert TableSession.open(store, row).game.state == replayed(done[:4])


def test_a_damaged_entry_breaks_the_log_there(store_factory):
    store = store_factory()
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    done = play(session, random.Random(3), 5)
    store_factory.raw("UPDATE entries SET action = '{\"type\": \"lay' WHERE seq = 3")
    opened = TableSession.open(store, session.saved.id)
    assert "entries 3… of game #1 no longer replay (entry 3 is damaged: its action is not a " \
           "JSON object); resumed at entry 2" in opened.warning
    assert opened.game.state == replayed(done[:2])
    store_factory.raw("UPDATE entries SET action = '{\"type\": \"lay' WHERE seq = 1")
    first = TableSession.open(store, session.saved.id)
    assert "resumed at the start (entry 0)" in first.warning
    assert first.steps == []


# -- a full disk ----------------------------------------------------------------------------------

def fill_until_refused(session: TableSession, rng: random.Random) -> tuple[list[dict], str]:
    """Play until the store refuses an action; returns the acknowledged actions and the refusal."""
    acked = []
    for _ in range(5000):
        action = rng.choice(all_legal_actions(session.game))
        try:
            session.submit(action)
        except StoreError as exc:
            return acked, str(exc)
        acked.append(action)
    raise AssertionError("the store never filled up")


def check_nothing_lost(store: Store, session: TableSession, acked: list[dict]) -> None:
    log = store.entries(session.saved.id)
    assert [e.action for e in log] == acked  # every acknowledged action, and only those
    assert session.game.state == replayed(acked)  # the state equals the log


def test_a_full_database_says_the_disk_is_full_and_loses_nothing(store_factory):
    """A real full database: SQLite's max_page_count (SQLITE_FULL from the pager), or the
    PostgreSQL server's own file system (tests/stores.py)."""
    store = store_factory()
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    with store_factory.full_disk(store):
        acked, message = fill_until_refused(session, random.Random(4))
        assert message == f"{store_factory.disk_full}: the action was not saved and not applied"
        check_nothing_lost(store, session, acked)
    session.submit(all_legal_actions(session.game)[0])  # room again: the table plays on
    assert len(store.entries(session.saved.id)) == len(acked) + 1


@pytest.fixture
def small_disk(tmp_path):
    """A real 256 KiB file system (tmpfs), when this process may mount one."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_file_system_says_the_disk_is_full_and_loses_nothing(small_disk):
    store = open_store(small_disk / "table.sqlite3")
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    rng = random.Random(5)
    acked = play(session, rng, 3)
    filler = small_disk / "filler"
    fill_up(filler)
    more, message = fill_until_refused(session, rng)
    assert message == "the disk is full: the action was not saved and not applied"
    check_nothing_lost(store, session, acked + more)
    filler.unlink()
    session.submit(all_legal_actions(session.game)[0])
    store.close()
    reopened = open_store(small_disk / "table.sqlite3")
    assert len(reopened.entries(session.saved.id)) == len(acked + more) + 1
    reopened.close()


# -- the schema ------------------------------------------------------------------------------------

V1_SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, players TEXT NOT NULL, seed INTEGER NOT NULL,
    options TEXT NOT NULL, components TEXT NOT NULL, created TEXT NOT NULL, ended TEXT);
CREATE TABLE entries (
    game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'redo', 'correction')),
    action TEXT, target INTEGER, source TEXT NOT NULL, author TEXT, at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq));
PRAGMA application_id = 1413567315;
PRAGMA user_version = 1;
"""


def test_a_version_1_file_is_migrated_to_version_2(path):
    """A file as tableassist wrote it before schema 2, built by hand: it opens, keeps every
    entry, gains the ``resume`` kind and the index, and its games replay."""
    game = catalog.new_game(GAME, PLAYERS, seed=3)
    rng = random.Random(6)
    actions = []
    for _ in range(6):
        action = rng.choice(all_legal_actions(game))
        game.apply(action)
        actions.append(action)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(V1_SCHEMA)
        db.execute("INSERT INTO games VALUES (1, ?, ?, 3, '{}', ?, '2024-01-01T00:00:00', NULL)",
                   (GAME, json.dumps(PLAYERS), json.dumps(catalog.load_components(GAME))))
        db.executemany("INSERT INTO entries VALUES (1, ?, 'action', ?, NULL, 'tablet', 'x', 't')",
                       [(i, json.dumps(a)) for i, a in enumerate(actions, start=1)])
        db.execute("INSERT INTO entries VALUES (1, 7, 'undo', NULL, NULL, 'tablet', 'x', 't')")
    db.close()
    store = open_store(path)
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == 2
    indexes = [r[0] for r in store._db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'games'")]
    assert "games_open" in indexes
    session = TableSession.open(store, 1)
    fresh = catalog.new_game(GAME, PLAYERS, seed=3)
    for a in actions[:-1]:
        fresh.apply(a)
    assert session.game.state == fresh.state and session.can_redo
    assert [e.seq for e in store.entries(1)] == list(range(1, 8))
    store.append(1, "resume", target=7, expected_seq=8)  # the new kind is accepted
    assert store.latest_open(catalog.ENGINES) == 1
    store.close()


# -- the lobby's cost does not grow with the saved games -----------------------------------------

def test_the_lobby_and_resume_latest_do_not_grow_with_the_saved_games(store_factory):
    """Two tables of one database (two files beside each other, or two tables of one PostgreSQL
    database): the lobby of the one with 1,000 games costs what the one with 60 costs."""
    costs = {}
    for n in (60, 1000):
        store = store_factory(f"t{n}")
        store_factory.insert_games(store, n)  # only the oldest is not ended: the worst case
        assert store.latest_open(catalog.ENGINES) == 1
        assert len(store.listing(50)) == min(n, 50)
        costs[n] = (store_factory.cost(store, "listing"),
                    store_factory.cost(store, "latest_open"))
    # 50 rows either way, not 1,000 (reading them all would cost ten times as much); on PostgreSQL
    # a B-tree one level deeper costs a block more per row looked up, so allow half as much again
    assert costs[1000][0] <= costs[60][0] * 1.5 + 2
    assert costs[1000][1] <= costs[60][1] + 2        # one indexed lookup


def test_every_store_keeps_the_whole_contract():
    """Each implementation has every method of the contract (Store)."""
    contract = [name for name, value in vars(Store).items()
                if callable(value) and not name.startswith("_")]
    assert {"append", "entries", "listing", "latest_open", "links", "add_games"} <= set(contract)
    for impl in (SqliteStore, PostgresStore):
        missing = [name for name in contract if getattr(impl, name) is getattr(Store, name)]
        assert not missing, f"{impl.__name__} lacks {missing}"


def test_the_contract_imports_neither_store():
    """The stores import the contract; opening one (``stores.py``) imports them: no circle."""
    import ast

    from tableassist.table import store as contract
    tree = ast.parse(Path(contract.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
        {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not imported & {"tableassist.table.sqlite_store", "tableassist.table.postgres_store",
                           "tableassist.table.stores"}


def test_the_database_names_its_store_and_a_bad_one_is_refused(tmp_path):
    with open_store(tmp_path / "t.sqlite3") as store:  # a block closes it, lock and all
        assert isinstance(store, SqliteStore) and store.table == "main"
    assert "opened" in hold(tmp_path / "t.sqlite3").stdout
    other = open_store(tmp_path / "t.sqlite3", "bar")
    assert other.path == tmp_path / "t.bar.sqlite3"  # another table: the file beside it
    other.close()
    with pytest.raises(StoreError, match=r"'Bar Room' cannot name a table: use 1 to 40 "):
        open_store(tmp_path / "t.sqlite3", "Bar Room")
    with pytest.raises(StoreError, match=r"--db mysql://… is not a database tableassist can "
                                         r"use: give a file \(SQLite\) or a postgresql:// URL"):
        open_store("mysql://venue@db/tables")
