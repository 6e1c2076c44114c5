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

``--kinds`` counts, in a run of its own each, every frame (``all``) or only the frames of one of
``bench_vision_speed``'s kinds (``moving``: a hand or a card moving, which sets a typical game's
p90): a twin pipeline reads each frame first, uncounted, to tell its kind.

OpenCV's wheel is stripped, so perf gives its samples bare addresses. First, each OpenCV call the
pipeline makes runs alone under perf (``--calibration`` seconds each); an address is then named
after the call it was sampled in, or after the nearest such address within ``NEAR`` bytes (the
same loop), and OpenCV's share is printed by call.

perf does not stop the process to sample it. py-spy's ``--native`` samples, tried first, do: they
gave numpy twice the share perf gives it and OpenCV half (the shares of a run slowed many times
over). Needs Debian's ``linux-perf`` and the right to use perf events (root, or
``kernel.perf_event_paranoid`` ≤ 1); the bench says so when either is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable

import numpy as np

import _common
import bench_vision_speed as speed

KINDS = ("OpenCV", "Python", "numpy", "C library", "kernel")
SMOKE = {"frames": 4, "scale": 0.5, "batch": 2, "calibration": 0.02, "only": "moving"}
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


def opencv_calls(size: tuple[int, int]) -> list[tuple[str, Callable[[], object]]]:
    """The OpenCV calls the pipeline makes, each on a picture like its own (a `size` frame, a
    card's crop), to name the addresses of OpenCV's stripped library: the single calls first, the
    detector (which makes several of them inside) last, so that it is named only for the rest."""
    import cv2
    w, h = size
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 256, (h, w, 3), np.uint8)
    crop = cv2.GaussianBlur(rng.integers(0, 256, (256, 256), np.uint8), (0, 0), 2.0)
    bgr = frame[:256, :256].copy()
    bgra = cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA)
    points = (np.array([[[60.3, 60.7]], [[190.2, 61.1]], [[189.6, 190.4]], [[61.4, 189.8]]], np.float32))
    square = np.ones((5, 5), np.uint8)
    aruco = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_250))
    return [
        ("resize, nearest pixel", lambda: cv2.resize(frame[4::8], (w // 8, h // 8), interpolation=cv2.INTER_NEAREST_EXACT)),
        ("resize, area", lambda: cv2.resize(crop, (32, 32), interpolation=cv2.INTER_AREA)),
        ("cvtColor BGR to grey", lambda: cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)),
        ("cvtColor BGRA to grey", lambda: cv2.cvtColor(bgra, cv2.COLOR_BGRA2GRAY)),
        ("adaptiveThreshold", lambda: cv2.adaptiveThreshold(crop, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                                           cv2.THRESH_BINARY_INV, 13, 7)),
        ("threshold", lambda: cv2.threshold(crop, 128, 1, cv2.THRESH_BINARY)),
        ("GaussianBlur", lambda: cv2.GaussianBlur(crop, (0, 0), 1.5)),
        ("addWeighted", lambda: cv2.addWeighted(crop, 2.0, crop, -1.0, 0)),
        ("blur", lambda: cv2.blur(crop, (3, 3))),
        ("absdiff", lambda: cv2.absdiff(crop, crop)),
        ("pyrDown", lambda: cv2.pyrDown(crop)),
        ("dilate", lambda: cv2.dilate(crop, square)),
        ("morphologyEx, closing", lambda: cv2.morphologyEx(crop, cv2.MORPH_CLOSE, square)),
        ("findContours", lambda: cv2.findContours(cv2.threshold(crop, 128, 255, cv2.THRESH_BINARY)[1],
                                                  cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)),
        ("warpPerspective", lambda: cv2.warpPerspective(crop, np.eye(3), (56, 56))),
        ("cornerSubPix", lambda: cv2.cornerSubPix(crop, points.copy(), (3, 3), (-1, -1),
                                                  (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05))),
        ("copyMakeBorder", lambda: cv2.copyMakeBorder(crop, 12, 12, 12, 12, cv2.BORDER_CONSTANT, value=255)),
        ("ArucoDetector.detectMarkers", lambda: aruco.detectMarkers(crop)),
    ]


def calibrate(seconds: float) -> None:
    """Run each of `opencv_calls` for `seconds` on one thread, and print when each ran (JSON:
    [name, start, end] on CLOCK_MONOTONIC, the clock perf is told to stamp its samples with)."""
    import cv2
    cv2.setNumThreads(1)
    windows = []
    for name, call in opencv_calls((1920, 1080)):
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            call()
        windows.append((name, start, time.monotonic()))
    print(json.dumps(windows))


#: an address of OpenCV's is taken for a calibrated call's loop this near one of its own (bytes)
NEAR = 512


def opencv_names(perf: str, seconds: float) -> dict[str, str]:
    """A name for OpenCV's addresses (as perf gives them: its wheel is stripped): the call whose
    loop each is, from every address sampled while that call ran alone (`calibrate`; the first
    call to have one keeps it)."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        done = subprocess.run([perf, "record", "-q", "-k", "CLOCK_MONOTONIC", "-e", "cpu-clock", "-F", "5000",
                               "-o", data, "--", sys.executable, __file__, "--calibrate", str(seconds)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            return {}
        names: dict[str, str] = {}
        for name, start, end in json.loads(done.stdout.strip().splitlines()[-1]):
            report = subprocess.run([perf, "report", "-i", data, "--sort", "dso,sym", "--stdio", "-q",
                                     f"--time={start:.6f},{end:.6f}"], capture_output=True, text=True).stdout
            for m in map(_LINE.match, report.splitlines()):
                if m is not None and kind_of(m[2]) == "OpenCV":
                    names.setdefault(m[4], name)
    return names


def name_of(address: str, names: dict[str, str]) -> str | None:
    """The calibrated call an address of OpenCV's is in: its own, or that of the nearest named
    address within `NEAR` bytes (another instruction of the same loop); None if none is near."""
    if address in names:
        return names[address]
    try:
        at = int(address, 16)
    except ValueError:
        return None
    near = min(((abs(int(a, 16) - at), n) for a, n in names.items() if a.startswith("0x")), default=None)
    return near[1] if near is not None and near[0] <= NEAR else None


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
    ap.add_argument("--calibration", type=float, default=0.2,
                    help="seconds each OpenCV call runs alone, to name OpenCV's addresses (0: not named)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--calibrate", type=float, help=argparse.SUPPRESS)
    args = _common.parse(ap, SMOKE)
    if args.calibrate is not None:
        calibrate(args.calibrate)
        return
    if args.child:
        scenario, kind, ctl, ack = args.child
        child(scenario, args.frames, args.scale, args.batch, kind, ctl, ack)
        return
    perf = perf_binary()
    counted = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in counted if k not in ("all", "still", "due", "moving", "band")]
    if unknown:
        raise SystemExit(f"--kinds: no kind of frame {', '.join(unknown)} (all, still, due, moving, band)")
    names = opencv_names(perf, args.calibration) if args.calibration > 0 else {}
    print(f"{args.frames} frames per scenario, perf at {args.rate} samples a second; load {_common.load()}"
          + (f"; OpenCV's addresses named by {len(set(names.values()))} calls run alone" if names else ""))
    for name in ("moving", "game", "game4k"):
        if args.only and name != args.only:
            continue
        for kind in counted:
            kinds, symbols, samples = record(perf, name, kind, args)
            what = "every frame" if kind == "all" else f"its {kind} frames ({speed.KINDS[kind]})"
            if not samples:
                print(f"{name}, {what}: none in these frames")
                continue
            print(f"{name}, {what}: {samples} samples; " + ", ".join(f"{k} {kinds[k]:.0f} %" for k in KINDS)
                  + f"; the interpreter and numpy together {kinds['Python'] + kinds['numpy']:.0f} %")
            for code in ("Python", "numpy") if names else ("Python", "numpy", "OpenCV"):
                top = symbols[code].most_common(4)
                if top:
                    print(f"  {code}'s dearest: " + ", ".join(f"{name_of(s, names) or s} {v:.1f} %" for s, v in top))
            if names:
                calls: Counter[str] = Counter()
                for address, share in symbols["OpenCV"].items():
                    calls[name_of(address, names) or "unnamed"] += share
                print("  OpenCV by call: " + ", ".join(f"{c} {v:.1f} %" for c, v in calls.most_common(8)))
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
