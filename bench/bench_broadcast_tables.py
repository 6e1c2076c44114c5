"""One server process, many tables: N tables x 7 lean Socket.IO screens, 1 action a second each.

A café's or a tournament's evening in one ``tableassist serve``: ``--tables`` tables (created on
the venue page by the staff's Socket.IO), each playing Shipwrecked (4 players) by random legal
actions, one a second from its table screen, and seven screens at each (host, table, the four
players, a spectator), all "lean" clients (the Engine.IO 4 / Socket.IO 5 text protocol spoken by
hand over wsproto, one thread per worker process: about what a browser tab costs the machine).
Per action it measures, on every screen of its table, the time from sending ``act`` to holding
the new state (the engine, the SQLite commit with synchronous=FULL, every room's payload, the
fan-out), and over the measured window the server's CPU (share of one core), its OS threads, its
resident memory and the machine's load.

The baseline is the server code of an older revision (``--baseline-rev``, exported with ``git
archive``), the candidate this work tree; with ``--green`` also this tree with gevent's monkey
patching (every thread a greenlet: what Flask-SocketIO's gevent mode would cost in threads), when
gevent is installed; with ``--switch S`` also this tree with the interpreter's thread switch
interval set to S seconds (``sys.setswitchinterval``; 5 ms by default: how long a thread that
wants the interpreter lock may wait for a busy one). Settings run interleaved, round by round,
each in a fresh server.

    .venv/bin/python bench/bench_broadcast_tables.py [--tables 20,40] [--seconds 30]
        [--rounds 1] [--baseline-rev 2ae8747|none] [--green] [--switch 0.001] [--workers 2]
        [--smoke]
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import random
import selectors
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import _common

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ["Ann", "Bea", "Cy", "Dee"]
SCREENS = ("table", "host", *PLAYERS, "spectator")
# The revision before this benchmark's work (broadcast branch); HEAD for the smoke run (a shallow
# clone has no older history to export).
BASELINE = "2ae8747"
SMOKE = {"tables": "2", "seconds": 2.0, "rounds": 1, "baseline_rev": "HEAD", "workers": 1,
         "warmup": 1.0}


# -- the server, in a child process -----------------------------------------------------------

def serve(tree: str, mode: str, argv: list[str]) -> int:
    """``tableassist <argv>`` from ``tree``'s package. ``mode``: ``threads`` as it is; ``green``:
    gevent's monkey patching first, so every thread the server starts is a greenlet;
    ``switch=S``: the interpreter's thread switch interval set to S seconds (5 ms by default)."""
    if mode == "green":
        from gevent import monkey
        monkey.patch_all()
    elif mode.startswith("switch="):
        sys.setswitchinterval(float(mode.partition("=")[2]))
    sys.path.insert(0, tree)
    from tableassist import cli
    return cli.main(argv)


class Server:
    def __init__(self, tree: Path, db: Path, mode: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(tree), mode,
             "serve", "--host", "127.0.0.1", "--port", "0", "--db", str(db), "--camera", "none"],
            cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.url = self.staff = ""
        said = []
        for line in self.proc.stdout:  # type: ignore[union-attr]
            said.append(line)
            if "serving the table at" in line:
                self.url = line.rsplit(" ", 1)[1].strip()
            if "#t=" in line and "venue" in said[-2]:
                self.staff = line.strip().rsplit("#t=", 1)[1]
            if line.startswith("Press Ctrl+C"):
                break
        if not (self.url and self.staff):
            raise SystemExit("the server did not start: " + "".join(said))
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def proc_status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def set_up_tables(server: Server, n: int) -> list[dict[str, Any]]:
    """Create ``n`` tables on the venue page, start a game at each, and read their screens' keys
    (host and table from the staff's links, the players' from the host's payload)."""
    import socketio
    staff = socketio.Client(reconnection=False)
    staff.connect(server.url, auth={"token": server.staff}, transports=["websocket"],
                  socketio_path="venue/socket.io", wait_timeout=30)
    tables = []
    for i in range(n):
        answer = staff.call("create_table", {"title": f"Table {i + 1}"}, timeout=60)
        assert answer["ok"], answer
        links = staff.call("table_links", {"name": answer["name"]}, timeout=60)
        assert links["ok"], links
        path = urlsplit(links["join"]).path.strip("/")
        key = {k: links[k].rsplit("#t=", 1)[1] for k in ("host", "join")}
        states: list[dict] = []
        host = socketio.Client(reconnection=False)
        host.on("state", states.append)
        host.connect(server.url, auth={"token": key["host"]}, transports=["websocket"],
                     socketio_path=f"{path}/socket.io", wait_timeout=30)
        answer = host.call("start", {"game": "shipwrecked", "players": [
            {"name": p} for p in PLAYERS], "options": {"stop_window_s": 10}}, timeout=60)
        assert answer["ok"], answer
        deadline = time.monotonic() + 60
        while not any(s.get("links") and s["links"]["players"] for s in states):
            if time.monotonic() > deadline:
                raise SystemExit("no player links on the host screen")
            time.sleep(0.01)
        players = next(s["links"]["players"] for s in states if s.get("links")
                       and s["links"]["players"])
        host.disconnect()
        tables.append({"path": path, "tokens": [
            key["join"], key["host"], *(players[p]["url"].rsplit("#t=", 1)[1] for p in PLAYERS),
            None]})
    staff.disconnect()
    return tables


# -- the screens, in worker processes -----------------------------------------------------------

class Screen:
    def __init__(self, table: int, index: int, sock: socket.socket, ws: Any,
                 token: str | None) -> None:
        self.table, self.index, self.sock, self.ws, self.token = table, index, sock, ws, token
        self.parts: list[str] = []
        self.version = -1
        self.actions: list[dict] = []


def screens_worker(url: str, tables: list[dict], warmup: float, seconds: float, seed: int,
                   link: Any) -> None:
    """Hold the screens of ``tables``; each table's screen acts once a second (the tables
    staggered over the second); after ``warmup`` s, measure ``seconds`` s; send the
    latencies (ms) and counts through ``link``."""
    from wsproto import ConnectionType, WSConnection
    from wsproto.events import CloseConnection, Ping, Request, TextMessage
    parts = urlsplit(url)
    sel = selectors.DefaultSelector()
    screens: list[Screen] = []
    by_table: list[list[Screen]] = []
    for t, table in enumerate(tables):
        row = []
        for i, token in enumerate(table["tokens"]):
            sock = socket.create_connection((parts.hostname, parts.port))
            ws = WSConnection(ConnectionType.CLIENT)
            sock.sendall(ws.send(Request(
                host=parts.netloc, target=f"/{table['path']}/socket.io/?EIO=4&transport=websocket")))
            screen = Screen(t, i, sock, ws, token)
            sel.register(sock, selectors.EVENT_READ, screen)
            screens.append(screen)
            row.append(screen)
        by_table.append(row)
    rng = random.Random(seed)
    latencies: list[float] = []
    counts = {"actions": 0, "late": 0, "refused": 0, "new_games": 0}
    pending: dict[int, tuple[float, dict[int, int], bool]] = {}
    ack = [0]

    def send(screen: Screen, text: str) -> None:
        screen.sock.sendall(screen.ws.send(TextMessage(data=text)))

    def packet(screen: Screen, text: str, now: float) -> None:
        if text.startswith("0"):       # Engine.IO open: join the namespace with the screen's key
            send(screen, "40" + (json.dumps({"token": screen.token}) if screen.token else ""))
        elif text == "2":              # Engine.IO ping
            send(screen, "3")
        elif text.startswith("42"):
            event, payload = json.loads(text[2:])
            if event == "state" and isinstance(payload, dict):
                screen.version = max(screen.version, payload["version"])
                if screen.index == 0:
                    screen.actions = payload.get("actions") or []
                waiting = pending.get(screen.table)
                if waiting is not None and screen.index in waiting[1] \
                        and payload["version"] > waiting[1][screen.index]:
                    del waiting[1][screen.index]
                    if waiting[2]:
                        latencies.append((now - waiting[0]) * 1000)
        elif text.startswith("43"):    # an acknowledgement
            body = text[2:].lstrip("0123456789")
            answer = json.loads(body)[0] if body else {}
            if isinstance(answer, dict) and not answer.get("ok", True):
                counts["refused"] += 1

    start = time.perf_counter()
    begin, end = start + warmup, start + warmup + seconds
    due = [start + 0.5 + t / max(1, len(tables)) for t in range(len(tables))]
    while True:
        now = time.perf_counter()
        if now >= end:
            break
        for t, when in enumerate(due):
            if now < when:
                continue
            due[t] = when + 1.0
            actor = by_table[t][0]
            waiting = pending.pop(t, None)
            if waiting is not None and waiting[1] and waiting[2]:
                counts["late"] += len(waiting[1])
            ack[0] += 1
            if actor.actions:
                action = rng.choice(actor.actions)["action"]
                measured = begin <= now
                pending[t] = (time.perf_counter(), {s.index: s.version for s in by_table[t]},
                              measured)
                send(actor, f"42{ack[0]}" + json.dumps(["act", {"action": action}]))
                counts["actions"] += measured
            elif actor.version >= 0:   # the game is over: the same again
                send(actor, f"42{ack[0]}" + json.dumps(["play_again", {}]))
                counts["new_games"] += 1
        timeout = max(0.0, min(min(due), end) - time.perf_counter())
        for key, _mask in sel.select(timeout):
            screen = key.data
            try:
                data = screen.sock.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                sel.unregister(screen.sock)
                continue
            screen.ws.receive_data(data)
            arrived = time.perf_counter()
            for event in screen.ws.events():
                if isinstance(event, TextMessage):
                    screen.parts.append(event.data)
                    if event.message_finished:
                        packet(screen, "".join(screen.parts), arrived)
                        screen.parts = []
                elif isinstance(event, Ping):
                    screen.sock.sendall(screen.ws.send(event.response()))
                elif isinstance(event, CloseConnection):
                    sel.unregister(screen.sock)
                    break
    link.send({"latencies": latencies, **counts,
               "connected": sum(1 for s in screens if s.version >= 0)})
    link.recv()   # "close": after the server's figures were read with every screen connected
    for screen in screens:
        try:
            screen.sock.sendall(screen.ws.send(CloseConnection(code=1000)))
        except OSError:
            pass
        screen.sock.close()
    link.send("closed")


def run(tree: Path, mode: str, n: int, args: Any, seed: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-tables-"))
    server = Server(tree, tmp / "table.sqlite3", mode)
    try:
        tables = set_up_tables(server, n)
        time.sleep(0.5)
        idle_threads = proc_status(server.pid, "Threads")
        ctx = mp.get_context("spawn")
        workers = []
        per = [tables[i::args.workers] for i in range(args.workers)]
        for i, mine in enumerate(p for p in per if p):
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(target=screens_worker, args=(
                server.url, mine, args.warmup, args.seconds, seed * 100 + i, theirs), daemon=True)
            proc.start()
            workers.append((proc, ours))
        time.sleep(args.warmup)
        cpu0, t0 = cpu_s(server.pid), time.perf_counter()
        threads = [proc_status(server.pid, "Threads")]
        while time.perf_counter() - t0 < args.seconds:
            time.sleep(min(1.0, args.seconds / 4))
            threads.append(proc_status(server.pid, "Threads"))
        results = [link.recv() for _proc, link in workers]
        cpu = (cpu_s(server.pid) - cpu0) / (time.perf_counter() - t0)
        rss = proc_status(server.pid, "VmRSS")
        load = os.getloadavg()[0]
        for _proc, link in workers:
            link.send("close")
        for proc, link in workers:
            link.recv()
            proc.join(timeout=10)
    finally:
        server.stop()
    lat = [x for r in results for x in r["latencies"]]
    screens = n * len(SCREENS)
    return {"latencies": lat, "cpu": cpu, "threads": max(threads), "idle_threads": idle_threads,
            "per_screen": (max(threads) - idle_threads) / screens, "rss_mib": rss / 1024,
            "load": load, **{k: sum(r[k] for r in results)
                             for k in ("actions", "late", "refused", "new_games", "connected")}}


def export(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True,
                             check=True).stdout
    tarfile.open(fileobj=BytesIO(archive)).extractall(into)
    return into


def main() -> int:
    if sys.argv[1:2] == ["--serve"]:
        return serve(sys.argv[2], sys.argv[3], sys.argv[4:])
    ap = _common.parser(__doc__)
    ap.add_argument("--tables", default="20,40", help="numbers of tables, comma-separated")
    ap.add_argument("--seconds", type=float, default=30.0, help="measured seconds per setting")
    ap.add_argument("--warmup", type=float, default=4.0, help="seconds played before measuring")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--baseline-rev", default=BASELINE, help="a git revision, or 'none'")
    ap.add_argument("--green", action="store_true",
                    help="also this tree under gevent's monkey patching (needs gevent)")
    ap.add_argument("--switch", type=float, default=None, metavar="S",
                    help="also this tree with the interpreter's thread switch interval S s")
    ap.add_argument("--workers", type=int, default=2, help="processes holding the screens")
    args = _common.parse(ap, SMOKE)
    holder = tempfile.TemporaryDirectory(prefix="bench-tables-trees-")
    variants: list[tuple[str, Path, str]] = []
    if args.baseline_rev != "none":
        variants.append(("baseline", export(args.baseline_rev, Path(holder.name) / "base"),
                         "threads"))
    variants.append(("candidate", ROOT, "threads"))
    if args.switch is not None:
        variants.append(("switch", ROOT, f"switch={args.switch}"))
    if args.green:
        try:
            import gevent  # noqa: F401
            variants.append(("green", ROOT, "green"))
        except ImportError:
            print("--green: gevent is not installed here; left out")
    sizes = [int(x) for x in args.tables.split(",")]
    runs: dict[tuple[str, int], list[dict]] = {}
    for r in range(args.rounds):
        for n in sizes:
            for name, tree, mode in variants:
                runs.setdefault((name, n), []).append(run(tree, mode, n, args, seed=r))
    print(f"input: one `tableassist serve` (--camera none, SQLite synchronous=FULL), N tables x "
          f"{len(SCREENS)} lean screens ({', '.join(SCREENS)}), each table playing Shipwrecked "
          f"(4 players) by random legal actions, 1 a second from its table screen; "
          f"{args.rounds} round(s) x {args.seconds:g} s measured per setting after "
          f"{args.warmup:g} s; settings interleaved; screens in {args.workers} worker processes; "
          f"baseline = {args.baseline_rev}, candidate = this work tree"
          + ("; green = this tree under gevent's monkey patching" if args.green else "")
          + (f"; switch = this tree with a thread switch interval of {args.switch:g} s"
             if args.switch is not None else ""))
    for n in sizes:
        for name, _tree, _green in variants:
            rs = runs[(name, n)]
            lat = [x for r in rs for x in r["latencies"]]
            late = sum(r["late"] for r in rs)
            print(f"{n:3} tables {name:9}: broadcast p50 {_common.pct(lat, 0.5):6.1f} ms  p99 "
                  f"{_common.pct(lat, 0.99):6.1f} ms  ({len(lat)} deliveries, {late} over 1 s); "
                  f"CPU {100 * sum(r['cpu'] for r in rs) / len(rs):5.1f} % of a core; threads "
                  f"{max(r['threads'] for r in rs)} ({max(r['per_screen'] for r in rs):.2f} per "
                  f"screen); RSS {max(r['rss_mib'] for r in rs):.0f} MiB; load "
                  f"{max(r['load'] for r in rs):.1f}; screens connected "
                  f"{min(r['connected'] for r in rs)}/{n * len(SCREENS)}")
        base = runs.get(("baseline", n))
        for name, _tree, _green in variants:
            if base is None or name == "baseline":
                continue
            b = [x for r in base for x in r["latencies"]]
            c = [x for r in runs[(name, n)] for x in r["latencies"]]
            print(f"{n:3} tables ratio {name} / baseline: p50 "
                  f"{_common.ratio(_common.pct(c, 0.5), _common.pct(b, 0.5))}, p99 "
                  f"{_common.ratio(_common.pct(c, 0.99), _common.pct(b, 0.99))}")
        cand = [x for r in runs[("candidate", n)] for x in r["latencies"]]
        p99 = _common.pct(cand, 0.99)
        print(f"{n:3} tables target p99 <= 50 ms (candidate): "
              f"{'met' if p99 <= 50 else 'NOT met'} ({p99:.1f} ms)")
    print(f"machine load while measuring: {_common.load()}")
    holder.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
