"""What kind of code the vision pipeline's CPU goes to (issue 24): OpenCV, Python, numpy, libc.

``bench_vision_speed --stages`` says which stage of a frame costs what; this says, for the same
scenarios, whether that time is pixels (OpenCV's loops) or the bookkeeping round them (the Python
interpreter, and numpy's calls on arrays of a few corners, whose cost is their dispatch). It
bounds what compiled code could still save: at most the interpreter's and numpy's share.

Each scenario's pipeline runs in a child process under Linux's ``perf record`` (a timer's samples,
``cpu-clock``, on every thread of the process, OpenCV's own included), which is told to count
only while the pipeline works: the child renders its frames in batches, and asks perf to start
(``enable``) before a batch goes through ``TablePipeline.update`` (inside ``detect.one_thread``,
as ``bench_vision_speed`` and the camera run it) and to stop after it, through perf's control
FIFO. A sample's kind of code is the library its instruction is in:

- *OpenCV*: ``cv2.abi3.so`` (its pixel loops, and its Python binding's argument checks);
- *Python*: ``libpython`` (the interpreter, and the objects every call makes);
- *numpy*: numpy's C code (dispatch, checks and casts; its arithmetic on a few corners is little);
- *C library*: libc, libm, libstdc++ (memory copies and allocation, for any of the above);
- *kernel*: page faults for new arrays, and the scheduler.

perf does not stop the process to sample it, unlike py-spy, whose ``--native`` samples were
tried first and gave numpy and the interpreter 10-20 points more than this (its pauses leave the
shares of a different run). Needs Debian's ``linux-perf`` and the right to use perf events
(root, or ``kernel.perf_event_paranoid`` ≤ 1); the bench says so when either is missing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

import _common

KINDS = ("OpenCV", "Python", "numpy", "C library", "kernel")
SMOKE = {"frames": 4, "scale": 0.5, "batch": 2}
#: `perf report --sort dso,sym` lines: "  11.97%  libpython3.11.so.1.0  [.] _PyEval_EvalFrameDefault"
_LINE = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$")


def kind_of(dso: str) -> str:
    """The kind of code of a library as perf names it."""
    if dso.startswith("cv2") or "opencv" in dso:
        return "OpenCV"
    if dso.startswith("libpython") or dso in ("python", "python3") or dso.startswith("python3"):
        return "Python"
    if "numpy" in dso or dso.startswith(("_multiarray", "_umath", "_simd")):
        return "numpy"
    if dso.startswith("[kernel") or dso == "[unknown]":
        return "kernel"
    return "C library"


def tally(report: str) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """The shares (per cent of the samples) in ``perf report --sort dso,sym --stdio`` output: per
    kind of code, and per kind and symbol (OpenCV's are addresses: its wheel is stripped)."""
    kinds: Counter[str] = Counter()
    symbols: dict[str, Counter[str]] = defaultdict(Counter)
    for line in report.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        share, dso, _, symbol = float(m[1]), m[2], m[3], m[4]
        kind = kind_of(dso)
        kinds[kind] += share
        symbols[kind][symbol] += share
    return kinds, symbols


def child(scenario: str, frames: int, scale: float, batch: int, kind: str, ctl: str, ack: str) -> None:
    """Run one scenario's frames through the pipeline, as ``bench_vision_speed`` does, perf
    counting only while the pipeline works (its control FIFO's ``enable`` and ``disable``): all
    of it (`kind` "all"), or only its frames of one of ``bench_vision_speed.KINDS``. Which kind a
    frame is is known only once it is read, so a twin pipeline reads each frame first, uncounted,
    and the counted one reads it after it if it is of that kind (the two read alike: same frames,
    same state; the twin reads the frame into the caches first, as the speed bench's plain pass
    does)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_vision_speed as speed

    from tableassist.markers.registry import load_registry
    from tableassist.vision import TablePipeline
    from tableassist.vision.detect import one_thread
    from tableassist.vision.synthetic.render import Renderer

    registry = load_registry()
    game_id, frames_of = speed.SCENARIOS[scenario]
    pipeline = TablePipeline(game_id, registry)
    twin = None if kind == "all" else TablePipeline(game_id, registry)
    with open(ctl, "w") as control, open(ack) as acked:
        def perf(command: str) -> None:
            control.write(command + "\n")
            control.flush()
            acked.readline()        # perf's "ack": counting has started (or stopped)

        def run(rendered: list[tuple[float, np.ndarray]]) -> None:
            if twin is None:
                perf("enable")
                for t, frame in rendered:
                    pipeline.update(frame, t)
                perf("disable")
                return
            for t, frame in rendered:
                assert twin.regions is not None
                unchanged = twin.regions.unchanged
                twin.update(frame, t)
                counted = speed.frame_kind(twin, unchanged) == kind
                if counted:
                    perf("enable")
                pipeline.update(frame, t)
                if counted:
                    perf("disable")
                assert np.array_equal(pipeline.last.detections.ids, twin.last.detections.ids)

        with one_thread():
            rendered: list[tuple[float, np.ndarray]] = []
            for t, frame, _ in frames_of(registry, Renderer(registry.dictionary), frames, scale):
                rendered.append((t, frame))
                if len(rendered) == batch:
                    run(rendered)
                    rendered = []
            if rendered:
                run(rendered)


def speed_kinds() -> dict[str, str]:
    """bench_vision_speed's kinds of frame and what each is."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_vision_speed as speed
    return dict(speed.KINDS)


def perf_binary() -> str:
    """Debian's perf; exits with a sentence when it is not installed."""
    found = shutil.which("perf")
    if found is None:
        raise SystemExit("perf is not installed: apt-get install linux-perf (Debian)")
    return found


def main() -> None:
    ap = _common.parser(__doc__)
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--only", choices=("game", "game4k", "moving"))
    ap.add_argument("--scale", type=float, default=1.0, help="frame size, times the scenario's")
    ap.add_argument("--rate", type=int, default=10000, help="perf's samples a second")
    ap.add_argument("--batch", type=int, default=20, help="frames rendered before each run of the pipeline")
    ap.add_argument("--kinds", default="all,moving",
                    help="the frames counted, each a run: all, or a kind of frame of bench_vision_speed "
                         "(still, due, moving, band), comma-separated")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = _common.parse(ap, SMOKE)
    if args.child:
        scenario, kind, ctl, ack = args.child
        child(scenario, args.frames, args.scale, args.batch, kind, ctl, ack)
        return
    perf = perf_binary()
    counted = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in counted if k not in ("all", "still", "due", "moving", "band")]
    if unknown:
        raise SystemExit(f"--kinds: no kind of frame {', '.join(unknown)} (all, still, due, moving, band)")
    print(f"{args.frames} frames per scenario, perf at {args.rate} samples a second; load {_common.load()}")
    for name in ("moving", "game", "game4k"):
        if args.only and name != args.only:
            continue
        for kind in counted:
            kinds, symbols, samples = record(perf, name, kind, args)
            what = "every frame" if kind == "all" else f"its {kind} frames ({speed_kinds()[kind]})"
            if not samples:
                print(f"{name}, {what}: none in these frames")
                continue
            print(f"{name}, {what}: {samples} samples; " + ", ".join(f"{k} {kinds[k]:.0f} %" for k in KINDS)
                  + f"; the interpreter and numpy together {kinds['Python'] + kinds['numpy']:.0f} %")
            for code in ("Python", "numpy", "OpenCV"):
                top = symbols[code].most_common(4)
                if top:
                    print(f"  {code}'s dearest: " + ", ".join(f"{s} {v:.1f} %" for s, v in top))
            sys.stdout.flush()


def record(perf: str, name: str, kind: str, args: argparse.Namespace
           ) -> tuple[Counter[str], dict[str, Counter[str]], int]:
    """One scenario's run under perf, counting the frames of `kind`: the shares by kind of code
    and symbol (`tally`) and the samples counted."""
    with tempfile.TemporaryDirectory() as tmp:
        ctl, ack, data = (os.path.join(tmp, n) for n in ("ctl", "ack", "perf.data"))
        os.mkfifo(ctl)
        os.mkfifo(ack)
        done = subprocess.run(
            [perf, "record", "-q", "-e", "cpu-clock", "-F", str(args.rate), "--delay=-1",
             f"--control=fifo:{ctl},{ack}", "-o", data, "--", sys.executable, __file__,
             "--child", name, kind, ctl, ack, "--frames", str(args.frames), "--scale", str(args.scale),
             "--batch", str(args.batch)], capture_output=True, text=True)
        if done.returncode != 0 or not os.path.exists(data):
            raise SystemExit(f"perf could not sample the {name} scenario (exit {done.returncode}): "
                             + " ".join(done.stderr.strip().splitlines()[-2:] or ["no message"])
                             + "\n(perf events need root or kernel.perf_event_paranoid <= 1)")
        report = subprocess.run([perf, "report", "-i", data, "--sort", "dso,sym", "--stdio", "-q"],
                                capture_output=True, text=True).stdout
        counts = subprocess.run([perf, "report", "-i", data, "--sort", "dso", "--stdio", "-q", "-n"],
                                capture_output=True, text=True).stdout
    kinds, symbols = tally(report)
    samples = sum(int(f[1]) for f in (line.split() for line in counts.splitlines())
                  if len(f) >= 3 and f[1].isdigit())
    return kinds, symbols, samples


if __name__ == "__main__":
    main()
