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
    assert source.mode == "64x48 at 10 fps"     # what the file gives, for the camera's status
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
