"""Frame sources: a webcam by index, a video file, a folder of images, or the synthetic demo table.

`open_source(spec)` picks one from a string; every source has `read() -> BGR frame | None` (None: it has
ended) and `close()`; a webcam and a video also say what picture they give (`mode`, "1280x720 at 30 fps":
what the driver granted, not what was asked). Problems are `SourceError`s with a message a person can act on.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class SourceError(RuntimeError):
    """A camera, file or folder that cannot give frames; the message says which and why."""


class FrameSource(Protocol):
    def read(self) -> np.ndarray | None: ...
    def close(self) -> None: ...


class CameraSource:
    """A webcam by index (OpenCV's VideoCapture)."""

    def __init__(self, index: int, width: int | None = None, height: int | None = None) -> None:
        self.index = index
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"camera {index} cannot be opened: no such camera, or it is in use "
                              "(try another index, e.g. 0 or 1, or check the cable and permissions)")
        if width and height:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.mode = _mode(self._cap)

    def read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        return frame if ok else None

    def close(self) -> None:
        self._cap.release()


class VideoSource:
    """A video file, frame by frame; `read()` gives None at its end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.is_file():
            raise SourceError(f"{path}: no such file")
        self._cap = cv2.VideoCapture(str(path))
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"{path}: not a video OpenCV can read")
        self.fps = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
        self.mode = _mode(self._cap)

    def read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        return frame if ok else None

    def close(self) -> None:
        self._cap.release()


def _mode(cap: cv2.VideoCapture) -> str | None:
    """The picture a capture gives: "1280x720 at 30 fps" (None when the driver does not say)."""
    w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    if w <= 0 or h <= 0:
        return None
    fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
    return f"{w}x{h}" + (f" at {fps:g} fps" if fps > 0 else "")


class FolderSource:
    """The images of a folder in name order; unreadable files are skipped and listed in `skipped`."""

    def __init__(self, folder: Path) -> None:
        self.paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(f"{folder}: no images in this folder (looked for "
                              f"{', '.join(sorted(IMAGE_SUFFIXES))})")
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
        from . import synthetic
        if dictionary is None:
            from tableassist.markers.registry import load_registry
            dictionary = load_registry().dictionary
        self.fps = fps
        self.duration = duration
        self._renderer = synthetic.Renderer(dictionary)
        self._camera = synthetic.Camera(width, height, tilt=20)
        self._script = synthetic.demo_script(seed=seed, length=duration or 120.0)
        self._period = duration or 120.0
        self._k = 0
        self._effects = synthetic.Effects(blur=0.6)

    def read(self) -> np.ndarray | None:
        t = self._k / self.fps
        if self.duration is not None and t >= self.duration:
            return None
        self._k += 1
        from dataclasses import replace
        scene, hands = self._script.state_at(math.fmod(t, self._period))
        frame, _ = self._renderer.render(scene, self._camera, replace(self._effects, hands=tuple(hands),
                                                                      seed=self._k))
        return frame

    def close(self) -> None:
        self._k = 1 << 60 if self.duration is None else int(self.duration * self.fps) + 1


def open_source(spec: str) -> FrameSource:
    """A frame source from a string: "demo", a webcam index ("0"), a folder of images or a video file."""
    spec = str(spec).strip()
    if spec == "demo":
        return DemoSource()
    if spec.isdigit():
        return CameraSource(int(spec))
    path = Path(spec).expanduser()
    if path.is_dir():
        return FolderSource(path)
    if not path.exists():
        raise SourceError(f"{spec}: no such file, folder or camera (give a camera index like 0, a video "
                          "file, a folder of images, or \"demo\")")
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return _SingleImage(path)
    return VideoSource(path)


class _SingleImage:
    def __init__(self, path: Path) -> None:
        self._frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if self._frame is None or self._frame.size == 0:
            raise SourceError(f"{path}: not an image OpenCV can read (empty or damaged file?)")

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


def write_image(path: str | Path, frame: np.ndarray) -> None:
    if not cv2.imwrite(str(path), frame):
        raise SourceError(f"{path}: cannot write an image there")


def encode_jpeg(frame: np.ndarray, *, quality: int = 70, width: int | None = None) -> bytes:
    """The frame as JPEG bytes (for a camera panel), scaled down to `width` px if it is wider."""
    h, w = frame.shape[:2]
    if width and w > width:
        frame = cv2.resize(frame, (width, int(h * width / w)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise SourceError("the frame cannot be encoded as JPEG")
    return buf.tobytes()
