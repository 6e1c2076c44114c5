"""The whole pipeline on synthetic video: events match the script; hands and flicker add nothing (issue 8)."""

from __future__ import annotations

import weakref

from tableassist.vision import Layout, TableGeometry, TablePipeline
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import Viewpoint
from tableassist.vision.synthetic.score import score_events
from tableassist.vision.synthetic.script import Move, Rest, Script, SyntheticVideo, demo_script
from tests.vision.conftest import table


def run(pipeline, video):
    events = []
    for t, frame, _ in video.frames():
        events += pipeline.update(frame, t)
    return events


def test_a_short_game_with_hands_and_flicker_gives_exactly_the_real_changes(registry, renderer):
    """30 s at 8 fps, 720p, tilt 25: 12 cards, a move every 2.5 s, a hand passing every 3 s, and a
    single-frame phantom or dropout on 4 % of frames."""
    script = demo_script(seed=3, length=30.0, ids=tuple(range(20, 32)), move_every=2.5, pass_every=3.0)
    camera = Viewpoint(1280, 720, tilt=25)
    video = SyntheticVideo(script, renderer, camera, fps=8, duration=30.0, effects=Effects(blur=0.8),
                             flicker=0.04, phantom_ids=tuple(range(100, 110)), seed=3)
    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    events = run(pipeline, video)
    first = [e for e in events if e.t < 1.0]
    assert sorted(e.sighting.marker_id for e in first) == sorted(p.marker_id for p in script.scene.pieces)
    score = score_events(script, camera, lambda: TableGeometry(Layout.load("wreckers"), registry, "wreckers"),
                           events, settle=1.0)
    assert score.expected >= 6
    assert score.missed == []
    assert score.spurious == []


def test_a_bid_card_turned_over_is_one_flip_event(registry, renderer):
    board = [(16, 420, 90, 0), (17, 720, 90, 0), (18, 720, 510, 0), (19, 420, 510, 0)]
    scene = table(registry, "shipwrecked", board + [(44, 536.25, 332.5, 0)])
    script = Script(scene, moves=[Move(1.5, 44, new_id=21, duration=0.5)])
    camera = Viewpoint(1280, 720, tilt=20)
    video = SyntheticVideo(script, renderer, camera, fps=10, duration=4.0, effects=Effects(blur=0.5))
    events = run(TablePipeline("shipwrecked", registry, qr_every=None), video)
    late = [(e.kind, e.sighting.marker_id, e.previous.marker_id, e.sighting.item, e.sighting.zone,
             e.sighting.cell) for e in events if e.t > 1.0]
    assert late == [("flipped", 21, 44, "red-PASS-2", "bid", "r3c2")]


def test_a_qr_command_card_gives_one_event_per_showing(registry, tmp_path):
    import cv2
    import numpy as np
    import segno

    path = tmp_path / "undo.png"
    segno.make_qr("tableassist:cmd/undo").save(str(path), scale=8, border=4)
    card = cv2.imread(str(path))
    frame = np.full((720, 1280, 3), 200, np.uint8)
    frame[100:100 + card.shape[0], 100:100 + card.shape[1]] = card
    blank = np.full_like(frame, 200)
    pipeline = TablePipeline("wreckers", registry, qr_every=0.5)
    shown = []
    # held up for 1.2 s, gone for 1 s (less than 3 x qr_every: a missed read, not a new showing),
    # back for 1 s, gone for 2 s, shown again
    for k, f in enumerate([frame] * 12 + [blank] * 10 + [frame] * 10 + [blank] * 20 + [frame] * 5):
        shown += [(e.kind, e.command, round(e.t, 1)) for e in pipeline.update(f, k / 10)]
    assert shown == [("card", "undo", 0.0), ("card", "undo", 5.2)]
    # zbar ran where the card appeared, not once per frame or per period: on the first frame and
    # the two frames the card came back in
    assert pipeline._qr.scans == 3
    assert any("corners are not all in view" in w for w in pipeline.last.warnings)


def test_the_pipeline_keeps_no_frame_between_frames(registry, renderer):
    """Once `update` returns, nothing in the pipeline holds the frame (a 2160p frame is 25 MB):
    the camera's loop frees it, and a table's memory is the pipeline's own."""
    script = Script(table(registry, "wreckers", [(20 + k, 250 + 140 * k, 300, 0) for k in range(4)]), rests=[Rest(0.3, 390, 300, duration=0.5, size_mm=110)])
    video = SyntheticVideo(script, renderer, Viewpoint(1280, 720, tilt=20), fps=10, duration=1.2)
    pipeline = TablePipeline("wreckers", registry)
    held = []
    for t, frame, _ in video.frames():
        pipeline.update(frame, t)
        held.append(weakref.ref(frame))
        del frame
    assert [k for k, ref in enumerate(held) if ref() is not None] == []


def test_a_still_frame_after_a_still_frame_is_read_as_the_last_one_and_time_still_runs(registry, renderer):
    """4 cards for 4 s at 10 fps, one taken away at 2 s: once nothing changes (no change in the
    frame or the one before, no marker missed, no band of the sweep due) a frame costs no look
    and no locating (the same detections and sightings as the frame before), while the tracker's
    clock runs on: the card taken away is removed, once, as with every frame read whole."""
    script = Script(table(registry, "wreckers", [(20 + k, 250 + 140 * k, 300, 0) for k in range(4)]),
                    moves=[Move(2.0, 21, remove=True, duration=0.3)])
    video = SyntheticVideo(script, renderer, Viewpoint(1280, 720, tilt=20), fps=10, duration=4.0,
                           effects=Effects(blur=0.6))
    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    events, again = [], []
    before = None
    for t, frame, _ in video.frames():
        shortcut = pipeline.regions.unchanged
        events += [(e.kind, e.sighting.marker_id) for e in pipeline.update(frame, t)]
        if pipeline.regions.unchanged > shortcut:
            again.append(t)
            assert pipeline.last.detections is before.detections
            assert pipeline.last.sightings == before.sightings
        before = pipeline.last
    # the still frames before the card is taken and after it is gone, but for the sweep's bands
    assert len([t for t in again if t < 2.0]) >= 12 and len([t for t in again if t > 2.5]) >= 8
    assert sorted(events) == sorted([("appeared", p.marker_id) for p in script.scene.pieces] + [("removed", 21)])


def test_the_cameras_loop_sets_opencvs_thread_count_once_not_with_every_frame(registry, renderer, monkeypatch):
    """`read_frames` holds `one_thread` while it reads: the pipeline's frames then set no thread
    count (each setting makes or joins OpenCV's worker threads, 40-50 µs each way), its scans of
    a whole frame (the first) and the sweep's bands (every 5th frame here) included. Once the
    loop ends, OpenCV has its threads back."""
    import threading

    import cv2

    from tableassist.camera.frames import read_frames

    script = Script(table(registry, "wreckers", [(20 + k, 250 + 140 * k, 300, 0) for k in range(4)]))
    video = SyntheticVideo(script, renderer, Viewpoint(1280, 720, tilt=20), fps=10, duration=2.0)
    frames = [frame for _, frame, _ in video.frames()]

    class Recorded:
        recorded = True

        def read(self):
            return frames.pop(0) if frames else None

        def close(self):
            pass

    before = cv2.getNumThreads()
    set_to = []
    real = cv2.setNumThreads

    def counted(n):
        set_to.append(n)
        real(n)
    monkeypatch.setattr(cv2, "setNumThreads", counted)
    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    read_frames(Recorded(), pipeline.update, lambda **_: None, stop=threading.Event(), fps=10,
                until_end=True)
    # 20 frames: the first scan and three bands of the sweep
    assert pipeline.tracker.state() and set_to == [1, before], set_to
    assert cv2.getNumThreads() == before
