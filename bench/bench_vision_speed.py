"""Vision speed (issues 8, 15): the whole per-frame pipeline as shipped against a plain full-frame
ArucoDetector pass, on the same frames, with the recall of each.

The pipeline is `TablePipeline(game, registry)` with its defaults, as `tableassist serve` builds it
(`server.camera.pipeline_for`): region tracking, the occlusion witness, the worn-sticker reading
and the QR command cards (`qr.CommandScanner`) all on. The baseline is
`cv2.aruco.ArucoDetector(project dictionary, default parameters).detectMarkers(frame)`.
Each frame is rendered once and given to both, one after the other (interleaved: the machine's
noise hits both alike); CPU is the process's CPU time (all threads), steadier than wall time on
a shared machine. Each runs on OpenCV's threads as it would alone: the pipeline as the camera's
loop runs it (`camera.frames.read_frames` holds `one_thread` while it reads; the band scans on
every thread), the plain pass on OpenCV's default threads (`every_thread` inside that, set
outside both timers: a thread count set and reset costs 40-50 µs each way and leaves the plain
pass's second thread spinning into the next timer, and neither would do that per frame). Printed per scenario, with the load average: ms/frame of each and the
speed-up (plain / pipeline) of the medians, the 90th percentiles and the totals (the first frame
included), the pipeline's worst frame against the plain pass's median, each one's recall over
the markers in view (and over the 12 mm stickers at 2160p), and how many markers the plain pass
read in a frame that the pipeline did not read in that frame (issue 24: none); and the CPU
figures again from frame `--settled` on (50: after the first frame and the first sweep of every
band, paid once a game).

Scenarios:
  moving   1080p, Wreckers, 12 cards of 28 mm that all slide 3 mm every frame (the worst case)
  game     1080p, Wreckers, 12 cards, a card moved every 4 s, a hand passing every 5 s (typical)
  game4k   2160p, Abandon Ship, 8 dice and 7 rats with 12 mm stickers, 5 cheese tokens, a die or
           rat moved every 3 s, a hand passing every 5 s

With `--stages`, each scenario also prints where the pipeline's CPU time goes, per kind of frame
(still: read as the one before; due: nothing changed, a missed marker due a look; moving: a hand
or a component moving; band: a band of the sweep, or the first frame), stage by stage: its
methods timed by wrappers round them on this pipeline (a microsecond or two a call on top; the
worn watch's search of a first frame's whole comes in the frame after it).
Its frames are made as the timed ones are, in turn: a profile of stored frames copied in again
measures another plain pass (glibc hands a large buffer back to the kernel and faults it in again,
~1,100 page faults a 1080p frame), and a ratio from it means nothing (docs/vision.md).

    .venv/bin/python bench/bench_vision_speed.py [--frames 80] [--only game4k] [--scale 1] [--settled 50] [--stages] [--smoke]
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace

import cv2
import numpy as np

import _common
from tableassist.markers.registry import load_registry
from tableassist.vision import TablePipeline
from tableassist.vision.detect import every_thread, one_thread
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import GroundTruth, Scene, Viewpoint, corner_pieces, registry_piece, seat_pieces
from tableassist.vision.synthetic.script import Move, Pass, Script, SyntheticVideo, demo_script

FPS = 10.0
# Rendering one 2160p frame takes seconds on a loaded machine: the smoke run's frames are a
# quarter of the pixels.
SMOKE = {"frames": 2, "scale": 0.5, "stages": True}

#: the stages `--stages` times: (what it is, the pipeline's part, its method). One called inside
#: another counts in both: "uncovered" holds "grey" and most of "may show".
STAGES = (
    ("change map", "regions.changes", "update"),
    ("first scan", "regions", "_first_scan"),
    ("follow", "regions", "_follow"),
    ("looks", "regions", "_regions"),
    ("uncovered", "regions", "_uncovered"),
    ("band scan", "regions", "_full_scan"),
    ("may show", "regions", "_may_show_sticker"),
    ("bare table", "regions", "_see_bare"),
    ("grey", "regions", "_learn_grey"),
    ("remember", "regions", "_remember"),
    ("geometry", "geometry", "update"),
    ("sightings", "geometry", "locate"),
    ("witness", "appearance", "frame"),
    ("tracker", "tracker", "update"),
    ("worn watch", "", "_failing"),
    ("QR", "", "_scan_qr"),
)
KINDS = {"still": "read as the one before", "due": "nothing changed, a missed marker due a look",
         "moving": "a hand or a component moving", "band": "a band of the sweep, or the first frame"}


def time_stages(pipeline: TablePipeline) -> Counter[str]:
    """CPU seconds spent in each of `STAGES` so far, kept up to date by wrappers set on this
    pipeline's own objects (their classes, and other pipelines, are untouched)."""
    spent: Counter[str] = Counter()
    for label, where, method in STAGES:
        owner = pipeline
        for part in filter(None, where.split(".")):
            owner = getattr(owner, part)
        inner = getattr(owner, method)

        def timed(*args, _inner: Callable = inner, _label: str = label, **kwargs):
            c = time.process_time()
            try:
                return _inner(*args, **kwargs)
            finally:
                spent[_label] += time.process_time() - c
        setattr(owner, method, timed)
    return spent


def frame_kind(pipeline: TablePipeline, unchanged_before: int) -> str:
    """Which of `KINDS` the frame the pipeline has just read was."""
    regions = pipeline.regions
    assert regions is not None
    if regions.swept is not None:
        return "band"
    if regions.unchanged > unchanged_before:
        return "still"
    return "moving" if regions.changed else "due"


def print_stages(kinds: list[str], cpu: list[float], spent: list[Counter[str]], top: int = 6) -> None:
    """Per kind of frame: how many, their mean ms, their share of the totals, the dearest stages."""
    total = sum(cpu) or 1.0
    print("  stages (--stages), CPU ms a frame by kind of frame:", flush=True)
    for kind, what in KINDS.items():
        picked = [k for k, name in enumerate(kinds) if name == kind]
        if not picked:
            continue
        mean = 1000 * sum(cpu[k] for k in picked) / len(picked)
        summed: Counter[str] = Counter()
        for k in picked:
            summed.update(spent[k])
        dearest = ", ".join(f"{label} {1000 * v / len(picked):.2f}" for label, v in summed.most_common(top))
        print(f"    {kind:6s} {len(picked):4d} frames {mean:6.2f} ms, {100 * sum(cpu[k] for k in picked) / total:3.0f} % "
              f"of the totals ({what}): {dearest}", flush=True)


def camera(width: int, height: int, scale: float, tilt: float) -> Viewpoint:
    """The scenario's camera, its frame ``scale`` times the size in each direction."""
    return Viewpoint(round(width * scale), round(height * scale), tilt=tilt)


def moving(registry, renderer, frames: int,
           scale: float) -> Iterator[tuple[float, np.ndarray, GroundTruth]]:
    base = corner_pieces() + seat_pieces()
    cards = [registry_piece(registry, "wreckers", 20 + k, 180 + 110 * (k % 6), 220 + 160 * (k // 6))
             for k in range(12)]
    view = camera(1920, 1080, scale, tilt=20)
    for k in range(frames):
        shift = 3.0 * (k % 20) - 30.0
        scene = Scene(pieces=base + tuple(replace(c, x=c.x + shift, rotation=c.rotation + 0.5 * k)
                                            for c in cards))
        frame, truth = renderer.render(scene, view, Effects(blur=0.7, seed=k))
        yield k / FPS, frame, truth


def game(registry, renderer, frames: int,
         scale: float) -> Iterator[tuple[float, np.ndarray, GroundTruth]]:
    script = demo_script(seed=7, length=frames / FPS + 5, move_every=4.0, pass_every=5.0)
    video = SyntheticVideo(script, renderer, camera(1920, 1080, scale, tilt=20), fps=FPS,
                             duration=frames / FPS, effects=Effects(blur=0.7))
    yield from video.frames()


def dice_script(registry, length: float) -> Script:
    pieces = corner_pieces() + seat_pieces()
    dice = [22 + 6 * k for k in range(8)]                     # each die's first face
    rats = [m.id for m in registry.markers("abandon_ship") if m.component == "rat"]
    cheese = [m.id for m in registry.markers("abandon_ship") if m.component == "cheese_token"]
    pieces += tuple(registry_piece(registry, "abandon_ship", d, 650 + 55 * (k % 4), 420 + 60 * (k // 4))
                    for k, d in enumerate(dice))
    pieces += tuple(registry_piece(registry, "abandon_ship", r, 120 + 45 * k, 200) for k, r in enumerate(rats))
    pieces += tuple(registry_piece(registry, "abandon_ship", c, 150 + 70 * k, 330) for k, c in enumerate(cheese))
    rng = np.random.default_rng(5)
    movable = dice + rats
    moves = [Move(t, int(rng.choice(movable)), float(rng.uniform(120, 820)), float(rng.uniform(150, 450)))
             for t in np.arange(2.0, length, 3.0)]
    passes = [Pass(float(t), (100, 500), (800, 150), 1.0) for t in np.arange(4.0, length, 5.0)]
    return Script(Scene(pieces=pieces), moves=moves, passes=passes)


def game4k(registry, renderer, frames: int,
           scale: float) -> Iterator[tuple[float, np.ndarray, GroundTruth]]:
    video = SyntheticVideo(dice_script(registry, frames / FPS + 3), renderer, camera(3840, 2160, scale, tilt=15),
                             fps=FPS, duration=frames / FPS, effects=Effects(blur=0.8, jpeg=90))
    yield from video.frames()


SCENARIOS = {"moving": ("wreckers", moving), "game": ("wreckers", game), "game4k": ("abandon_ship", game4k)}


def main() -> None:
    ap = _common.parser(__doc__)
    ap.add_argument("--frames", type=int, default=80)
    ap.add_argument("--only", choices=sorted(SCENARIOS))
    ap.add_argument("--scale", type=float, default=1.0, help="frame size, times the scenario's")
    ap.add_argument("--settled", type=int, default=50,
                    help="frames before the figures after the first sweep (the pipeline's full_every)")
    ap.add_argument("--stages", action="store_true",
                    help="also print where the pipeline's time goes, per kind of frame, stage by stage")
    args = _common.parse(ap, SMOKE)
    registry = load_registry()
    renderer = Renderer(registry.dictionary)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, registry.dictionary))
    print(f"cv2 {cv2.__version__}, {cv2.getNumThreads()} threads, dictionary {registry.dictionary}, "
          f"{args.frames} frames per scenario at {FPS:g} fps; pipeline as shipped (QR cards on)")
    for name, (game_id, frames_of) in SCENARIOS.items():
        if args.only and name != args.only:
            continue
        small = {m.id for m in registry.markers(game_id) if m.size_mm <= 12}
        baseline = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
        pipeline = TablePipeline(game_id, registry)
        spent = time_stages(pipeline) if args.stages else Counter()
        kinds: list[str] = []
        per_frame: list[Counter[str]] = []
        base_cpu, pipe_cpu, base_wall, pipe_wall = [], [], [], []
        in_view = small_in_view = base_found = pipe_found = base_small = pipe_small = 0
        behind = 0          # markers the plain pass read in a frame and the pipeline did not
        with one_thread():                           # as the camera's loop holds it
            for t, frame, truth in frames_of(registry, renderer, args.frames, args.scale):
                there = set(truth.ids.tolist())
                with every_thread():
                    w0, c0 = time.perf_counter(), time.process_time()
                    _, ids, _ = baseline.detectMarkers(frame)
                    base_cpu.append(time.process_time() - c0)
                    base_wall.append(time.perf_counter() - w0)
                if args.stages:
                    unchanged, before = pipeline.regions.unchanged, Counter(spent)
                w0, c0 = time.perf_counter(), time.process_time()
                pipeline.update(frame, t)
                pipe_cpu.append(time.process_time() - c0)
                pipe_wall.append(time.perf_counter() - w0)
                if args.stages:
                    kinds.append(frame_kind(pipeline, unchanged))
                    per_frame.append(spent - before)
                got_b = set() if ids is None else set(ids.ravel().tolist())
                got_p = set(pipeline.last.detections.ids.tolist())
                in_view += len(there)
                small_in_view += len(there & small)
                base_found += len(got_b & there)
                pipe_found += len(got_p & there)
                base_small += len(got_b & there & small)
                pipe_small += len(got_p & there & small)
                behind += len((got_b & there) - got_p)
        n = len(base_cpu)
        print(f"{name}: {n} frames {frame.shape[1]}x{frame.shape[0]}, {in_view} markers in view; load {_common.load()}\n"
              f"  recall: plain {100 * base_found / in_view:.2f} %, pipeline {100 * pipe_found / in_view:.2f} %; "
              f"read by the plain pass and not the pipeline in their frame: {behind}"
              + (f"; 12 mm stickers ({small_in_view}): plain {100 * base_small / small_in_view:.2f} %, "
                 f"pipeline {100 * pipe_small / small_in_view:.2f} %" if small_in_view else ""), flush=True)
        for clock, b, p in (("CPU ", base_cpu, pipe_cpu), ("wall", base_wall, pipe_wall)):
            print(f"  {clock} ms/frame plain / pipeline (speed-up): median {_speed(statistics.median(b), statistics.median(p))}, "
                  f"p90 {_speed(_common.pct(b, 0.9), _common.pct(p, 0.9))}, "
                  f"totals {_speed(sum(b), sum(p))}; worst frame {1000 * max(p):.1f} "
                  f"= x{max(p) / statistics.median(b):.2f} the plain median (frame {p.index(max(p))}, "
                  f"the first {1000 * p[0]:.1f})", flush=True)
        # a game lasts an hour, not this many seconds: its first frame and the first sweep of every
        # band (a second look at all of it) are paid once; after them, what each frame costs
        settled = args.settled
        if n > settled + 10:
            b, p = base_cpu[settled:], pipe_cpu[settled:]
            print(f"  CPU  from frame {settled} on (after the first sweep): median "
                  f"{_speed(statistics.median(b), statistics.median(p))}, p90 "
                  f"{_speed(_common.pct(b, 0.9), _common.pct(p, 0.9))}, totals {_speed(sum(b), sum(p))}; "
                  f"worst frame {1000 * max(p):.1f} (frame {settled + p.index(max(p))})", flush=True)
        if args.stages:
            print_stages(kinds, pipe_cpu, per_frame)
        regions = pipeline.regions
        assert regions is not None
        print(f"  (full sweeps {regions.full_scans} at scale {regions.full_scale:.2f}, "
              f"zbar crops {pipeline._qr.scans if pipeline._qr else 0})", flush=True)


def _speed(plain: float, pipeline: float) -> str:
    """Both times in ms and how many times faster the pipeline is."""
    return f"{1000 * plain:.1f} / {1000 * pipeline:.1f} ({_common.ratio(plain, pipeline)})"


if __name__ == "__main__":
    main()
