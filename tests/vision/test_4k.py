"""4K by regions (issue 15): at 2160p the 12 mm dice and rat stickers are read in every frame
while the per-frame path looks only where markers are and where the picture changed."""

from __future__ import annotations

from tableassist.vision import TablePipeline
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import (
    Scene, Viewpoint, corner_pieces, registry_piece, seat_pieces)
from tableassist.vision.synthetic.script import Move, Pass, Script, SyntheticVideo


def dice_table(registry):
    """The table corners and seats, the 8 dice (12 mm stickers) in the pool and the 7 rats (12 mm)."""
    pieces = corner_pieces() + seat_pieces()
    pieces += tuple(registry_piece(registry, "abandon_ship", 22 + 6 * k, 650 + 55 * (k % 4), 420 + 60 * (k // 4))
                    for k in range(8))
    pieces += tuple(registry_piece(registry, "abandon_ship", 70 + k, 120 + 45 * k, 200) for k in range(7))
    return Scene(pieces=pieces)


def test_12_mm_stickers_at_2160p_are_all_read_with_one_full_scan(registry, renderer):
    """10 frames at 10 fps: a rat moved (from 0.2 s) and a hand passing (from 0.5 s)."""
    script = Script(dice_table(registry), moves=[Move(0.2, 70, 400, 420, duration=0.5)],
                    passes=[Pass(0.5, (100, 500), (800, 150), 0.4)])
    video = SyntheticVideo(script, renderer, Viewpoint(3840, 2160, tilt=15), fps=10, duration=1.0,
                           effects=Effects(blur=0.8, jpeg=90))
    pipeline = TablePipeline("abandon_ship", registry)          # as shipped: QR cards read too
    small = {m.id for m in registry.markers("abandon_ship") if m.size_mm <= 12}
    in_view = found = 0
    for t, frame, truth in video.frames():
        pipeline.update(frame, t)
        there = set(truth.ids.tolist()) & small
        in_view += len(there)
        found += len(there & set(pipeline.last.detections.ids.tolist()))
    assert in_view >= 130 and found == in_view
    assert pipeline.regions.full_scans == 1                  # the first frame; then regions only
    assert pipeline.regions.reused > 100                # still markers are not looked at again
    assert pipeline._qr.scans <= 2                           # zbar: the first frame, and nothing after
