"""A tournament: one PostgreSQL, two `tableassist serve` processes, nginx in front (the
configuration `tableassist proxy` writes), real Socket.IO clients through the proxy. The tables
spread over the processes; a process killed with SIGKILL has its tables taken over by the other,
whose screens reconnect through the proxy by themselves, and every acknowledged action is in the
log; the killed process started again gets its share handed over, and a process stopped with
SIGTERM hands its tables over at once."""

from __future__ import annotations

import os
import random
import time
from typing import Any

import pytest
import socketio

from tableassist.agent.link import InOrderClient
from tests.server.conftest import PATIENCE, Client, ServerProcess, camera_arguments, wait_until
from tests.services import NginxServer, ServiceMissing, free_port

pytestmark = pytest.mark.slow

PLAYERS = [{"name": n} for n in ("Ann", "Bea", "Cy")]
#: The issue's bound on a takeover (s); the test waits PATIENCE times as long on a loaded machine
#: and prints what it measured.
TAKEOVER = 10.0


class Screen(Client):
    """A table's screen that reconnects by itself, as the page does (python-socketio's own
    reconnection, through the proxy)."""

    def __post_init__(self) -> None:
        self.sio = InOrderClient(reconnection=True, reconnection_attempts=0,
                                reconnection_delay=0.2, reconnection_delay_max=1.0)
        self.sio.on("state", self._state)
        self.sio.on("error", lambda e: self.errors.append(e))


@pytest.fixture
def tournament(postgres):
    """(database URL, proxy, [process A, process B]); A starts first (it takes main)."""
    name = postgres.new_database()
    url = postgres.url(name)
    ports = [free_port(), free_port()]
    try:
        proxy = NginxServer([f"127.0.0.1:{p}" for p in ports]).start()
    except ServiceMissing as exc:   # scripts/setup --test installs nginx: CI must have it
        if os.environ.get("CI"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    procs: list[ServerProcess] = []
    try:
        for port in ports:
            procs.append(ServerProcess(url, port=port, more=("--public-url", proxy.url)))
        yield url, name, proxy, procs
    finally:
        for proc in procs:
            proc.stop()
        proxy.stop()


def owners(postgres, name: str) -> dict[str, int | None]:
    """Each open table's owner pid, while its lock is held (None: nobody holds it)."""
    from tableassist.table.postgres_store import LOCK_SPACE
    with postgres.connect(name) as conn:
        rows = conn.execute(
            "SELECT t.name, t.owner_pid, EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = "
            "'advisory' AND l.granted AND l.classid = %s AND l.objid = t.id AND l.database = "
            "(SELECT oid FROM pg_database WHERE datname = current_database())) "
            "FROM tables t WHERE t.closed IS NULL", (LOCK_SPACE,)).fetchall()
    return {table: pid if held else None for table, pid, held in rows}


def logged(postgres, name: str, table: str) -> int:
    with postgres.connect(name) as conn:
        return conn.execute("SELECT count(*) FROM entries WHERE table_name = %s",
                            (table,)).fetchone()[0]


def staff(proxy: NginxServer, key: str) -> Any:
    sio = socketio.Client(reconnection=True, reconnection_delay=0.2, reconnection_delay_max=1)
    rows: list[list[dict[str, Any]]] = []
    sio.on("tables", rows.append)
    sio.connect(proxy.url, auth={"token": key}, transports=["websocket"],
                socketio_path="venue/socket.io", wait_timeout=10)
    return sio, rows


class Nothing:
    """A camera that sees nothing (the agent's link is what is tested)."""

    def read(self):
        return None

    def close(self):
        pass


def camera_of(rows: list[list[dict[str, Any]]], table: str) -> str | None:
    row = next((r for r in rows[-1] if r["name"] == table), None) if rows else None
    return None if row is None or row.get("camera") is None else row["camera"]["state"]


def test_tables_spread_over_two_processes_and_survive_a_kill_9(postgres, tournament, tmp_path,
                                                               chromium):
    import threading

    from tableassist.agent import Agent, Journal
    url, name, proxy, procs = tournament
    a, b = procs
    with postgres.connect(name) as conn:
        key = conn.execute("SELECT value FROM meta WHERE key = 'staff'").fetchone()[0]
    sio, rows = staff(proxy, key)
    screens: list[Screen] = []
    agents: list[Any] = []
    try:
        for title in ("Table 1", "Table 2", "Table 3"):
            answer = sio.call("create_table", {"title": title}, timeout=10 * PATIENCE)
            assert answer.get("ok", True), answer
        tables = ["main", "table-1", "table-2", "table-3"]
        # every table served, two by each process (new tables to the least loaded)
        wait_until(lambda: all(owners(postgres, name).get(t) for t in tables), 20,
                   "every table served")
        by = owners(postgres, name)
        assert sorted(list(by.values()).count(p.proc.pid) for p in (a, b)) == [2, 2], by
        # the staff's page lists every table of both processes, live
        wait_until(lambda: rows and [r["state"] for r in rows[-1]] == ["lobby"] * 4, 20,
                   "the venue page listing four tables in the lobby")
        # ... each with the process serving it, which the page shows
        address = {p.proc.pid: proxy.servers[i] for i, p in enumerate(procs)}
        serving = {t: address[pid] for t, pid in by.items()}
        wait_until(lambda: {r["name"]: r.get("process") for r in rows[-1]} == serving, 20,
                   "each table's process in the venue page's rows")
        page = chromium.new_context().new_page()
        page.goto(f"{proxy.url.rstrip('/')}/venue/#t={key}")
        for table in tables:
            fact = page.wait_for_selector(f'article[data-table="{table}"] dd[data-fact="process"]')
            assert fact.inner_text() == serving[table]
        page.close()

        acked: dict[str, int] = {}
        rng = random.Random(26)
        for table in tables:
            links = sio.call("table_links", {"name": table}, timeout=10 * PATIENCE)
            links = links.get("data", links)
            join = links["join"]
            assert join.startswith(proxy.url)
            address, token = join.split("#t=")
            screen = Screen(address, token)
            screen.connect()
            screens.append(screen)
            started = screen.call("start", {"game": "shipwrecked", "players": PLAYERS})
            assert started["ok"], started
            acked[table] = 0
            for _ in range(3):
                state = screen.wait_state(lambda s: s.get("game") and s.get("actions"))
                answer = screen.act(rng.choice([x["action"] for x in state["actions"]]))
                assert answer["ok"], answer
                acked[table] += 1
        for table in tables:
            assert logged(postgres, name, table) == acked[table]
        # table-1's camera agent, through the proxy
        links = sio.call("table_links", {"name": "table-1"}, timeout=10 * PATIENCE)
        camera_key = camera_arguments(links["camera"]).key
        said: list[str] = []
        agent = Agent(proxy.url.rstrip("/"), "table-1", camera_key, Nothing(), "nothing",
                      Journal(tmp_path / "journal.json"), fps=5, say=said.append)
        agents.append(agent)
        threading.Thread(target=agent.run, daemon=True).start()
        wait_until(lambda: camera_of(rows, "table-1") not in (None, "off"), 20,
                   "table-1's agent on the venue page")

        # kill -9 the process that serves table-1; the other takes its tables over
        victim = a if owners(postgres, name)["table-1"] == a.proc.pid else b
        survivor = b if victim is a else a
        lost = [t for t, pid in owners(postgres, name).items() if pid == victim.proc.pid]
        killed = time.monotonic()
        victim.kill()
        wait_until(lambda: all(owners(postgres, name).get(t) == survivor.proc.pid
                               for t in tables), TAKEOVER, "the survivor serving every table")
        took = time.monotonic() - killed
        print(f"takeover of {lost} after kill -9: {took:.2f} s")
        assert took < TAKEOVER * PATIENCE

        # the screens reconnect through the proxy by themselves and play on; nothing
        # acknowledged is lost
        for table, screen in zip(tables, screens):
            state = screen.wait_state(
                lambda s: s.get("game") and len(s.get("history", [])) >= acked[table] and
                screen.sio.connected, f"{table}'s screen back", 20)
            assert logged(postgres, name, table) == acked[table]
            answer = screen.act(rng.choice([x["action"] for x in state["actions"]]))
            assert answer["ok"], answer
            acked[table] += 1
            assert logged(postgres, name, table) == acked[table]
        wait_until(lambda: rows and [r["state"] for r in rows[-1]] == ["playing"] * 4, 20,
                   "the venue page listing four games from the survivor")
        # the agent reconnected to the survivor through the proxy by itself
        # (the agent's own line first: the venue's row may still hold the dead process's status)
        wait_until(lambda: sum("connected to table 'table-1'" in line for line in said) >= 2,
                   20 * PATIENCE, "table-1's agent connected again")
        wait_until(lambda: camera_of(rows, "table-1") not in (None, "off"), 20,
                   "table-1's agent back")

        # the killed process started again (on its address, which the proxy names): the
        # survivor hands tables over until they are two and two; then the survivor is stopped
        # (SIGTERM) and the restarted one takes every table at once
        port = int(proxy.servers[procs.index(victim)].rsplit(":", 1)[1])
        again = ServerProcess(url, port=port, more=("--public-url", proxy.url))
        procs.append(again)
        wait_until(lambda: sorted(list(owners(postgres, name).values()).count(p.proc.pid)
                                  for p in (survivor, again)) == [2, 2], 30,
                   "the tables spread again over the survivor and the restarted process")
        survivor.stop()
        wait_until(lambda: all(owners(postgres, name).get(t) == again.proc.pid
                               for t in tables), TAKEOVER, "the restarted process serving all")
        for table, screen in zip(tables, screens):
            state = screen.wait_state(
                lambda s: s.get("game") and len(s.get("history", [])) >= acked[table] and
                screen.sio.connected, f"{table}'s screen back again", 20)
            answer = screen.act(rng.choice([x["action"] for x in state["actions"]]))
            assert answer["ok"], answer
            acked[table] += 1
            assert logged(postgres, name, table) == acked[table]
    finally:
        for agent in agents:
            agent.close()
        for screen in screens:
            screen.close()
        if sio.connected:
            sio.disconnect()


def test_a_stopping_process_serves_no_table_so_its_screens_reach_the_next_one(postgres):
    """A process of the venue stopped with SIGTERM drops its screens so that they reconnect to
    the process that takes their tables over. Until its HTTP server ends it still answers, and
    while its tables' stores close it must not take a reconnecting screen back (it would show a
    table whose every move is refused: "the table's database is closed"): each table's page and
    socket say that the table is moving (503), so the screen tries again."""
    from tableassist.server.served import MAIN, serve_shared

    served = serve_shared(postgres.url(postgres.new_database()), host="127.0.0.1", port=0)
    answered: list[str] = []

    def status(app: Any) -> str:
        said: list[str] = []
        body = b"".join(app({"REQUEST_METHOD": "GET", "PATH_INFO": "/", "wsgi.input": None},
                            lambda line, headers, *_: said.append(line)))
        return f"{said[0]} {body.decode()}"

    home = served.tables[MAIN]
    assert served.app_for(MAIN) is home.server.app
    close = home.close

    def closing(*args: Any, **kwargs: Any) -> None:   # the moment the screens are let go
        answered.append(status(served.app_for(MAIN)))
        close(*args, **kwargs)
        answered.append(status(served.app_for(MAIN)))

    home.close = closing   # type: ignore[method-assign]
    served.close()
    assert len(answered) == 2
    for line in answered:
        assert line.startswith("503 ") and "is moving" in line, line
