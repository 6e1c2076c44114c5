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

    .venv/bin/python bench/bench_frame_to_dom.py [--games abandon_ship,wreckers]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tableassist.demo.play import TabletScript  # noqa: E402
from tableassist.demo.scripts import SCRIPTS  # noqa: E402
from tableassist.markers.registry import load_registry  # noqa: E402
from tableassist.server.served import serve_venue  # noqa: E402
from tableassist.vision.synthetic import Renderer  # noqa: E402

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
                 if os.path.exists(p)), None)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def run_game(game: str, browser, renderer, tmp: Path) -> tuple[list[float], list[float]]:
    scripted = SCRIPTS[game]()
    served = serve_venue(tmp / f"{game}.sqlite3", host="127.0.0.1", port=0)
    served.serve_in_thread()
    try:
        table, camera = served.table, served.camera
        table.start(scripted.game, list(scripted.players), options=scripted.options,
                    seed=scripted.seed, colours=scripted.colours)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{served.url}#t={served.tokens.table}")
        page.wait_for_function("() => window.tableassist.state && window.tableassist.state.view")
        tablet = TabletScript(scripted.tablet, camera)
        started: list[tuple[int, float]] = []   # (version holding the action, frame start)
        t_video0 = time.monotonic()
        for t, frame, _ in scripted.video(renderer, hands=True, flicker=0.02, seed=1).frames():
            delay = t - (time.monotonic() - t_video0)
            if delay > 0:
                time.sleep(delay)   # a webcam's pace
            before = len(camera.stats.latency)
            wall = time.time()
            camera.process(frame, t)
            if len(camera.stats.latency) > before:
                started.append((table.version, wall))
            tablet.play(t)
        page.wait_for_timeout(500)
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(SCRIPTS))
    args = parser.parse_args()
    if CHROMIUM is None:
        sys.exit("Debian's chromium is not installed (scripts/setup --test installs it)")
    from playwright.sync_api import sync_playwright
    renderer = Renderer(load_registry().dictionary)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM,
                                     args=["--no-sandbox", "--disable-gpu"])
        for game in args.games.split(","):
            total, server = run_game(game, browser, renderer, Path(tmp))
            print(f"{game:13} frame to DOM: median {statistics.median(total) * 1000:5.0f} ms, "
                  f"p95 {pct(total, 0.95) * 1000:5.0f} ms over {len(total)} camera actions; "
                  f"of it before the broadcast: median {statistics.median(server) * 1000:4.0f} ms, "
                  f"p95 {pct(server, 0.95) * 1000:4.0f} ms (goal p95 <= 100 ms)", flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
