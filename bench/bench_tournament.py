"""A tournament behind the proxy: T tables x S screens over 1..N `tableassist serve` processes.

PostgreSQL (tests/services.py, ``max_connections`` raised: one connection per table), nginx with
the configuration ``tableassist proxy`` writes, and N serve processes on one database. The tables
are added on the venue page through the proxy (they spread over the processes); each gets a
player (the table's key) that plays a Shipwrecked game by random legal actions, one action a
second, and S spectators: lean Socket.IO clients (Engine.IO 4 / Socket.IO 5 spoken by hand over
wsproto, every connection on one selector thread: ``_common.Lean``), all through the
proxy. For each process count of the curve it prints the broadcast latency (action sent -> each
screen's next state) p50/p99, the acknowledged actions a second, each process's resident
memory, and, with two processes or more, the takeover time after ``kill -9`` of one of them
(until every table is served again), with the load average.

    .venv/bin/python bench/bench_tournament.py [--tables 100] [--screens 7] [--curve 1,2,4]
                                               [--seconds 20] [--smoke]
"""

from __future__ import annotations

import json
import random
import selectors
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import socketio

import _common

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.services import NginxServer, PostgresServer, free_port  # noqa: E402

PLAYERS = [{"name": n} for n in ("Ann", "Bea", "Cy")]
SMOKE = {"tables": 2, "screens": 2, "curve": "2", "seconds": 2.0}


class Screen(_common.Lean):
    """A lean screen (``_common.Lean``): a spectator keeps its arrival times, a player (with a
    key) keeps its last state and sends ``act`` with an ack id."""

    def __init__(self, url: str, path: str, token: str | None = None) -> None:
        super().__init__(url, path, token)
        self.arrivals: list[float] = []
        self.last: dict[str, Any] | None = None
        self.acks: dict[int, float] = {}
        self.answered: list[tuple[float, float, bool]] = []
        self.next_id = 1

    def message(self, text: str, kernel: float) -> None:
        if text.startswith("42"):
            event, payload = json.loads(text[2:])
            if event == "state" and isinstance(payload, dict):
                self.arrivals.append(kernel)
                if self.token:
                    if "history_delta" in payload and self.last is not None:
                        payload = {**self.last, **payload}
                    self.last = payload
        elif text.startswith("43"):
            head, _, body = text[2:].partition("[")
            with self.lock:
                sent = self.acks.pop(int(head), None)
            if sent is not None:
                answer = json.loads("[" + body)[0]
                self.answered.append((sent, kernel, bool(answer.get("ok"))))


class Lean:
    """Many lean screens on one thread (``_common.lean_messages``)."""

    def __init__(self) -> None:
        self.sel = selectors.DefaultSelector()
        self.conns: list[Screen] = []
        self.running = True
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def open(self, url: str, path: str, token: str | None = None) -> Screen:
        conn = Screen(url, path, token)
        self.conns.append(conn)
        self.sel.register(conn.sock, selectors.EVENT_READ, conn)
        return conn

    def act(self, conn: Screen, event: str, data: Any) -> None:
        with conn.lock:
            ack = conn.next_id
            conn.next_id += 1
            conn.acks[ack] = time.perf_counter()
        conn.send(f"42{ack}" + json.dumps([event, data]))

    def _loop(self) -> None:
        while self.running:
            for conn, text, _read, kernel in _common.lean_messages(self.sel, 0.2):
                conn.message(text, kernel)

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        for conn in self.conns:
            conn.close()


def owners(pg: PostgresServer, db: str) -> dict[str, int | None]:
    with pg.connect(db) as conn:
        rows = conn.execute(
            "SELECT t.name, t.owner_pid, EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = "
            "'advisory' AND l.granted AND l.classid = 1413567315 AND l.objid = t.id AND "
            "l.database = (SELECT oid FROM pg_database WHERE datname = current_database())) "
            "FROM tables t WHERE t.closed IS NULL").fetchall()
    return {name: pid if held else None for name, pid, held in rows}


def wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(pg: PostgresServer, n: int, tables: int, screens: int, seconds: float) -> None:
    db = pg.new_database()
    url = pg.url(db)
    ports = [free_port() for _ in range(n)]
    proxy = NginxServer([f"127.0.0.1:{p}" for p in ports]).start()
    procs: list[subprocess.Popen[str]] = []
    lean = Lean()
    try:
        for port in ports:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "tableassist", "serve", "--host", "127.0.0.1", "--port",
                 str(port), "--db", url, "--camera", "none", "--public-url", proxy.url],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True))
            wait_for(lambda: _listening(port), 120, f"process on {port}")
        from tableassist.table.postgres_venue import live_addresses
        wait_for(lambda: len(live_addresses(url)) == n, 120, "every process registered")
        with pg.connect(db) as conn:
            key = conn.execute("SELECT value FROM meta WHERE key = 'staff'").fetchone()[0]
        staff = socketio.Client(reconnection=False)
        staff.connect(proxy.url, auth={"token": key}, transports=["websocket"],
                      socketio_path="venue/socket.io", wait_timeout=30)
        names = ["main"]
        for k in range(1, tables):
            names.append(staff.call("create_table", {"title": f"Table {k}"}, timeout=60)["name"])
        wait_for(lambda: all(owners(pg, db).get(t) for t in names), 120, "every table served")
        spread = sorted(list(owners(pg, db).values()).count(p.pid) for p in procs)
        time.sleep(2.0)   # every process's routes have looked again (the lean clients do not retry)
        players, crowds = {}, {}
        for name in names:
            links = staff.call("table_links", {"name": name}, timeout=60)
            token = links["join"].split("#t=")[1]
            path = "/" if name == "main" else f"/t/{name}/"
            players[name] = lean.open(proxy.url, path, token)
            crowds[name] = [lean.open(proxy.url, path) for _ in range(screens)]
        wait_for(lambda: all(p.last for p in players.values()), 120, "every player's state")
        for name, player in players.items():
            lean.act(player, "start", {"game": "shipwrecked", "players": PLAYERS})
        wait_for(lambda: all(p.last and p.last.get("game") for p in players.values()), 120,
                 "every game started")
        rng = random.Random(26)
        sent: list[tuple[str, float]] = []
        start = time.perf_counter()
        tick = 0
        while time.perf_counter() - start < seconds:   # one action a second per table
            for name, player in players.items():
                state = player.last or {}
                choices = [a["action"] for a in state.get("actions") or []]
                if choices:
                    sent.append((name, time.perf_counter()))
                    lean.act(player, "act", {"action": rng.choice(choices)})
            tick += 1
            time.sleep(max(0.0, start + tick - time.perf_counter()))
        time.sleep(1.0)
        elapsed = time.perf_counter() - start
        latencies = []
        for name, t0 in sent:
            for follower in crowds[name]:
                after = next((t for t in follower.arrivals if t >= t0), None)
                if after is not None:
                    latencies.append((after - t0) * 1000)
        acked = sum(1 for p in players.values() for _s, _d, ok in p.answered if ok) - tables
        rss = [f"{rss_mb(p.pid):.0f}" for p in procs]
        print(f"processes {n}: tables {tables} x {screens} screens, spread {spread}; broadcast "
              f"p50 {_common.pct(latencies, 0.5):.1f} ms  p99 {_common.pct(latencies, 0.99):.1f} ms "
              f"({len(latencies)} arrivals); actions/s {acked / elapsed:.1f} (of "
              f"{len(sent) / elapsed:.1f} sent); RSS MB per process {' '.join(rss)}; "
              f"{_common.load()}", flush=True)
        if n >= 2:
            victim = procs[0]
            killed = time.monotonic()
            victim.kill()
            victim.wait()
            alive = {p.pid for p in procs[1:]}
            wait_for(lambda: all(o in alive for o in owners(pg, db).values()), 120,
                     "the takeover")
            print(f"processes {n}: takeover after kill -9 of one process: "
                  f"{time.monotonic() - killed:.2f} s; {_common.load()}", flush=True)
        staff.disconnect()
    finally:
        lean.close()
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        proxy.stop()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def main() -> int:
    ap = _common.parser(__doc__)
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--screens", type=int, default=7)
    ap.add_argument("--curve", default="1,2,4", help="process counts, e.g. 1,2,4")
    ap.add_argument("--seconds", type=float, default=20.0)
    args = _common.parse(ap, SMOKE)
    pg = PostgresServer({"max_connections": str(args.tables * 2 + 50)}).start()
    try:
        for n in (int(x) for x in args.curve.split(",")):
            run(pg, n, args.tables, args.screens, args.seconds)
    finally:
        pg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
