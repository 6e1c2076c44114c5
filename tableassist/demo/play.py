"""Watch the camera play a scripted game on a synthetic table, live on the tablet (tableassist demo).

The synthetic table (``tableassist.vision.synthetic``) renders a scripted game of the chosen game
(``tableassist.demo.scripts``); every frame goes through the real pipeline — detection, tracker,
the game's reader, the engine through the session, the server, the tablet page — at the camera's
frame rate. The tablet-only inputs of SPEC §6.3 (a STOP, a one-tap confirmation) are played by the
script at their time, as a person at the table would. At the end the demo prints what the camera
read without a tap and the latency from frame to view.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tableassist.readers.live import CameraTable, Stats
from tableassist.demo.scripts import SCRIPTS, ScriptedGame
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
         on_frame: Callable[[float, Any], None] | None = None,
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
            on_frame(t, frame)
    return tablet


def measure(game: str, stats: Stats, expected: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The share of SPEC's CAM inputs the camera supplied without a tap, and the latency.

    The CAM inputs are those of ``expected`` (the scripted game's actions) when given, so one
    the camera missed and the tablet had to type counts against the share; otherwise those the
    camera read or had confirmed."""
    cam = CAM_INPUTS[game]["CAM"]
    read = sum(n for k, n in stats.read.items() if k in cam)
    tapped = sum(n for k, n in stats.confirmed.items() if k in cam)
    total = read + tapped if expected is None else sum(1 for a in expected if a["type"] in cam)
    lat = sorted(stats.latency)
    p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else None
    return {"cam_inputs": total, "read_without_tap": read,
            "share": read / total if total else None,
            "confirmations": sum(stats.confirmed.values()), "notices": stats.notices,
            "latency_p95_ms": None if p95 is None else round(p95 * 1000, 1),
            "latency_median_ms": round(statistics.median(lat) * 1000, 1) if lat else None}


class Demo:
    """A table server whose game is played by the synthetic table's camera.

    ``start()`` opens the server (``url``, ``host_link``) and starts the scripted game;
    ``play()`` runs the video through the camera (in real time by default); ``close()`` stops
    the server. Everything between frame and page is the real thing."""

    def __init__(self, game: str, *, host: str = "127.0.0.1", port: int = 0,
                 db: Path | None = None, hands: bool = True, flicker: float = 0.02) -> None:
        from tableassist.markers.registry import load_registry
        from tableassist.server.table import Table
        from tableassist.server.tokens import Tokens, links_file
        from tableassist.table.store import Store

        self.scripted = SCRIPTS[game]()
        self._tmp = None
        if db is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="tableassist-demo-")
            db = Path(self._tmp.name) / "demo.sqlite3"
        store = Store(db)  # first: a database another process writes is refused here
        try:
            self.tokens = Tokens(links_file(db))
        except OSError:
            store.close()
            raise
        self.table = Table(store, self.tokens)
        self.registry = load_registry()
        self.host, self.port = host, port
        self.hands, self.flicker = hands, flicker
        self.server: Any = None
        self.camera: CameraTable | None = None
        self.url = ""
        self._previewed = -1e9

    @property
    def host_link(self) -> str:
        return f"{self.url}#t={self.tokens.host}"

    def start(self) -> None:
        from werkzeug.serving import make_server

        from tableassist.server.app import QuietHandler, create_app
        from tableassist.vision import TablePipeline

        s = self.scripted
        session = self.table.start(s.game, list(s.players), options=s.options, seed=s.seed,
                                   colours=s.colours)
        self.tserver = create_app(self.table)
        self.server = make_server(self.host, self.port, self.tserver.app, threaded=True,
                                  request_handler=QuietHandler)
        self.url = f"http://{self.host}:{self.server.server_port}/"
        self.tserver.public_url = self.url
        self.camera = CameraTable(session, TablePipeline(s.game, self.registry, qr_every=None),
                                  colours=s.colours, on_change=self.tserver.broadcast)
        self.table.attach_camera(self.camera)
        threading.Thread(target=self.server.serve_forever, name="demo-server",
                         daemon=True).start()

    def play(self, *, realtime: bool = True, stop: threading.Event | None = None) -> TabletScript:
        from tableassist.vision.synthetic import Renderer

        assert self.camera is not None, "start() the demo first"
        video = self.scripted.video(Renderer(self.registry.dictionary), hands=self.hands,
                                    flicker=self.flicker)
        self.table.camera_status = {"state": "on", "notice": "synthetic table: a scripted game "
                                                            f"of {self.scripted.game}"}
        return play(self.scripted, self.camera, video, realtime=realtime, stop=stop,
                    on_frame=self._preview if realtime else None)

    def _preview(self, t: float, frame: Any) -> None:
        """The host screen's camera picture, as ``tableassist serve`` sends a webcam's: the
        synthetic frame with the markers found, a few times a second, to the host room only."""
        from tableassist.server.camera import PREVIEW_FPS, PREVIEW_WIDTH
        from tableassist.vision import annotate, encode_jpeg

        last = self.camera.pipeline.last if self.camera is not None else None
        if last is None or t - self._previewed < 1.0 / PREVIEW_FPS:
            return
        self._previewed = t
        picture = annotate(frame, last.detections, registry=self.registry, game=self.scripted.game)
        h, w = picture.shape[:2]
        self.tserver.socketio.emit("camera", {
            "jpeg": encode_jpeg(picture, quality=70, width=PREVIEW_WIDTH),
            "markers": len(last.detections), "size": [int(w), int(h)]}, to="host")

    def measure(self) -> dict[str, Any]:
        assert self.camera is not None
        return measure(self.scripted.game, self.camera.stats, self.scripted.expected)

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
        self.table.clock.cancel()
        self.table.store.close()
        if self._tmp is not None:
            self._tmp.cleanup()
