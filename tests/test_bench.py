"""Every benchmark of bench/ still runs: ``scripts/bench --smoke``'s runner runs each one at its
tiny size (``--smoke``), three at a time, so that a renamed module or a changed record breaks
this test rather than the next real run months later.

Nothing here is timed: a smoke run's numbers mean nothing, and the benchmarks compare their own
baselines and candidates. The first fifteen took 25-33 s of CPU (bench_vision_worn adds about 3 s);
on the shared two-core development machine, 31-55 s of wall time at a load average of 6-10 (three at a time overlap their waits for
servers, browsers and paced frames: two at a time took 50-63 s under the same load).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "scripts" / "bench.py"


def module(path: Path) -> ModuleType:
    """A module of scripts/ or bench/ (neither is a package), loaded from its file."""
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded   # as an import would (its dataclasses look it up)
    spec.loader.exec_module(loaded)
    return loaded


runner = module(RUNNER)
common = module(ROOT / "bench" / "_common.py")

#: What the benchmarks need beyond the venv: two drive a page in Debian's chromium, one starts a
#: PostgreSQL server (scripts/setup --test installs both), one reads the real photos (which, as
#: for tests/vision/test_realdata.py, a machine may not have).
NEEDS = {
    "bench_frame_to_dom": "chromium",
    "bench_redraw": "chromium",
    "bench_store": "postgresql",
    "bench_tournament": "nginx",   # and PostgreSQL: scripts/setup --test installs both
    "bench_vision_realdata": "the real photos (/work/shared/realdata)",
    "bench_vision_code": "perf",   # Debian's linux-perf, and the right to use perf events
    "bench_vision_instructions": "valgrind",   # on x86-64, and a git checkout (a wheel's tests have none)
}
INSTALLED = {"chromium", "postgresql", "nginx", "valgrind"}


def missing(need: str) -> bool:
    if need == "chromium":
        return common.CHROMIUM is None
    if need == "nginx":
        import shutil
        return shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists()
    if need == "perf":   # installed, and this machine lets it count (a container may not)
        import shutil
        return shutil.which("perf") is None or subprocess.run(
            ["perf", "stat", "-e", "cpu-clock", "--", "true"], capture_output=True).returncode != 0
    if need == "valgrind":   # the bench's child speaks to valgrind in x86-64 code
        import platform
        import shutil
        return (shutil.which("valgrind") is None or platform.machine() != "x86_64"
                or not (ROOT / ".git").exists())
    if need == "postgresql":
        from tests.services import ServiceMissing, postgres_bin
        try:
            postgres_bin()
        except ServiceMissing:
            return True
        return False
    return not (Path("/work/shared/realdata") / "aruco_opencv" / "ground_truth.json").exists()


def left_out() -> dict[str, str]:
    """The benchmarks this machine cannot run, and what it lacks."""
    return {name: need for name, need in NEEDS.items() if missing(need)}


@pytest.mark.slow  # every benchmark at its smoke size: about 30 s of CPU
def test_every_benchmark_runs_at_its_smoke_size():
    names = [name for name in runner.benchmarks() if name not in left_out()]
    done = subprocess.run([sys.executable, str(RUNNER), "--smoke", "--jobs", "3",
                           "--timeout", "120", *names],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    print(done.stdout, done.stderr)   # every benchmark's output, shown when this fails
    summary = done.stdout.rsplit("\n\n", 1)[-1].splitlines()
    assert done.returncode == 0, "\n".join(summary)
    assert [line.split()[0] for line in summary[:-1]] == names
    assert all(" ok " in line for line in summary[:-1])
    assert summary[-1] == f"{len(names)} ok, 0 failed"


def test_no_benchmark_is_left_out():
    lacking = left_out()
    if os.environ.get("CI"):   # scripts/setup --test installed what it installs
        assert not INSTALLED & set(lacking.values()), lacking
    if lacking:
        pytest.skip("this machine cannot run " + ", ".join(f"{name} (no {need})"
                                                           for name, need in lacking.items()))


def test_an_unknown_benchmark_is_refused_in_a_sentence():
    done = subprocess.run([sys.executable, str(RUNNER), "--smoke", "bench_nothing"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "no benchmark bench_nothing in bench/ (there are bench_agent," in done.stderr


def test_real_sizes_run_one_at_a_time():
    done = subprocess.run([sys.executable, str(RUNNER), "--jobs", "2"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "--jobs is for --smoke runs" in done.stderr


def test_the_code_bench_gives_each_library_its_kind_of_code(monkeypatch):
    """bench_vision_code's reading of ``perf report --sort dso,sym``: each library's share to its
    kind of code (OpenCV, the interpreter, numpy, the C library, the kernel), and the symbols of
    each kind; perf's other lines are not shares."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))      # as a script, it imports _common
    code = module(ROOT / "bench" / "bench_vision_code.py")
    report = "\n".join([
        "    40.39%  cv2.abi3.so                                        [.] 0x00000000013db7da",
        "    11.97%  libpython3.11.so.1.0                               [.] _PyEval_EvalFrameDefault",
        "     1.01%  libpython3.11.so.1.0                               [.] _PyObject_Malloc",
        "     0.84%  _multiarray_umath.cpython-311-x86_64-linux-gnu.so  [.] PyArray_NewFromDescr_int",
        "     1.61%  libc.so.6                                          [.] __memmove_avx512_unaligned_erms",
        "     0.41%  libm.so.6                                          [.] fetestexcept",
        "     0.91%  [kernel.kallsyms]                                  [k] __schedule",
        "# Samples: 5K of event 'cpu-clock'",
        "",
    ])
    kinds, symbols = code.tally(report)
    assert {k: round(v, 2) for k, v in kinds.items()} == {
        "OpenCV": 40.39, "Python": 12.98, "numpy": 0.84, "C library": 2.02, "kernel": 0.91}
    assert symbols["Python"].most_common(1) == [("_PyEval_EvalFrameDefault", 11.97)]
    # OpenCV's stripped addresses, named by the calls run alone: an address of theirs, or one
    # near it (the same loop); nothing for one far from all, or not an address
    names = {"0x0000000000000100": "blur", "0x0000000000001000": "pyrDown"}
    assert code.name_of("0x0000000000000100", names) == "blur"
    assert code.name_of("0x00000000000002ff", names) == "blur"
    assert code.name_of("0x0000000000000b00", names) is None
    assert code.name_of("0x0000000000000f00", names) == "pyrDown"
    assert code.name_of("_PyEval_EvalFrameDefault", names) is None
