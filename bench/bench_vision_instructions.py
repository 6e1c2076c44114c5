"""The vision pipeline's instructions a frame, this tree against a git revision (issue 24).

``bench_vision_speed`` times the pipeline against a plain pass, and on this shared machine the
same pass's CPU time drifts by a fifth from one run to the next: a change that saves 2-4 % of a
frame (most of what is left to trim) cannot be seen there. This counts instead: each scenario's
frames are rendered once and saved, and each tree's pipeline reads them in a child process under
valgrind's ``callgrind``, which counts every instruction the process runs (OpenCV's, numpy's,
the interpreter's) alike from run to run.

The child counts only its ``TablePipeline.update`` calls: it asks valgrind itself (a client
request, the few instructions ``valgrind.h`` inlines, run through ``ctypes``) to instrument the
process once the frames are loaded and to count from each call's start to its end. Python's,
numpy's and OpenCV's imports then run uninstrumented, four times faster, and no second child is
needed to subtract them. Both trees run in the same python and venv; the other tree is
``git archive`` of ``--base`` (default ``HEAD``: what the working tree's changes do).
``PYTHONHASHSEED`` is fixed, so sets and dicts are built alike.

Instructions are not time. They count a Python line, a numpy call and an OpenCV loop as what
each executes, and do not see memory stalls: a change to the change map's gather of every 8th
pixel (memory-bound) shows here much smaller than in time. For the bookkeeping round OpenCV's
calls, which is half of a moving frame's time (``bench_vision_code``), they are the measure.
Needs valgrind (``scripts/setup --test`` installs it) on x86-64, and a git checkout.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

import _common
import bench_vision_speed as speed

ROOT = Path(__file__).resolve().parents[1]
SMOKE = {"frames": 3, "scale": 0.25, "only": "moving"}
#: callgrind's summary line: "==123== Collected : 9318049183"
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")

#: The child: this tree's pipeline over the saved frames, run with PYTHONPATH set to the tree,
#: under ``valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no``.
CHILD = """
import ctypes
import mmap
import sys
import numpy as np
tree, frames_file, game_id = sys.argv[1:]

# valgrind's client request on x86-64 (valgrind.h): rax points at the request and its arguments,
# rdx holds the answer when not under valgrind; the four rotations of rdi (by 128 bits in all, so
# a no-op on a real CPU) and xchg rbx,rbx are what valgrind looks for, and it answers in rdx.
CODE = bytes.fromhex("4889f8" "4889f2" "48c1c703" "48c1c70d" "48c1c73d" "48c1c733" "4887db" "4889d0" "c3")
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(CODE)
run = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64)(
    ctypes.addressof(ctypes.c_char.from_buffer(page)))
def request(code):
    words = (ctypes.c_uint64 * 6)(code, 0, 0, 0, 0, 0)
    return run(ctypes.addressof(words), 0)
RUNNING_ON_VALGRIND = 0x1001
CALLGRIND = ord("C") << 24 | ord("T") << 16          # VG_USERREQ_TOOL_BASE('C', 'T')
TOGGLE_COLLECT, START_INSTRUMENTATION = CALLGRIND + 2, CALLGRIND + 4
if not request(RUNNING_ON_VALGRIND):
    sys.exit("not under valgrind, or it does not answer this client request")

import tableassist
assert tableassist.__file__.startswith(tree), (tableassist.__file__, tree)
from tableassist.markers.registry import load_registry
from tableassist.vision import TablePipeline
from tableassist.vision.detect import one_thread
frames = np.load(frames_file, mmap_mode="r")      # a frame read from disk at a time
times = np.load(frames_file[:-len(".npy")] + "_times.npy")
pipeline = TablePipeline(game_id, load_registry())
request(START_INSTRUMENTATION)
with one_thread():
    for frame, t in zip(frames, times.tolist()):
        frame = np.array(frame)
        request(TOGGLE_COLLECT)
        pipeline.update(frame, t)
        request(TOGGLE_COLLECT)
"""


def collected(stderr: str) -> int:
    """The instructions callgrind counted, from its summary on stderr."""
    found = _COLLECTED.search(stderr)
    if found is None:
        raise RuntimeError("valgrind gave no count:\n" + stderr[-2000:])
    return int(found.group(1))


def count(tree: Path, frames_file: Path, game_id: str) -> int:
    """The instructions `tree`'s pipeline runs over the frames, counted under callgrind."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    done = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                           "--callgrind-out-file=/dev/null",
                           sys.executable, "-c", CHILD, str(tree), str(frames_file), game_id],
                          capture_output=True, text=True, env=env, cwd=tree)
    if done.returncode != 0:
        raise RuntimeError(f"the child in {tree} failed:\n" + done.stderr[-2000:])
    return collected(done.stderr)


def base_tree(revision: str, into: Path) -> Path:
    """`revision`'s package and marker files, unpacked into `into` (git archive)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision, "tableassist", "markers"],
                             capture_output=True)
    if archive.returncode != 0:
        raise SystemExit(f"--base {revision}: git cannot give it ({archive.stderr.decode().strip()})")
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def this_tree(into: Path) -> Path:
    """The working tree's package and marker files, copied into `into`: both trees then lie alike,
    and only their files' contents differ (counted from the checkout itself, the same code came out
    0.5 % dearer than its archive)."""
    skip = shutil.ignore_patterns("__pycache__")
    for part in ("tableassist", "markers"):
        shutil.copytree(ROOT / part, into / part, ignore=skip)
    return into


def compiled(tree: Path) -> None:
    """Its modules' bytecode written before any child runs: else whichever child imports a module
    first compiles it, and that child's count is the larger by it."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "tableassist")], check=True,
                   stdout=subprocess.DEVNULL)


def main() -> None:
    ap = _common.parser(__doc__)
    ap.add_argument("--base", default="HEAD", help="the git revision to count against (default HEAD)")
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--only", choices=sorted(speed.SCENARIOS))
    ap.add_argument("--scale", type=float, default=1.0, help="frame size, times the scenario's")
    args = _common.parse(ap, SMOKE)
    if args.frames < 1 or args.scale <= 0:
        raise SystemExit("--frames is a number of frames (1 or more), --scale a size over 0")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (scripts/setup --test installs it)")
    if platform.machine() != "x86_64":
        raise SystemExit(f"the child asks valgrind to count in x86-64 code; this machine is {platform.machine()}")
    from tableassist.markers.registry import load_registry
    from tableassist.vision.synthetic.render import Renderer

    registry = load_registry()
    renderer = Renderer(registry.dictionary)
    with tempfile.TemporaryDirectory() as tmp:
        base = base_tree(args.base, Path(tmp) / "base")
        this = this_tree(Path(tmp) / "this")
        for tree in (base, this):
            compiled(tree)
        print(f"instructions a frame (callgrind), this tree against {args.base}; {args.frames} frames per "
              f"scenario; load {_common.load()}", flush=True)
        for name, (game_id, frames_of) in speed.SCENARIOS.items():
            if args.only and name != args.only:
                continue
            # written to disk as they are rendered: 240 frames at 2160p are 6 GB, held by no process
            frames_file = Path(tmp) / f"{name}.npy"
            times: list[float] = []
            saved = None
            for t, frame, _ in frames_of(registry, renderer, args.frames, args.scale):
                if saved is None:
                    saved = np.lib.format.open_memmap(frames_file, mode="w+", dtype=frame.dtype,
                                                      shape=(args.frames, *frame.shape))
                saved[len(times)] = frame
                times.append(t)
            assert saved is not None and len(times) == args.frames
            height, width = saved.shape[1:3]
            saved.flush()
            del saved
            np.save(Path(tmp) / f"{name}_times.npy", np.array(times, np.float64))
            try:
                with ThreadPoolExecutor(max_workers=2) as pool:
                    was, now = (n / len(times) for n in pool.map(lambda tree: count(tree, frames_file, game_id),
                                                                  (base, this)))
            except RuntimeError as failed:
                raise SystemExit(f"{name}: {failed}") from None
            frames_file.unlink()
            print(f"{name}: {len(times)} frames {width}x{height}: {args.base} {was / 1e6:.3f} M instructions a frame, "
                  f"this tree {now / 1e6:.3f} M "
                  f"({(now - was) / was:+.2%}; the ratio {was / now:.3f})", flush=True)


if __name__ == "__main__":
    main()
