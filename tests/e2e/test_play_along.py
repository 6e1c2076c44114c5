"""PlayAlong: the served table's camera follows whatever game the table plays."""

from __future__ import annotations

import pytest

from tableassist.readers.live import PlayAlong
from tableassist.demo.play import TabletScript
from tableassist.demo.scripts import wreckers
from tableassist.server.table import Table
from tableassist.server.tokens import Tokens
from tableassist.table.store import Store
from tests.server.conftest import server  # noqa: F401 - the real server fixture

pytestmark = pytest.mark.slow  # end to end: rendered video through the whole pipeline


def test_the_camera_reads_the_game_the_table_starts_and_follows_a_new_one(renderer, registry,
                                                                          tmp_path):
    scripted = wreckers(wrong_move=True)
    table = Table(Store(tmp_path / "t.sqlite3"), Tokens(tmp_path / "t.json"))
    along = PlayAlong(table, registry)
    frames = list(scripted.video(renderer).frames())
    assert along.process(frames[0][1], 0.0) is None            # no game yet: nothing read
    first = table.start("wreckers", list(scripted.players), options=None, seed=scripted.seed,
                        colours=scripted.colours)
    tablet = TabletScript(scripted.tablet)
    for t, frame, _ in frames:
        result = along.process(frame, t)
        tablet.play(t, along.camera)
    assert result is not None and len(result.detections) >= 4
    assert first.game.state == scripted.expected_game().state
    assert table.reader_status()["notice"]["sees"].startswith("Cy discarded")
    second = table.start("wreckers", list(scripted.players), options=None, seed=scripted.seed)
    along.process(frames[-1][1], 0.0)
    assert along.camera.session is second and table.reader_status()["notice"] is None


class Frames:
    """A capture source that plays rendered frames in order (then reports no picture)."""

    def __init__(self, frames):
        self.frames = list(frames)

    def read(self):
        return self.frames.pop(0) if self.frames else None

    def close(self):
        self.frames = []


def test_tableassist_serve_camera_plays_along_and_screens_see_the_notice(server, renderer):
    """The served table's camera feed (as ``serve --camera``) reads the game being played: the
    Wreckers cuts go in from the camera, and the wrong discard reaches the table's screen as the
    out-of-sync notice."""
    from tableassist.server.camera import CameraFeed
    from tests.server.conftest import wait_until

    scripted = wreckers(wrong_move=True)
    session = server.table.start("wreckers", list(scripted.players), options=None,
                                 seed=scripted.seed, colours=scripted.colours)
    screen = server.client(server.tokens.table)
    feed = CameraFeed(Frames(f for _, f, _ in scripted.video(renderer).frames()), "synthetic",
                      server.table)
    feed.attach(server.app)
    try:
        state = screen.wait_state(lambda s: (s.get("camera_reader") or {}).get("notice"),
                                  "the out-of-sync notice", timeout=60)
    finally:
        feed.stop()
    assert "not a Search card" in state["camera_reader"]["notice"]["text"]
    wait_until(lambda: session.game.state == scripted.expected_game().state, 5, "the cuts read")
    assert {line["source"] for line in state["history"]} == {"camera"}
