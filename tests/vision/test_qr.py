"""QR command cards off the frame budget (issue 15): a card held up over a table in play is read
once, within a second, and zbar runs only where a QR-like pattern appeared."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tableassist.vision import TablePipeline
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import HeldCard, Viewpoint
from tableassist.vision.synthetic.script import Move, Pass, Script
from tests.vision.conftest import table


@pytest.mark.parametrize("height", [720, 1080])
def test_a_card_held_up_over_the_table_is_read_once_within_a_second(registry, renderer, height):
    """1280x720 (and 1920x1080, where a hand's skin is not looked at: a command card is printed
    black on white, as grey as a sticker) at 10 fps: a hand passes over the cards, then the Undo
    card is held up (swaying a little) from 2 s to 4.5 s, then a card is moved."""
    scene = table(registry, "wreckers", [(20, 250, 300, 0), (21, 450, 300, 0), (22, 650, 300, 0)])
    text = next(c.text for c in registry.commands if c.name == "undo")
    script = Script(scene, passes=[Pass(0.5, (100, 250), (800, 350), duration=1.0)],
                    moves=[Move(5.0, 22, 700, 420)])
    pipeline = TablePipeline("wreckers", registry)       # as shipped: QR cards read
    shown, frames = [], 0
    for k in range(70):
        t = k / 10
        now, hands = script.state_at(t)
        if 2.0 <= t < 4.5:
            now = replace(now, held=(HeldCard(text, x=450 + 6 * (k % 3), y=320, side_px=170 * height / 720),))
        frame, _ = renderer.render(now, Viewpoint(height * 16 // 9, height, tilt=20),
                                   Effects(blur=0.6, hands=tuple(hands), seed=k))
        shown += [(e.command, e.t) for e in pipeline.update(frame, t) if e.kind == "card"]
        frames += 1
    assert len(shown) == 1 and shown[0][0] == "undo" and 2.0 <= shown[0][1] < 3.0
    # zbar ran on crops where finder patterns appeared, never on most frames
    assert pipeline._qr.scans < frames / 2


def test_a_card_put_down_elsewhere_is_no_place_for_a_command_card_one_held_up_beside_it_is(registry, renderer):
    """A card lifted and put down 80 mm away between two frames is read where it landed by the
    look at what came into view: that explains the change where it was and where it is, so the
    QR finder patterns are not looked for there (before: 1.0-1.3 ms of a 1080p frame in which
    every card jumped). The Undo card held up while another card lands beside it is read."""
    scene = table(registry, "wreckers", [(20, 250, 300, 0), (21, 450, 300, 0), (22, 650, 300, 0)])
    text = next(c.text for c in registry.commands if c.name == "undo")
    pipeline = TablePipeline("wreckers", registry, full_every=1000)
    assert pipeline._qr is not None and pipeline.regions is not None
    view = Viewpoint(1920, 1080, tilt=20)

    def show(now, k):
        frame, _ = renderer.render(now, view, Effects(blur=0.6, seed=k))
        return [e.command for e in pipeline.update(frame, k / 10) if e.kind == "card"]

    for k in range(4):
        show(scene, k)
    moved = replace(scene, pieces=tuple(replace(p, x=p.x + 80) if p.marker_id == 20 else p
                                        for p in scene.pieces))
    looked = pipeline._qr.looked
    show(moved, 4)
    assert 20 in pipeline.last.detections.ids.tolist()       # read where it landed, in that frame
    assert pipeline.regions.arrived == [] and pipeline._qr.looked == looked
    for k in range(5, 8):
        show(moved, k)
    # now card 22 lands 90 mm lower as the Undo card is held up beside it
    landed = replace(moved, pieces=tuple(replace(p, y=p.y + 90) if p.marker_id == 22 else p
                                         for p in moved.pieces))
    shown = []
    for k in range(8, 14):
        shown += show(replace(landed, held=(HeldCard(text, x=450, y=460, side_px=240),)), k)
    assert shown == ["undo"]
