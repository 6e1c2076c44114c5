"""Engine speed: apply() per action and the replay of a 1,000-action log, for every engine.

Input: random legal games (seeded; random choices among every player's and the table's legal
actions) concatenated until the log holds 1,000 actions. Printed per game:

* ``apply`` median and p95 per action (µs) — target ≤ 50 µs median;
* replay of the 1,000 actions through the engine (ms) — target ≤ 50 ms; undo and restart are
  replays;
* the same replay through ``TableSession`` from an SQLite file (ms), which is what undo and a
  server restart really cost;
* the baseline: decoding the same 1,000 JSON lines, run interleaved in the same process, and the
  ratio replay / baseline (the machine is noisy; the ratio is the number to compare over time).

Run: ``.venv/bin/python bench/bench_engines.py [--game GAME] [--repeat 5] [--actions 1000]
[--smoke]``
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _common  # noqa: E402
from tableassist.table import catalog  # noqa: E402
from tableassist.table.session import TableSession  # noqa: E402
from tableassist.table.stores import open_store  # noqa: E402
from tests.games.random_play import random_actions  # noqa: E402

SMOKE = {"actions": 40, "repeat": 1}


def players_for(game_id: str) -> list[str]:
    cls = catalog.engine_class(game_id)
    return ["Ann", "Bea", "Cy", "Dee"][:max(cls.min_players, 3)][:cls.max_players]


def random_logs(game_id: str, n_actions: int) -> list[tuple[int, list[dict]]]:
    """(seed, log) pairs of whole random games, together ≥ n_actions long."""
    logs, total, seed = [], 0, 0
    while total < n_actions:
        game = catalog.new_game(game_id, players_for(game_id), seed=seed)
        log = list(random_actions(game, random.Random(seed), max_actions=n_actions - total))
        logs.append((seed, log))
        total += len(log)
        seed += 1
    return logs


def replay(game_id: str, logs) -> list[int]:
    """Replay every log; returns each apply()'s time in ns."""
    times = []
    for seed, log in logs:
        game = catalog.new_game(game_id, players_for(game_id), seed=seed)
        for action in log:
            t0 = time.perf_counter_ns()
            game.apply(action)
            times.append(time.perf_counter_ns() - t0)
    return times


def bench_game(game_id: str, repeat: int, n_actions: int) -> dict[str, float]:
    logs = random_logs(game_id, n_actions)
    lines = [json.dumps(a) for _, log in logs for a in log]
    replay_ms, decode_ms, per_action = [], [], []
    for _ in range(repeat):  # interleaved: baseline and candidate see the same machine noise
        t0 = time.perf_counter()
        for line in lines:
            json.loads(line)
        decode_ms.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        times = replay(game_id, logs)
        replay_ms.append((time.perf_counter() - t0) * 1e3)
        per_action.extend(times)
    # the session path: the same actions logged in SQLite, reopened (what undo/restart cost)
    session_ms = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "bench.sqlite")
        rows = []
        for seed, log in logs:
            session = TableSession.create(store, game_id, players_for(game_id), seed=seed)
            for seq, action in enumerate(log, start=1):
                store.append(session.saved.id, "action", action=action, expected_seq=seq)
            rows.append(session.saved.id)
        for _ in range(repeat):
            t0 = time.perf_counter()
            for row in rows:
                TableSession.open(store, row)
            session_ms.append((time.perf_counter() - t0) * 1e3)
        store.close()
    per_action.sort()
    return {
        "actions": len(lines),
        "games": len(logs),
        "apply_median_us": statistics.median(per_action) / 1e3,
        "apply_p95_us": per_action[int(len(per_action) * 0.95)] / 1e3,
        "replay_ms": statistics.median(replay_ms),
        "session_reopen_ms": statistics.median(session_ms),
        "baseline_decode_ms": statistics.median(decode_ms),
    }


def main() -> int:
    parser = _common.parser(__doc__)
    parser.add_argument("--game", choices=catalog.game_ids(), action="append")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--actions", type=int, default=1000, help="the log's length per game")
    args = _common.parse(parser, SMOKE)
    games = args.game or catalog.game_ids()
    print(f"{'game':14} {'actions':>7} {'games':>5} {'apply med µs':>12} {'p95 µs':>8} "
          f"{'replay ms':>9} {'session ms':>10} {'decode ms':>9} {'replay/decode':>13}")
    for game_id in games:
        r = bench_game(game_id, args.repeat, args.actions)
        print(f"{game_id:14} {r['actions']:7d} {r['games']:5d} {r['apply_median_us']:12.1f} "
              f"{r['apply_p95_us']:8.1f} {r['replay_ms']:9.1f} {r['session_reopen_ms']:10.1f} "
              f"{r['baseline_decode_ms']:9.2f} {r['replay_ms'] / r['baseline_decode_ms']:13.1f}")
    print(f"targets: apply median ≤ 50 µs; replay of 1,000 actions ≤ 50 ms (this run: "
          f"{args.actions:,} actions a game)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
