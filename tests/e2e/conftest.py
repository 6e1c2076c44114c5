"""End-to-end: a scripted game on the synthetic table, read by the real pipeline into a session."""

from __future__ import annotations


from tableassist.demo.play import ScriptedSource, play
from tableassist.camera.live import Camera
from tableassist.server.camera import pipeline_for
from tableassist.table.session import TableSession
from tableassist.table.stores import open_store


def read_video(scripted, renderer, registry, tmp_path, *, cards=False, **video):
    """Play ``scripted``'s video (``video``: hands, flicker, seed) through the camera (the
    pipeline the server gives it) into a new session. The QR command cards are scanned only with
    ``cards`` (zbar is a third of a 1600x900 frame's time, and the demo, play-along and
    command-card tests read them). Returns (session, camera, tablet script)."""
    store = open_store(tmp_path / f"e2e-{len(list(tmp_path.iterdir()))}.sqlite3")
    session = TableSession.create(store, scripted.game, list(scripted.players), seed=scripted.seed,
                                  options=scripted.options)
    camera = Camera(pipeline_for=pipeline_for(registry, qr_every=1.0 if cards else None))
    camera.follow(session, scripted.colours)
    tablet = play(scripted, camera, ScriptedSource(scripted.video(renderer, **video)))
    return session, camera, tablet


def by_source(session):
    return [(s.source, s.action) for s in session.steps]
