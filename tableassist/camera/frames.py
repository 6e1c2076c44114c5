"""Reading a frame source: the one loop the camera at the server (``Camera.run``) and a camera
agent next to the webcam (``tableassist camera``) read their sources with, and what it says of the
source (on, lost, reconnecting, off, and the picture it gives)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tableassist.games.messages import Message, from_words

if TYPE_CHECKING:
    # Only the types: a source is read through its two methods, so the server runs without
    # loading OpenCV when it has no camera.
    from tableassist.vision.frame import Frame
    from tableassist.vision.sources import CaptureMode, FrameSource, Link

#: Frames in a row without a picture before the camera counts as lost.
LOST_AFTER_MISSES = 20
#: Below this many pictures read a second the camera says it is slow: the tracker wants a card
#: in 3 pictures, and a card shown for a second (a command card held up) is then missed.
SLOW_PACE = 3.0
#: The pace is measured over this many pictures read.
PACE_FRAMES = 10


class Pace:
    """How many pictures a second a camera reads, and whether that is too few: `read(t,
    confirm_frames)` with each picture's time (s, the source's own) says whether `slow`, the
    status's field, changed: (pictures a second, seconds a card must lie in view to be read:
    ``confirm_frames`` pictures, to the half second), or None at :data:`SLOW_PACE` and over; it
    stays as it is while those seconds do. `clear()` for a new source. The camera at the server
    and a camera agent both."""

    def __init__(self) -> None:
        self._times: deque[float] = deque(maxlen=PACE_FRAMES)
        self.slow: tuple[float, float] | None = None

    def clear(self) -> None:
        self._times.clear()
        self.slow = None

    def read(self, t: float, confirm_frames: int) -> bool:
        times = self._times
        if times and t < times[-1]:
            times.clear()          # a recording started again
        times.append(t)
        if len(times) < PACE_FRAMES:
            return False
        span = times[-1] - times[0]
        pace = (len(times) - 1) / span if span > 0 else float("inf")
        slow = None if pace >= SLOW_PACE else (round(pace, 1), max(0.5, round(2 * confirm_frames / pace) / 2))
        if slow is None or self.slow is None or slow[1] != self.slow[1]:
            changed, self.slow = slow != self.slow, slow
            return changed
        return False


def mode_fields(mode: CaptureMode | str | None, frame: Frame) -> dict[str, Any]:
    """The status's picture fields (``mode``, ``size``, ``codec``, ``fps``) from what the source
    says of its picture (a :class:`~tableassist.vision.sources.CaptureMode`, a line of text, or
    nothing: then the frame's size)."""
    h, w = frame.shape[:2]
    if mode is None or isinstance(mode, str):
        return {"mode": mode or f"{w}x{h}", "size": (int(w), int(h)), "codec": None, "fps": None}
    return {"mode": str(mode), "size": (int(mode.width), int(mode.height)), "codec": mode.codec,
            "fps": mode.fps}


def read_frames(source: FrameSource, process: Callable[[Frame, float], None],
                device: Callable[..., None], *, stop: threading.Event,
                clock: Callable[[], float] = time.perf_counter, name: str = "camera",
                fps: float | None = None, frame_time: Callable[[], float] | None = None,
                until_end: bool = False) -> None:
    """Read ``source`` until ``stop`` is set (or, with ``until_end``, until it gives no frame),
    handing each frame and its time in seconds to ``process``, and telling ``device(state=,
    notice=, …)`` (the fields of :class:`~tableassist.camera.status.CameraStatus` about the
    source) what the source does: "on" with its mode (:func:`mode_fields`) at the first picture
    and when the mode changes, "reconnecting" or "lost" as a network source's link says, "lost"
    after :data:`LOST_AFTER_MISSES` reads without a picture, "off" at the end of a video.

    The camera at the server (``Camera.run``) and a camera agent next to the webcam read their
    sources with this one loop. ``name`` is how the screens call the source ("camera 0"); ``fps``
    paces the reading (None: as fast as the source gives frames); ``frame_time`` gives each
    frame's time in seconds (default: a recording's own, see ``FrameSource``, so that a video or a
    folder of images reads the same on a slow or busy machine; else since the start, by
    ``clock``; the synthetic table gives its video time).

    OpenCV runs on one thread in the loop (`vision.detect.one_thread`, the large scans excepted):
    a frame's work is many small images, and a thread count set and reset with every frame
    made and joined OpenCV's worker threads each time (0.1-0.2 ms a frame, for nothing)."""
    # here, not at the module's top: the server loads OpenCV only once it has a camera
    from tableassist.vision.detect import one_thread
    with one_thread():
        _read_frames(source, process, device, stop=stop, clock=clock, name=name, fps=fps,
                     frame_time=frame_time, until_end=until_end)


def _read_frames(source: FrameSource, process: Callable[[Frame, float], None],
                 device: Callable[..., None], *, stop: threading.Event,
                 clock: Callable[[], float], name: str, fps: float | None,
                 frame_time: Callable[[], float] | None, until_end: bool) -> None:
    taken = 0   # frames handed on: a folder's clock
    if frame_time is None:
        frame_time = getattr(source, "frame_time", None)
    if frame_time is None and fps and getattr(source, "recorded", False):
        def frame_time() -> float:
            return taken / fps
    frame_time = frame_time or clock
    t0 = frame_time()
    misses = 0
    on = False
    shown: tuple[object, ...] | None = None   # the link or mode last told
    while not stop.is_set():
        tick = clock()
        frame = source.read()
        # what a source may say besides its frames (FrameSource): how its stream is
        link: Link | None = getattr(source, "link", None)
        if frame is None:
            if until_end:
                device(state="off", notice=Message("frames.notice.video_ended",
                                                   "{camera}: the video ended", camera=name),
                       markers=None, stickers=())
                return
            if link is not None and link.state != "on":
                # the source knows why: its stream dropped; it reconnects by itself
                if shown != ("link", link):
                    shown, on = ("link", link), False
                    device(state="reconnecting" if link.state == "reconnecting" else "lost",
                           notice=link_notice(name, link), markers=None,
                           attempt=link.attempt or None, retry_in=link.retry_in)
                stop.wait(0.05)
                continue
            misses += 1
            if misses == LOST_AFTER_MISSES:
                on = False
                shown = None
                device(state="lost", notice=Message(
                    "frames.notice.no_picture",
                    "{camera}: no picture (unplugged, or the video ended)", camera=name))
            stop.wait(1.0 / fps if fps else 0.05)
            continue
        misses = 0
        mode = mode_fields(getattr(source, "mode", None), frame)
        if not on or shown != ("mode", mode):
            on, shown = True, ("mode", mode)
            device(state="on", notice=name, attempt=None, retry_in=None, **mode)
        process(frame, frame_time() - t0)
        taken += 1
        if fps:
            # frames are read at this pace whether or not anyone watches (a live source
            # gives the newest picture, whatever the pace)
            stop.wait(max(0.0, 1.0 / fps - (clock() - tick)))


class Latest:
    """The frame waiting for the detection thread: the capture thread puts each frame it reads,
    the detection thread takes it when it is free.

    From a live source (a webcam, a network camera: a picture not read is gone anyway) the newest
    wins: a frame not taken before the next one came is dropped and counted (``dropped``), as a
    late frame is worth less than a fresh one and a queue would only add latency. From a
    recording (a video file, a folder of images) every frame is read: ``put(..., wait=True)``
    waits until the frame before was taken."""

    def __init__(self) -> None:
        self._ready = threading.Condition()
        self._item: tuple[Frame, float, float] | None = None
        self._closed = False
        #: Frames replaced by a newer one before the detection thread took them.
        self.dropped = 0

    def put(self, frame: Frame, t: float, started: float, *, wait: bool = False) -> None:
        """Hand over ``frame`` (its time ``t``, and when it was read by the camera's clock);
        ``wait``: until the frame before was taken, rather than dropping it."""
        with self._ready:
            if wait:
                self._ready.wait_for(lambda: self._item is None or self._closed)
            if self._closed:
                return
            if self._item is not None:
                self.dropped += 1
            self._item = (frame, t, started)
            self._ready.notify_all()

    def take(self) -> tuple[Frame, float, float] | None:
        """The frame not taken yet, waiting for one; None once :meth:`close` was called (a frame
        put before is still taken first)."""
        with self._ready:
            self._ready.wait_for(lambda: self._item is not None or self._closed)
            item, self._item = self._item, None
            self._ready.notify_all()
            return item

    def close(self) -> None:
        """No more frames: :meth:`take` returns None once the last one is taken."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()


def link_notice(name: str, link: Link) -> Message:
    """What a network source's dropped stream says on the screens, in their language (``Link.text``
    is the command line's English); the reason is the source's own words."""
    known = "yes" if link.reason else "no"
    reason = from_words(link.reason) if link.reason else ""
    if link.state == "lost":
        return Message("frames.notice.stream_stopped",
                       "{camera}: the stream stopped{known, select, yes { ({reason})} other {}}",
                       camera=name, known=known, reason=reason)
    return Message("frames.notice.reconnecting",
                   "{camera}: reconnecting{known, select, yes { ({reason})} other {}}: attempt "
                   "{attempt}{waits, select, yes {, next in {retry} s} other {}}",
                   camera=name, known=known, reason=reason, attempt=link.attempt,
                   waits="no" if link.retry_in is None else "yes",
                   retry=float(link.retry_in or 0))   # "2.5 s", "2,5 s" in German
