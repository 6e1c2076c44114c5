"""What one redraw of the tablet page costs at 10 and at 400 history lines (headless Chromium).

Input: a served table (the real server, in this process) playing Wreckers (3 players, seeded
random legal actions through the session) to 400 history lines, the table's screen open in
Debian's chromium at 1280×800. The page is then shown the same state with its history cut to 10
lines and with all 400 (nothing else differs), in interleaved rounds (10, 400, 10, …), each
measured ``--repeat`` times:

* ``same``: ``tableassist.redraw()`` of the state it has (a timer tick, a camera status);
* ``new_line``: the state with one more history line (the common broadcast: one action);

each timed with the forced style and layout after it (``document.body.offsetHeight``). It prints
medians and the ratio 400 : 10 for each; the goal is ≤ 1.5 (before the history was patched in
place, a redraw rebuilt every line: 21 ms at 376 lines, and this benchmark measured a ratio of
about 12).

    .venv/bin/python bench/bench_redraw.py [--rounds 5] [--repeat 20] [--lines 400] [--smoke]
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _common  # noqa: E402
from tableassist.server.served import serve_venue  # noqa: E402
from tableassist.table import catalog  # noqa: E402
from tests.games.random_play import all_legal_actions  # noqa: E402

PLAYERS = ["Ann", "Bea", "Cy"]
SHORT = 10   # history lines of the short page
SMOKE = {"rounds": 1, "repeat": 2, "lines": 30}

MEASURE = """([repeat, kind, lines]) => {
  const app = window.tableassist;
  window.fullHistory = window.fullHistory || app.state.history;
  app.state = {...app.state, version: app.state.version + 1,
               history: window.fullHistory.slice(0, lines)};
  app.redraw();
  const times = [];
  for (let i = 0; i < repeat; i++) {
    if (kind === "new_line") {   // one more line, as a broadcast of one action brings
      const last = app.state.history[app.state.history.length - 1];
      app.state = {...app.state, version: app.state.version + 1,
                   history: [...app.state.history, {...last, seq: last.seq + 100000 + i}]};
    }
    const t0 = performance.now();
    app.redraw();
    void document.body.offsetHeight;  // the style and layout the redraw caused
    times.push(performance.now() - t0);
  }
  return times;
}"""


def play_until(session, lines: int, rng: random.Random) -> None:
    game = session.game
    while len(session.steps) < lines and not game.is_over:
        options = all_legal_actions(game)
        action = rng.choice(options)
        if action["player"] is None:
            action = game.chance_action() or action
        session.submit(action)
        game = session.game


def main() -> None:
    parser = _common.parser(__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--lines", type=int, default=400, help="history lines of the long page")
    args = _common.parse(parser, SMOKE)
    chromium = _common.chromium()
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as tmp:
        served = serve_venue(Path(tmp) / "bench.sqlite3", host="127.0.0.1", port=0)
        served.serve_in_thread()
        try:
            results = run(served, args.rounds, args.repeat, args.lines, chromium, sync_playwright)
        finally:
            served.close()
    long = f"{args.lines} lines ms"
    print(f"{'kind':10} {f'{SHORT} lines ms':>12} {long:>13} {f'{args.lines}:{SHORT}':>7}")
    for kind, (small, big) in results.items():
        print(f"{kind:10} {small:12.2f} {big:13.2f} {big / small:7.2f}")


def run(served, rounds: int, repeat: int, lines: int, chromium: str,
        sync_playwright) -> dict[str, tuple[float, float]]:
    rng = random.Random(1)
    seed = next(s for s in range(50) if long_enough(s, lines))
    session = served.table.start("wreckers", PLAYERS, options=None, seed=seed)
    play_until(session, lines, rng)
    times: dict[tuple[str, int], list[float]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox",
                                                                     "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{served.url}#t={served.tokens.table}")
        page.wait_for_function("n => (window.tableassist?.state?.history || []).length === n",
                               arg=len(session.steps))
        for r in range(rounds + 1):   # the first round warms up
            for shown in (SHORT, lines):
                for kind in ("same", "new_line"):
                    t = page.evaluate(MEASURE, [repeat, kind, shown])
                    if r:
                        times.setdefault((kind, shown), []).extend(t)
        browser.close()
    return {kind: (statistics.median(times[(kind, SHORT)]), statistics.median(times[(kind, lines)]))
            for kind in ("same", "new_line")}


def long_enough(seed: int, lines: int) -> bool:
    """A seed whose random Wreckers game lasts ``lines`` actions or more."""
    game = catalog.new_game("wreckers", PLAYERS, seed=seed)
    rng = random.Random(1)
    n = 0
    while not game.is_over and n < lines:
        options = all_legal_actions(game)
        action = rng.choice(options)
        if action["player"] is None:
            action = game.chance_action() or action
        game.apply(action)
        n += 1
    return n >= lines


if __name__ == "__main__":
    main()
