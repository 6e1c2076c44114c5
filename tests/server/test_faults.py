"""The table under faults, with real `tableassist serve` processes, real files and a real
PostgreSQL server: a second server on the same table, kill -9, SIGTERM and Ctrl+C, bit-flipped
database files, start-up faults (of a file, and of a PostgreSQL server: down, a wrong password, no
database, a newer schema …), damaged games and broken logs as a screen sees them, a full disk, and
messages the server cannot read.
The tests that hold for both stores run on both (``store_factory``)."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from tableassist import i18n
from tableassist.cli import main
from tableassist.server import Table, Tokens
from tableassist.server.tokens import links_file
from tableassist.table.session import TableSession
from tableassist.table.store import StoreError, is_postgres
from tableassist.table.stores import implementation, open_store
from tests.games.random_play import all_legal_actions
from tests.server.conftest import ROOT, Client, ServerProcess, wait_until
from tests.server.test_play_log import fetch
from tests.server.test_server import PLAYERS, first_lot, start
from tests.stores import keys, raw
from tests.test_cli_language import CODE
from tests.words import english_left, lowered

NAMES = [p["name"] for p in PLAYERS]


def serve_command(db: Path | str) -> list[str]:
    return [sys.executable, "-m", "tableassist", "serve", "--host", "127.0.0.1", "--port", "0",
            "--db", str(db), "--camera", "none"]


def where(db: Path | str) -> str:
    """How messages name the table's log (a URL without its password)."""
    store = open_store(db, read_only=True)
    store.close()
    return store.where


def output_of(proc: ServerProcess) -> str:
    return "".join(proc.startup + list(proc.lines.queue))


def plain_refusal(err: str) -> str:
    """The one line a refused start prints (no traceback, nothing else)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def saved_db(path: Path | str, games: int = 3, actions: int = 6) -> Path | str:
    """A closed (checkpointed) database with ``games`` Shipwrecked games, each played a little."""
    store = open_store(path)
    rng = random.Random(1)
    for seed in range(games):
        session = TableSession.create(store, "shipwrecked", NAMES, seed=seed)
        for _ in range(actions):
            session.submit(rng.choice(all_legal_actions(session.game)), author="table")
    store.close()
    return path


# -- one writer per database ------------------------------------------------------------------

@pytest.mark.slow  # serve child processes, one killed with SIGKILL
def test_a_second_server_is_refused_and_a_kill_9_does_not_block_a_restart(store_factory,
                                                                           tmp_path):
    db = store_factory.db
    first = ServerProcess(db)
    try:
        table = Client(first.url, keys(db)["table"]).connect()
        start(table)
        for action in first_lot()[:4]:
            assert table.act(action)["ok"]
        before = table.wait_state(lambda s: len(s["history"]) == 4)
        table.close()
        if is_postgres(db):
            # A second server of a venue on PostgreSQL is one more process of the venue: the
            # table stays its first process's (docs/venue.md "Run a tournament").
            second_ = ServerProcess(db)
            try:
                assert "a process of the venue" in "".join(second_.startup)
                assert "this process serves 0 tables now" in second_.lines.get(timeout=60)
            finally:
                second_.stop()
        else:
            second = subprocess.run(serve_command(db), cwd=ROOT, capture_output=True,
                                    text=True, timeout=60)
            assert second.returncode == 2
            line = plain_refusal(second.stderr)
            # The holder's command as it was typed, less a URL's password.
            typed = shlex.quote(re.sub(r":[^:@/]*@", ":***@", str(db)))
            command = f"tableassist serve --host 127.0.0.1 --port 0 --db {typed} --camera none"
            assert line.startswith(f"cannot open the table's database: {where(db)} is in use "
                                   f"by another tableassist: pid {first.proc.pid} on "
                                   f"{socket.gethostname()}, running {command!r}, since ")
            assert line.endswith("Stop it first (Ctrl+C in its window), or choose another --db")
        # Nothing else may write while it runs; reading (an export, a backup) may.
        backup = tmp_path / "backup.jsonl"
        assert main(["export", "--db", str(db), "-o", str(backup)]) == 0
        assert main(["import", str(backup), "--db", str(db)]) == 2
        if not is_postgres(db):  # the demo keeps its game in a file
            assert main(["demo", "--db", str(db), "--once", "--fast", "--port", "0"]) == 2
        # SIGKILL: the lock file stays (SQLite), the lock goes with the process (the kernel's
        # flock; PostgreSQL's advisory lock when the server sees the connection close)
        first.kill()
    finally:
        first.stop()
    if not is_postgres(db):
        assert (tmp_path / "table.sqlite3.lock").exists()
    again = ServerProcess(db)
    try:
        table = Client(again.url, keys(db)["table"]).connect()
        assert table.state["view"] == before["view"]
        assert table.state["history"] == before["history"]
        table.close()
    finally:
        again.stop()


# -- stopping ---------------------------------------------------------------------------------

@pytest.mark.slow  # a serve child process stopped by a signal
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_leaves_the_database_complete_on_its_own(store_factory, tmp_path, sig):
    db = store_factory.db
    proc = ServerProcess(db)
    try:
        table = Client(proc.url, keys(db)["table"]).connect()
        start(table)
        for action in first_lot():
            assert table.act(action)["ok"]  # acknowledged
        view = table.wait_state(lambda s: len(s["history"]) == 7)["view"]
        table.close()
        proc.proc.send_signal(sig)
        assert proc.proc.wait(timeout=20) == 0
    finally:
        proc.stop()
    wait_until(lambda: "stopped" in output_of(proc), what="the server's last words")
    assert "Traceback" not in output_of(proc)
    if is_postgres(db):
        # The table was let go cleanly: its owner row no longer names the stopped server.
        with psycopg.connect(db) as conn:
            assert conn.execute("SELECT owner_pid FROM tableassist.tables "
                                "WHERE name = 'main'").fetchone() == (None,)
        copy = db
    else:
        # What a person copies as a backup: the .sqlite3 file alone, without its -wal.
        copy = tmp_path / "backup" / "table.sqlite3"
        copy.parent.mkdir()
        shutil.copyfile(db, copy)
    store = open_store(copy)
    assert [e.kind for e in store.entries(1)] == ["action"] * 7
    assert TableSession.open(store, 1).game.view(None) == view
    store.close()


# -- start-up faults --------------------------------------------------------------------------

def flipped_copies(base: Path, folder: Path) -> dict[str, Path]:
    """Copies of ``base`` with one byte inverted: in the SQLite header (magic, page count, text
    encoding, version, application id), in b-tree pages, and inside the JSON of a game row and
    of a log entry."""
    data = base.read_bytes()
    offsets = {"magic": 0, "page count": 28, "text encoding": 56, "user version": 60,
               "application id": 68, "page 2": 4096, "middle": len(data) // 2,
               "players": data.index(b'["Ann"') + 3, "an entry": data.index(b'{"type"') + 3,
               "near the end": len(data) - 50}
    out = {}
    for name, offset in offsets.items():
        flipped = bytearray(data)
        flipped[offset] ^= 0xFF
        path = folder / f"{name.replace(' ', '-')}.sqlite3"
        path.write_bytes(bytes(flipped))
        out[name] = path
    return out


@pytest.mark.slow  # ten serve processes
def test_a_bit_flipped_database_starts_or_says_why_in_one_line(tmp_path):
    """Each copy either starts (and a screen gets its state, damaged games marked) or is refused
    with one plain line and exit code 2: never a traceback, never a hang."""
    base = saved_db(tmp_path / "base.sqlite3")
    copies = flipped_copies(base, tmp_path)
    procs = {name: subprocess.Popen(serve_command(path), cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
             for name, path in copies.items()}
    outcomes = {}
    try:
        for name, proc in procs.items():
            host_link = None
            for line in proc.stdout:  # type: ignore[union-attr]
                if "#t=" in line:
                    host_link = line.strip()
                    break
            if host_link is None:
                proc.wait(timeout=30)
                assert proc.returncode == 2, (name, proc.stderr.read())  # type: ignore
                outcomes[name] = plain_refusal(proc.stderr.read())  # type: ignore[union-attr]
                assert outcomes[name].startswith("cannot open the table's database: ")
                continue
            url, token = host_link.split("#t=")
            host = Client(url, token).connect()
            assert host.state["lobby"]["saved"] or host.state["lobby"].get("saved_error")
            assert not host.errors, (name, host.errors)
            host.close()
            proc.terminate()
            assert proc.wait(timeout=20) == 0
            err = proc.stderr.read()  # type: ignore[union-attr]
            assert "Traceback" not in err, (name, err)
            outcomes[name] = "started" + (f" ({err.strip()})" if err.strip() else "")
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
            proc.stderr.close()  # type: ignore[union-attr]
    assert "is not a tableassist database" in outcomes["magic"]
    assert "is an SQLite file of another program" in outcomes["application id"]
    assert "damaged" in outcomes["user version"]
    assert any(o.startswith("started") for o in outcomes.values())  # the check is not too eager


def one_sentence(text: str) -> str:
    """The one line a fault prints: no traceback, nothing else."""
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1, text
    return text.strip()


def export_says(db: Path, out: Path, capsys) -> tuple[int, list[str]]:
    """``tableassist export`` of ``db``: its exit code and what it said, line by line."""
    capsys.readouterr()
    code = main(["export", "--db", str(db), "-o", str(out)])
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return code, err.strip().splitlines()


@pytest.mark.parametrize("seed", range(8))
def test_a_database_with_40_flipped_bytes_is_refused_or_served_in_words(tmp_path, capsys, seed):
    """40 bytes inverted anywhere past the file's header (a dying disk, a bad copy): the server
    either refuses the file in one sentence — a damaged file is never written to — or starts,
    its damaged games marked as the lobby marks them; export says what it could not read."""
    base = saved_db(tmp_path / "base.sqlite3", games=4, actions=8)
    data = bytearray(base.read_bytes())
    rng = random.Random(seed)
    for offset in rng.sample(range(100, len(data)), 40):
        data[offset] ^= 0xFF
    db = tmp_path / "damaged.sqlite3"
    db.write_bytes(bytes(data))
    from tableassist.server.served import OpenError, serve_venue
    try:
        served = serve_venue(db, host="127.0.0.1", port=0, camera="none")
    except OpenError as exc:
        said = one_sentence(str(exc))
        assert said.startswith("cannot open the table's database: ") and "damaged" in said
        assert "is not opened for writing, so nothing in it changes" in said
        assert db.read_bytes() == bytes(data)                     # not a byte written
        assert main(["serve", "--db", str(db), "--camera", "none", "--port", "0",
                     "--host", "127.0.0.1"]) == 2
        assert plain_refusal(capsys.readouterr().err) == said
    else:
        try:
            for said in served.resume().values():
                one_sentence(said)
        finally:
            served.close()
    code, lines = export_says(db, tmp_path / "out.jsonl", capsys)
    assert code in (0, 1, 2) and lines
    if code == 2:
        assert lines == [one_sentence(lines[0])] and lines[0].startswith("cannot ")


def damaged_index(base: Path, damaged: Path) -> Path:
    """``damaged``: a copy of the SQLite file ``base`` with bytes flipped in the index of the log
    (the entries themselves whole), so SQLite's integrity check fails."""
    db = sqlite3.connect(base)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    root = db.execute("SELECT rootpage FROM sqlite_master "
                      "WHERE name = 'sqlite_autoindex_entries_1'").fetchone()[0]
    db.close()
    data = bytearray(base.read_bytes())
    for offset in range(root * page_size - 40, root * page_size - 4):   # the index's last cells
        data[offset] ^= 0xFF
    damaged.write_bytes(bytes(data))
    return damaged


def test_a_damaged_index_is_refused_and_every_game_rescued_by_export_and_import(tmp_path,
                                                                                capsys):
    """Bytes flipped in the index of the log (the entries themselves whole): SQLite's integrity
    check fails, so the server refuses the file and says which games can still be read and how;
    export reads the log itself, not the index, and an import puts every game, every entry, in
    a new database, where each replays as before."""
    base = saved_db(tmp_path / "base.sqlite3", games=3, actions=6)
    views = {}
    with open_store(base, read_only=True) as store:
        for row in store.game_rows():
            views[row] = TableSession.open(store, row).game.view(None)
        logs = {row: store.entries(row) for row in store.game_rows()}
    damaged = damaged_index(base, tmp_path / "damaged.sqlite3")
    assert main(["serve", "--db", str(damaged), "--camera", "none", "--port", "0",
                 "--host", "127.0.0.1"]) == 2
    said = plain_refusal(capsys.readouterr().err)
    assert said.startswith(f"cannot open the table's database: {damaged} is damaged (")
    assert said.endswith(
        "and is not opened for writing, so nothing in it changes; its 3 saved games can still "
        f"be read whole (#1, #2, #3): save them with `tableassist export --db {damaged} -o "
        "rescued.jsonl`, then `tableassist import rescued.jsonl --db NEW-FILE` puts them in a "
        "new database")
    rescued = tmp_path / "rescued.jsonl"
    code, lines = export_says(damaged, rescued, capsys)
    assert code == 0 and lines[0].startswith(f"warning: {damaged} is damaged (the file's pages ")
    # SQLite's own words for a technician, quoted, on the line after
    assert lines[1].startswith("the database's own words: \"On tree page ") and \
        lines[1].endswith("Extends off end of page\"")
    assert lines[-1] == f"exported 3 games to {rescued}"
    new = tmp_path / "new.sqlite3"
    assert main(["import", str(rescued), "--db", str(new)]) == 0
    with open_store(new, read_only=True) as store:
        assert store.damaged is None
        for row in store.game_rows():
            assert [(e.seq, e.action) for e in store.entries(row)] == \
                [(e.seq, e.action) for e in logs[row]]
            assert TableSession.open(store, row).game.view(None) == views[row]


@pytest.fixture
def mount_point(tmp_path):
    """A real tmpfs to make read-only (root only), unmounted afterwards."""
    folder = tmp_path / "data"
    folder.mkdir()
    if os.geteuid() != 0:  # permissions bind an ordinary user: chmod is enough
        yield folder, None
        return
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"root cannot mount a tmpfs here ({done.stderr.strip()}), and root ignores "
                    "a folder's permissions")
    try:
        yield folder, ["mount", "-o", "remount,ro", str(folder)]
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_damaged_database_and_its_rescue_are_said_in_the_language(tmp_path, capsys, lang):
    """The writer's refusal of a damaged file, by ``import`` and as ``serve``'s start-up line,
    with what the damage means, the games still whole and the commands that save them (issue
    25), and the refusal of a --db no store is for: no English word. SQLite's own report (its
    English) is not in them: ``export`` prints it on a line of its own."""
    damaged = damaged_index(saved_db(tmp_path / "base.sqlite3", games=9, actions=2),
                            tmp_path / "damaged.sqlite3")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    said = {}
    for language in ("en", lang):   # the import's writer opens the file first, and refuses it
        assert main(["--lang", language, "import", str(empty), "--db", str(damaged)]) != 0
        out = capsys.readouterr()
        assert main(["--lang", language, "serve", "--db", str(damaged), "--camera", "none",
                     "--port", "0", "--host", "127.0.0.1"]) == 2
        serve = plain_refusal(capsys.readouterr().err)
        said[language] = (out.out + out.err + "\n" + serve).replace(str(damaged), " ")
    assert "its 9 saved games can still be read whole (#1, #2, #3, #4, #5, #6, #7, #8 and 1 " \
        "more)" in said["en"]
    assert "cannot open the table's database:   is damaged (the file's pages do not agree with " \
        "each other) and is not opened for writing" in said["en"]
    assert "Extends off end of page" not in said["en"]
    said = {language: CODE.sub(" ", text) for language, text in said.items()}
    report = english_left({"damaged": said[lang]}, lowered([said["en"]]), lang,
                          allowed=["tableassist"])
    assert not report, report
    with pytest.raises(StoreError) as refused:
        implementation("mysql://host/table")
    english = str(refused.value)
    assert english.startswith("--db mysql://… is not a database tableassist can use")
    shown = CODE.sub(" ", i18n.render(refused.value.args[0], lang))
    report = english_left({"scheme": shown}, lowered([CODE.sub(" ", english)]), lang,
                          allowed=["tableassist"])
    assert not report, report


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_damaged_rows_an_export_leaves_out_are_said_in_the_language(tmp_path, capsys, lang):
    """What is wrong with a damaged game row and a damaged log entry, as the export says when it
    leaves them out (issue 25): no English word in German or Spanish."""
    db = saved_db(tmp_path / "table.sqlite3", games=3, actions=2)
    raw(db, "UPDATE games SET options = 'not json', seed = 'x', players = '{}' WHERE id = 2")
    raw(db, "UPDATE entries SET action = 'not json' WHERE game_id = 3 AND seq = 1")
    said = {}
    for language in ("en", lang):
        assert main(["--lang", language, "export", "--db", str(db), "-o",
                     str(tmp_path / f"{language}.jsonl")]) == 1
        said[language] = capsys.readouterr().err.replace(str(db), " ")
    assert "game #2 left out: saved game #2 is damaged: its players are damaged (not a JSON " \
        "list of names); its seed is damaged (not a whole number); its options are damaged " \
        "(not a JSON object)" in said["en"]
    assert "game #3 left out: entry 1 of game #3 is damaged: its action is not a JSON " \
        "object" in said["en"]
    said = {language: CODE.sub(" ", text) for language, text in said.items()}
    report = english_left({"export": said[lang]}, lowered([said["en"]]), lang)
    assert not report, report


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_saved_game_that_cannot_be_set_up_is_said_in_the_language(tmp_path, lang):
    """A saved game whose options the engine no longer takes: the store's refusal says which
    game and the engine's own reason, in German and Spanish with no English word (issue 25)."""
    db = saved_db(tmp_path / "table.sqlite3", games=1, actions=1)
    raw(db, "UPDATE games SET options = '{\"no_such_option\": 1}' WHERE id = 1")
    with open_store(db, read_only=True) as store, pytest.raises(StoreError) as refused:
        TableSession.open(store, 1)
    english = str(refused.value)
    assert english.startswith("saved game #1 cannot be set up any more: ")
    shown = CODE.sub(" ", i18n.render(refused.value.args[0], lang))
    report = english_left({"set up": shown}, lowered([CODE.sub(" ", english)]), lang)
    assert not report, report


@pytest.mark.parametrize("with_db", [True, False], ids=["existing-db", "empty-folder"])
def test_a_read_only_data_folder_is_refused_in_one_line(mount_point, capsys, with_db):
    folder, remount = mount_point
    db = folder / "table.sqlite3"
    if with_db:
        saved_db(db, games=1)
        Tokens(links_file(db))
    if remount:
        subprocess.run(remount, check=True)
    else:
        folder.chmod(0o555)
    try:
        code = main(["serve", "--db", str(db), "--camera", "none", "--port", "0",
                     "--host", "127.0.0.1"])
    finally:
        if not remount:
            folder.chmod(0o755)
    assert code == 2
    line = plain_refusal(capsys.readouterr().err)
    assert line == (f"cannot open the table's database: cannot write in {folder}: the folder or "
                    "the database is read-only. tableassist keeps the table's database, its lock "
                    "and its links there; make it writable, or choose another --db")


def make_foreign(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE photos (id INTEGER)")
    db.close()


def make_newer(path: Path) -> None:
    saved_db(path, games=1, actions=1)
    raw(path, "PRAGMA user_version = 99")


@pytest.mark.parametrize("make, message", [
    (lambda p: p.mkdir(), "is a folder, not a database file"),
    (lambda p: p.write_text("shopping list: rope, gems\n" * 300), "is not a tableassist database"),
    (make_foreign, "is an SQLite file of another program; tableassist will not write into it"),
    (make_newer, "was written by a newer tableassist (schema 99); update tableassist to open it"),
], ids=["folder", "text-file", "foreign-sqlite", "newer-schema"])
def test_a_start_up_fault_gives_one_plain_line_and_exit_2(tmp_path, capsys, make, message):
    db = tmp_path / "table.sqlite3"
    make(db)
    code = main(["serve", "--db", str(db), "--camera", "none", "--port", "0",
                 "--host", "127.0.0.1"])
    assert code == 2
    line = plain_refusal(capsys.readouterr().err)
    assert line.startswith("cannot open the table's database: ") and message in line


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_file_that_is_no_database_and_a_folder_that_cannot_be_made_in_the_language(
        tmp_path, capsys, lang):
    """``serve``'s start-up line for a text file given as the database (SQLite's own words for
    it are English, and are not shown) and for a database whose folder cannot be made (the
    system's reason, table/files.os_reason): no English word."""
    text = tmp_path / "list.sqlite3"
    text.write_text("shopping list: rope, gems\n" * 300)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    said: dict[str, dict[str, str]] = {"en": {}, lang: {}}
    for name, db in (("text file", text), ("folder under a file", blocker / "t.sqlite3")):
        for language in said:
            assert main(["--lang", language, "serve", "--db", str(db), "--camera", "none",
                         "--port", "0", "--host", "127.0.0.1"]) == 2
            line = plain_refusal(capsys.readouterr().err).replace(str(tmp_path), " ")
            said[language][name] = CODE.sub(" ", line)
    assert "is not a tableassist database; choose another" in said["en"]["text file"]
    assert said["en"]["folder under a file"].endswith("file exists")   # (mkdir's errno)
    report = english_left(said[lang], lowered(said["en"].values()), lang,
                          allowed=["tableassist"])
    assert not report, report


def postgres_fault(postgres, fault: str) -> tuple[str, str]:
    """A --db URL with ``fault``, and the database's name."""
    from tests.services import free_port
    db = postgres.new_database()
    if fault == "server down":
        return postgres.url(db, port=free_port()), db  # nothing listens there
    if fault == "wrong password":
        return postgres.url(db, password="not-the-password"), db
    if fault == "no database":
        return postgres.url("nowhere"), "nowhere"
    if fault == "bad port":
        return postgres.url(db).replace(f":{postgres.port}/", ":eighty/"), db
    with postgres.admin(db) as conn:
        if fault == "newer schema":
            open_store(postgres.url(db)).close()
            conn.execute("UPDATE tableassist.meta SET value = '99' WHERE key = 'schema'")
        elif fault == "foreign schema":
            conn.execute("CREATE SCHEMA tableassist AUTHORIZATION tableassist")
            conn.execute("CREATE TABLE tableassist.photos (id integer)")
        elif fault == "read-only database":
            conn.execute(f"ALTER DATABASE {db} SET default_transaction_read_only = on")
        elif fault == "no permission":
            conn.execute(f"ALTER DATABASE {db} OWNER TO postgres")
            conn.execute(f"REVOKE CREATE ON DATABASE {db} FROM PUBLIC")
    return postgres.url(db), db


@pytest.mark.parametrize("fault, message", [
    ("server down", "cannot reach the PostgreSQL server at 127.0.0.1:{other} (connection "
                    "refused): is it running, and is that its address and port?"),
    ("wrong password", "the PostgreSQL server at 127.0.0.1:{port} refused the password of user "
                       "'tableassist' (or there is no such user)"),
    ("no database", "there is no database 'nowhere' on the PostgreSQL server at "
                    "127.0.0.1:{port}: create it (createdb -O tableassist nowhere), or check "
                    "the --db URL"),
    ("bad port", "cannot connect to the PostgreSQL server at 127.0.0.1:eighty (invalid "
                 "integer value \"eighty\" for connection option \"port\")"),
    ("newer schema", "postgresql://tableassist@127.0.0.1:{port}/{db} was written by a newer "
                     "tableassist (schema 99); update tableassist to open it"),
    ("foreign schema", "postgresql://tableassist@127.0.0.1:{port}/{db} has a schema "
                       "'tableassist' of another program; tableassist will not write into it"),
    ("read-only database", "table main in postgresql://tableassist@127.0.0.1:{port}/{db}: the "
                           "database cannot be written (the server says it is read-only)"),
    ("no permission", "user 'tableassist' may not create tableassist's tables in "
                      "postgresql://tableassist@127.0.0.1:{port}/{db} (permission denied for "
                      "database {db}): make it the database's owner (createdb -O tableassist "
                      "…) or GRANT CREATE ON DATABASE to it"),
])
def test_a_postgres_start_up_fault_gives_one_plain_line_and_exit_2(postgres, capsys, fault,
                                                                   message):
    url, db = postgres_fault(postgres, fault)
    code = main(["serve", "--db", url, "--camera", "none", "--port", "0", "--host", "127.0.0.1"])
    assert code == 2
    line = plain_refusal(capsys.readouterr().err)
    other = url.split("@127.0.0.1:")[1].split("/")[0]
    assert line == "cannot open the table's database: " + message.format(
        port=postgres.port, other=other, db=db)
    assert postgres.PASSWORD not in line and "not-the-password" not in line


@pytest.mark.parametrize("lang", ["de", "es"])
def test_postgres_start_up_faults_are_said_in_the_language(postgres, capsys, lang):
    """``serve``'s start-up line for each fault of a PostgreSQL database (issue 25), and a --db
    URL that cannot be read: no English word but the server's and libpq's own, quoted in
    parentheses (their language)."""
    faults = ["server down", "wrong password", "no database", "newer schema", "foreign schema",
              "read-only database", "no permission"]
    urls = {fault: postgres_fault(postgres, fault)[0] for fault in faults}
    urls["unreadable URL"] = "postgresql://%zz@127.0.0.1/table"
    said: dict[str, dict[str, str]] = {"en": {}, lang: {}}
    for fault, url in urls.items():
        for language in said:
            assert main(["--lang", language, "serve", "--db", url, "--camera", "none", "--port",
                         "0", "--host", "127.0.0.1"]) == 2
            line = plain_refusal(capsys.readouterr().err)
            said[language][fault] = CODE.sub(" ", re.sub(r"\((permission denied|invalid "
                                                         r"percent)[^)]*\)", " ", line))
    assert said["en"]["no permission"].startswith("cannot open the table's database: user")
    assert "that can be read  ; it looks like" in said["en"]["unreadable URL"]
    report = english_left(said[lang], lowered(said["en"].values()), lang,
                          allowed=["tableassist", "nowhere"])   # a database's name, in a command
    assert not report, report


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_login_name_is_said_in_the_language(lang):
    """A URL without a user: libpq connects with the login name, which the advice names (and
    puts in the command to type) in the user's language."""
    from tableassist.table.postgres_store import LOGIN_NAME, connect_error
    for text in ("fe_sendauth: no password supplied", 'database "x" does not exist'):
        english = connect_error(Exception(text), {"host": "db.example", "dbname": "x"})
        assert "(your login name)" in english
        shown = i18n.render(english, lang)
        assert i18n.render(LOGIN_NAME, lang) in shown and "login name" not in shown


def test_an_unwritable_links_file_is_refused_in_one_line(tmp_path, capsys):
    db = tmp_path / "table.sqlite3"
    links_file(db).mkdir()  # cannot be replaced by a file, even by root
    code = main(["serve", "--db", str(db), "--camera", "none", "--port", "0",
                 "--host", "127.0.0.1"])
    assert code == 2
    line = plain_refusal(capsys.readouterr().err)
    assert line.startswith(f"cannot write the table's links file {links_file(db)}: ")


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_start_up_lines_of_files_and_folders_are_said_in_the_language(tmp_path, capsys,
                                                                          lang):
    """``serve``'s one line when the links file cannot be written or the --db is a folder
    (issue 25): the system's reason in the language too, no English word."""
    links = tmp_path / "links" / "table.sqlite3"
    links.parent.mkdir()
    links_file(links).mkdir()
    folder = tmp_path / "folder.sqlite3"
    folder.mkdir()
    said: dict[str, dict[str, str]] = {"en": {}, lang: {}}
    for name, db in {"links": links, "folder": folder}.items():
        for language in said:
            assert main(["--lang", language, "serve", "--db", str(db), "--camera", "none",
                         "--port", "0", "--host", "127.0.0.1"]) == 2
            said[language][name] = CODE.sub(" ", plain_refusal(capsys.readouterr().err)
                                            .replace(str(tmp_path), " "))
    assert said["en"]["links"].endswith("is a directory")
    report = english_left(said[lang], lowered(said["en"].values()), lang)
    assert not report, report


# -- damaged games and broken logs, as the screens see them ----------------------------------

@pytest.mark.slow  # serve child processes, restarted
def test_the_lobby_marks_a_damaged_game_and_a_restart_resumes_a_broken_log(store_factory):
    db = saved_db(store_factory.db, games=3, actions=6)
    raw(db, "UPDATE games SET players = '[\"Ann\", \"Be' WHERE id = 2")
    raw(db, "UPDATE entries SET action = ? WHERE game_id = 3 AND seq = 4",
        json.dumps({"type": "reveal_row", "player": None, "cards": {"Zed": "STOP"}}))
    proc = ServerProcess(db)
    try:
        assert "warning: entries 4… of game #3 no longer replay (entry 4 (reveal_row): " in \
            output_of(proc)
        table = Client(proc.url, keys(db)["table"]).connect()
        spectator = Client(proc.url).connect()
        state = table.state
        assert state["game"]["row"] == 3  # resumed at start, short of the broken entry
        assert state["warning"].startswith("entries 4… of game #3 no longer replay (entry 4 ")
        assert state["warning"].endswith("); resumed at entry 3; nothing was deleted")
        assert len(state["history"]) == 3
        assert "warning" not in spectator.state
        saved = {s["id"]: s for s in state["lobby"]["saved"]}
        assert sorted(saved) == [1, 2, 3]
        assert saved[2]["damaged"] == "its players are damaged (not a JSON list of names)"
        assert saved[2]["playable"] is False and saved[1]["playable"] is True
        answer = table.call("resume", {"row": 2})
        assert not answer["ok"] and "saved game #2 is damaged: its players are damaged" in \
            answer["error"]
        # The table keeps working: a new action goes after the end of the log.
        action = state["actions"][0]["action"]
        assert table.act(action)["ok"]
        table.wait_state(lambda s: len(s["history"]) == 4)
        table.close()
        spectator.close()
    finally:
        proc.stop()
    store = open_store(db, read_only=True)
    log = store.entries(3)
    assert [e.kind for e in log] == ["action"] * 6 + ["resume", "action"]  # nothing deleted
    assert log[6].target == 3 and log[7].action == action
    store.close()


def _broken_log(server) -> None:
    """Game #1 of five actions whose entry 2 is damaged, and game #2 after it."""
    store = server.table.store
    first = TableSession.create(store, "shipwrecked", NAMES, seed=1)
    rng = random.Random(2)
    for _ in range(5):
        first.submit(rng.choice(all_legal_actions(first.game)))
    TableSession.create(store, "shipwrecked", NAMES, seed=2)
    raw(store.db, "UPDATE entries SET action = '{\"type\": ' WHERE game_id = 1 AND seq = 2")


def test_resuming_a_broken_log_from_the_lobby_shows_the_warning(any_server):
    server = any_server
    store = server.table.store
    _broken_log(server)
    table = server.client(server.tokens.table)
    assert table.call("resume", {"row": 1})["ok"]
    state = table.wait_state(lambda s: s["game"] and s["game"]["row"] == 1)
    assert state["warning"] == ("entries 2… of game #1 no longer replay (entry 2 is damaged: its "
                                "action is not a JSON object); resumed at entry 1; nothing was "
                                "deleted")
    assert len(state["history"]) == 1
    assert table.call("undo")["ok"]
    state = table.wait_state(lambda s: not s["history"])
    assert [e.kind for e in store.entries(1)] == ["action"] * 5 + ["resume", "undo"]


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_broken_logs_warning_and_a_damaged_plays_note_are_in_the_screens_language(any_server, lang):
    """The host screen's warning that a game's log stops replaying, and the play log's note on a
    game this installation cannot play, in German and Spanish with no English word (issue 25)."""
    server = any_server
    store = server.table.store
    _broken_log(server)
    raw(store.db, "UPDATE games SET game = 'chess' WHERE id = 2")
    english = server.client(server.tokens.table)
    there = server.client(server.tokens.table, lang=lang)
    assert english.call("resume", {"row": 1})["ok"]
    said = {}
    for language, client in (("en", english), (lang, there)):
        state = client.wait_state(lambda s: s["game"] and s["game"]["row"] == 1)
        said[language] = {"warning": state["warning"]}
        status, _, body = fetch(server, f"/plays.json?lang={language}", server.tokens.table)
        assert status == 200
        plays = json.loads(body)["plays"]
        said[language]["note"] = next(p["note"] for p in plays if p["row"] == 2)
    assert said["en"]["note"] == "this installation cannot play 'chess'"
    for texts in said.values():    # the game's id is the log's, not a word
        texts["note"] = texts["note"].replace("'chess'", " ")
    report = english_left(said[lang], lowered(said["en"].values()), lang)
    assert not report, report



def test_resume_latest_does_not_crash_on_a_damaged_newest_game(store_factory):
    db = saved_db(store_factory.db, games=2, actions=2)
    raw(db, "UPDATE games SET options = 'not json' WHERE id = 2")
    store = open_store(db)
    table = Table(store, Tokens(store.links()))
    with pytest.raises(StoreError, match="saved game #2 is damaged: its options are damaged"):
        table.resume_latest()
    assert table.session is None  # the table stays at the lobby, which marks the game
    lobby = {s["id"]: s for s in table.lobby()["saved"]}
    assert lobby[2]["damaged"] and lobby[1]["damaged"] is None
    table.store.close()


# -- a full disk -------------------------------------------------------------------------------

def test_a_full_disk_tells_the_player_the_real_cause_and_loses_nothing(any_server,
                                                                      store_factory):
    server = any_server
    table = server.client(server.tokens.table)
    start(table)
    store = server.table.store
    rng = random.Random(3)
    refused = None
    with store_factory.full_disk(store):  # the database cannot grow
        for _ in range(2000):
            before = table.state["version"]
            answer = table.act(rng.choice(table.state["actions"])["action"])
            if not answer["ok"]:
                refused = answer["error"]
                break
            # the next action is chosen from the state that follows this one
            table.wait_state(lambda s: s["version"] > before)
        assert refused == f"{store_factory.disk_full}: the action was not saved and not applied"
        session = server.table.session
        log = [e.action for e in store.entries(session.saved.id)]
        assert [s.action for s in session.steps] == log  # the state is the log's replay
        wait_until(lambda: len(table.state["history"]) == len(log),
                   what="the screen's history")
    assert table.act(table.state["actions"][0]["action"])["ok"]


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_full_disk_is_refused_in_the_screens_language(any_server, store_factory, lang):
    """The refusal a German or Spanish screen gets for a change the store refused (issue 25):
    the store's reason and what was not saved, in its words; the English screen's is unchanged."""
    server = any_server
    table = server.client(server.tokens.table)
    start(table)
    other = server.client(server.tokens.table, lang=lang)
    action = table.state["actions"][0]["action"]
    with store_factory.full_disk(server.table.store):
        for _ in range(2000):   # until the database cannot grow (the first pages may be free)
            before = table.state["version"]
            english = table.act(action)
            if not english["ok"]:
                break
            action = table.wait_state(lambda s: s["version"] > before)["actions"][0]["action"]
        said = other.act(action)
    assert english["error"] == f"{store_factory.disk_full}: the action was not saved and not applied"
    assert not said["ok"]
    report = english_left({"refusal": said["error"]}, lowered([english["error"]]), lang)
    assert not report, report


# -- messages the server cannot read -----------------------------------------------------------

#: Socket.IO messages no event can be read from, as any client (a spectator, no key) may send.
UNREADABLE = [
    '42["sync",' + "9" * 5000 + "]",     # an integer beyond Python's int-str limit (4300 digits)
    '42["sync",' + "9" * 101 + "]",      # beyond Engine.IO's JSON limit of 100 digits
    "42" + "1" * 150 + '["sync",{}]',    # an acknowledgement id of 150 digits
    '42["sync",{',                       # JSON cut short
    "42",                                # an event without a name
]
TOLD = re.compile(r"a client sent a message the server cannot read \(\w+: [^\n]{1,120}\); it "
                  r"was dropped(, as were \d+ more since the last such line)?")


class RawSocket:
    """A WebSocket speaking Engine.IO and Socket.IO by hand, connected as a spectator."""

    def __init__(self, url: str) -> None:
        import websocket
        base = url.replace("http", "ws", 1).rstrip("/")
        self.ws = websocket.create_connection(f"{base}/socket.io/?EIO=4&transport=websocket",
                                              timeout=5)
        assert self.ws.recv().startswith("0{")   # Engine.IO's open
        self.ws.send("40")                       # Socket.IO's connect, without a key
        self.until(lambda frame: frame.startswith("40{"))

    def until(self, found: Callable[[str], bool]) -> str:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            frame = self.ws.recv()
            if frame == "2":
                self.ws.send("3")   # Engine.IO's ping: pong
            elif found(frame):
                return frame
        raise AssertionError("timed out waiting for the server's answer")

    def sync(self) -> dict:
        """A message the server can read: its answer says the connection still works."""
        self.ws.send('427["sync",{}]')
        return json.loads(self.until(lambda frame: frame.startswith("437["))[3:])[0]

    def close(self) -> None:
        self.ws.close()


@pytest.mark.slow  # a serve child process flooded
def test_a_message_the_server_cannot_read_is_told_in_one_line(tmp_path):
    """Each used to print Engine.IO's traceback (1.7 KB for 130 bytes): a flood of them, from a
    spectator, is one line on the console, and the connection and the table go on."""
    proc = ServerProcess(tmp_path / "table.sqlite3")
    try:
        client = RawSocket(proc.url)
        for _ in range(20):
            for packet in UNREADABLE:
                client.ws.send(packet)
        assert client.sync()["ok"]
        for _ in range(3):  # an Engine.IO packet that is no packet ends its connection
            other = RawSocket(proc.url)
            other.ws.send("xyz")
            other.close()
        assert client.sync()["ok"]
        wait_until(lambda: TOLD.search(output_of(proc)), what="the line about them")
        client.close()
    finally:
        proc.stop()
    out = "".join(proc.lines.queue)   # after the startup lines
    assert "Traceback" not in out and "Error on request" not in out, out
    told = [line for line in out.splitlines() if "cannot read" in line]
    assert len(told) == 1 and TOLD.fullmatch(told[0]), out


def test_unreadable_messages_are_counted_until_the_next_line(server, caplog, monkeypatch):
    """At most one line every UNREADABLE_EVERY seconds; the next one says how many went untold."""
    from tableassist.server.socket_events import UNREADABLE as FILTER, UNREADABLE_EVERY
    now = [1000.0]
    monkeypatch.setattr(FILTER, "clock", lambda: now[0])
    monkeypatch.setattr(FILTER, "_told_at", None)
    client = RawSocket(server.url)

    def told() -> list[str]:
        return [r.getMessage() for r in caplog.records if "cannot read" in r.getMessage()]

    try:
        for packet in UNREADABLE:
            client.ws.send(packet)
        wait_until(lambda: FILTER.dropped == len(UNREADABLE) - 1, what="the untold ones")
        assert len(told()) == 1 and TOLD.fullmatch(told()[0])
        now[0] += UNREADABLE_EVERY
        client.ws.send(UNREADABLE[0])
        wait_until(lambda: len(told()) == 2, what="the next line")
        assert told()[1] == ("a client sent a message the server cannot read (ValueError: "
                             f"Integer is too large); it was dropped, as were "
                             f"{len(UNREADABLE) - 1} more since the last such line")
        assert all(r.exc_info is None for r in caplog.records)   # no traceback
        assert client.sync()["ok"]
    finally:
        client.close()
