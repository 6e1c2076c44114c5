"""The served camera's threads (``Camera.start``): the capture and detection threads never wait for
the screens, every reading is stored before any screen hears of it, in order, and a failure on
the worker is the camera's report, not a dead thread. Counted, not timed: the machine is shared."""

from __future__ import annotations

import threading

import pytest
import socketio

from tableassist.demo.scripts import wreckers
from tableassist.table.stores import open_store
from tests.server.conftest import PATIENCE, wait_until

pytestmark = pytest.mark.slow  # end to end: rendered video through the whole pipeline

THREADS = ("camera capture", "camera detection", "camera readings")


class Frames:
    """A recording as the camera's source: every frame, in order (the capture thread waits for
    the detection thread to take each one), each with its video time."""

    def __init__(self, frames):
        self.frames = list(frames)
        self.t = 0.0

    def read(self):
        if not self.frames:
            return None
        self.t, frame = self.frames.pop(0)
        return frame

    def frame_time(self):
        return self.t

    def close(self):
        self.frames = []


@pytest.fixture(scope="module")
def video(renderer):
    scripted = wreckers(wrong_move=True)
    return scripted, [(t, frame) for t, frame, _ in scripted.video(renderer).frames()]


def start_reading(server, video):
    scripted, frames = video
    session = server.table.start("wreckers", list(scripted.players), options=None,
                                 seed=scripted.seed, colours=scripted.colours)
    return scripted, session, Frames(frames)


def camera_log(session):
    return [e.seq for e in session.store.entries(session.saved.id)
            if e.kind == "action" and e.source == "camera"]


def test_a_screen_slow_to_be_told_holds_up_neither_the_camera_nor_any_reading(server, video,
                                                                                  tmp_path):
    scripted, session, source = start_reading(server, video)
    camera = server.camera
    # a screen that takes its time: the first camera action's broadcast blocks until released
    release, blocked = threading.Event(), threading.Event()
    at_block: list[int] = []

    def slow_screen(change):
        if change.source == "camera" and not release.is_set():
            at_block.append(camera.frames)
            blocked.set()
            release.wait(60 * PATIENCE)
    session.subscribe(slow_screen)
    # a client that checks, at each state it receives, that the store has every line it shows
    unstored: list[int] = []
    shown: list[int] = []

    def check(payload):
        lines = payload.get("history") or (payload.get("history_delta") or {}).get("lines", [])
        store = open_store(tmp_path / "table.sqlite3", read_only=True)
        try:
            stored = {e.seq for e in store.entries(session.saved.id)}
        finally:
            store.close()
        shown.extend(line["seq"] for line in lines)
        unstored.extend(line["seq"] for line in lines if line["seq"] not in stored)
    client = socketio.Client(reconnection=False)
    client.on("state", check)
    client.connect(server.url, auth={"token": server.tokens.table}, transports=["websocket"],
                   wait_timeout=5 * PATIENCE)
    try:
        camera.start(source, name="camera synthetic", frame_time=source.frame_time,
                     until_end=True)
        wait_until(blocked.is_set, 60, "the first camera action")
        # the worker is held by the slow screen; the detection thread reads on
        wait_until(lambda: camera.frames >= at_block[0] + 5, 60, "frames read meanwhile")
        assert not release.is_set() and len(at_block) == 1
        release.set()
        assert camera.wait(120 * PATIENCE), "the camera did not finish the video"
    finally:
        release.set()
        camera.stop()
    wait_until(lambda: shown and max(shown) >= max(camera_log(session)), 10, "the last line")
    client.disconnect()
    # every reading handed over went in, in the order read: the game is the script's
    assert session.game.state == scripted.expected_game().state
    seqs = [seq for _t, seq in camera.stats.accepted]
    assert seqs == sorted(seqs) and seqs == camera_log(session) and len(seqs) >= 3
    assert [t for t, _seq in camera.stats.accepted] == \
        sorted(t for t, _seq in camera.stats.accepted)
    assert len(camera.stats.latency) == len(seqs)
    # where each action's time went, stage after stage (the bench's breakdown)
    assert [(t.t, t.seq) for t in camera.stats.timings] == camera.stats.accepted
    assert all(list(t[2:8]) == sorted(t[2:8]) for t in camera.stats.timings)
    assert unstored == []          # no screen saw a line before the store had it
    assert camera.stats.dropped == 0   # a recording: every frame read
    assert not [t.name for t in threading.enumerate() if t.name in THREADS]


def test_a_failure_on_the_worker_is_the_camera_report_and_it_reads_on(server, video):
    scripted, session, source = start_reading(server, video)
    camera = server.camera
    failed: list[int] = []

    def broken_screen(change):
        if change.source == "camera" and not failed:
            failed.append(change.seq)
            raise ValueError("a bug in a screen's update")
    session.subscribe(broken_screen)
    try:
        camera.start(source, name="camera synthetic", frame_time=source.frame_time,
                     until_end=True)
        host = wait_until(lambda: server.table.camera_status.report, 60, "the camera's report")
        assert "could not read a frame" in host
        assert camera.wait(120 * PATIENCE)
    finally:
        camera.stop()
    # the action was stored before its screens were told; the camera read on after the failure
    assert failed and failed[0] in camera_log(session)
    assert len(camera_log(session)) >= 3
    assert session.game.state == scripted.expected_game().state
    assert not [t.name for t in threading.enumerate() if t.name in THREADS]


def test_stopping_the_camera_applies_every_reading_handed_over_and_joins_its_threads(server,
                                                                                     video):
    scripted, session, source = start_reading(server, video)
    camera = server.camera
    told: list[float] = []            # frame listeners: told on the worker after each reading
    camera.on_frame(lambda t, _frame, _seen: told.append(t))
    release, blocked = threading.Event(), threading.Event()
    at_block: list[int] = []

    def slow_screen(change):
        if change.source == "camera" and not release.is_set():
            at_block.append(camera.frames)
            blocked.set()
            release.wait(60 * PATIENCE)
    session.subscribe(slow_screen)
    camera.start(source, name="camera synthetic", frame_time=source.frame_time)
    try:
        wait_until(blocked.is_set, 60, "the first camera action")
        wait_until(lambda: camera.frames >= at_block[0] + 5, 60, "readings queued meanwhile")
        stopper = threading.Thread(target=camera.stop)
        stopper.start()                 # while the worker is held, with readings queued
    finally:
        release.set()
    stopper.join(60 * PATIENCE)
    assert not stopper.is_alive()
    assert len(told) == camera.frames and len(told) >= at_block[0] + 5   # none was lost
    assert camera.stats.latency and camera.status.state == "off"
    assert not [t.name for t in threading.enumerate() if t.name in THREADS]
    assert [seq for _t, seq in camera.stats.accepted] == camera_log(session)
