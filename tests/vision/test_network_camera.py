"""A network camera by URL (issue 15): a real MJPEG-over-HTTP server on 127.0.0.1 (what a phone
camera app serves) streams a rendered table; the frames come through ``open_source(url)`` into the
pipeline, which reads the markers; the server goes away -> the source says lost, then reconnecting
(attempt n, next in s), and gives no picture (never the last one again); the server comes back ->
on, and frames flow again. The camera's status (``camera.live.Camera``) follows the same steps."""

from __future__ import annotations

import time

import pytest

from tableassist.vision import TablePipeline, open_source
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import Viewpoint
from tableassist.vision.sources import NetworkSource, SourceError
from tests.vision.conftest import table
from tests.vision.mjpeg_server import MJPEGCamera

CARDS = [(16, 420, 90, 0), (17, 720, 90, 0), (18, 720, 510, 0), (19, 420, 510, 0), (44, 536.25, 332.5, 0)]


@pytest.fixture(scope="module")
def frames(registry, renderer):
    scene = table(registry, "shipwrecked", CARDS)
    frame, _ = renderer.render(scene, Viewpoint(1280, 720, tilt=10), Effects(blur=0.4))
    return [frame]


def wait_for(predicate, timeout: float = 15.0, every: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value is not None and value is not False:
            return value
        time.sleep(every)
    raise AssertionError("timed out")


def test_a_phone_camera_by_url_streams_reconnects_and_says_so(registry, frames):
    camera = MJPEGCamera(frames, fps=20).start()
    source = open_source(camera.url)
    try:
        assert isinstance(source, NetworkSource) and source.link.state == "on"
        pipeline = TablePipeline("shipwrecked", registry, qr_every=None)
        got = [wait_for(source.read) for _ in range(3)]
        assert all(f.shape == (720, 1280, 3) for f in got)
        pipeline.update(got[-1], 0.0)
        assert sorted(int(i) for i in pipeline.last.detections.ids) == \
            sorted([0, 1, 2, 3, 4, 5, 6, 7] + [c[0] for c in CARDS])
        mode = wait_for(lambda: source.mode if source.mode and source.mode.fps else None)
        assert (mode.width, mode.height) == (1280, 720) and 8 < mode.fps < 30

        camera.stop()                              # the phone's app (or its Wi-Fi) goes away
        wait_for(lambda: source.link.state != "on")
        states = set()
        link = wait_for(lambda: (states.add(source.link.state), source.link)[1]
                        if source.link.state == "reconnecting" and source.link.retry_in else None)
        assert link.attempt >= 1 and "reconnecting" in link.text and "attempt" in link.text
        assert source.read() is None               # no frozen last frame treated as live

        camera.start()                             # same port: the app comes back
        wait_for(lambda: source.link.state == "on", timeout=20)
        again = wait_for(source.read)
        assert again.shape == (720, 1280, 3) and camera.connections >= 2
    finally:
        source.close()
        camera.stop()


def test_a_url_with_nothing_there_is_a_clear_error_and_a_size_is_refused():
    camera = MJPEGCamera([]).start()
    port = camera.port
    camera.stop()
    with pytest.raises(SourceError, match="no video stream there"):
        NetworkSource(f"http://127.0.0.1:{port}/video", open_timeout=2)
    with pytest.raises(SourceError, match="size set in its own app"):
        open_source("http://127.0.0.1:9/video", (1920, 1080))


def test_the_camera_status_follows_the_stream_on_lost_reconnecting_on(frames):
    """What the host screen shows: the camera's typed status, published whole at each step."""
    from tableassist.camera.live import Camera

    server = MJPEGCamera(frames, fps=20).start()
    eye = Camera()
    states: list[tuple[str, int | None, float | None]] = []
    eye.subscribe(lambda s: states.append((s.state, s.attempt, s.retry_in)))
    eye.start(NetworkSource(server.url, retry=(0.3, 0.6)), name="phone", fps=20)
    try:
        wait_for(lambda: eye.status.state == "on" and eye.status.fps is not None or None)
        assert eye.status.size == (1280, 720) and eye.status.mode.startswith("1280x720")
        assert eye.status.device_json()["fps"] > 5 and eye.status.device_json()["size"] == [1280, 720]
        server.stop()
        wait_for(lambda: eye.status.state == "reconnecting" and eye.status.retry_in or None)
        assert eye.status.notice.startswith("phone: reconnecting") and eye.status.attempt >= 1
        server.start()
        wait_for(lambda: eye.status.state == "on" or None, timeout=20)
    finally:
        eye.stop()
        server.stop()
    seen = [s for s, _, _ in states]
    first_lost = seen.index("lost")
    assert seen[:first_lost] and set(seen[1:first_lost]) <= {"on"} and seen[0] in ("off", "on")
    assert "reconnecting" in seen[first_lost:] and "on" in seen[seen.index("reconnecting", first_lost):]
    assert seen[-1] == "off"
