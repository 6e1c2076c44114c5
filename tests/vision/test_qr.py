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
