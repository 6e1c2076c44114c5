"""The camera agent's camera: each frame through the game's vision pipeline, its table events
into the journal, the camera's state and the preview picture to the server.

The frames are read by the one loop a camera at the server reads with
(``camera.frames.read_frames``); the pipeline and the preview picture are made as the server
makes them (``server/camera.py``), so a table read through an agent reads as one read at the
server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from tableassist.agent.journal import Journal
from tableassist.agent.link import ACK_TIMEOUT, Link
from tableassist.games.messages import Message
from tableassist.markers.registry import load_registry
# The one import of the live camera loop in this part.
from tableassist.camera.frames import Pace, read_frames
from tableassist.camera.live import MARKERS_EVERY
from tableassist.server.camera import Every, PreviewPicture, pipeline_for, starting

if TYPE_CHECKING:
    from tableassist.vision import TablePipeline
    from tableassist.vision.frame import Frame
    from tableassist.vision.sources import FrameSource

#: How often the agent sends the preview picture while the host screen shows it.
AGENT_PREVIEW_FPS = 2


class Agent:
    """The camera agent of table ``table`` at ``server`` (a base URL): frames of ``source``
    (called ``source_name`` on the screens) → pipeline → batches in ``journal`` → the server.

    :meth:`run` reads the source in this thread, ``fps`` frames a second, until :meth:`stop`;
    the :class:`~tableassist.agent.link.Link` (:attr:`link`) sends the batches and follows the
    server's reading in threads of its own. ``say`` is told, in a line, whatever the agent does
    that its user may want to know; the server words what it tells the agent in ``lang`` (the
    command's language)."""

    def __init__(self, server: str, table: str, key: str, source: FrameSource, source_name: str,
                 journal: Journal, *, fps: float, say: Callable[[Message | str], None] = print,
                 lang: str = "en") -> None:
        self.source, self.source_name = source, source_name
        self.journal = journal
        self.fps = fps
        self.say = say
        registry = load_registry()
        self.pipeline_for = pipeline_for(registry)
        self.picture = PreviewPicture(registry)
        self.link = Link(server, table, key, journal, say=say, lang=lang, status={
            "state": "starting", "notice": starting(source_name), "mode": None,
            "markers": None, "stickers": [], "slow": None})
        self.pipeline: TablePipeline | None = None
        self._pipeline_reading: str | None = None   # the reading self.pipeline was made for
        self._markers_every = Every(1.0 / MARKERS_EVERY)   # the count of markers, as a local camera
        self._preview_every = Every(AGENT_PREVIEW_FPS)
        self._pace = Pace()                 # how many pictures a second it reads

    def _device(self, **fields: Any) -> None:
        """The source's state (``read_frames``): kept, and sent to the server."""
        self.link.status.update(fields)
        self.say(Message("camera.agent.notice", "camera: {notice}",
                         notice=self.link.status['notice']))
        self.link.show()

    def process(self, frame: Frame, t: float) -> None:
        """One frame: its events into the journal, the camera's state and (while a host screen
        looks) its picture to the server. Nothing before the server says what to read."""
        tracking = self.link.tracking()
        if tracking is None:
            return   # the server has not said which game to track yet
        reading, game = tracking
        if self.pipeline is None or self._pipeline_reading != reading:
            self.pipeline = self.pipeline_for(game)
            self._pipeline_reading = reading
        pipeline = self.pipeline
        try:
            events = pipeline.update(frame, t)
        except Exception as exc:  # noqa: BLE001 - a bug must not stop the camera
            self.say(Message("camera.agent.frame_failed", "the camera could not read a frame "
                             "({kind}: {why})", kind=type(exc).__name__, why=str(exc)))
            return
        if events:
            self.link.add(reading, t, [e.to_json() for e in events])
        if self._pace.read(t, pipeline.tracker.confirm_frames):
            slow = self._pace.slow
            self.link.show(slow=None if slow is None else list(slow))
        seen = pipeline.last
        status = self.link.status
        markers = len(seen.detections) if seen is not None and game else None
        stickers = [asdict(f) for f in seen.failing] if seen is not None and game else []
        if stickers != status["stickers"]:   # the stickers failing: told when they change
            self.link.show(markers=markers, stickers=stickers)
        elif markers != status["markers"] and self._markers_every.due():
            self.link.show(markers=markers)
        if self.link.preview and self.link.connected and self._preview_every.due():
            picture = self.picture(frame, seen, game=game, reading=game is not None)
            if picture is not None:
                self.link.send_picture(picture)

    def run(self) -> int:
        """Connect, then read the source until stopped. Returns the exit code: 0 when stopped,
        1 when the staff closed the table, 2 when the server refused the agent."""
        link = self.link
        if not link.connect(first=True):
            if link.refused:
                self.say(Message("camera.agent.refused", "tableassist camera: {why}",
                                 why=link.refused))
                return 2
            return link.exit_code
        link.start_sending()
        # a recording (a video, a folder) is not skipped while the server says what to read: it
        # is read from its first frame, however long that takes; a live camera starts anyway
        link.wait_for_reading(None if getattr(self.source, "recorded", False) else ACK_TIMEOUT)
        try:
            read_frames(self.source, self.process, self._device, stop=link.stopped,
                        name=self.source_name, fps=self.fps)
        finally:
            self.stop()
        return link.exit_code

    def stop(self) -> None:
        self.link.stop()

    def close(self) -> None:
        """Stop, and let go of the connection, the source and the journal."""
        self.link.close()
        self.source.close()
        self.journal.close()
