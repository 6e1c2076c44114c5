"""The server's own work per broadcast, without sockets: build every room's payload and encode it.

Input: a Shipwrecked table (4 players) with 50 saved games (``--saved``) in its database, one
screen in each room a table has (host, table, spectators, each of the 4 players), random legal
actions (seed 1).
Per action it times ``TableServer.broadcast`` (rooms' payloads built and JSON-encoded once per room
by python-socketio; the rooms have no real connections, so nothing is sent) and adds up the bytes
each room would get. The baseline is the server code of an older git revision (``--baseline-rev``,
exported with ``git archive``), run in a child process, interleaved round by round with this
tree's code in another child process.

Then, in this process and interleaved round by round, this tree's broadcasts with the setup
screen's catalog built once (``game_catalog``) against the same code building it again for every
broadcast, as commit 10129e6 did by mistake (every game's data file parsed and copied per lobby).

    .venv/bin/python bench/bench_broadcast_build.py [--baseline-rev f5ecaf4~1|none] [--rounds 3]
                                                    [--actions 100] [--saved 50]
                                                    [--languages en,de,es] [--smoke]

The child processes run ``measure`` of this file on the other tree's ``tableassist``; where a name
has moved or a record has grown since the baseline, ``measure`` takes either.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import _common  # this folder's; it imports no tableassist (the children choose theirs)

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ["Ann", "Bea", "Cy", "Dee"]
INPUT = ("Shipwrecked, 4 players, {saved} saved games, one screen per room (host, table, "
         "spectators, 4 players)")
# The last commit, not f5ecaf4~1: a shallow clone (CI's) has no older history to export.
SMOKE = {"baseline_rev": "HEAD", "rounds": 1, "actions": 3, "saved": 5, "languages": "en,de"}


def measure(actions: int, saved: int = 50, *, rebuild_catalog: bool = False,
            languages: tuple[str, ...] = ("en",)) -> dict:
    """In this process, with whichever ``tableassist`` is first on the path. ``rebuild_catalog``:
    build the catalog again for every lobby, hence every broadcast (the uncached way);
    ``languages``: each room has a screen in each of them."""
    from tableassist.server import Table, Tokens, create_app
    from tableassist.server import table as table_module
    from tableassist.server.tokens import HOST, PLAYER, SPECTATOR, TABLE, Grant
    try:
        from tableassist.table import catalog
    except ImportError:  # a revision before the layout of 49899d8
        from tableassist import catalog  # type: ignore[no-redef]
    try:
        from tableassist.table.stores import open_store as Store  # open_store since table-box
    except ImportError:
        try:
            from tableassist.table.store import Store  # type: ignore[no-redef]
        except ImportError:  # a revision before the layout of 49899d8
            from tableassist.store import Store  # type: ignore[no-redef]

    cached_catalog = getattr(table_module, "game_catalog", None)  # cached since b2c9ed4
    if rebuild_catalog:
        table_module.game_catalog = lambda: table_module._game_catalog.__wrapped__(
            tuple(catalog.ENGINES.items()))
    holder = tempfile.TemporaryDirectory(prefix="bench-build-")
    tmp = Path(holder.name)
    table = Table(Store(tmp / "t.sqlite3"), Tokens(tmp / "t.json"))
    for seed in range(saved - 1):
        table.start("shipwrecked", PLAYERS, options={}, seed=seed)
        table.end()
    table.start("shipwrecked", PLAYERS, options={"stop_window_s": 10}, seed=saved - 1)
    server = create_app(table, public_url="http://127.0.0.1:8765/")
    grants = [Grant(HOST), Grant(TABLE), Grant(SPECTATOR),
              *(Grant(PLAYER, name) for name in PLAYERS)]
    screens(server, grants, languages)
    sent: list[int] = []
    emit = server.socketio.emit

    def counting_emit(event, data, **kwargs):
        sent.append(len(json.dumps(data, separators=(",", ":"))))
        return emit(event, data, **kwargs)

    times: list[float] = []
    cpu: list[float] = []   # this thread's CPU time: what the machine's load does not inflate
    broadcast = server.broadcast

    def timed_broadcast():
        t, c = time.perf_counter(), time.thread_time()
        broadcast()
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)

    table.on_change = timed_broadcast
    server.socketio.emit = counting_emit
    rng = random.Random(1)
    table_grant = grants[1]
    per_action: list[float] = []
    per_action_cpu: list[float] = []
    action_bytes = 0
    while len(per_action) < actions:
        choices = table.actions_for(table_grant)
        if not choices:  # the game is over: another (its broadcasts are not counted)
            table.end()
            table.start("shipwrecked", PLAYERS, options={"stop_window_s": 10}, seed=len(sent))
            continue
        n_times, n_sent = len(times), len(sent)
        table.current().submit(rng.choice(choices)["action"], source="tablet", author="table")
        per_action += times[n_times:]
        per_action_cpu += cpu[n_times:]
        action_bytes += sum(sent[n_sent:])
    server.socketio.emit = emit
    table.clock.cancel()
    table.store.close()
    holder.cleanup()
    if cached_catalog is not None:
        table_module.game_catalog = cached_catalog
    return {"ms": per_action, "cpu_ms": per_action_cpu, "bytes": action_bytes / len(per_action)}


def screens(server, grants, languages=("en",)) -> None:
    """A screen per room and language, in the app's own record of its connections (sid ->
    record): (token, grant) until screens had a language (57ef077, ``app.screen_language``; one
    screen per room then, whatever ``languages`` says), (token, grant, language) since."""
    from tableassist.server import app
    spoken = [(lang,) for lang in languages] if hasattr(app, "screen_language") else [()]
    i = 0
    for grant in grants:
        for language in spoken:
            server._conns[f"sid{i}"] = (None, grant, *language)
            i += 1


def p50_p99(runs: list[dict]) -> tuple[float, float]:
    ms = [x for r in runs for x in r["ms"]]
    return statistics.median(ms), sorted(ms)[int(0.99 * (len(ms) - 1))]


def run_tree(tree: Path, actions: int, saved: int, languages: str = "en") -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure",
                          str(actions), str(saved), languages], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure(int(sys.argv[2]), int(sys.argv[3]),
                                 languages=tuple(sys.argv[4].split(",")))))
        return 0
    ap = _common.parser(__doc__)
    # The default is the server before broadcasts left out unchanged parts (commit f5ecaf4).
    ap.add_argument("--baseline-rev", default="f5ecaf4~1",
                    help="a git revision, or 'none' to compare only the catalog's caching")
    ap.add_argument("--candidate-rev", default=None,
                    help="a git revision for the candidate too (default: this work tree as it is)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--actions", type=int, default=100)
    ap.add_argument("--saved", type=int, default=50, help="saved games in the table's database")
    ap.add_argument("--languages", default="en",
                    help="a screen in each room per language (comma-separated: en,de,es)")
    args = _common.parse(ap, SMOKE)
    if args.baseline_rev != "none":
        compare_revisions(args)
    compare_catalog(args)
    return 0


def compare_catalog(args: argparse.Namespace) -> None:
    runs: dict[str, list[dict]] = {"per broadcast": [], "cached": []}
    for _ in range(args.rounds):
        runs["per broadcast"].append(measure(args.actions, args.saved, rebuild_catalog=True))
        runs["cached"].append(measure(args.actions, args.saved))
    print(f"input: {INPUT.format(saved=args.saved)}, {args.rounds} rounds x {args.actions} random "
          "legal actions (seed 1); this work tree in this process, the catalog built once (cached) or for every "
          "broadcast (as in 10129e6); interleaved")
    rows = {name: p50_p99(rs) for name, rs in runs.items()}
    for name, (p50, p99) in rows.items():
        print(f"catalog {name:13}: broadcast (build + encode, 7 rooms) p50 {p50:6.2f} ms  "
              f"p99 {p99:6.2f} ms")
    c, b = rows["cached"], rows["per broadcast"]
    print(f"ratio cached / per broadcast: p50 {_common.ratio(c[0], b[0])}, p99 "
          f"{_common.ratio(c[1], b[1])}")


def compare_revisions(args: argparse.Namespace) -> None:
    holder = tempfile.TemporaryDirectory(prefix="bench-build-base-")

    def export(rev: str, name: str) -> Path:
        tree = Path(holder.name) / name
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        tarfile.open(fileobj=BytesIO(archive)).extractall(tree)
        return tree

    base = export(args.baseline_rev, "baseline")
    candidate = ROOT if args.candidate_rev is None else export(args.candidate_rev, "candidate")
    runs: dict[str, list[dict]] = {"baseline": [], "candidate": []}
    for _ in range(args.rounds):
        runs["baseline"].append(run_tree(base, args.actions, args.saved, args.languages))
        runs["candidate"].append(run_tree(candidate, args.actions, args.saved, args.languages))
    print(f"input: {INPUT.format(saved=args.saved)}, {args.rounds} rounds x {args.actions} random "
          f"legal actions (seed 1), screens speaking {args.languages}; baseline = the code of "
          f"{args.baseline_rev}, candidate = "
          f"{args.candidate_rev or 'this work tree'}; interleaved")
    rows = {}
    for name, rs in runs.items():
        cpu = statistics.median(x for r in rs for x in r["cpu_ms"])
        rows[name] = (*p50_p99(rs), statistics.mean(r["bytes"] for r in rs), cpu)
        print(f"{name:9}: broadcast (build + encode, 7 rooms) p50 {rows[name][0]:6.2f} ms  "
              f"p99 {rows[name][1]:6.2f} ms  CPU p50 {cpu:6.2f} ms  bytes to all rooms per "
              f"action {rows[name][2]:8.0f}")
    b, c = rows["baseline"], rows["candidate"]
    print(f"ratio candidate / baseline: p50 {_common.ratio(c[0], b[0])}, p99 "
          f"{_common.ratio(c[1], b[1])}, CPU p50 {_common.ratio(c[3], b[3])}, bytes "
          f"{_common.ratio(c[2], b[2])}")
    print(f"machine load: {_common.load()}")
    holder.cleanup()


if __name__ == "__main__":
    sys.exit(main())
