"""The camera as the server runs it: the capture source asked for on the command line, the vision
pipeline the camera reads each game with, the host screen's preview and its live camera check.

The camera itself (``tableassist.camera.live.Camera``: frames, readers, command cards, its
status) knows neither the vision nor the server; this module hands it the vision's pieces and
sends its frames, annotated, to the host screen: a small JPEG a few times a second to the
``host`` room only (other screens never get the picture), and to the "Your box" screens while one
is open (:class:`BoxLook`). Frames are read at ``READ_FPS``
whether or not a host screen watches; the preview reuses what the pipeline found.

The camera check (:class:`CameraCheck`) runs while the host screen asks for it: every few seconds
the newest frame is measured (``tableassist.vision.check``, read with the pipeline's own detector)
in a thread of its own, so the camera reads on meanwhile, and the report with its picture goes to
the host screens, each in its language.

Without the vision package, or without a camera, the server runs on and the host screen says
why there is no picture.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tableassist.camera.status import CameraStatus
from tableassist.games.messages import Message
from tableassist.markers.registry import Registry, RegistryError

if TYPE_CHECKING:
    import numpy as np

    from tableassist.server.app import TableServer
    from tableassist.vision import FrameResult, MarkerDetector, TablePipeline
    from tableassist.vision.check import CameraReport
    from tableassist.vision.sources import FrameSource

#: Preview rate and size: enough to check the framing and the markers, cheap on the network.
PREVIEW_FPS = 4
PREVIEW_WIDTH = 800
#: Frames read per second while a game is played: the tracker confirms a change after 3 frames
#: seen within a second (docs/readers.md).
READ_FPS = 8
#: The live camera check looks again this often (s) while the host screen shows it; its picture
#: is this wide.
CHECK_EVERY = 2.0
CHECK_WIDTH = 960

log = logging.getLogger("tableassist.camera")


class CameraError(Exception):
    """The camera asked for on the command line cannot be used (the message says why)."""


def open_camera(spec: str, size: tuple[int, int] | None = None
                ) -> tuple[FrameSource | None, CameraStatus]:
    """The capture source for ``spec`` ("auto", "none", a camera index, a network camera's URL, a
    video or image file, a folder of images, or "demo") and the camera's first status: "starting"
    with a source, "off" with the reason without one ("auto" that finds no camera, "none"). A
    source asked for by name that cannot be opened raises :class:`CameraError`. ``size`` is asked
    of a webcam instead of its best mode (``--camera-size``)."""
    if spec == "none":
        return None, CameraStatus(state="off", notice=Message(
            "camera.notice.none", "no camera (started with --camera none)"))
    try:
        from tableassist.vision import SourceError, open_source
    except ImportError:
        if spec == "auto":
            return None, CameraStatus(state="off", notice=Message(
                "camera.notice.no_support", "no camera: camera support is not part of this "
                "installation"))
        raise CameraError(Message("camera.no_support", "camera support (tableassist.vision) is "
                                  "not part of this installation; use --camera none")) from None
    if spec == "auto" and sys.platform.startswith("linux") and not Path("/dev/video0").exists():
        return None, CameraStatus(state="off", notice=Message(
            "camera.notice.not_found", "no camera found; play by tablet, or restart with "
            "--camera INDEX|URL|FILE|DIR|demo"))
    try:
        source = open_source("0" if spec == "auto" else spec, size)
    except SourceError as exc:
        import tableassist.i18n as i18n   # its sentence by id, worded in each screen's language
        if spec == "auto":
            return None, CameraStatus(state="off", notice=Message(
                "camera.notice.not_found_because", "no camera found ({reason}); play by tablet, "
                "or restart with --camera INDEX|URL|FILE|DIR|demo",
                reason=i18n.from_json(exc.words.to_json()) or str(exc)))
        raise CameraError(i18n.from_json(exc.words.to_json()) or str(exc)) from None
    return source, CameraStatus(state="starting", notice=starting(camera_name(spec)))


def starting(camera: str) -> Message:
    """A camera's first notice, by its name: "camera 0: starting"."""
    return Message("camera.notice.starting", "{camera}: starting", camera=camera)


def camera_name(spec: str) -> str:
    """How the screens call the source ``spec``: "camera 0", "camera clip.mp4"."""
    return Message("camera.name", "camera {spec}", spec="0" if spec == "auto" else spec)


def pipeline_for(registry: Registry, *, qr_every: float | None = 1.0
                 ) -> Callable[[str | None], TablePipeline]:
    """The camera's pipeline factory: a game's table with its markers and the command cards
    (scanned every ``qr_every`` seconds; None: never, for tests of the markers alone); no game,
    the command cards only."""
    from tableassist.vision import TablePipeline

    return lambda game: TablePipeline(game, registry, qr_every=qr_every)


class PreviewPicture:
    """The preview picture of one frame: the markers found outlined and labelled, as a small JPEG
    (``{jpeg, markers, size}``, what the host screen's ``camera`` event carries). The markers the
    game's pipeline found are reused; without a game's reading they are found for the picture
    only. The server's :class:`Preview` and a camera agent's make it the same way."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._detector: MarkerDetector | None = None
        #: The ids of the markers in the last picture made (for the host's "not seen: …").
        self.ids: list[int] = []

    def __call__(self, frame: np.ndarray, seen: FrameResult | None, *, game: str | None,
                 reading: bool) -> dict[str, Any] | None:
        from tableassist.vision import FrameResult, MarkerDetector, SourceError, annotate, \
            encode_jpeg

        if isinstance(seen, FrameResult) and reading:
            detections = seen.detections   # the game's pipeline found them
        else:   # no game is read: find the markers for the picture only
            if self._detector is None:
                self._detector = MarkerDetector(self.registry.dictionary)
            detections = self._detector.detect(frame)
        self.ids = [int(i) for i in detections.ids]
        picture = annotate(frame, detections, registry=self.registry, game=game)
        h, w = picture.shape[:2]
        try:
            jpeg = encode_jpeg(picture, quality=70, width=PREVIEW_WIDTH)
        except SourceError:
            return None
        return {"jpeg": jpeg, "markers": len(detections), "size": [int(w), int(h)]}


class Every:
    """A rate limit: ``due()`` says yes at most ``per_second`` times a second."""

    def __init__(self, per_second: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.period = 1.0 / per_second
        self.clock = clock
        self._last = -1e9

    def due(self) -> bool:
        now = self.clock()
        if now - self._last < self.period:
            return False
        self._last = now
        return True


class Preview:
    """The host screen's camera picture: told every frame the camera reads (a
    ``camera.live.FrameListener``), it sends one a few times a second, with the markers found
    outlined, to the host room, while a host screen is connected."""

    def __init__(self, server: TableServer, registry: Registry) -> None:
        self.server = server
        self.registry = registry
        self.frames = 0
        self._picture = PreviewPicture(registry)
        self._rate = Every(PREVIEW_FPS)

    def __call__(self, t: float, frame: np.ndarray, seen: FrameResult | None) -> None:
        if not self.server.host_watching() or not self._rate.due():
            return   # nobody is looking: no detection for the preview, no JPEG
        session = self.server.table.session
        game = None if session is None else session.saved.game
        picture = self._picture(frame, seen, game=game,
                                reading=self.server.table.camera_status.reading)
        if picture is None:
            return
        self.frames += 1
        missing = self.missing(self._picture.ids, game)
        self.server.socketio.emit("camera", {**picture, "missing": missing}, to="host")

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


class BoxLook:
    """The "Your box" screens' camera help: told every frame the camera reads (a
    ``camera.live.FrameListener``), it hands the frame and the markers in it to the server's
    :class:`~tableassist.server.box.BoxCamera` while a box screen is open. The markers the game's
    pipeline found are reused when it reads the very game whose box is open; otherwise (no game
    read, or another game's box) they are found in the frame with every id."""

    def __init__(self, server: TableServer, registry: Registry) -> None:
        self.server = server
        self.registry = registry
        self._detector: MarkerDetector | None = None

    def __call__(self, t: float, frame: np.ndarray, seen: FrameResult | None) -> None:
        from tableassist.vision import FrameResult, MarkerDetector

        box = self.server.box_camera
        if not box.watching():
            return
        session = self.server.table.session
        read = None if session is None or not self.server.table.camera_status.reading \
            else session.saved.game
        if isinstance(seen, FrameResult) and read is not None and box.games() == {read}:
            detections = seen.detections
        else:
            if self._detector is None:
                self._detector = MarkerDetector(self.registry.dictionary)
            detections = self._detector.detect(frame)
        box.look(frame, detections)


class CameraCheck:
    """The host screen's live camera check: told every frame the camera reads (a
    ``camera.live.FrameListener``), it measures the newest one every :data:`CHECK_EVERY` seconds
    while the host screen asks for it (:meth:`want`) and is connected, in a thread of its own,
    and sends the report (``CameraReport.to_json``, its advice in each host screen's language)
    with its picture (zones, seats, scale and the stickers not read drawn) to the host screens as
    a ``camera_check`` event. The frame is read as the pipeline reads a game
    (``check.check_detector``)."""

    def __init__(self, server: TableServer, registry: Registry, source: FrameSource | None = None
                 ) -> None:
        self.server = server
        self.registry = registry
        self.source = source
        self.on = False
        self.game: str | None = None
        self.reports = 0
        self._busy = threading.Lock()
        self._last = -1e9
        self._detectors: dict[str | None, MarkerDetector] = {}

    def want(self, on: bool, game: str | None = None) -> None:
        """Start (at the next frame) or stop checking, for ``game``'s stickers (None: the game
        being played, if any)."""
        self.on, self.game = on, game
        self._last = -1e9

    def __call__(self, t: float, frame: np.ndarray, seen: FrameResult | None) -> None:
        now = time.monotonic()
        if not self.on or now - self._last < CHECK_EVERY or not self.server.host_watching():
            return
        if not self._busy.acquire(blocking=False):
            return     # the last check is still being measured
        self._last = now
        session = self.server.table.session
        game = self.game or (None if session is None or session.saved.ended else session.saved.game)
        threading.Thread(target=self._check, args=(frame, game), name="camera check",
                         daemon=True).start()

    def _check(self, frame: np.ndarray, game: str | None) -> None:
        try:
            report, picture = self.measure(frame, game)
            from tableassist.vision import encode_jpeg
            jpeg = encode_jpeg(picture, quality=75)
            self.reports += 1
            self.server.emit_to_host("camera_check", {
                "report": report.to_json(), "jpeg": jpeg,
                "size": [int(picture.shape[1]), int(picture.shape[0])]})
        except Exception:  # noqa: BLE001 - a bug must not stop the camera
            log.exception("the camera check failed")
            self.server.emit_to_host("camera_check", {"error": Message(
                "camera.check.failed", "the camera check failed (an internal error; see the "
                "server's console)")})
        finally:
            self._busy.release()

    def measure(self, frame: np.ndarray, game: str | None) -> tuple[CameraReport, np.ndarray]:
        """The report and its picture for one frame (``game``: whose stickers)."""
        from tableassist.vision.check import check_camera, check_detector, draw_check, look
        from tableassist.vision.geometry import Layout, TableGeometry

        detector = self._detectors.get(game)
        if detector is None:
            detector = self._detectors[game] = check_detector(self.registry, game)
        layout = Layout.for_game(game)
        geometry = TableGeometry(layout, self.registry, game)
        seen = look(detector, frame)
        mode = getattr(self.source, "mode", None)
        report = check_camera([seen], layout=layout, registry=self.registry, game=game,
                              mode=mode, geometry=geometry, detector=detector)
        return report, draw_check(frame, report, seen.found, geometry, registry=self.registry,
                                  width=CHECK_WIDTH)
