"""The host screen's camera preview: frames read in a thread, markers found and outlined, a small
JPEG sent a few times a second to the ``host`` room only (other screens never get the picture).

While a game is played the same frames go to the camera playing along
(``tableassist.readers.live.PlayAlong``: pipeline, the game's reader, the session), at
``READ_FPS`` whether or not a host screen watches; the preview reuses what it found.

The vision package (``tableassist.vision``) does the work; this module only paces it and ships
the result. Without the vision package, or without a camera, the server runs on and the host
screen says why there is no preview.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

#: Preview rate and size: enough to check the framing and the markers, cheap on the network.
PREVIEW_FPS = 4
PREVIEW_WIDTH = 800
#: Frames read per second for the camera playing along: the tracker confirms a change after 3
#: frames seen within a second (docs/readers.md).
READ_FPS = 8


class CameraError(Exception):
    """The camera asked for on the command line cannot be used (the message says why)."""


class CameraFeed:
    """One capture source feeding the host's preview."""

    def __init__(self, source: Any, spec: str, table: Any) -> None:
        self.source = source
        self.spec = spec
        self.table = table
        self.server: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames = 0

    def attach(self, server: Any) -> None:
        self.server = server
        self._thread = threading.Thread(target=self._loop, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop reading and let the source go (the camera is free for other programs)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.source.close()

    def _loop(self) -> None:
        from tableassist.markers.registry import load_registry
        from tableassist.vision import MarkerDetector, SourceError, annotate, encode_jpeg

        from tableassist.readers.live import PlayAlong

        registry = load_registry()
        detector = MarkerDetector(registry.dictionary)
        def changed() -> None:
            if self.server is not None:
                self.server.broadcast()

        along = PlayAlong(self.table, registry, on_change=changed)
        period = 1.0 / READ_FPS
        t0 = time.monotonic()
        previewed = -1e9
        misses = 0
        while not self._stop.is_set():
            started = time.monotonic()
            frame = self.source.read()
            if frame is None:
                misses += 1
                if misses == 20:
                    self._status("lost", f"camera {self.spec}: no picture (unplugged, or the "
                                         "video ended)")
                self._stop.wait(period)
                continue
            if self.table.camera_status.get("state") != "on":  # once, not every frame:
                self._status("on", f"camera {self.spec}")         # each one is a broadcast
            misses = 0
            # the camera plays along whenever a game with a reader is on
            seen = along.process(frame, started - t0)
            box = getattr(self.server, "box_camera", None)
            if box is not None and box.watching():  # a "Your box" screen is open
                box.look(frame, seen.detections if seen is not None else detector.detect(frame))
            if self.server is None or not self.server.host_watching() or \
                    started - previewed < 1.0 / PREVIEW_FPS:
                # Frames are still read (so a camera's buffer never serves a stale picture), but
                # nobody is looking: no preview detection, no JPEG.
                self._stop.wait(max(0.0, period - (time.monotonic() - started)))
                continue
            previewed = started
            detections = seen.detections if seen is not None else detector.detect(frame)
            session = self.table.session
            game = None if session is None else session.saved.game
            picture = annotate(frame, detections, registry=registry, game=game)
            h, w = picture.shape[:2]
            try:
                jpeg = encode_jpeg(picture, quality=70, width=PREVIEW_WIDTH)
            except SourceError:
                jpeg = None
            if jpeg is not None and self.server is not None:
                self.frames += 1
                self.server.socketio.emit(
                    "camera", {"jpeg": jpeg, "markers": len(detections),
                               "size": [int(w), int(h)]}, to="host")
            self._stop.wait(max(0.0, period - (time.monotonic() - started)))

    def _status(self, state: str, notice: str) -> None:
        self.table.camera_status = {"state": state, "notice": notice}
        if self.server is not None:
            self.server.broadcast()


def start_camera(spec: str, table: Any) -> CameraFeed | None:
    """Open the preview source ``spec`` ("auto", "none", a camera index, a video or image file, a
    folder of images, or "demo"); ``None`` and a notice on the host screen when there is none."""
    if spec == "none":
        table.camera_status = {"state": "off", "notice": "no camera (started with --camera none)"}
        return None
    try:
        from tableassist.vision import SourceError, open_source
    except ImportError:
        if spec == "auto":
            table.camera_status = {"state": "off", "notice":
                                   "no camera: camera support is not part of this installation"}
            return None
        raise CameraError("camera support (tableassist.vision) is not part of this "
                          "installation; use --camera none") from None
    if spec == "auto" and sys.platform.startswith("linux") and not Path("/dev/video0").exists():
        table.camera_status = {"state": "off", "notice": "no camera found; play by tablet, or "
                               "restart with --camera INDEX|FILE|DIR|demo"}
        return None
    try:
        source = open_source("0" if spec == "auto" else spec)
    except SourceError as exc:
        if spec == "auto":
            table.camera_status = {"state": "off", "notice":
                                   f"no camera found ({exc}); play by tablet, or restart with "
                                   "--camera INDEX|FILE|DIR|demo"}
            return None
        raise CameraError(str(exc)) from None
    table.camera_status = {"state": "starting", "notice": f"camera {spec}: starting"}
    return CameraFeed(source, "0" if spec == "auto" else spec, table)
