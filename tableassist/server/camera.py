"""The camera as the server runs it: the capture source asked for on the command line, the vision
pipeline the camera reads each game with, and the host screen's preview.

The camera itself (``tableassist.readers.live.Camera``: frames, readers, command cards, its
status) knows neither the vision nor the server; this module hands it the vision's pieces and
sends its frames, annotated, to the host screen: a small JPEG a few times a second to the
``host`` room only (other screens never get the picture). Frames are read at ``READ_FPS``
whether or not a host screen watches; the preview reuses what the pipeline found.

Without the vision package, or without a camera, the server runs on and the host screen says
why there is no picture.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tableassist.markers.registry import Registry, RegistryError
from tableassist.readers.live import CameraStatus, FrameSource, LastFrame

if TYPE_CHECKING:
    import numpy as np

    from tableassist.server.app import TableServer
    from tableassist.vision import MarkerDetector, TablePipeline

#: Preview rate and size: enough to check the framing and the markers, cheap on the network.
PREVIEW_FPS = 4
PREVIEW_WIDTH = 800
#: Frames read per second while a game is played: the tracker confirms a change after 3 frames
#: seen within a second (docs/readers.md).
READ_FPS = 8


class CameraError(Exception):
    """The camera asked for on the command line cannot be used (the message says why)."""


def open_camera(spec: str) -> tuple[FrameSource | None, CameraStatus]:
    """The capture source for ``spec`` ("auto", "none", a camera index, a video or image file, a
    folder of images, or "demo") and the camera's first status: "starting" with a source, "off"
    with the reason without one ("auto" that finds no camera, "none"). A source asked for by
    name that cannot be opened raises :class:`CameraError`."""
    if spec == "none":
        return None, CameraStatus(state="off", notice="no camera (started with --camera none)")
    try:
        from tableassist.vision import SourceError, open_source
    except ImportError:
        if spec == "auto":
            return None, CameraStatus(state="off", notice="no camera: camera support is not "
                                                          "part of this installation")
        raise CameraError("camera support (tableassist.vision) is not part of this "
                          "installation; use --camera none") from None
    if spec == "auto" and sys.platform.startswith("linux") and not Path("/dev/video0").exists():
        return None, CameraStatus(state="off", notice="no camera found; play by tablet, or "
                                                      "restart with --camera INDEX|FILE|DIR|demo")
    try:
        source = open_source("0" if spec == "auto" else spec)
    except SourceError as exc:
        if spec == "auto":
            return None, CameraStatus(state="off", notice=f"no camera found ({exc}); play by "
                                      "tablet, or restart with --camera INDEX|FILE|DIR|demo")
        raise CameraError(str(exc)) from None
    return source, CameraStatus(state="starting", notice=f"{camera_name(spec)}: starting")


def camera_name(spec: str) -> str:
    """How the screens call the source ``spec``: "camera 0", "camera clip.mp4"."""
    return f"camera {'0' if spec == 'auto' else spec}"


def pipeline_for(registry: Registry, *, qr_every: float | None = 1.0
                 ) -> Callable[[str | None], TablePipeline]:
    """The camera's pipeline factory: a game's table with its markers and the command cards
    (scanned every ``qr_every`` seconds; None: never, for tests of the markers alone); no game,
    the command cards only."""
    from tableassist.vision import TablePipeline

    # The QR scan on its own thread: a frame that confirms a move never waits for zbar.
    return lambda game: TablePipeline(game, registry, qr_every=qr_every, qr_thread=True)


class Preview:
    """The host screen's camera picture: told every frame the camera reads (a
    ``readers.live.FrameListener``), it sends one a few times a second, with the markers found
    outlined, to the host room, while a host screen is connected."""

    def __init__(self, server: TableServer, registry: Registry) -> None:
        self.server = server
        self.registry = registry
        self.frames = 0
        self._detector: MarkerDetector | None = None
        self._sent = -1e9

    def __call__(self, t: float, frame: np.ndarray, seen: LastFrame | None) -> None:
        from tableassist.vision import FrameResult, MarkerDetector, SourceError, annotate, \
            encode_jpeg

        now = time.monotonic()
        if now - self._sent < 1.0 / PREVIEW_FPS or not self.server.host_watching():
            return   # nobody is looking: no detection for the preview, no JPEG
        self._sent = now
        if isinstance(seen, FrameResult) and self.server.table.camera_status.reading:
            detections = seen.detections   # the game's pipeline found them
        else:   # no game is read: find the markers for the picture only
            if self._detector is None:
                self._detector = MarkerDetector(self.registry.dictionary)
            detections = self._detector.detect(frame)
        session = self.server.table.session
        game = None if session is None else session.saved.game
        picture = annotate(frame, detections, registry=self.registry, game=game)
        h, w = picture.shape[:2]
        try:
            jpeg = encode_jpeg(picture, quality=70, width=PREVIEW_WIDTH)
        except SourceError:
            return
        self.frames += 1
        self.server.socketio.emit("camera", {"jpeg": jpeg, "markers": len(detections),
                                             "missing": self.missing(detections.ids, game),
                                             "size": [int(w), int(h)]}, to="host")

    #: The markers that never move, in words: the host is told which of them the camera misses.
    FIXED = {"table_corner": "table corner", "board": "board corner", "ship": "ship sticker",
             "seat": "seat sticker"}

    def missing(self, ids: Any, game: str | None) -> list[str]:
        """The fixed markers (table and board corners, the players' seat stickers) not in this
        frame, in words ("table corner NE", "seat sticker blue"): which component is out of view
        or covered, not only how many markers were seen."""
        seen = {int(i) for i in ids}
        session = self.server.table.session
        seats = set() if session is None else \
            set(self.server.table.tokens.colours(session.saved.id).values())
        try:
            markers = self.registry.markers(game)
        except RegistryError:
            markers = self.registry.markers(None)
        return [f"{self.FIXED[m.component]} {m.item}" for m in markers
                if m.component in self.FIXED and m.id not in seen
                and (m.component != "seat" or m.item in seats)]
