"""Vision target 1 (issue 8): detection accuracy on synthetic tables, the full grid.

Marker side 12-60 px x blur sigma 0-3 px x camera tilt 0-50 deg, 1280x720 frames, 24 random ids of the
project dictionary (the whole dictionary is searched, the worst case for wrong ids), noise sigma 2, a
lighting gradient, JPEG q85, and hands over 25 % of frames. Per cell: recall of readable markers (in view,
not touched by a hand), wrong ids (an id that is not on the table) per 10,000 markers, and the summary over
the target region (side >= 20 px, blur <= 1.5, tilt <= 50, readable).

    .venv/bin/python bench/bench_vision_accuracy.py [--frames 9] [--preset second-look|robust|default]
        [--max-blur 3.0] [--sizes 12,16,20,30,45,60] [--tilts 0,25,50] [--smoke]
"""

from __future__ import annotations

import time

import numpy as np

import _common
from tableassist.markers.registry import load_registry
from tableassist.vision import MarkerDetector
from tableassist.vision.synthetic.effects import Effects, Hand
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import Piece, Scene, Viewpoint

SIZES = (12, 16, 20, 30, 45, 60)
BLURS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
TILTS = (0, 25, 50)
SMOKE = {"frames": 1, "max_blur": 0.5, "sizes": "20,45", "tilts": "50"}


def scene_for(px: float, camera: Viewpoint, rng: np.random.Generator, ids: np.ndarray) -> Scene:
    base = Scene()
    H = camera.homography(base)
    # px per mm at the table centre
    c = np.float32([[[450, 300]], [[451, 300]]])
    import cv2
    p = cv2.perspectiveTransform(c, H).reshape(-1, 2)
    size_mm = px / float(np.linalg.norm(p[1] - p[0]))
    pieces = []
    for k, mid in enumerate(ids):
        x = 80 + (k % 6) * 150 + rng.uniform(-20, 20)
        y = 70 + (k // 6) * 150 + rng.uniform(-20, 20)
        pieces.append(Piece(int(mid), x, y, float(rng.uniform(0, 360)), size_mm))
    return Scene(pieces=tuple(pieces))


def main() -> None:
    ap = _common.parser(__doc__)
    ap.add_argument("--frames", type=int, default=9, help="frames per grid cell (24 markers each)")
    ap.add_argument("--preset", default="second-look")
    ap.add_argument("--max-blur", type=float, default=3.0, help="leave out the columns of larger blur")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="marker sides (px) of the grid")
    ap.add_argument("--tilts", default=",".join(map(str, TILTS)), help="camera tilts (deg) of the grid")
    args = _common.parse(ap, SMOKE)
    sizes = [int(s) for s in args.sizes.split(",")]
    tilts = [int(t) for t in args.tilts.split(",")]
    dictionary = load_registry().dictionary
    renderer = Renderer(dictionary)
    detector = MarkerDetector(dictionary, preset=args.preset)
    n_ids = detector.full_dictionary.bytesList.shape[0]
    rng = np.random.default_rng(2026)
    print(f"dictionary {dictionary}, preset {args.preset}, {args.frames} frames x 24 markers per cell, "
          "1280x720, hands over 25 % of frames")
    print(f"{'tilt':>4} {'blur':>4} " + " ".join(f"{s:>5}px" for s in sizes) + "   (recall %; wrong ids)")
    target = {"readable": 0, "found": 0, "wrong": 0, "markers": 0}
    t0 = time.perf_counter()
    for tilt in tilts:
        camera = Viewpoint(1280, 720, tilt=tilt)
        for blur in [b for b in BLURS if b <= args.max_blur]:
            row = []
            for px in sizes:
                readable = found = wrong = 0
                for f in range(args.frames):
                    ids = rng.choice(n_ids, 24, replace=False)
                    scene = scene_for(px, camera, rng, ids)
                    hands = ()
                    if rng.random() < 0.25:
                        hands = (Hand(float(rng.uniform(100, 800)), float(rng.uniform(100, 500)),
                                        float(rng.uniform(0, 180))),)
                    frame, truth = renderer.render(scene, camera, Effects(blur=blur, hands=hands,
                                                                            seed=int(rng.integers(1 << 30))))
                    got = detector.detect(frame)
                    want = set(truth.ids.tolist())
                    sides = {int(i): float(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1).mean())
                             for i, q in zip(truth.ids, truth.corners)}
                    ok = set(got.ids.tolist()) & want
                    bad = [int(i) for i in got.ids if int(i) not in want and int(i) not in truth.hidden]
                    readable += len(want)
                    found += len(ok)
                    wrong += len(bad)
                    if blur <= 1.5 and tilt <= 50:
                        big = {i for i in want if sides[i] >= 20}
                        target["readable"] += len(big)
                        target["found"] += len(big & ok)
                        target["markers"] += len(want) + len(truth.hidden)
                        target["wrong"] += len(bad)
                row.append(f"{100 * found / max(readable, 1):5.1f}" + ("*" if wrong else " ") + " ")
                if wrong:
                    row[-1] = row[-1][:-1] + f"{wrong}"
            print(f"{tilt:>4} {blur:>4} " + " ".join(row), flush=True)
    r = target
    print(f"\ntarget region (side >= 20 px, blur <= 1.5, tilt <= 50, hands 25 %): "
          f"recall {100 * r['found'] / r['readable']:.2f} % of {r['readable']} readable markers; "
          f"wrong ids or phantoms: {r['wrong']} in {r['markers']} markers "
          f"({10000 * r['wrong'] / r['markers']:.2f} per 10,000)")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
