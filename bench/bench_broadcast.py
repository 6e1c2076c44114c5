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
                                              [--processes 4]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import socketio

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = [{"name": n} for n in ("Ann", "Bea", "Cy", "Dee")]


class Follower:
    def __init__(self, url: str, token: str | None = None) -> None:
        self.arrivals: list[float] = []
        self.last: dict | None = None
        self.sio = socketio.Client(reconnection=False)
        self.sio.on("state", self._state)
        self.sio.connect(url, auth={"token": token} if token else None,
                         transports=["websocket"], wait_timeout=10)

    def _state(self, payload: dict) -> None:
        self.arrivals.append(time.perf_counter())
        self.last = payload

    def close(self) -> None:
        ws = getattr(self.sio.eio, "ws", None)
        if ws is not None:  # websocket-client would wait 3 s for a close echo already consumed
            close = ws.close
            ws.close = lambda *a, **k: close(timeout=0.05)
        self.sio.disconnect()


def _worker(url: str, n: int, conn) -> None:
    """A process holding ``n`` followers (a room of tablets and phones is many devices, not one
    Python interpreter: keeping the followers out of the benchmark's process keeps their JSON
    parsing and threads from slowing the table client and each other)."""
    with ThreadPoolExecutor(8) as pool:
        followers = list(pool.map(lambda _: Follower(url), range(n)))
    conn.send("ready")
    while True:
        command = conn.recv()
        if command == "counts":
            conn.send([len(f.arrivals) for f in followers])
        elif command == "arrivals":
            conn.send([list(f.arrivals) for f in followers])
        elif command == "close":
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(Follower.close, followers))
            conn.send("closed")
            return


class Crowd:
    """``n`` followers spread over ``processes`` worker processes."""

    def __init__(self, url: str, n: int, processes: int) -> None:
        ctx = mp.get_context("spawn")
        self.links = []
        self.procs = []
        sizes = [n // processes + (1 if i < n % processes else 0) for i in range(processes)]
        for size in (s for s in sizes if s):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(url, size, theirs), daemon=True)
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

    def arrivals(self) -> list[list[float]]:
        return self._ask("arrivals")

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


def start_server(db: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "tableassist", "serve", "--host", "127.0.0.1",
                             "--port", "0", "--db", str(db), "--camera", "none"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:  # type: ignore[union-attr]
        if "serving the table at" in line:
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
            return proc, line.rsplit(" ", 1)[1].strip()
    raise SystemExit("the server did not start")


def play(table: Follower, crowd: Crowd, n_actions: int, rng: random.Random) -> list[list[float]]:
    """Send ``n_actions`` random legal actions; per action, every follower's latency (ms)."""
    sent: list[tuple[float, list[int]]] = []
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
        deadline = time.monotonic() + 10
        while True:
            counts = crowd.counts()
            if all(c > n for c, n in zip(counts, seen)):
                break
            if time.monotonic() > deadline:
                raise SystemExit("a follower did not get the new state")
        sent.append((t0, seen))
    arrivals = crowd.arrivals()
    # perf_counter is CLOCK_MONOTONIC: one clock for every process on the machine.
    return [[(arr[n] - t0) * 1000 for arr, n in zip(arrivals, seen)] for t0, seen in sent]


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--actions", type=int, default=40, help="actions per round and setting")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--processes", type=int, default=4, help="worker processes for the followers")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-broadcast-"))
    db = tmp / "table.sqlite3"
    proc, url = start_server(db)
    try:
        tokens = json.loads((tmp / "table.sqlite3.table.json").read_text())
        idle = rss_kb(proc.pid)
        table = Follower(url, tokens["table"])
        answer = table.sio.call("start", {"game": "shipwrecked", "players": PLAYERS,
                                          "options": {"stop_window_s": 10}}, timeout=10)
        assert answer["ok"], answer
        wait_for(lambda: table.last and table.last["game"], 10, "the game")
        rng = random.Random(1)
        results: dict[str, list[list[float]]] = {"baseline": [], "candidate": []}
        cpu: dict[str, list[float]] = {"baseline": [], "candidate": []}
        rss_with = 0
        payload = len(json.dumps(table.last))
        for _ in range(args.rounds):
            for name, n in (("baseline", 1), ("candidate", args.clients)):
                crowd = Crowd(url, n, min(n, args.processes))
                if n > 1:
                    rss_with = max(rss_with, rss_kb(proc.pid))
                before = cpu_ms(proc.pid)
                measured = play(table, crowd, args.actions, rng)
                cpu[name].append((cpu_ms(proc.pid) - before) / max(1, len(measured)))
                results[name] += measured
                crowd.close()
        after = rss_kb(proc.pid)
        table.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    print(f"input: one Shipwrecked table (4 players, random legal actions), {args.rounds} rounds x "
          f"{args.actions} actions per setting, WebSocket transport on loopback, a state payload "
          f"of about {payload} bytes, SQLite synchronous=FULL")
    rows = {}
    for name, n in (("baseline", 1), ("candidate", args.clients)):
        flat = [x for per in results[name] for x in per]
        worst = [max(per) for per in results[name]]
        rows[name] = (quantile(flat, 0.5), quantile(flat, 0.99), statistics.median(worst))
        print(f"{name:9} {n:4} followers: latency p50 {rows[name][0]:6.1f} ms  p99 "
              f"{rows[name][1]:6.1f} ms  median of per-action slowest {rows[name][2]:6.1f} ms "
              f"({len(flat)} deliveries)")
    for name, n in (("baseline", 1), ("candidate", args.clients)):
        print(f"{name:9} {n:4} followers: server CPU per action {statistics.median(cpu[name]):6.1f} ms")
    b, c = rows["baseline"], rows["candidate"]
    print(f"ratio {args.clients} / 1 followers: p50 x{c[0] / b[0]:.2f}, p99 x{c[1] / b[1]:.2f}, "
          f"server CPU x{statistics.median(cpu['candidate']) / statistics.median(cpu['baseline']):.2f}")
    print(f"machine load while measuring: {Path('/proc/loadavg').read_text().split()[0]} "
          f"(1-minute load average) on {__import__('os').cpu_count()} cores")
    print(f"target p99 <= 50 ms with {args.clients} followers: "
          f"{'met' if c[1] <= 50 else 'NOT met'} ({c[1]:.1f} ms)")
    print(f"server memory (VmRSS): idle {idle / 1024:.1f} MiB, with {args.clients} followers "
          f"{rss_with / 1024:.1f} MiB (+{(rss_with - idle) / args.clients:.0f} KiB each), "
          f"after the actions {after / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
