"""Vision at a real table (issue 15): resting hands, short covers, glare, dimming and motion blur
give every real change and nothing else.

A rendered Wreckers table (1280x720, tilt 20 deg, blur 0.6, 12 cards of 28 mm; the hands are
skin-textured and cast a shadow) for `--seconds` seconds at `--fps`:
  * a hand rests still on one card for 10 s; another rests on a card for 4 s, then takes it away;
  * short covers (a hand on a card for 0.6 s) every few seconds;
  * the room dims to half for 2 s, a lamp's glare lies over a card for 2 s, the camera shakes
    (8 px motion blur) for 1 s;
  * real changes: cards moved to other places and turned, one card removed from under a hand.
The pipeline's events are scored against the script (`score_events`, 2.5 s of slack: a
removal is confirmed `lost_after` after the hand has gone): real changes found, missed, spurious
events, and each found change's latency in frames from the moment the hand let go (removals:
from when the hand left). Run twice: with the occlusion witness (as shipped) and without it
(time alone decides, as before issue 15).

    .venv/bin/python bench/bench_vision_conditions.py [--fps 8] [--seconds 30] [--smoke]
"""

from __future__ import annotations

import statistics
import time

import _common
from tableassist.markers.registry import load_registry
from tableassist.vision import Layout, TableGeometry, TablePipeline, Tracker
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import Viewpoint
from tableassist.vision.synthetic.score import score_events
from tableassist.vision.synthetic.script import SyntheticVideo, real_table_script

SMOKE = {"fps": 4.0, "seconds": 7.0}  # the first move (at 4 s) and a short cover


def main() -> None:
    ap = _common.parser(__doc__)
    ap.add_argument("--fps", type=float, default=8.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    args = _common.parse(ap, SMOKE)
    registry = load_registry()
    renderer = Renderer(registry.dictionary)
    plan, conditions = real_table_script(registry)
    camera = Viewpoint(1280, 720, tilt=20)
    video = SyntheticVideo(plan, renderer, camera, fps=args.fps, duration=args.seconds,
                           effects=Effects(blur=0.6), conditions=conditions, seed=3)
    frames = list(video.frames())
    print(f"{len(frames)} frames {camera.width}x{camera.height} at {args.fps:g} fps: {len(plan.moves)} real "
          f"changes, {len(plan.rests)} resting hands (one 10 s, six 0.6 s covers), dimming, glare, motion blur")
    for name, witness in (("with the occlusion witness (as shipped)", True), ("time alone (lost_after 1.5 s)", False)):
        tracker = None if witness else Tracker(registry, "wreckers")
        pipeline = TablePipeline("wreckers", registry, qr_every=None, tracker=tracker)
        events = []
        t0 = time.process_time()
        for t, frame, _ in frames:
            events += pipeline.update(frame, t)
        cpu = (time.process_time() - t0) / len(frames) * 1000
        score = score_events(plan, camera, lambda: TableGeometry(Layout.load("wreckers"), registry, "wreckers"),
                               events, settle=1.0, slack=2.5)
        latency = []
        for m in plan.moves:
            if any(mm is m for mm, _ in score.missed):
                continue
            mid = m.new_id or m.marker_id
            hit = next((e for e in events if e.t >= m.t and e.sighting.marker_id == mid and e.t > 1.0), None)
            if hit is not None:
                latency.append((hit.t - (m.t + m.duration)) * args.fps)
        print(f"{name}: expected {score.expected}, found {score.matched}, missed {len(score.missed)}, "
              f"spurious {len(score.spurious)}; latency frames median "
              f"{statistics.median(latency) if latency else float('nan'):.1f}, max "
              f"{max(latency) if latency else float('nan'):.1f}; {cpu:.1f} ms CPU/frame")
        for m, kind in score.missed:
            print(f"  missed: {kind} of {m.marker_id} at {m.t:.1f} s")
        for e in score.spurious:
            print(f"  spurious: {e.kind} {e.sighting.marker_id} at {e.t:.2f} s")


if __name__ == "__main__":
    main()
