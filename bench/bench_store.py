"""What one acknowledged action costs on each store: SQLite (the default) against PostgreSQL, in
one run on this machine.

Input: one Shipwrecked game per store (3 players, seed 7) in a fresh SQLite file and a fresh
database on a PostgreSQL server this benchmark starts in a temporary folder (Debian's binaries,
127.0.0.1, PostgreSQL's defaults: ``fsync`` and ``synchronous_commit`` on, as a venue's server
would run; the SQLite file in ``/tmp`` with ``synchronous=FULL``). Per round, interleaved (SQLite,
PostgreSQL, SQLite, …), in this process:

* ``append``: ``Store.append`` of one logged action, durable when it returns (the cost the log
  adds to every tap);
* ``submit``: ``TableSession.submit`` of a random legal action (the engine, then the append: what
  a tap costs before the screens are told).

It prints p50 and p99 of each, and PostgreSQL's against SQLite's as ratios (the machine is shared
and noisy: compare the ratios of one run, not milliseconds across runs).

    .venv/bin/python bench/bench_store.py [--rounds 10] [--actions 50] [--smoke]
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _common  # noqa: E402
from tableassist.table.session import TableSession  # noqa: E402
from tableassist.table.store import Store  # noqa: E402
from tableassist.table.stores import open_store  # noqa: E402
from tests.games.random_play import all_legal_actions  # noqa: E402
from tests.services import PostgresServer, ServiceMissing  # noqa: E402

PLAYERS = ("Ann", "Bea", "Cy")
GAME = "shipwrecked"
SMOKE = {"rounds": 1, "actions": 3}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def appends(store: Store, game: int, n: int, action: dict) -> list[float]:
    """``n`` appends of ``action`` to game ``game`` (an undo-free log: only its length grows)."""
    out = []
    seq = len(store.entries(game))
    for _ in range(n):
        seq += 1
        t = time.perf_counter()
        store.append(game, "action", action=action, expected_seq=seq, source="tablet")
        out.append((time.perf_counter() - t) * 1000)
    return out


def submits(session: TableSession, rng: random.Random, n: int) -> list[float]:
    out = []
    for _ in range(n):
        if session.game.is_over:
            session = TableSession.create(session.store, GAME, PLAYERS, seed=rng.randrange(99))
        action = rng.choice(all_legal_actions(session.game))
        t = time.perf_counter()
        session.submit(action)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> int:
    ap = _common.parser(__doc__)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--actions", type=int, default=50, help="per store, per round, per kind")
    args = _common.parse(ap, SMOKE)
    try:
        server = PostgresServer()
    except ServiceMissing as exc:
        raise SystemExit(str(exc)) from None
    folder = tempfile.TemporaryDirectory(prefix="bench-store-")
    try:
        server.start()   # inside: a Ctrl-C while it starts stops it too
        stores = {"sqlite": open_store(Path(folder.name) / "table.sqlite3"),
                  "postgresql": open_store(server.url(server.new_database()))}
        # The log's own games, for the bare appends; one per store, the same action each time.
        logs = {name: store.create_game(GAME, PLAYERS, 1, {}, {}) for name, store in
                stores.items()}
        sessions = {name: TableSession.create(store, GAME, PLAYERS, seed=7)
                    for name, store in stores.items()}
        rngs = {name: random.Random(3) for name in stores}
        action = all_legal_actions(sessions["sqlite"].game)[0]
        times: dict[tuple[str, str], list[float]] = {
            (kind, name): [] for kind in ("append", "submit") for name in stores}
        for name, store in stores.items():  # warm up: connections, caches, prepared statements
            appends(store, logs[name], 10, action)
        for _ in range(args.rounds):
            for name, store in stores.items():
                times[("append", name)] += appends(store, logs[name], args.actions, action)
                times[("submit", name)] += submits(sessions[name], rngs[name], args.actions)
        print(f"input: {GAME}, {len(PLAYERS)} players; {args.rounds} rounds x {args.actions} "
              "per store and kind, interleaved; PostgreSQL "
              f"{server.bin.parts[-2]} on 127.0.0.1 (fsync, synchronous_commit on), SQLite WAL "
              "with synchronous=FULL in /tmp")
        for kind in ("append", "submit"):
            row = {}
            for name in stores:
                values = times[(kind, name)]
                row[name] = (statistics.median(values), percentile(values, 99))
                print(f"{kind:7} {name:10}: p50 {row[name][0]:7.3f} ms   p99 {row[name][1]:7.3f} ms"
                      f"   ({len(values)} calls)")
            print(f"{kind:7} ratio     : postgresql:sqlite p50 "
                  f"{_common.ratio(row['postgresql'][0], row['sqlite'][0])}"
                  f"   p99 {_common.ratio(row['postgresql'][1], row['sqlite'][1])}")
        for store in stores.values():
            store.close()
    finally:
        server.stop()
        folder.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
