"""Frame sources: a webcam by index, a network camera by URL, a video file, a folder of images, or the
synthetic demo table.

`open_source(spec, size=None)` picks one from a string; every source has `read() -> BGR frame | None`
(None: no new picture now, or it has ended) and `close()`. A webcam, a network camera and a video also
say what picture they give (`mode`: a `CaptureMode`, "1920x1080 MJPG at 30 fps": what the driver
granted and the rate measured, not what was asked). A live source (webcam or network camera) says how
its stream is (`link`: on, lost, or reconnecting with the attempt and the wait) and reconnects by
itself. Problems are `SourceError`s with a message a person can act on.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

# FFmpeg (OpenCV's backend for network streams) would print a line on stderr for every refused
# reconnection attempt; the source says what happened in its `link` instead.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

import cv2  # noqa: E402  (after the log level: OpenCV reads it when it first uses FFmpeg)
import numpy as np  # noqa: E402

from tableassist.markers.registry import MODES  # noqa: E402
from tableassist.vision.advice import Template, Words  # noqa: E402
from tableassist.vision.frame import Frame, shrink  # noqa: E402

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
#: URL schemes read as network cameras (OpenCV's FFmpeg backend): MJPEG over HTTP, as phone camera
#: apps serve it, and RTSP.
STREAM_SCHEMES = ("http://", "https://", "rtsp://", "rtsps://")

#: The modes a webcam is asked for when no size is given, best first: the first one granted is kept.
BEST_FIRST: tuple[tuple[int, int], ...] = tuple(reversed(MODES.values()))


class SourceError(RuntimeError):
    """A camera, file or folder that cannot give frames; the message says which and why (`reason`:
    the why alone, for a status line). `words` is the message as a sentence of the catalogues
    (`advice.Words`: the vision has no catalogue of its own), for a command line or a screen to
    say it in its language; the message is its English."""

    def __init__(self, words: Words, reason: Words | None = None) -> None:
        super().__init__(words.text)
        self.words = words
        #: the why alone, as a sentence (a stream's `Link.reason` while it reconnects)
        self.why = reason or words
        self.reason = self.why.text


#: What a source that cannot be used says (`SourceError.words`).
_SAYS = {
    "no_camera": Template("sources.no_camera", "camera {index} cannot be opened: no such camera, "
                          "or it is in use (try another index, e.g. 0 or 1, or check the cable and "
                          "permissions)"),
    "no_camera_short": Template("sources.no_camera_short", "the camera cannot be opened"),
    "no_stream": Template("sources.no_stream", "{url}: no video stream there (is the camera app "
                          "running and this machine on the same network? check the address and "
                          "port)"),
    "no_stream_short": Template("sources.no_stream_short", "no video stream at that address"),
    "no_file": Template("sources.no_file", "{path}: no such file"),
    "not_video": Template("sources.not_video", "{path}: not a video OpenCV can read"),
    "no_images": Template("sources.no_images", "{folder}: no images in this folder (looked for "
                          "{suffixes})"),
    "stream_size": Template("sources.stream_size", "{spec}: a network camera sends the size set in "
                            "its own app (choose the resolution there, e.g. 1920x1080); a size can "
                            "be asked of a webcam only"),
    "no_source": Template("sources.no_source", "{spec}: no such file, folder or camera (give a "
                          "camera index like 0, a camera's URL (http://… or rtsp://…), a video "
                          "file, a folder of images, or \"demo\")"),
    "own_size": Template("sources.own_size", "{spec}: a file or folder has its own picture size; a "
                         "size can be asked of a webcam only"),
    "not_image": Template("sources.not_image", "{path}: not an image OpenCV can read (empty or "
                          "damaged file?)"),
    "cannot_write": Template("sources.cannot_write", "{path}: cannot write an image there"),
    "no_jpeg": Template("sources.no_jpeg", "the frame cannot be encoded as JPEG"),
    # why a live stream dropped (`Link.reason`)
    "stream_closed": Template("sources.stream_closed", "the camera closed the connection"),
    "no_picture_for": Template("sources.no_picture_for", "no picture for {seconds} s"),
    "undecodable": Template("sources.undecodable", "a picture could not be decoded"),
    "closed": Template("sources.closed", "the camera was let go"),
}


class FrameSource(Protocol):
    """Where frames come from (`open_source`: a webcam, a network camera, a video, a folder of images,
    the synthetic table; a camera agent's or a test's own): `read()` gives a frame or None (none now,
    or the end); `close()` lets the camera go.

    A source may also say what picture it gives (`mode`: a `CaptureMode`, or a line of text) and,
    when it streams, how its stream is (`link`: a `Link`); the camera shows both. A recording
    (`recorded`: a video, a folder of images) is read frame by frame, none skipped, and has a time
    of its own, so that it reads the same however fast the machine: a video its clock
    (`frame_time()`, the time in s of the frame read last), a folder its order (its frames are
    taken to be the reading pace apart; `camera.frames.read_frames`)."""

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class CaptureMode:
    """The picture a source gives: `width` x `height`, the `codec` the camera sends (a FOURCC such as
    "MJPG" or "YUYV"; None when the backend does not say), the frame rate `fps` measured over the
    first seconds of the stream (None until then; a video file's own rate), and what was `asked`
    ("best": the best of BEST_FIRST; "1920x1080"; "app": a network camera, whose size is chosen in its
    own app; None: nothing was asked)."""

    width: int
    height: int
    codec: str | None = None
    fps: float | None = None
    asked: str | None = None

    def __str__(self) -> str:
        text = f"{self.width}x{self.height}"
        if self.codec:
            text += f" {self.codec}"
        if self.fps:
            text += f" at {self.fps:.3g} fps"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "codec": self.codec,
                "fps": None if self.fps is None else round(self.fps, 1), "asked": self.asked}


LinkState = Literal["on", "lost", "reconnecting"]


@dataclass(frozen=True)
class Link:
    """How a live source's stream is: "on" (pictures arrive), "lost" (they stopped: `reason`) or
    "reconnecting" (attempt `attempt` failed or is under way; the next in `retry_in` seconds).
    `reason` is a sentence (`Words`), for a screen to say it in its language."""

    state: LinkState
    attempt: int = 0
    retry_in: float | None = None
    reason: Words | None = None

    @property
    def text(self) -> str:
        if self.state == "on":
            return "on"
        why = f" ({self.reason.text})" if self.reason else ""
        if self.state == "lost":
            return f"the stream stopped{why}"
        wait = "" if self.retry_in is None else f", next in {self.retry_in:g} s"
        return f"reconnecting{why}: attempt {self.attempt}{wait}"


def fourcc_text(value: float) -> str | None:
    """A FOURCC property as its four letters ("MJPG"); None for 0 or anything unprintable."""
    code = int(value)
    if code <= 0:
        return None
    text = "".join(chr((code >> 8 * i) & 0xFF) for i in range(4))
    return text.strip() if text.isprintable() and text.strip() else None


def negotiate_mode(cap: Any, size: tuple[int, int] | None = None) -> tuple[int, int]:
    """Ask an opened capture for its best picture and return the size granted.

    MJPG first: over USB a camera sends 1080p uncompressed (YUYV) at a few frames a second, and
    V4L2 lists its sizes per pixel format, so the format goes before the size. Then each size of
    `BEST_FIRST` (or just `size`) is asked for and the first one the driver grants exactly is kept;
    a driver that grants none of them answers each with its nearest size, and the largest of those
    answers is kept."""
    cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
    best: tuple[int, int] | None = None
    for w, h in ([size] if size else BEST_FIRST):
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, w)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, h)
        got = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        if got == (w, h):
            return got
        if best is None or got[0] * got[1] > best[0] * best[1]:
            best = got
    assert best is not None
    cap.set(cv2.CAP_PROP_FRAME_WIDTH, best[0])
    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, best[1])
    return int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))


def quiet_capture(*args: Any) -> cv2.VideoCapture:
    """`cv2.VideoCapture(*args)` without OpenCV's warnings on stderr when it cannot open (the
    `SourceError` says it in words, and a reconnecting camera would print them at every attempt)."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(*args)
    finally:
        cv2.utils.logging.setLogLevel(level)


class LiveSource:
    """A camera that streams (a webcam, a network camera): a thread takes every picture as it
    comes, so `read()` gives a picture taken after it was called — each picture once, never one a
    buffer kept, never the last picture again once the stream has stopped — and measures the frame
    rate. Only the pictures asked for are decoded into images (`grab`, then `retrieve`).

    When the stream drops (a read fails: the connection closed, or no picture came within the
    backend's timeout) the source says so in `link`: "lost" for the first wait, then
    "reconnecting" with the number of the attempt and the wait before it, the waits of `retry` in
    turn (the last one repeats), until pictures flow again ("on"). The first opening happens in the
    constructor and raises `SourceError` when it fails: a wrong index or URL is said at once."""

    #: seconds before each reconnection attempt: the last repeats
    RETRY: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0)
    #: the frame rate is measured over this long after each connection
    FPS_WINDOW = 2.0

    def __init__(self, name: str, opener: Callable[[], Any], *, asked: str | None = None,
                 retry: Sequence[float] = RETRY, wait: float = 0.5) -> None:
        self.name = name
        self._opener = opener
        self._asked = asked
        self.retry = tuple(retry)
        self.wait = wait
        self._lock = threading.Condition()
        self._stop = threading.Event()
        self._cap: Any = None
        self._want = False      # read() waits for a picture: decode the next one
        self._seq = 0           # pictures handed over on this connection
        self._given = 0         # the last one read() took
        self._frame: np.ndarray | None = None
        self._times: deque[float] = deque(maxlen=240)
        self._size: tuple[int, int] | None = None
        self._codec: str | None = None
        self._fps: float | None = None
        self.link = Link("on")
        self._attach(opener())
        self._thread = threading.Thread(target=self._run, name=f"capture {name}", daemon=True)
        self._thread.start()

    @property
    def mode(self) -> CaptureMode | None:
        """The mode granted, with the frame rate once measured (see `CaptureMode`)."""
        with self._lock:
            if self._size is None:
                return None
            return CaptureMode(self._size[0], self._size[1], self._codec, self._fps, self._asked)

    def read(self) -> np.ndarray | None:
        """The next picture (waiting up to `wait` s for it while the stream is on); None while the
        stream is down, or when none came in time."""
        with self._lock:
            if self.link.state != "on":
                return None
            self._want = True
            self._lock.wait_for(lambda: self._seq != self._given or self.link.state != "on"
                                or self._stop.is_set(), timeout=self.wait)
            if self._seq == self._given or self.link.state != "on":
                return None
            self._given = self._seq
            frame, self._frame = self._frame, None
            return frame

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            self._lock.notify_all()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=10)
        with self._lock:
            self._release()
            self.link = Link("lost", reason=_SAYS["closed"]())

    # -- the capture thread ------------------------------------------------------------------------

    def _attach(self, cap: Any) -> None:
        w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        with self._lock:
            self._cap = cap
            self._size = (w, h) if w > 0 and h > 0 else None
            self._codec = fourcc_text(cap.get(cv2.CAP_PROP_FOURCC))
            self._fps = None
            self._times.clear()
            self._seq = self._given = 0
            self._frame = None
            self.link = Link("on")
            self._lock.notify_all()

    def _release(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def _set_link(self, link: Link) -> None:
        with self._lock:
            self.link = link
            self._lock.notify_all()

    def _run(self) -> None:
        while not self._stop.is_set():
            reason = self._stream()
            if self._stop.is_set():
                return
            with self._lock:
                self._release()
            self._reconnect(reason)

    def _stream(self) -> Words:
        """Take pictures until a read fails; returns why the stream stopped."""
        cap = self._cap
        last = time.monotonic()
        while not self._stop.is_set():
            ok = cap.grab()
            now = time.monotonic()
            if not ok:
                return _SAYS["stream_closed"]() if now - last < 1.0 else \
                    _SAYS["no_picture_for"](seconds=round(now - last))
            last = now
            frame = None
            if self._want:      # only the pictures someone waits for are decoded
                got, frame = cap.retrieve()
                if not got or frame is None or not frame.size:
                    return _SAYS["undecodable"]()
            with self._lock:
                self._times.append(now)
                if self._fps is None and len(self._times) > 2 and \
                        self._times[-1] - self._times[0] >= self.FPS_WINDOW:
                    self._fps = (len(self._times) - 1) / (self._times[-1] - self._times[0])
                if frame is not None:
                    self._frame, self._want = frame, False
                    self._seq += 1
                    self._lock.notify_all()
        return _SAYS["closed"]()

    def _reconnect(self, reason: Words) -> None:
        """Reopen the stream, waiting `retry` between attempts, saying so in `link`."""
        self._set_link(Link("lost", reason=reason))
        attempt = 0
        while not self._stop.wait(self.retry[min(attempt, len(self.retry) - 1)]):
            attempt += 1
            self._set_link(Link("reconnecting", attempt, None, reason))
            try:
                cap = self._opener()
            except SourceError as exc:
                reason = exc.why
                self._set_link(Link("reconnecting", attempt + 1,
                                    self.retry[min(attempt, len(self.retry) - 1)], reason))
                continue
            if self._stop.is_set():
                cap.release()
                return
            self._attach(cap)
            return


class CameraSource(LiveSource):
    """A webcam by index (OpenCV's VideoCapture), in the best mode it offers (`negotiate_mode`) or
    the `size` asked for."""

    def __init__(self, index: int, size: tuple[int, int] | None = None, **live: Any) -> None:
        self.index = index
        self.size = size

        def opener() -> Any:
            cap = quiet_capture(index)
            if not cap.isOpened():
                cap.release()
                raise SourceError(_SAYS["no_camera"](index=str(index)),
                                  _SAYS["no_camera_short"]())
            negotiate_mode(cap, size)
            return cap

        super().__init__(f"camera {index}", opener, asked=f"{size[0]}x{size[1]}" if size else "best",
                         **live)


class NetworkSource(LiveSource):
    """A network camera by URL through OpenCV's FFmpeg backend: MJPEG over HTTP (what phone camera
    apps serve, e.g. ``http://192.168.1.20:8080/video``) or RTSP. Its size is set in the camera's
    own app. `open_timeout` and `read_timeout` bound how long a dead address or a frozen stream may
    keep it waiting."""

    def __init__(self, url: str, *, open_timeout: float = 5.0, read_timeout: float = 3.0,
                 **live: Any) -> None:
        self.url = url
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(open_timeout * 1000),
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(read_timeout * 1000)]

        def opener() -> Any:
            cap = quiet_capture(url, cv2.CAP_FFMPEG, params)
            if not cap.isOpened():
                cap.release()
                raise SourceError(_SAYS["no_stream"](url=url), _SAYS["no_stream_short"]())
            return cap

        super().__init__(url, opener, asked="app", **live)


class VideoSource:
    """A video file, frame by frame; `read()` gives None at its end."""

    recorded = True

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.is_file():
            raise SourceError(_SAYS["no_file"](path=str(path)))
        self._cap = cv2.VideoCapture(str(path))
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(_SAYS["not_video"](path=str(path)))
        self.fps = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
        w, h = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        self.mode = CaptureMode(w, h, fourcc_text(self._cap.get(cv2.CAP_PROP_FOURCC)),
                                self.fps or None) if w > 0 and h > 0 else None

    def read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        return frame if ok else None

    def frame_time(self) -> float:
        """The video's own time of the frame read last, in seconds."""
        return float(self._cap.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0

    def close(self) -> None:
        self._cap.release()


class FolderSource:
    """The images of a folder in name order; unreadable files are skipped and listed in `skipped`."""

    #: a recording: its frames are the reading pace apart, however long each takes to read
    recorded = True

    def __init__(self, folder: Path) -> None:
        self.paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(_SAYS["no_images"](folder=str(folder),
                                                 suffixes=", ".join(f"*{suffix}" for suffix in sorted(IMAGE_SUFFIXES))))
        self._next = 0
        self.skipped: list[Path] = []
        self.current: Path | None = None

    def read(self) -> np.ndarray | None:
        while self._next < len(self.paths):
            path = self.paths[self._next]
            self._next += 1
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None or frame.size == 0:
                self.skipped.append(path)
                continue
            self.current = path
            return frame
        return None

    def close(self) -> None:
        self._next = len(self.paths)


class DemoSource:
    """The synthetic table playing moving components, forever (or for `duration` seconds)."""

    def __init__(self, dictionary: str | None = None, *, width: int = 1280, height: int = 720,
                 fps: float = 10.0, duration: float | None = None, seed: int = 0) -> None:
        from .synthetic.effects import Effects
        from .synthetic.render import Renderer
        from .synthetic.scene import Viewpoint
        from .synthetic.script import demo_script
        if dictionary is None:
            from tableassist.markers.registry import load_registry
            dictionary = load_registry().dictionary
        self.fps = fps
        self.duration = duration
        self._renderer = Renderer(dictionary)
        self._viewpoint = Viewpoint(width, height, tilt=20)
        self._script = demo_script(seed=seed, length=duration or 120.0)
        self._period = duration or 120.0
        self._k = 0
        self._effects = Effects(blur=0.6)

    def read(self) -> np.ndarray | None:
        t = self._k / self.fps
        if self.duration is not None and t >= self.duration:
            return None
        self._k += 1
        from dataclasses import replace
        scene, hands = self._script.state_at(math.fmod(t, self._period))
        frame, _ = self._renderer.render(scene, self._viewpoint, replace(self._effects, hands=tuple(hands),
                                                                      seed=self._k))
        return frame

    def close(self) -> None:
        self._k = 1 << 60 if self.duration is None else int(self.duration * self.fps) + 1


def open_source(spec: str, size: tuple[int, int] | None = None) -> FrameSource:
    """A frame source from a string: "demo", a webcam index ("0"), a network camera's URL
    (``http://…`` MJPEG, ``rtsp://…``), a folder of images or a video file.

    `size` (width, height) is asked of a webcam instead of its best mode, and is the synthetic
    table's frame size for "demo"; a network camera's size is set in its own app, and a file has
    its own, so asking one of them for a size is a `SourceError`."""
    spec = str(spec).strip()
    if spec == "demo":
        return DemoSource() if size is None else DemoSource(width=size[0], height=size[1])
    if spec.isdigit():
        return CameraSource(int(spec), size)
    if spec.lower().startswith(STREAM_SCHEMES):
        if size:
            raise SourceError(_SAYS["stream_size"](spec=spec))
        return NetworkSource(spec)
    path = Path(spec).expanduser()
    if not path.exists() and not path.is_dir():
        raise SourceError(_SAYS["no_source"](spec=spec))
    if size:
        raise SourceError(_SAYS["own_size"](spec=spec))
    if path.is_dir():
        return FolderSource(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return _SingleImage(path)
    return VideoSource(path)


class _SingleImage:
    def __init__(self, path: Path) -> None:
        self._frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if self._frame is None or self._frame.size == 0:
            raise SourceError(_SAYS["not_image"](path=str(path)))

    def read(self) -> np.ndarray | None:
        frame, self._frame = self._frame, None
        return frame

    def close(self) -> None:
        self._frame = None


def read_image(path: str | Path) -> np.ndarray | None:
    """A BGR image from a file, or None if the file is missing, empty or not an image."""
    path = Path(path)
    if not path.is_file():
        return None
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return None if frame is None or frame.size == 0 else frame


def can_write_image(path: str | Path) -> bool:
    """Whether ``path``'s name is one OpenCV writes a picture to (``.png``, ``.jpg`` …), so a
    command can refuse a wrong name before it does its work rather than fail at the end."""
    return bool(cv2.haveImageWriter(str(path)))


def write_image(path: str | Path, frame: np.ndarray) -> None:
    if not cv2.imwrite(str(path), frame):
        raise SourceError(_SAYS["cannot_write"](path=str(path)))


def encode_jpeg(frame: np.ndarray, *, quality: int = 70, width: int | None = None) -> bytes:
    """The frame as JPEG bytes (for a camera panel), scaled down to `width` px if it is wider."""
    h, w = frame.shape[:2]
    if width and w > width:
        frame = shrink(frame, width / w)[0]
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise SourceError(_SAYS["no_jpeg"]())
    return buf.tobytes()
