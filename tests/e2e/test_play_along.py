"""The served table's camera follows whatever game the table plays."""

from __future__ import annotations

import pytest

from tableassist.demo.play import TabletScript
from tableassist.demo.scripts import wreckers
from tableassist.server.camera import READ_FPS
from tableassist.server.served import serve_venue

pytestmark = pytest.mark.slow  # end to end: rendered video through the whole pipeline


def test_the_camera_reads_the_game_the_table_starts_and_follows_a_new_one(renderer, tmp_path):
    scripted = wreckers(wrong_move=True)
    served = serve_venue(tmp_path / "t.sqlite3", host="127.0.0.1", port=0)
    try:
        table, camera = served.table, served.camera
        frames = list(scripted.video(renderer).frames())
        seen = camera.process(frames[0][1], 0.0)                 # no game yet: nothing read
        assert len(seen.detections) == 0 and not table.camera_status.reading
        first = table.start("wreckers", list(scripted.players), options=None, seed=scripted.seed,
                            colours=scripted.colours)
        tablet = TabletScript(scripted.tablet, camera)
        for t, frame, _ in frames:
            seen = camera.process(frame, t)
            tablet.play(t)
        assert len(seen.detections) >= 4
        assert first.game.state == scripted.expected_game().state
        assert table.camera_status.out_of_sync.sees.startswith("Cy discarded")
        assert table.camera_status.markers >= 4     # published at most once a second
        second = table.start("wreckers", list(scripted.players), options=None, seed=scripted.seed)
        camera.process(frames[-1][1], 0.0)
        assert camera.session is second and table.camera_status.out_of_sync is None
    finally:
        served.close()


class Frames:
    """A capture source that plays rendered frames in order (then reports no picture)."""

    def __init__(self, frames):
        self.frames = list(frames)

    def read(self):
        return self.frames.pop(0) if self.frames else None

    def close(self):
        self.frames = []


def test_tableassist_serve_camera_plays_along_and_screens_see_the_notice(server, renderer):
    """The served table's camera (as ``serve --camera``: READ_FPS frames a second, in a thread)
    reads the game being played: the Wreckers cuts go in from the camera, and the wrong discard
    reaches the table's screen as the out-of-sync notice."""
    from tests.server.conftest import wait_until

    scripted = wreckers(wrong_move=True)
    session = server.table.start("wreckers", list(scripted.players), options=None,
                                 seed=scripted.seed, colours=scripted.colours)
    screen, host = server.client(server.tokens.table), server.client(server.tokens.host)
    server.camera.start(Frames(f for _, f, _ in scripted.video(renderer).frames()),
                        name="camera synthetic", fps=READ_FPS)
    try:
        state = screen.wait_state(lambda s: (s.get("camera_reader") or {}).get("notice"),
                                  "the out-of-sync notice", timeout=60)
    finally:
        server.camera.stop()
    assert "not a Search card" in state["camera_reader"]["notice"]["text"]
    wait_until(lambda: session.game.state == scripted.expected_game().state, 5, "the cuts read")
    assert {line["source"] for line in state["history"]} == {"camera"}
    camera = host.wait_state(lambda s: s["camera"]["state"] == "off")["camera"]
    assert camera["mode"] == "1280x720" and camera["notice"] == "the camera was stopped"
