"""From a camera frame to the tablet's DOM, per game: the camera reading a scripted game on the
real served table while the table's screen follows it in headless Chromium.

For each game's scripted table (``tableassist.demo.scripts``, hands passing, 2 % flicker), the
frames are fed to the served table's camera at the video's pace (as a webcam gives them), in this
process, while the real server broadcasts to the page over Socket.IO. For each action the camera
submits, the latency is from the start of the processing of the frame that confirmed it (the
tracker's debounce is over by then) to the moment the page has redrawn the first state that holds
it (the page notes each version's redraw time, ``tableassist.drawn``; both clocks are this
machine's wall clock). Printed per game: median and p95 over the camera's actions, and the share
spent before the broadcast (reader, engine, session, store) — the camera's own
``stats.latency``. Goal: p95 <= 100 ms.

    .venv/bin/python bench/bench_frame_to_dom.py [--games abandon_ship,wreckers] [--seconds S]
                                                 [--speed 1] [--smoke]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _common  # noqa: E402
from tableassist.demo.play import TabletScript  # noqa: E402
from tableassist.demo.scripts import SCRIPTS  # noqa: E402
from tableassist.markers.registry import load_registry  # noqa: E402
from tableassist.server.served import serve_venue  # noqa: E402
from tableassist.vision.synthetic.render import Renderer  # noqa: E402

# Wreckers' first seconds: the deal and the first cuts, read by the camera.
SMOKE = {"games": "wreckers", "seconds": 4.0, "speed": 4.0}


def run_game(game: str, browser, renderer, tmp: Path, seconds: float | None,
             speed: float) -> tuple[list[float], list[float]]:
    scripted = _common.cut(SCRIPTS[game](), seconds)
    served = serve_venue(tmp / f"{game}.sqlite3", host="127.0.0.1", port=0)
    served.serve_in_thread()
    try:
        table, camera = served.table, served.camera
        table.start(scripted.game, list(scripted.players), options=scripted.options,
                    seed=scripted.seed, colours=scripted.colours)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{served.url}#t={served.tokens.table}")
        page.wait_for_function("() => window.tableassist?.state?.view")
        tablet = TabletScript(scripted.tablet, camera)
        started: list[tuple[int, float]] = []   # (version holding the action, frame start)
        video = scripted.video(renderer, hands=True, flicker=0.02, seed=1).frames()
        for t, frame, _ in _common.paced(video, speed):   # a webcam's pace
            before = len(camera.stats.latency)
            wall = time.time()
            camera.process(frame, t)
            if len(camera.stats.latency) > before:
                started.append((table.version, wall))
            tablet.play(t)
        # until the page has drawn the last state (polled, as a test waits)
        page.wait_for_function("v => window.tableassist.drawn.some(([seen]) => seen >= v)",
                               arg=table.version, timeout=10_000)
        drawn = page.evaluate("() => window.tableassist.drawn")
        page.close()
        total = []
        for version, wall in started:
            at = next((ms for v, ms in drawn if v >= version), None)
            if at is not None:
                total.append(at / 1000 - wall)
        return total, list(camera.stats.latency)
    finally:
        served.close()


def main() -> int:
    parser = _common.parser(__doc__)
    parser.add_argument("--games", default=",".join(SCRIPTS))
    parser.add_argument("--seconds", type=float,
                        help="only the first seconds of each game's video (default: all of it)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="times the video's pace the frames are given (default: its pace)")
    args = _common.parse(parser, SMOKE)
    chromium = _common.chromium()
    from playwright.sync_api import sync_playwright
    renderer = Renderer(load_registry().dictionary)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium,
                                     args=["--no-sandbox", "--disable-gpu"])
        for game in args.games.split(","):
            total, server = run_game(game, browser, renderer, Path(tmp), args.seconds, args.speed)
            p95, server_p95 = _common.pct(total, 0.95), _common.pct(server, 0.95)
            print(f"{game:13} frame to DOM: median {statistics.median(total) * 1000:5.0f} ms, "
                  f"p95 {p95 * 1000:5.0f} ms over {len(total)} camera actions; "
                  f"of it before the broadcast: median {statistics.median(server) * 1000:4.0f} ms, "
                  f"p95 {server_p95 * 1000:4.0f} ms (goal p95 <= 100 ms)", flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
