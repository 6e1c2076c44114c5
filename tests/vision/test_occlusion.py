"""Hands that rest: a hand resting still on a card for 10 s makes no event; a card taken away from
under a resting hand is still removed (issue 15). Rendered video through the real pipeline."""

from __future__ import annotations

from tableassist.vision import TablePipeline
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import Viewpoint
from tableassist.vision.synthetic.script import Move, Rest, Script, SyntheticVideo
from tests.vision.conftest import table


def test_a_hand_resting_10_s_makes_no_event_and_a_card_taken_from_under_a_hand_is_removed(registry, renderer):
    """Two players lean on their cards (textured, shadowed hands) from 1 s to 11.5 s; the second
    then takes their card away (11.5 s - 12 s). 5 fps, 960x540."""
    cards = [(20, 250, 300, 0), (21, 450, 300, 0), (22, 650, 300, 0), (23, 450, 470, 0)]
    script = Script(table(registry, "wreckers", cards),
                    rests=[Rest(1.0, 450, 300, duration=10.5), Rest(1.0, 450, 470, duration=10.5)],
                    moves=[Move(11.5, 23, remove=True, duration=0.5)], texture=True, shadow=0.45)
    video = SyntheticVideo(script, renderer, Viewpoint(960, 540, tilt=20), fps=5, duration=15.0,
                           effects=Effects(blur=0.5))
    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    events, hidden = [], 0
    for t, frame, truth in video.frames():
        events += [(e.kind, e.sighting.marker_id, e.t) for e in pipeline.update(frame, t) if t > 0.5]
        hidden += 1.5 < t < 11.0 and 21 not in truth.ids
    assert hidden >= 40                     # the hand did hide the card for about 10 s
    assert [(k, m) for k, m, _ in events] == [("removed", 23)]
    # removed once the hand has gone and the table round it shows no card (`lost_after` later)
    assert 12.0 < events[0][2] <= 14.0
    assert {s.marker_id for s in pipeline.tracker.state()} >= {20, 21, 22}
