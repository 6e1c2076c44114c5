"""Watch the camera play a scripted game on a synthetic table, live on the tablet (tableassist demo).

The synthetic table (``tableassist.vision.synthetic``) renders a scripted game of the chosen game
(``tableassist.demo_tables``); every frame goes through the real pipeline — detection, tracker,
the game's reader, the engine through the session, the server, the tablet page — at the camera's
frame rate. The tablet-only inputs of SPEC §6.3 (a STOP, a one-tap confirmation) are played by the
script at their time, as a person at the table would. At the end the demo prints what the camera
read without a tap and the latency from frame to view.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tableassist.camera_loop import CameraTable, Stats
from tableassist.demo_tables import SCRIPTS, ScriptedGame
from tableassist.games.protocol import IllegalAction
from tableassist.readers import CAM_INPUTS


class TabletScript:
    """The scripted person at the tablet: each input is given once it is due and the game takes
    it (a confirmation as a tap on the camera's CAM? row, anything else as a tablet action)."""

    def __init__(self, inputs: list[tuple[float, dict[str, Any]]]) -> None:
        self.pending = sorted(inputs, key=lambda ta: ta[0])
        self.done: list[dict[str, Any]] = []
        self.tapped: list[dict[str, Any]] = []     # given as a tap on a camera confirmation

    def play(self, t: float, camera: CameraTable) -> None:
        while self.pending and self.pending[0][0] <= t:
            action = self.pending[0][1]
            try:
                if any(action in r.confirm for r in camera.confirmations):
                    camera.confirm(action, author="tablet")
                    self.tapped.append(action)
                else:
                    camera.session.submit(action, source="tablet", author="tablet")
            except IllegalAction:
                return        # not yet: the camera has not caught up; try at the next frame
            self.done.append(action)
            self.pending.pop(0)


def play(scripted: ScriptedGame, camera: CameraTable, video: Any, *, realtime: bool = False,
         on_frame: Callable[[float], None] | None = None,
         stop: threading.Event | None = None) -> TabletScript:
    """Feed ``video`` through ``camera`` and play the tablet's inputs. With ``realtime`` each
    frame is shown at its time, as a camera would deliver it."""
    tablet = TabletScript(scripted.tablet)
    t0 = time.perf_counter()
    for t, frame, _truth in video.frames():
        if stop is not None and stop.is_set():
            break
        if realtime:
            wait = t0 + t - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        camera.process(frame, t)
        tablet.play(t, camera)
        if on_frame is not None:
            on_frame(t)
    return tablet


def measure(game: str, stats: Stats) -> dict[str, Any]:
    """The share of SPEC's CAM inputs the camera supplied without a tap, and the latency."""
    cam = CAM_INPUTS[game]["CAM"]
    read = sum(n for k, n in stats.read.items() if k in cam)
    tapped = sum(n for k, n in stats.confirmed.items() if k in cam)
    lat = sorted(stats.latency)
    p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else None
    return {"cam_inputs": read + tapped, "read_without_tap": read,
            "share": read / (read + tapped) if read + tapped else None,
            "confirmations": sum(stats.confirmed.values()), "notices": stats.notices,
            "latency_p95_ms": None if p95 is None else round(p95 * 1000, 1),
            "latency_median_ms": round(statistics.median(lat) * 1000, 1) if lat else None}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="abandon_ship", choices=sorted(SCRIPTS),
                        help="which game the synthetic table plays (default abandon_ship)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: a free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default this machine only)")
    parser.add_argument("--db", type=Path, default=None,
                        help="database for the demo game (default: a temporary file)")
    parser.add_argument("--once", action="store_true",
                        help="play the script once and exit (default: keep serving after it)")


def run(args: argparse.Namespace) -> int:
    from werkzeug.serving import make_server

    from tableassist.registry import load_registry
    from tableassist.server.app import QuietHandler, create_app
    from tableassist.server.table import Table
    from tableassist.server.tokens import Tokens
    from tableassist.store import Store
    from tableassist.vision import TablePipeline
    from tableassist.vision.synthetic import Renderer

    scripted = SCRIPTS[args.game]()
    tmp = None
    if args.db is None:
        tmp = tempfile.TemporaryDirectory(prefix="tableassist-demo-")
        db = Path(tmp.name) / "demo.sqlite3"
    else:
        db = args.db
    store = Store(db)
    tokens = Tokens(db.with_name(db.name + ".table.json"))
    table = Table(store, tokens)
    session = table.start(scripted.game, list(scripted.players), options=scripted.options,
                          seed=scripted.seed, colours=scripted.colours)
    registry = load_registry()
    tserver = create_app(table)
    try:
        server = make_server(args.host, args.port, tserver.app, threaded=True,
                             request_handler=QuietHandler)
    except (OSError, SystemExit) as exc:
        reason = getattr(exc, "strerror", None) or "the address is in use or not available"
        print(f"cannot listen on {args.host}:{args.port}: {reason}", file=sys.stderr)
        return 2
    url = f"http://{args.host}:{server.server_port}/"
    tserver.public_url = url
    camera = CameraTable(session, TablePipeline(scripted.game, registry, qr_every=None),
                         colours=scripted.colours, on_change=tserver.broadcast)
    attach = getattr(table, "attach_camera", None)
    if attach is not None:
        attach(camera)
    table.camera_status = {"state": "on", "notice": f"synthetic table: a scripted game of "
                                                    f"{scripted.game}"}
    threading.Thread(target=server.serve_forever, name="demo-server", daemon=True).start()
    print(f"tableassist demo: {scripted.game}, played by the synthetic table's camera")
    print(f"Open the host screen to watch:\n  {url}#t={tokens.host}", flush=True)
    video = scripted.video(Renderer(registry.dictionary), hands=True, flicker=0.02)
    try:
        play(scripted, camera, video, realtime=True)
        m = measure(scripted.game, camera.stats)
        print(f"the script is over: {len(session.steps)} actions, "
              f"{m['read_without_tap']} of {m['cam_inputs']} CAM inputs read without a tap, "
              f"{m['confirmations']} one-tap confirmations, "
              f"latency frame to view p95 {m['latency_p95_ms']} ms", flush=True)
        if not args.once:
            print("Still serving the table; press Ctrl+C to stop.", flush=True)
            while True:
                time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        table.clock.cancel()
        if tmp is not None:
            tmp.cleanup()
    return 0
