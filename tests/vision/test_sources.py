"""Frame sources and their clear errors: no camera, unreadable files, empty folders, a video that ends."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tableassist.vision import SourceError, open_source
from tableassist.vision.sources import DemoSource


def test_a_camera_index_that_does_not_exist_is_a_clear_error():
    with pytest.raises(SourceError, match="camera 57 cannot be opened: no such camera"):
        open_source("57")


def test_missing_and_unreadable_files_are_clear_errors(tmp_path):
    with pytest.raises(SourceError, match="no such file, folder or camera"):
        open_source(str(tmp_path / "nothing.mp4"))
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    with pytest.raises(SourceError, match="not an image OpenCV can read"):
        open_source(str(broken))
    video = tmp_path / "broken.avi"
    video.write_bytes(b"")
    with pytest.raises(SourceError, match="not a video OpenCV can read"):
        open_source(str(video))


def test_an_empty_folder_is_a_clear_error_and_a_folder_skips_broken_images(tmp_path):
    with pytest.raises(SourceError, match="no images in this folder"):
        open_source(str(tmp_path))
    cv2.imwrite(str(tmp_path / "a.png"), np.full((20, 30, 3), 7, np.uint8))
    (tmp_path / "b.png").write_bytes(b"")
    cv2.imwrite(str(tmp_path / "c.jpg"), np.full((20, 30, 3), 9, np.uint8))
    source = open_source(str(tmp_path))
    frames = [source.read(), source.read(), source.read()]
    assert [f.shape for f in frames[:2]] == [(20, 30, 3)] * 2 and frames[2] is None
    assert [p.name for p in source.skipped] == ["b.png"]
    source.close()


def test_a_video_that_ends_gives_none(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for k in range(5):
        writer.write(np.full((48, 64, 3), 40 * k, np.uint8))
    writer.release()
    source = open_source(str(path))
    assert str(source.mode) == "64x48 MJPG at 10 fps"     # what the file gives, for the camera's status
    frames = []
    while (frame := source.read()) is not None:
        frames.append(frame)
    assert len(frames) == 5 and source.read() is None
    source.close()


def test_the_demo_source_plays_the_synthetic_table(registry):
    source = DemoSource(registry.dictionary, width=640, height=360, duration=0.3)
    frames = []
    while (frame := source.read()) is not None:
        frames.append(frame)
    assert len(frames) == 3 and frames[0].shape == (360, 640, 3)
    assert open_source("demo").read().shape == (720, 1280, 3)


class FakeCapture:
    """A `cv2.VideoCapture`-like webcam that grants some modes: the only stand-in for a camera in
    the tests, because CI machines have no webcam (everything past the negotiation is tested with
    real sources: files, folders, a real MJPEG server). Like V4L2, it answers a size it lacks with
    its nearest one, and grants sizes only in the format set (its `modes` per FOURCC)."""

    def __init__(self, modes: dict[str, list[tuple[int, int]]]) -> None:
        self.modes = modes
        self.fourcc = "YUYV"
        self.size = modes["YUYV"][0]
        self.asked: list[tuple[int, int]] = []
        self._w = 0

    def set(self, prop, value):
        if prop == cv2.CAP_PROP_FOURCC:
            code = int(value)
            name = "".join(chr((code >> 8 * i) & 0xFF) for i in range(4))
            if name in self.modes:
                self.fourcc = name
        elif prop == cv2.CAP_PROP_FRAME_WIDTH:
            self._w = int(value)
        elif prop == cv2.CAP_PROP_FRAME_HEIGHT:
            want = (self._w, int(value))
            self.asked.append(want)
            sizes = self.modes[self.fourcc]
            self.size = min(sizes, key=lambda s: abs(s[0] * s[1] - want[0] * want[1]))
        return True

    def get(self, prop):
        if prop == cv2.CAP_PROP_FRAME_WIDTH:
            return float(self.size[0])
        if prop == cv2.CAP_PROP_FRAME_HEIGHT:
            return float(self.size[1])
        if prop == cv2.CAP_PROP_FOURCC:
            return float(cv2.VideoWriter.fourcc(*self.fourcc))
        return 0.0


def test_a_webcam_is_asked_for_its_best_mode_over_mjpg_and_keeps_what_it_grants():
    from tableassist.vision.sources import fourcc_text, negotiate_mode

    # a 1080p webcam: MJPG has 1080p, YUYV only 640x480 at a usable rate
    cap = FakeCapture({"YUYV": [(640, 480), (1920, 1080)], "MJPG": [(640, 480), (1280, 720), (1920, 1080)]})
    assert negotiate_mode(cap) == (1920, 1080)
    assert fourcc_text(cap.get(cv2.CAP_PROP_FOURCC)) == "MJPG"
    assert cap.asked[:3] == [(3840, 2160), (2560, 1440), (1920, 1080)]      # best first, 1080p granted
    # a 4K camera stops at the first ask
    cap = FakeCapture({"YUYV": [(640, 480)], "MJPG": [(3840, 2160), (1920, 1080)]})
    assert negotiate_mode(cap) == (3840, 2160) and cap.asked == [(3840, 2160)]
    # an old camera with none of the 16:9 modes: the largest of its answers is kept
    cap = FakeCapture({"YUYV": [(640, 480), (800, 600)]})
    assert negotiate_mode(cap) == (800, 600) and fourcc_text(cap.get(cv2.CAP_PROP_FOURCC)) == "YUYV"
    # --camera-size: only that size is asked for
    cap = FakeCapture({"YUYV": [(640, 480)], "MJPG": [(1280, 720), (1920, 1080)]})
    assert negotiate_mode(cap, (1280, 720)) == (1280, 720) and cap.asked == [(1280, 720)]


def test_the_mode_in_words_and_a_size_asked_of_a_file_is_refused(tmp_path):
    from tableassist.vision.sources import CaptureMode

    assert str(CaptureMode(1920, 1080, "MJPG", 29.97, "best")) == "1920x1080 MJPG at 30 fps"
    assert str(CaptureMode(640, 480)) == "640x480"
    cv2.imwrite(str(tmp_path / "a.png"), np.full((20, 30, 3), 7, np.uint8))
    with pytest.raises(SourceError, match="a size can be asked of a webcam only"):
        open_source(str(tmp_path / "a.png"), (1920, 1080))
    demo = open_source("demo", (640, 480))
    assert demo.read().shape == (480, 640, 3)


def test_a_recording_reads_in_its_own_time_however_slow_the_machine(tmp_path):
    """A folder read at 5 fps gives its frames 0.2 s apart and a video its own clock, even when
    each frame takes longer than that to read (a busy machine): the tracker then sees the
    recording as it was made, not stretched (under load a folder once read as frames a second
    apart, and read nothing). A live source (no ``recorded``) keeps the wall clock."""
    import threading
    import time

    from tableassist.camera.frames import read_frames

    folder = tmp_path / "frames"
    folder.mkdir()
    video = cv2.VideoWriter(str(tmp_path / "table.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 10,
                            (64, 48))
    for k in range(4):
        image = np.full((48, 64, 3), 40 * k, np.uint8)
        cv2.imwrite(str(folder / f"{k:02d}.png"), image)
        video.write(image)
    video.release()

    def times(source, fps):
        seen: list[float] = []

        def slow(frame, t):   # each frame takes 0.3 s to read, longer than the pace allows
            seen.append(round(t, 3))
            time.sleep(0.3)
        read_frames(source, slow, lambda **_: None, stop=threading.Event(), fps=fps,
                    until_end=True)
        return seen

    assert times(open_source(str(folder)), 5) == [0.0, 0.2, 0.4, 0.6]
    assert times(open_source(str(tmp_path / "table.avi")), 5) == [0.0, 0.1, 0.2, 0.3]

    class Live:   # a webcam's frames: the time they are read at
        def __init__(self):
            self.left = 3

        def read(self):
            self.left -= 1
            return np.zeros((4, 4, 3), np.uint8) if self.left >= 0 else None

        def close(self):
            pass
    live = times(Live(), 5)
    assert live[0] == 0.0 and all(b - a >= 0.29 for a, b in zip(live, live[1:]))
