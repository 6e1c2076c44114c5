"""Broadcast latency of the table server: N Socket.IO clients on loopback follow one table.

The server runs as `tableassist serve` in a child process (as at a table); this process holds one
table client that plays a Shipwrecked game by random legal actions, and the followers (spectators,
WebSocket transport). For each action it measures, for every follower, the time from sending the
action to receiving the new state (which includes the engine, the SQLite commit with
synchronous=FULL, building each room's payload and the fan-out). Baseline: the same with one
follower, interleaved with the candidate (several rounds). The followers live in a few worker
processes, as a room of tablets and phones is many devices, not one Python interpreter, so the ratio says what the fan-out costs
on this machine. Also prints the server's resident memory (VmRSS) idle, with the followers, and
after the actions.

    .venv/bin/python bench/bench_broadcast.py [--clients 100] [--actions 40] [--rounds 2]
                                              [--processes 4] [--smoke]
"""

from __future__ import annotations

import json
import multiprocessing as mp
import random
import selectors
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import socketio

import _common

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = [{"name": n} for n in ("Ann", "Bea", "Cy", "Dee")]
SMOKE = {"clients": 3, "actions": 3, "rounds": 1, "processes": 1}


class Follower:
    def __init__(self, url: str, token: str | None = None,
                 arrived: threading.Condition | None = None) -> None:
        self.arrivals: list[float] = []
        self.last: dict | None = None
        self.arrived = arrived
        self.sio = socketio.Client(reconnection=False)
        self.sio.on("state", self._state)
        self.sio.connect(url, auth={"token": token} if token else None,
                         transports=["websocket"], wait_timeout=10)

    def _state(self, payload: dict) -> None:
        self.arrivals.append(time.perf_counter())
        self.last = payload
        if self.arrived is not None:
            with self.arrived:
                self.arrived.notify_all()

    def close(self) -> None:
        _common.disconnect(self.sio)


class LeanFollowers:
    """``n`` spectators served by one thread (``_common.Lean``: the Engine.IO 4 / Socket.IO 5
    text protocol spoken by hand over wsproto, each state parsed with ``json.loads``). A browser
    tab does this work in native code; python-socketio's client starts a thread per message,
    which on two cores costs far more than the server's sending. These followers show what the
    server can do when its clients are cheap. Each keeps its states' times of arrival."""

    def __init__(self, url: str, n: int, arrived: threading.Condition) -> None:
        self.arrived = arrived
        self.sel = selectors.DefaultSelector()
        self.conns: list[_common.Lean] = []
        for _ in range(n):
            conn = _common.Lean(url)
            conn.arrivals: list[float] = []   # type: ignore[attr-defined]
            self.sel.register(conn.sock, selectors.EVENT_READ, conn)
            self.conns.append(conn)
        self.running = True
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while self.running:
            for conn, text, _read, kernel in _common.lean_messages(self.sel, 0.2):
                if text.startswith("42"):  # a Socket.IO event
                    event, payload = json.loads(text[2:])
                    if event == "state" and isinstance(payload, dict):
                        conn.arrivals.append(kernel)   # type: ignore[attr-defined]
                        with self.arrived:
                            self.arrived.notify_all()

    @property
    def followers(self) -> list[_common.Lean]:
        return self.conns

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        for conn in self.conns:
            conn.close()


def _worker(url: str, n: int, conn, kind: str = "socketio") -> None:
    """A process holding ``n`` followers (a room of tablets and phones is many devices, not one
    Python interpreter: keeping the followers out of the benchmark's process keeps their JSON
    parsing and threads from slowing the table client and each other)."""
    arrived = threading.Condition()
    if kind == "lean":
        lean = LeanFollowers(url, n, arrived)
        followers: list[Any] = lean.followers
        with arrived:  # each has its state from connecting before the first action is sent
            if not arrived.wait_for(lambda: all(f.arrivals for f in followers), 20):
                raise SystemExit("a lean follower got no state on connecting")
    else:
        with ThreadPoolExecutor(8) as pool:
            followers = list(pool.map(lambda _: Follower(url, arrived=arrived), range(n)))
    conn.send("ready")
    while True:
        command = conn.recv()
        if command == "counts":
            conn.send([len(f.arrivals) for f in followers])
        elif isinstance(command, tuple) and command[0] == "wait":
            # Block (no polling: a poll loop would take CPU from the followers and the server)
            # until every follower has more states than it had before the action.
            seen = command[1]
            with arrived:
                done = arrived.wait_for(lambda: all(len(f.arrivals) > k
                                                    for f, k in zip(followers, seen)), 10)
            conn.send(done)
        elif command == "arrivals":
            conn.send([list(f.arrivals) for f in followers])
        elif command == "close":
            if kind == "lean":
                lean.close()
            else:
                with ThreadPoolExecutor(8) as pool:
                    list(pool.map(Follower.close, followers))
            conn.send("closed")
            return


class Crowd:
    """``n`` followers spread over ``processes`` worker processes."""

    def __init__(self, url: str, n: int, processes: int, kind: str = "socketio") -> None:
        ctx = mp.get_context("spawn")
        self.links = []
        self.procs = []
        sizes = [n // processes + (1 if i < n % processes else 0) for i in range(processes)]
        self.sizes = [s for s in sizes if s]
        for size in self.sizes:
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(url, size, theirs, kind), daemon=True)
            proc.start()
            self.links.append(mine)
            self.procs.append(proc)
        for link in self.links:
            assert link.recv() == "ready"

    def _ask(self, command: str) -> list:
        for link in self.links:
            link.send(command)
        return [x for link in self.links for x in link.recv()]

    def counts(self) -> list[int]:
        return self._ask("counts")

    def wait_past(self, seen: list[int]) -> bool:
        """Block until every follower has more states than ``seen`` says (False on timeout)."""
        for link, proc_seen in zip(self.links, self._split(seen)):
            link.send(("wait", proc_seen))
        return all([link.recv() for link in self.links])

    def _split(self, values: list) -> list[list]:
        out, i = [], 0
        for size in self.sizes:
            out.append(values[i:i + size])
            i += size
        return out

    def arrivals(self) -> list[list[float]]:
        return self._ask("arrivals")

    def cpu_ms(self) -> float:
        """CPU time the followers' processes have used so far."""
        return sum(cpu_ms(proc.pid) for proc in self.procs)

    def close(self) -> None:
        for link in self.links:
            link.send("close")
        for link, proc in zip(self.links, self.procs):
            link.recv()
            proc.join(timeout=10)


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.0005)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_ms(pid: int) -> float:
    """User + system CPU time the process has used (a measure the machine's load does not inflate
    the way it inflates wall-clock latency)."""
    import os
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def serve_traced(trace: str, argv: list[str]) -> int:
    """Run ``tableassist <argv>`` (the server) noting, on the shared monotonic clock, when each
    ``act`` reached its handler, when its broadcast had queued every room's state, and when each
    ``state`` message was handed to the kernel; written to ``trace`` as JSON on Ctrl-C. The notes
    cost a ``perf_counter`` call and a list append each; they let the benchmark tell the server's
    time from the followers' (which share the machine's cores with it)."""
    import simple_websocket.ws
    from tableassist import cli
    from tableassist.server.app import TableServer

    marks: list[tuple[str, float]] = []

    def timed(fn, kind: str, after: bool):
        def wrapper(*args, **kwargs):
            if not after:
                marks.append((kind, time.perf_counter()))
            out = fn(*args, **kwargs)
            if after:
                marks.append((kind, time.perf_counter()))
            return out
        return wrapper

    TableServer._act = timed(TableServer._act, "act", after=False)
    TableServer.broadcast = timed(TableServer.broadcast, "queued", after=True)
    send = simple_websocket.ws.Base.send

    def traced_send(self, data):
        send(self, data)
        if isinstance(data, str) and data.startswith('42["state"'):
            marks.append(("sent", time.perf_counter()))

    simple_websocket.ws.Base.send = traced_send
    code = cli.main(argv)
    Path(trace).write_text(json.dumps(marks))
    return code


def start_server(db: Path, trace: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, __file__, "--serve-traced", str(trace), "serve",
                             "--host", "127.0.0.1", "--port", "0", "--db", str(db),
                             "--camera", "none"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:  # type: ignore[union-attr]
        if "serving the table at" in line:
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
            return proc, line.rsplit(" ", 1)[1].strip()
    raise SystemExit("the server did not start")


def play(table: Follower, crowd: Crowd, n_actions: int,
         rng: random.Random) -> list[tuple[float, float, list[float]]]:
    """Send ``n_actions`` random legal actions; per action, when it was sent, when the last
    follower had it (both on the monotonic clock) and every follower's latency (ms)."""
    sent: list[tuple[float, float, list[int]]] = []
    for _ in range(n_actions):
        state = table.last
        choices = [a["action"] for a in state["actions"]]
        if not choices:  # the game is over: start another
            table.sio.call("end", {}, timeout=10)
            table.sio.call("start", {"game": "shipwrecked", "players": PLAYERS}, timeout=10)
            wait_for(lambda: table.last["game"] and table.last["actions"], 10, "a new game")
            continue
        seen = crowd.counts()
        t0 = time.perf_counter()
        answer = table.sio.call("act", {"action": rng.choice(choices)}, timeout=10)
        assert answer["ok"], answer
        if not crowd.wait_past(seen):
            raise SystemExit("a follower did not get the new state")
        sent.append((t0, time.perf_counter(), seen))
    arrivals = crowd.arrivals()
    # perf_counter is CLOCK_MONOTONIC: one clock for every process on the machine.
    return [(t0, done, [(arr[n] - t0) * 1000 for arr, n in zip(arrivals, seen)])
            for t0, done, seen in sent]


def server_times(marks: list[tuple[str, float]],
                 actions: list[tuple[float, float, list[float]]]) -> dict[str, list[float]]:
    """Per action, from the trace of the server (see ``serve_traced``), in ms after the action was
    sent: ``act`` (its handler started), ``queued`` (every room's state built and queued) and
    ``sent`` (the last follower's state handed to the kernel)."""
    out: dict[str, list[float]] = {"act": [], "queued": [], "sent": []}
    for t0, done, _lat in actions:
        inside = [(k, t) for k, t in marks if t0 <= t <= done]
        for kind in out:
            times = [t for k, t in inside if k == kind]
            if times:
                out[kind].append(((max if kind == "sent" else min)(times) - t0) * 1000)
    return out


def main() -> int:
    if sys.argv[1:2] == ["--serve-traced"]:
        return serve_traced(sys.argv[2], sys.argv[3:])
    ap = _common.parser(__doc__)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--actions", type=int, default=40, help="actions per round and setting")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--processes", type=int, default=4, help="worker processes for the followers")
    args = _common.parse(ap, SMOKE)
    # (name, followers, kind): the baseline, then the candidate with each kind of follower.
    settings = [("baseline", 1, "socketio"), ("candidate", args.clients, "socketio"),
                ("lean", args.clients, "lean")]

    tmp = Path(tempfile.mkdtemp(prefix="bench-broadcast-"))
    db = tmp / "table.sqlite3"
    trace = tmp / "trace.json"
    proc, url = start_server(db, trace)
    try:
        tokens = json.loads((tmp / "table.sqlite3.table.json").read_text())
        idle = rss_kb(proc.pid)
        table = Follower(url, tokens["table"])
        answer = table.sio.call("start", {"game": "shipwrecked", "players": PLAYERS,
                                          "options": {"stop_window_s": 10}}, timeout=10)
        assert answer["ok"], answer
        wait_for(lambda: table.last and table.last["game"], 10, "the game")
        rng = random.Random(1)
        results: dict[str, list[tuple[float, float, list[float]]]] = {s[0]: [] for s in settings}
        cpu: dict[str, list[float]] = {s[0]: [] for s in settings}
        client_cpu: dict[str, list[float]] = {s[0]: [] for s in settings}
        rss_with = 0
        payload = len(json.dumps(table.last))
        spectator = Follower(url)
        wait_for(lambda: spectator.last and spectator.last["game"], 10, "a spectator's state")
        full_payload = len(json.dumps(spectator.last))
        # One action (not measured) to see a broadcast's size: a change, not the full state.
        version = spectator.last["version"]
        assert table.sio.call("act", {"action": table.last["actions"][0]["action"]},
                              timeout=10)["ok"]
        wait_for(lambda: spectator.last["version"] > version, 10, "a broadcast")
        spectator_payload = len(json.dumps(spectator.last))
        spectator.close()
        for _ in range(args.rounds):
            for name, n, kind in settings:
                crowd = Crowd(url, n, min(n, args.processes), kind)
                if n > 1:
                    rss_with = max(rss_with, rss_kb(proc.pid))
                before, clients_before = cpu_ms(proc.pid), crowd.cpu_ms()
                measured = play(table, crowd, args.actions, rng)
                cpu[name].append((cpu_ms(proc.pid) - before) / max(1, len(measured)))
                client_cpu[name].append((crowd.cpu_ms() - clients_before) / max(1, len(measured)))
                results[name] += measured
                crowd.close()
        after = rss_kb(proc.pid)
        table.close()
    finally:
        proc.send_signal(signal.SIGINT)  # the traced server writes its trace, then exits
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    marks = json.loads(trace.read_text()) if trace.exists() else []

    print(f"input: one Shipwrecked table (4 players, random legal actions), {args.rounds} rounds x "
          f"{args.actions} actions per setting, settings interleaved; WebSocket on loopback; "
          f"followers are spectators in {args.processes} worker processes on this machine "
          f"(baseline: 1 python-socketio client; candidate: {args.clients} python-socketio "
          f"clients; lean: {args.clients} hand-rolled clients, one thread per process); a "
          f"broadcast to a follower is about {spectator_payload} bytes of JSON (its full state "
          f"on connect: {full_payload}; the table's screen: {payload}); SQLite synchronous=FULL")
    rows = {}
    for name, n, _kind in settings:
        flat = [x for _t0, _done, per in results[name] for x in per]
        worst = [max(per) for _t0, _done, per in results[name]]
        rows[name] = (_common.pct(flat, 0.5), _common.pct(flat, 0.99), statistics.median(worst))
        print(f"{name:9} {n:4} followers: latency p50 {rows[name][0]:6.1f} ms  p99 "
              f"{rows[name][1]:6.1f} ms  median of per-action slowest {rows[name][2]:6.1f} ms "
              f"({len(flat)} deliveries)")
    for name, n, _kind in settings:
        print(f"{name:9} {n:4} followers: CPU per action: server {statistics.median(cpu[name]):5.1f}"
              f" ms, followers' processes {statistics.median(client_cpu[name]):6.1f} ms")
    for name, n, _kind in settings:
        st = server_times(marks, results[name])
        if not st["sent"]:
            print(f"{name:9} {n:4} followers: no server trace")
            continue
        print(f"{name:9} {n:4} followers: ms after the action was sent, server: handler starts "
              f"p50 {_common.pct(st['act'], 0.5):4.1f}; every room's state queued p50 "
              f"{_common.pct(st['queued'], 0.5):5.1f} p99 {_common.pct(st['queued'], 0.99):5.1f}; "
              f"last state handed to the kernel p50 {_common.pct(st['sent'], 0.5):5.1f} "
              f"p99 {_common.pct(st['sent'], 0.99):5.1f}")
    b = rows["baseline"]
    for name, n, _kind in settings[1:]:
        c = rows[name]
        print(f"ratio {name} / baseline: p50 {_common.ratio(c[0], b[0])}, p99 "
              f"{_common.ratio(c[1], b[1])}, server CPU "
              f"{_common.ratio(statistics.median(cpu[name]), statistics.median(cpu['baseline']))}")
    print(f"machine load while measuring: {_common.load()}")
    for name, n, _kind in settings[1:]:
        c = rows[name]
        print(f"target p99 <= 50 ms with {n} followers ({name}): "
              f"{'met' if c[1] <= 50 else 'NOT met'} ({c[1]:.1f} ms)")
    print(f"server memory (VmRSS): idle {idle / 1024:.1f} MiB, with {args.clients} followers "
          f"{rss_with / 1024:.1f} MiB (+{(rss_with - idle) / args.clients:.0f} KiB each), "
          f"after the actions {after / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
