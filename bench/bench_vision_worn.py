"""Damaged stickers (issue 24): how soon each kind of damage is reported on a still table, and
how many reports the camera makes where nothing is damaged.

Latency: a rendered Wreckers table (1280x720, and 1920x1080; tilt 20 deg, blur 0.6, noise 2, JPEG
85; 4 cards whose stickers are 28 mm: 26 px at 720p, 40 px at 1080p) at `--fps`, one card's sticker damaged, for `--seconds`: two flipped cells, three, a torn
corner (30 % of the side), a 2 px scratch through the border, a 3 px pen stroke across it. Each
is played with `--seeds` seeds (which cells, which corner, where the line runs) three ways: the
damaged card there from the first frame (720p and 1080p), and laid down by a hand at 2 s (then
the region scans, not the first full scan, see it first). The latency is the time from
the first frame the damaged sticker is in view, without a hand over it, to the first frame
whose `TablePipeline.last.failing` holds a notice for it (seconds; "never" within the video),
and how many notices name the card (the others name its zone: its id cannot be read). Then each
sticker damaged where it lies, under a hand for 0.5 s, from the hand leaving.

False reports (notices of a sticker that is not damaged), where nothing is:
  * clean video: bench_vision_conditions' 30 s table (`synthetic.script.real_table_script`:
    resting hands, short covers, the room dimmed, a lamp's glare, the camera shaken, cards
    moved, turned and removed);
  * the demo: each game's scripted demo video as `tableassist demo` plays it (hands, flicker);
  * the negative photos of /work/shared/realdata/negatives_zxing (carpet, text, grilles,
    tiles): each photo as a still camera for 2 s, and each as a board's art lying on a
    Wreckers table whose stickers are read (so the px/mm is known and the worn reading looks
    at every dark square of the art).

    .venv/bin/python bench/bench_vision_worn.py [--fps 8] [--seconds 5] [--smoke]
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

import _common
from tableassist.markers.registry import load_registry
from tableassist.vision import TablePipeline
from tableassist.vision.synthetic.effects import Effects, Hand
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import (
    Damage, Piece, Scene, Viewpoint, corner_pieces, registry_piece, seat_pieces)
from tableassist.vision.synthetic.script import SyntheticVideo, real_table_script

SMOKE = {"fps": 4.0, "seconds": 2.5, "kinds": "2 cells", "demo_seconds": 2.0, "photos": 1,
         "clean_seconds": 2.0, "seeds": 1, "games": "wreckers"}
CAMERA = Viewpoint(1280, 720, tilt=20)
CARDS = [(20, 250, 300), (21, 400, 300), (22, 550, 300), (23, 400, 450)]
DAMAGED = 22
KINDS = {"2 cells": Damage(cells=2, seed=3), "3 cells": Damage(cells=3, seed=3),
         "torn corner": Damage(corner=0.3, seed=1), "scratch": Damage(scratch=2.0, seed=2),
         "pen mark": Damage(pen=3.0, seed=4)}
NEGATIVES = Path("/work/shared/realdata/negatives_zxing")


def damaged_table(registry, damage: Damage | None, *, laid: bool) -> Scene:
    pieces = corner_pieces() + seat_pieces()
    for mid, x, y in CARDS:
        p = registry_piece(registry, "wreckers", mid, x, y)
        if mid == DAMAGED:
            p = replace(p, damage=damage)
            if laid:
                p = replace(p, x=950.0, y=300.0)     # off the table (out of view) until laid
        pieces += (p,)
    return Scene(pieces=pieces)


def latency(registry, renderer, damage: Damage, *, laid: bool, fps: float, seconds: float,
            camera: Viewpoint = CAMERA) -> tuple[float | None, str]:
    """(seconds from the first frame the damaged sticker is seen to its notice, None for never;
    what the notice says of it)."""
    scene = damaged_table(registry, damage, laid=laid)
    placed = replace(scene, pieces=tuple(replace(p, x=550.0) if p.marker_id == DAMAGED else p
                                         for p in scene.pieces))
    lay_at = 2.0 if laid else 0.0
    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    seen_at = None
    for k in range(int((seconds + lay_at) * fps)):
        t = k / fps
        hands: tuple[Hand, ...] = ()
        if laid and lay_at - 0.5 <= t < lay_at:      # the hand brings it in, then leaves
            hands = (Hand(550.0 + 400 * (lay_at - t), 300.0, angle=0.0),)
        shown = placed if t >= lay_at - 0.5 or not laid else scene
        frame, truth = renderer.render(shown, camera, Effects(blur=0.6, noise=2.0, hands=hands, seed=k))
        if seen_at is None and t >= lay_at:
            seen_at = t
        pipeline.update(frame, t)
        if seen_at is None:
            continue
        for notice in pipeline.last.failing:
            centre = _centre(notice, pipeline)
            if notice.marker_id == DAMAGED or (notice.marker_id is None and centre):
                return t - seen_at, ("id %d" % DAMAGED if notice.marker_id == DAMAGED
                                     else f"a sticker in the {notice.zone}")
    return None, "-"


def damaged_later(registry, renderer, damage: Damage, *, fps: float, seconds: float) -> float | None:
    """Seconds from the damage to the notice naming card 22: read for 1.5 s, then a hand over it
    for 0.5 s (a pen, a fingernail), and it lies there damaged; from the hand leaving (None:
    never within `seconds`)."""
    clean = damaged_table(registry, None, laid=False)
    worn = damaged_table(registry, damage, laid=False)
    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    for k in range(int((2.0 + seconds) * fps)):
        t = k / fps
        hands = (Hand(560.0, 330.0, angle=60.0),) if 1.5 <= t < 2.0 else ()
        frame, _ = renderer.render(worn if t >= 1.75 else clean, CAMERA,
                                   Effects(blur=0.6, noise=2.0, hands=hands, seed=k))
        pipeline.update(frame, t)
        if t >= 2.0 and any(n.marker_id == DAMAGED for n in pipeline.last.failing):
            return t - 2.0
    return None


def _centre(notice, pipeline) -> bool:
    """Whether an unnamed notice lies where the damaged card is (its zone: the discard)."""
    return notice.zone == "discard"


def false_reports(pipeline: TablePipeline, frames, cpu: list[tuple[float, float]] | None = None
                  ) -> tuple[int, int, list[str]]:
    """(frames, notices, what they said): every notice is a false report here. With `cpu`, the
    same frames also go through the pipeline without the worn watch (`worn_after=None`), in turn,
    and each frame's CPU seconds (watched, not watched) are added to it."""
    n, said = 0, []
    seen: set[tuple[object, ...]] = set()
    plain = TablePipeline(pipeline.game, pipeline.registry, qr_every=pipeline.qr_every, worn_after=None) \
        if cpu is not None else None
    for t, frame in frames:
        t0 = time.process_time()
        pipeline.update(frame, t)
        if plain is not None and cpu is not None:
            t1 = time.process_time()
            plain.update(frame, t)
            cpu.append((t1 - t0, time.process_time() - t1))
        n += 1
        for f in pipeline.last.failing:
            key = (f.marker_id, f.zone, f.why)
            if key not in seen:
                seen.add(key)
                said.append(f"t={t:.1f} {f.marker_id} {f.zone}: {f.why}")
    return n, len(seen), said


def clean_video(registry, renderer, fps: float, seconds: float):
    script, conditions = real_table_script(registry)
    video = SyntheticVideo(script, renderer, CAMERA, fps=fps, duration=seconds,
                           effects=Effects(blur=0.6, noise=2.0), conditions=conditions)
    return ((t, frame) for t, frame, _ in video.frames())


def demo_video(registry, renderer, game: str, seconds: float | None):
    from tableassist.demo.scripts import SCRIPTS
    scripted = _common.cut(SCRIPTS[game](registry=registry), seconds)
    return ((t, frame) for t, frame, _ in scripted.video(renderer, hands=True, flicker=0.02).frames())


def photos(limit: int | None) -> list[Path]:
    found = sorted(p for p in NEGATIVES.rglob("*") if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
    return found[:limit] if limit else found


def photo_still(path: Path, fps: float):
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    for k in range(int(2 * fps)):
        noisy = np.clip(image.astype(np.int16) + np.random.default_rng(k).normal(0, 2, image.shape),
                        0, 255).astype(np.uint8)
        yield k / fps, noisy


def photo_as_board(registry, renderer, path: Path, fps: float):
    """The photo as a 300 x 200 mm board's art in the middle of a Wreckers table, 2 s."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    art = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    board = Piece(marker_id=24, x=450.0, y=300.0, size_mm=0.1, card_mm=(320.0, 220.0), art=art)
    pieces = corner_pieces() + seat_pieces() + (board,) + tuple(
        registry_piece(registry, "wreckers", mid, x, y) for mid, x, y in
        ((20, 200, 120), (21, 700, 120), (23, 200, 480), (25, 700, 480)))
    scene = Scene(pieces=pieces)
    for k in range(int(2 * fps)):
        frame, _ = renderer.render(scene, CAMERA, Effects(blur=0.6, noise=2.0, seed=k))
        yield k / fps, frame


def main() -> None:
    ap = _common.parser(__doc__)
    ap.add_argument("--fps", type=float, default=8.0)
    ap.add_argument("--seconds", type=float, default=5.0, help="how long each damaged sticker is watched")
    ap.add_argument("--kinds", default=",".join(KINDS), help="which kinds of damage, comma-separated")
    ap.add_argument("--seeds", type=int, default=3,
                    help="each kind with this many seeds (which cells, which corner, where the line runs)")
    ap.add_argument("--clean-seconds", dest="clean_seconds", type=float, default=30.0)
    ap.add_argument("--demo-seconds", dest="demo_seconds", type=float, default=None,
                    help="the first seconds of each demo video (default: all of it)")
    ap.add_argument("--photos", type=int, default=None, help="the first N negative photos (default: all 47)")
    ap.add_argument("--games", default=None, help="which games' demos, comma-separated (default: all five)")
    args = _common.parse(ap, SMOKE)
    registry = load_registry()
    renderer = Renderer(registry.dictionary)
    started = time.process_time()
    print(f"load {_common.load()}")
    print(f"latency of the first notice of a damaged sticker, still Wreckers table at {args.fps:g} fps "
          f"(goal: within 2 s)")
    print(f"{'damage':<14} {'720p, there from the start':>34} {'720p, laid at 2 s':>34} "
          f"{'1080p, there from the start':>34}")
    big = replace(CAMERA, width=1920, height=1080)
    for kind in args.kinds.split(","):
        cells = []
        for laid, camera in ((False, CAMERA), (True, CAMERA), (False, big)):
            runs = [latency(registry, renderer, replace(KINDS[kind], seed=KINDS[kind].seed + k), laid=laid,
                            fps=args.fps, seconds=args.seconds, camera=camera) for k in range(args.seeds)]
            times = [s for s, _ in runs if s is not None]
            never = len(runs) - len(times)
            named = sum(1 for _, n in runs if n.startswith("id"))
            cells.append((f"worst {max(times):.2f} s" if times else "") + (f", {never} never" if never else "")
                         + f", {named}/{len(runs)} named")
        print(f"{kind:<14} {cells[0]:>34} {cells[1]:>34} {cells[2]:>34}", flush=True)
    print(f"{'damaged where it lies':<14}", end=" ")
    for kind in ("scratch", "pen mark", "torn corner"):
        s = damaged_later(registry, renderer, KINDS[kind], fps=args.fps, seconds=args.seconds)
        print(f"{kind}: {'never' if s is None else f'{s:.2f} s'}", end="; ")
    print("(read for 1.5 s, a hand over it for 0.5 s, from the hand leaving)", flush=True)
    print("false reports (every notice here is one)")
    cpu: list[tuple[float, float]] = []
    frames, notices, said = false_reports(TablePipeline("wreckers", registry, qr_every=None),
                                          clean_video(registry, renderer, args.fps, args.clean_seconds), cpu)
    print(f"  clean video (conditions): {notices} in {frames} frames" + "".join(f"\n    {s}" for s in said),
          flush=True)
    from tableassist.demo.scripts import SCRIPTS
    for game in args.games.split(",") if args.games else SCRIPTS:
        frames, notices, said = false_reports(TablePipeline(game, registry),
                                              demo_video(registry, renderer, game, args.demo_seconds), cpu)
        print(f"  demo {game}: {notices} in {frames} frames" + "".join(f"\n    {s}" for s in said), flush=True)
    watched, plain = [c[0] for c in cpu], [c[1] for c in cpu]
    print(f"  CPU per frame, pipeline as shipped against it without the worn watch (same frames, in turn): "
          f"median {1000 * _common.pct(watched, 0.5):.1f} / {1000 * _common.pct(plain, 0.5):.1f} ms "
          f"({_common.ratio(_common.pct(watched, 0.5), _common.pct(plain, 0.5))}), "
          f"p90 {_common.ratio(_common.pct(watched, 0.9), _common.pct(plain, 0.9))}, "
          f"total {_common.ratio(sum(watched), sum(plain))}, worst frame {1000 * max(watched, default=0):.0f} / "
          f"{1000 * max(plain, default=0):.0f} ms", flush=True)
    still = board = 0
    shown = photos(args.photos)
    for path in shown:
        _, n, said = false_reports(TablePipeline("wreckers", registry, qr_every=None), photo_still(path, args.fps))
        still += n
        _, m, said2 = false_reports(TablePipeline("wreckers", registry, qr_every=None),
                                    photo_as_board(registry, renderer, path, args.fps))
        board += m
        for s in said + said2:
            print(f"    {path.name}: {s}")
    print(f"  negative photos: {still} as a still camera, {board} as a board's art, of {len(shown)} photos")
    print(f"CPU {time.process_time() - started:.1f} s; load {_common.load()}")


if __name__ == "__main__":
    main()
