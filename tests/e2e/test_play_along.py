"""PlayAlong: the served table's camera follows whatever game the table plays."""

from __future__ import annotations

from tableassist.camera_loop import PlayAlong
from tableassist.demo import TabletScript
from tableassist.demo_tables import wreckers
from tableassist.server.table import Table
from tableassist.server.tokens import Tokens
from tableassist.store import Store


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
