"""Vision target 3 (issue 8): the whole pipeline against a plain full-frame ArucoDetector pass.

A synthetic game in progress (4 table corners, 4 seats, 12 cards of 28 mm moved by a hand every 4 s, a
hand passing every 5 s; camera tilt 20 deg, blur 0.7, noise, JPEG) is rendered once at 720p and at 1080p.
Then, in the same process and interleaved, `--repeats` times each:
  baseline:  cv2.aruco.ArucoDetector(project dictionary, default parameters).detectMarkers(frame)
  pipeline:  TablePipeline("wreckers").update(frame, t)   (detection + geometry + tracker, QR off)
Printed: median wall and CPU ms/frame of each, the ratios, and the recall of each over the markers in view.

    .venv/bin/python bench/bench_vision_speed.py [--frames 120] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2

from tableassist.markers.registry import load_registry
from tableassist.vision import TablePipeline
from tableassist.vision import synthetic as S


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--fps", type=float, default=10.0)
    args = ap.parse_args()
    registry = load_registry()
    renderer = S.Renderer(registry.dictionary)
    script = S.demo_script(seed=7, length=args.frames / args.fps + 5, move_every=4.0, pass_every=5.0)
    print(f"cv2 {cv2.__version__}, {cv2.getNumThreads()} threads, dictionary {registry.dictionary}, "
          f"{args.frames} frames at {args.fps} fps, {args.repeats} interleaved repeats")
    for width, height in ((1280, 720), (1920, 1080)):
        video = S.SyntheticVideo(script, renderer, S.Camera(width, height, tilt=20), fps=args.fps,
                                 duration=args.frames / args.fps, effects=S.Effects(blur=0.7))
        frames = list(video.frames())
        in_view = sum(len(truth.ids) for _, _, truth in frames)
        base_ms, pipe_ms, base_cpu, pipe_cpu = [], [], [], []
        base_found = pipe_found = 0
        for _ in range(args.repeats):
            baseline = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(
                getattr(cv2.aruco, registry.dictionary)), cv2.aruco.DetectorParameters())
            t0, c0 = time.perf_counter(), time.process_time()
            found = 0
            for _, frame, truth in frames:
                _, ids, _ = baseline.detectMarkers(frame)
                found += 0 if ids is None else len(set(ids.ravel().tolist()) & set(truth.ids.tolist()))
            base_ms.append((time.perf_counter() - t0) / len(frames) * 1000)
            base_cpu.append((time.process_time() - c0) / len(frames) * 1000)
            base_found = found
            pipeline = TablePipeline("wreckers", registry, qr_every=None)
            t0, c0 = time.perf_counter(), time.process_time()
            found = 0
            for t, frame, truth in frames:
                pipeline.update(frame, t)
                ids = pipeline.last.detections.ids
                found += len(set(ids.tolist()) & set(truth.ids.tolist()))
            pipe_ms.append((time.perf_counter() - t0) / len(frames) * 1000)
            pipe_cpu.append((time.process_time() - c0) / len(frames) * 1000)
            pipe_found = found
        b, p = statistics.median(base_ms), statistics.median(pipe_ms)
        bc, pc = statistics.median(base_cpu), statistics.median(pipe_cpu)
        print(f"{height}p: recall baseline {100 * base_found / in_view:.2f} %, pipeline "
              f"{100 * pipe_found / in_view:.2f} % of {in_view} markers in view\n"
              f"  wall ms/frame: baseline {b:6.1f}  pipeline {p:6.1f}  x{b / p:.2f}   "
              f"[runs: {', '.join(f'{v:.1f}' for v in base_ms)} | {', '.join(f'{v:.1f}' for v in pipe_ms)}]\n"
              f"  CPU  ms/frame: baseline {bc:6.1f}  pipeline {pc:6.1f}  x{bc / pc:.2f}   "
              f"(process CPU time: steadier than wall time on a shared machine)", flush=True)


if __name__ == "__main__":
    main()
