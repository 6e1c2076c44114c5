"""What the lobby and a restart cost as saved games pile up: 10 against 1,000 saved games.

Input: three databases built the same way, with 10, 100 and 1,000 saved Shipwrecked games (3
players, the real component data in each row, 20 logged actions each, seed 1). Every game is
ended except the oldest, the worst case for finding the game to resume. Per round, interleaved
(10, 100, 1,000, 10, …), in this process, each measured ``--repeat`` times:

* ``listing``: ``Store.listing(50)``, the saved games the lobby shows;
* ``lobby``: ``Table.lobby()`` with its cache dropped (what a screen gets after a game is started,
  resumed, closed or ended: the catalog too, whose cost does not depend on the saved games);
* ``latest``: ``Store.latest_open(...)``, the lookup ``resume_latest`` does at start;
* ``resume_latest``: ``Table.resume_latest()``, the lookup and opening (replaying) that game.

It prints medians and the ratios 1,000 : 10 and 1,000 : 100 for each; the goal is ≤ 1.5 for the
lobby and ``resume_latest`` (before schema 2 the lobby took 33 ms at 100 games and 0.9 s at 1,000,
and ``resume_latest`` read every game). The bare listing shows at most 50 games, so at 10 saved
games it has 10 rows to read and at 100 or 1,000 it has 50: its 1,000 : 100 ratio is the one that
says whether it grows with the saved games.

    .venv/bin/python bench/bench_lobby.py [--rounds 10] [--repeat 20] [--games 10,100,1000]
                                          [--smoke]
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _common  # noqa: E402
from tableassist.table import catalog  # noqa: E402
from tableassist.server import Table, Tokens  # noqa: E402
from tableassist.server.tokens import links_file  # noqa: E402
from tableassist.table.store import Entry, SavedGame  # noqa: E402
from tableassist.table.stores import open_store  # noqa: E402

PLAYERS = ("Ann", "Bea", "Cy")
SMOKE = {"rounds": 1, "repeat": 2, "games": "10,20,40"}


def build(path: Path, games: int) -> Table:
    """A table whose database holds ``games`` saved games (one transaction, through the same
    path as ``tableassist import``)."""
    components = catalog.load_components("shipwrecked")
    rng = random.Random(1)
    game = catalog.new_game("shipwrecked", PLAYERS, seed=0, components=components)
    log = []
    for seq in range(1, 21):
        actions = [a for who in (None, *PLAYERS) for a in game.legal_actions(who)]
        action = rng.choice(actions)
        game.apply(action)
        log.append(Entry(seq, "action", action, None, "tablet", "table", "t"))
    rows = [(SavedGame(0, "shipwrecked", PLAYERS, 0, {}, components, "t",
                       None if i == 0 else "t", len(log)), log) for i in range(games)]
    store = open_store(path)
    store.add_games(rows)
    return Table(store, Tokens(links_file(path)))


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> int:
    ap = _common.parser(__doc__)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--games", default="10,100,1000",
                    help="the saved games of the three databases, smallest first")
    args = _common.parse(ap, SMOKE)
    small, middle, big = sizes = tuple(int(n) for n in args.games.split(","))
    holder = tempfile.TemporaryDirectory(prefix="bench-lobby-")
    tables = {n: build(Path(holder.name) / f"{n}.sqlite3", n) for n in sizes}

    def lobby(table: Table) -> None:
        table._saved_games = None  # as after a start, resume, close or end
        table.lobby()

    def resume(table: Table) -> None:
        assert table.resume_latest() is not None

    ops: dict[str, Callable[[Table], object]] = {
        "listing": lambda t: t.store.listing(50),
        "lobby": lobby,
        "latest": lambda t: t.store.latest_open(catalog.ENGINES),
        "resume_latest": resume,
    }
    times: dict[tuple[str, int], list[float]] = {(op, n): [] for op in ops for n in sizes}
    for _ in range(args.rounds):
        for op, fn in ops.items():
            for n in sizes:
                times[(op, n)] += timed(lambda: fn(tables[n]), args.repeat)
    print(f"input: Shipwrecked, {len(PLAYERS)} players, 20 logged actions per game, every game "
          f"ended but the oldest; {args.rounds} rounds x {args.repeat} calls, interleaved")
    ratios = {}
    for op in ops:
        p50 = {n: statistics.median(times[(op, n)]) for n in sizes}
        ratios[op] = p50[big] / p50[small]
        print(f"{op:14}: " + "  ".join(f"{n:5} games p50 {p50[n]:7.3f} ms" for n in sizes)
              + f"   ratio {big}:{small} {_common.ratio(p50[big], p50[small])}, {big}:{middle} "
              f"{_common.ratio(p50[big], p50[middle])}")
    met = all(ratios[op] <= 1.5 for op in ("lobby", "resume_latest"))
    print(f"goal {big}:{small} <= 1.5 for the lobby (x{ratios['lobby']:.2f}) and resume_latest "
          f"(x{ratios['resume_latest']:.2f}): {'met' if met else 'NOT met'}")
    for table in tables.values():
        table.clock.cancel()
        table.store.close()
    holder.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
