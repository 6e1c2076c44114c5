"""One server process, many tables: N tables x 7 lean Socket.IO screens, 1 action a second each.

A café's or a tournament's evening in one ``tableassist serve``: ``--tables`` tables (created on
the venue page by the staff's Socket.IO), each playing Shipwrecked (4 players) by random legal
actions, one a second from its table screen, and seven screens at each (host, table, the four
players, a spectator), all "lean" clients (the Engine.IO 4 / Socket.IO 5 text protocol spoken by
hand over wsproto, one thread per worker process: about what a browser tab costs the machine).
Per action it measures, on every screen of its table, the time from sending ``act`` to holding
the new state (the engine, the SQLite commit with synchronous=FULL, every room's payload, the
fan-out), and in its measured turns the server's CPU (share of one core), its OS threads (and
per screen, beyond the server's own with no screen), its resident memory and the machine's load.

The baseline is the server code of an older revision (``--baseline-rev``, exported with ``git
archive``), the candidate this work tree; with ``--green`` also this tree under gevent's monkey
patching (every thread a greenlet: what Flask-SocketIO's gevent mode would cost in threads), when
gevent is installed; with ``--switch S`` also this tree with the interpreter's thread switch
interval set to S seconds (``sys.setswitchinterval``; 5 ms by default: how long a thread that
wants the interpreter lock may wait for a busy one). The machine is shared and its load swings
within a minute, so every setting's server is up at once and they play in turns of a few
seconds (``--window``), each turn's tables only: a swing of the load falls on all of them alike.

    .venv/bin/python bench/bench_broadcast_tables.py [--tables 20,40] [--window 5] [--cycles 6]
        [--rounds 1] [--baseline-rev 2ae8747|none] [--green] [--switch 0.001]
        [--languages en,de,es] [--workers 2] [--smoke]
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
SMOKE = {"tables": "2", "window": 1.0, "cycles": 1, "rounds": 1, "baseline_rev": "HEAD",
         "workers": 1, "languages": "en,de"}


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
    if os.environ.get("BENCH_STAGES"):   # --stages: time each act's stages (bench/_stages.py)
        import _stages
        _stages.install()
    if os.environ.get("BENCH_PROFILE"):   # a profile of the broadcasts (bench/_stages.py)
        import _stages
        _stages.install_profile(os.environ["BENCH_PROFILE"])
    from tableassist import cli
    return cli.main(argv)


class Server:
    def __init__(self, tree: Path, db: Path, mode: str, stages: Path | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        if stages is not None:
            env["BENCH_STAGES"] = str(stages)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(tree), mode,
             "serve", "--host", "127.0.0.1", "--port", "0", "--db", str(db), "--camera", "none"],
            cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.url = self.staff = ""

    def wait(self) -> "Server":
        """Read what the server prints up to its staff link (several start at once)."""
        said: list[str] = []
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
        return self

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

class Screen(_common.Lean):
    """A table's screen: which server's table, which of its seven, its last version, and (the
    table's screen) the buttons it may press."""

    def __init__(self, variant: int, table: int, index: int, url: str, path: str,
                 token: str | None, lang: str) -> None:
        super().__init__(url, path, token, lang)
        self.variant, self.table, self.index = variant, table, index
        self.version = -1
        self.actions: list[dict] = []


def screens_worker(servers: list[tuple[str, list[dict]]], languages: list[str], start: float,
                   window: float, cycles: int, seed: int, link: Any,
                   slot: tuple[int, int] = (0, 1)) -> None:
    """Hold the screens of every server's ``tables`` (``servers``: its URL and tables). Time is
    cut into windows of ``window`` s from ``start`` (a ``perf_counter`` time: CLOCK_MONOTONIC, one
    clock for every process), each server's in turn; in its windows each of its tables' screen
    acts once a second (the tables staggered over the second). The first round of windows warms
    up; the next ``cycles`` are measured. Sends each server's latencies (ms) and counts."""
    sel = selectors.DefaultSelector()
    screens: list[Screen] = []
    by_table: list[list[list[Screen]]] = []
    for v, (url, tables) in enumerate(servers):
        rows = []
        for t, table in enumerate(tables):
            row = []
            for i, token in enumerate(table["tokens"]):
                screen = Screen(v, t, i, url, table["path"], token,
                                languages[(t + i) % len(languages)])
                sel.register(screen.sock, selectors.EVENT_READ, screen)
                screens.append(screen)
                row.append(screen)
            rows.append(row)
        by_table.append(rows)
    n_variants = len(servers)
    rng = random.Random(seed)
    latencies: list[list[float]] = [[] for _ in servers]
    # per delivery, what the screens' own loop added: kernel arrival -> read, read -> parsed
    lags: list[list[tuple[float, float]]] = [[] for _ in servers]
    sizes: list[list[int]] = [[] for _ in servers]
    counts = [{"actions": 0, "late": 0, "refused": 0, "new_games": 0} for _ in servers]
    pending: dict[tuple[int, int], tuple[float, dict[int, int], bool]] = {}
    ack = [0]

    def packet(screen: Screen, text: str, now: float, kernel: float) -> None:
        if text.startswith("42"):
            event, payload = json.loads(text[2:])
            parsed = time.perf_counter()
            if event == "state" and isinstance(payload, dict):
                screen.version = max(screen.version, payload["version"])
                if screen.index == 0:
                    screen.actions = payload.get("actions") or []
                waiting = pending.get((screen.variant, screen.table))
                if waiting is not None and screen.index in waiting[1] \
                        and payload["version"] > waiting[1][screen.index]:
                    del waiting[1][screen.index]
                    if waiting[2]:
                        latencies[screen.variant].append((kernel - waiting[0]) * 1000)
                        lags[screen.variant].append(((now - kernel) * 1000,
                                                     (parsed - now) * 1000))
                        sizes[screen.variant].append(len(text))
        elif text.startswith("43"):    # an acknowledgement
            body = text[2:].lstrip("0123456789")
            answer = json.loads(body)[0] if body else {}
            if isinstance(answer, dict) and not answer.get("ok", True):
                counts[screen.variant]["refused"] += 1

    end = start + (cycles + 1) * n_variants * window
    due = [[0.0] * len(rows) for rows in by_table]
    current = -1
    while True:
        now = time.perf_counter()
        if now >= end:
            break
        k = int((now - start) // window) if now >= start else -1
        v = k % n_variants if k >= 0 else -1
        if v != current and v >= 0:    # this server's window: its tables act from now on
            current = v
            base = start + k * window + 0.2
            # this worker's tables are every ``workers``-th of the server's, from ``mine``:
            # spread over the second between all workers' tables, none acting at once
            mine, workers = slot
            n = len(by_table[v]) * workers
            due[v] = [base + (t * workers + mine) / max(1, n) for t in range(len(by_table[v]))]
        measured = k >= n_variants
        for t, when in enumerate(due[v] if v >= 0 else []):
            if now < when or when >= start + (k + 1) * window:
                continue
            due[v][t] = when + 1.0
            actor = by_table[v][t][0]
            waiting = pending.pop((v, t), None)
            if waiting is not None and waiting[1] and waiting[2]:
                counts[v]["late"] += len(waiting[1])
            ack[0] += 1
            if actor.actions:
                action = rng.choice(actor.actions)["action"]
                pending[(v, t)] = (time.perf_counter(),
                                   {s.index: s.version for s in by_table[v][t]}, measured)
                actor.send(f"42{ack[0]}" + json.dumps(["act", {"action": action}]))
                counts[v]["actions"] += measured
            elif actor.version >= 0:   # the game is over: the same again
                actor.send(f"42{ack[0]}" + json.dumps(["play_again", {}]))
                counts[v]["new_games"] += 1
        upcoming = [w for w in (due[v] if v >= 0 else []) if w > now] or [now + 0.05]
        timeout = max(0.0, min(min(upcoming), end, start + (k + 1) * window) - time.perf_counter())
        for screen, text, arrived, kernel in _common.lean_messages(sel, timeout):
            packet(screen, text, arrived, kernel)
    link.send([{"latencies": latencies[v], "lags": lags[v], "sizes": sizes[v], **counts[v],
                "connected": sum(1 for s in screens if s.variant == v and s.version >= 0)}
               for v in range(n_variants)])
    link.recv()   # "close": after the servers' figures were read with every screen connected
    for screen in screens:
        screen.close()
    link.send("closed")


def run(variants: list[tuple[str, Path, str]], n: int, args: Any,
        seed: int) -> list[dict[str, Any]]:
    """Every variant's server at once, ``n`` tables each, measured in turns of ``args.window``
    s (see :func:`screens_worker`): a change of the machine's load falls on all of them alike."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-tables-"))
    servers: list[Server] = []
    try:
        for i, (_name, tree, mode) in enumerate(variants):
            servers.append(Server(tree, tmp / f"v{i}" / "table.sqlite3", mode,
                                  tmp / f"stages-{i}.jsonl" if args.stages else None))
        for server in servers:
            server.wait()
        tables = [set_up_tables(server, n) for server in servers]
        time.sleep(0.5)
        idle = [proc_status(s.pid, "Threads") for s in servers]
        ctx = mp.get_context("spawn")
        workers = []
        # every worker connects first: the schedule starts once they are all in
        start = time.perf_counter() + 2 + 0.05 * n * len(variants)
        for w in range(args.workers):
            mine = [(s.url, ts[w::args.workers]) for s, ts in zip(servers, tables)]
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(target=screens_worker, args=(
                mine, args.languages.split(","), start, args.window, args.cycles,
                seed * 100 + w, theirs, (w, args.workers)), daemon=True)
            proc.start()
            workers.append((proc, ours))
        V = len(variants)
        cpu = [0.0] * V
        threads = [0] * V
        for k in range((args.cycles + 1) * V):
            v = k % V
            t0 = start + k * args.window
            time.sleep(max(0.0, t0 - time.perf_counter()))
            c0 = cpu_s(servers[v].pid)
            time.sleep(max(0.0, t0 + args.window - time.perf_counter()))
            if k >= V:   # measured windows only
                cpu[v] += cpu_s(servers[v].pid) - c0
            threads[v] = max(threads[v], proc_status(servers[v].pid, "Threads"))
        results = [link.recv() for _proc, link in workers]
        rss = [proc_status(s.pid, "VmRSS") for s in servers]
        load = os.getloadavg()[0]
        for _proc, link in workers:
            link.send("close")
        for proc, link in workers:
            link.recv()
            proc.join(timeout=10)
    finally:
        for server in servers:
            server.stop()
    stages = [read_stages(tmp / f"stages-{v}.jsonl", start, args.window, len(variants), v,
                          args.cycles) if args.stages else None for v in range(len(variants))]
    out = []
    screens = n * len(SCREENS)
    for v in range(V):
        mine = [r[v] for r in results]
        out.append({"latencies": [x for r in mine for x in r["latencies"]],
                    "lags": [x for r in mine for x in r["lags"]],
                    "sizes": [x for r in mine for x in r["sizes"]], "stages": stages[v],
                    "cpu": cpu[v] / (args.cycles * args.window), "threads": threads[v],
                    "per_screen": (threads[v] - idle[v]) / screens, "rss_mib": rss[v] / 1024,
                    "load": load, **{k: sum(r[k] for r in mine)
                                     for k in ("actions", "late", "refused", "new_games",
                                               "connected")}})
    return out


def read_stages(path: Path, start: float, window: float, n_variants: int, v: int,
                cycles: int) -> list[dict[str, Any]]:
    """The server's stage records (bench/_stages.py) of its measured windows; its garbage
    collections in those windows come as one record ``{"gc": [[generation, seconds], …]}``."""
    if not path.exists():
        return []
    out: list[dict[str, Any]] = []

    def measured(t: float) -> bool:
        k = int((t - start) // window)
        return n_variants <= k < (cycles + 1) * n_variants and k % n_variants == v

    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if "gc" in rec:
            out.append({"gc": [(g, s) for g, t, s in rec["gc"] if measured(t)]})
        elif measured(rec["read"]):
            out.append(rec)
    return out


def stage_lines(recs: list[dict[str, Any]]) -> list[str]:
    """The stages' p50/p99 (ms) as the report prints them."""
    def ms(xs: list[float]) -> str:
        return f"{_common.pct(xs, 0.5) * 1000:6.2f} / {_common.pct(xs, 0.99) * 1000:6.2f}"

    collections = [c for r in recs for c in r.get("gc", ())]
    recs = [r for r in recs if "gc" not in r]
    full = [r for r in recs if "commit1" in r and "broadcast1" in r and r["writes"]]
    parts = {
        "read -> handler thread runs": [r["handler"] - r["read"] for r in full],
        "handler -> commit begins (engine)": [r["commit0"] - r["handler"] for r in full],
        "SQLite transaction (append)": [r["commit1"] - r["commit0"] for r in full],
        "commit -> broadcast begins": [r["broadcast0"] - r["commit1"] for r in full],
        "broadcast (payloads, emits)": [r["broadcast1"] - r["broadcast0"] for r in full],
        "broadcast end -> last write": [max(w[0] for w in r["writes"]) - r["broadcast1"]
                                        for r in full],
        "each write after its broadcast end": [w[0] - r["broadcast1"] for r in full
                                               for w in r["writes"]],
        "each ws.send itself": [w[1] for r in full for w in r["writes"]],
        "read -> last write (server total)": [max(w[0] for w in r["writes"]) - r["read"]
                                              for r in full],
    }
    pauses = ", ".join(
        f"gen {g}: {len(xs)}, longest {max(xs) * 1000:.1f} ms" for g in range(3)
        if (xs := [s for gen, s in collections if gen == g]))
    return [f"    {name:38} p50 / p99 {ms(xs)} ms" for name, xs in parts.items()] + [
        f"    ({len(full)} acts timed of {len(recs)}); garbage collections (every thread "
        f"held): {pauses or 'none'}"]


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
    ap.add_argument("--window", type=float, default=5.0,
                    help="seconds each server plays in its turn")
    ap.add_argument("--cycles", type=int, default=6,
                    help="measured turns per server (after one turn each to warm up)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--baseline-rev", default=BASELINE, help="a git revision, or 'none'")
    ap.add_argument("--green", action="store_true",
                    help="also this tree under gevent's monkey patching (needs gevent)")
    ap.add_argument("--switch", type=float, default=None, metavar="S",
                    help="also this tree with the interpreter's thread switch interval S s")
    ap.add_argument("--languages", default="en",
                    help="the screens' languages, comma-separated, dealt round the screens")
    ap.add_argument("--workers", type=int, default=2, help="processes holding the screens")
    ap.add_argument("--stages", action="store_true",
                    help="also time each act's stages inside the servers (bench/_stages.py)")
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
            for (name, _tree, _mode), got in zip(variants, run(variants, n, args, seed=r)):
                runs.setdefault((name, n), []).append(got)
    print(f"input: one `tableassist serve` per setting (--camera none, SQLite "
          f"synchronous=FULL), N tables x {len(SCREENS)} lean screens ({', '.join(SCREENS)}), "
          f"each table playing Shipwrecked (4 players) by random legal actions, 1 a second from "
          f"its table screen; every setting's server up at once, each playing in turns of "
          f"{args.window:g} s ({args.cycles} measured turns each after one to warm up, "
          f"{args.rounds} round(s)), so the machine's load falls on all alike; screens in "
          f"{args.workers} worker processes, speaking {args.languages}; "
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
            lags = [x for r in rs for x in r["lags"]]
            sizes = [x for r in rs for x in r["sizes"]]
            print(f"    the screens' own loop: arrival -> read p50 / p99 "
                  f"{_common.pct([a for a, _ in lags], 0.5):.2f} / "
                  f"{_common.pct([a for a, _ in lags], 0.99):.2f} ms, read -> parsed "
                  f"{_common.pct([b for _, b in lags], 0.5):.2f} / "
                  f"{_common.pct([b for _, b in lags], 0.99):.2f} ms; state message "
                  f"p50 / p99 {_common.pct(sizes, 0.5):.0f} / {_common.pct(sizes, 0.99):.0f} B")
            if args.stages:
                for line in stage_lines([x for r in rs for x in r["stages"] or []]):
                    print(line)
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
