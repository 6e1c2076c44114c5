"""End-to-end: a scripted game on the synthetic table, read by the real pipeline into a session."""

from __future__ import annotations

import pytest

from tableassist.readers.live import CameraTable
from tableassist.demo.play import play
from tableassist.markers.registry import load_registry
from tableassist.table.session import TableSession
from tableassist.table.store import Store
from tableassist.vision import TablePipeline
from tableassist.vision.synthetic import Renderer


@pytest.fixture(scope="session")
def registry():
    return load_registry()


@pytest.fixture(scope="session")
def renderer(registry):
    return Renderer(registry.dictionary)


def read_video(scripted, renderer, registry, tmp_path, **video):
    """Play ``scripted``'s video (``video``: hands, flicker, seed) through the pipeline into a new
    session. Returns (session, camera table, tablet script)."""
    store = Store(tmp_path / f"e2e-{len(list(tmp_path.iterdir()))}.sqlite3")
    session = TableSession.create(store, scripted.game, list(scripted.players), seed=scripted.seed,
                                  options=scripted.options)
    camera = CameraTable(session, TablePipeline(scripted.game, registry, qr_every=None),
                         colours=scripted.colours)
    tablet = play(scripted, camera, scripted.video(renderer, **video))
    return session, camera, tablet


def by_source(session):
    return [(s.source, s.action) for s in session.steps]
