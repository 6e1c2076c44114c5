"""Run the benchmarks of bench/ and say which ran (through ``scripts/bench``, after its set-up).

    scripts/bench [--smoke] [--jobs N] [--timeout S] [NAME ...]

Every benchmark (each ``bench/*.py`` but the ``_`` modules), or those NAMEd, each in its own
process (``bench/NAME.py``, this interpreter), then one line per benchmark: its name, its
seconds, ok or failed, and the machine's load average when it started and ended. The exit status
is 1 when one failed (130 when Ctrl-C stopped them).

Without ``--smoke`` the benchmarks run at their real sizes, one after the other, their output as
it comes: each compares its baseline and candidate in its own process, and two side by side
would measure each other. ``--smoke`` runs their tiny sizes (``bench/_common.py``), which show
that a benchmark runs and nothing more; ``--jobs N`` runs N of those at once, each one's output
printed when it ends (``tests/test_bench.py`` does). ``--timeout`` stops a benchmark that takes
longer as Ctrl-C does, and Ctrl-C stops the running ones: SIGINT to the benchmark's process group
(it, and the servers and browsers it started, stop as they do at a terminal), SIGKILL 10 s later.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
#: The benchmarks running now, each the leader of its process group.
RUNNING: set[subprocess.Popen[str]] = set()
RUNNING_LOCK = threading.Lock()


def benchmarks() -> list[str]:
    """The benchmarks' names (their files' stems), in order."""
    return sorted(p.stem for p in BENCH.glob("*.py") if not p.name.startswith("_"))


@dataclass
class Run:
    """One benchmark's run: how long, how it ended, its output (if kept) and the load average
    at its start and end."""

    name: str
    seconds: float
    code: int | None       # None: stopped at the timeout
    output: str | None     # None: printed as it came
    load: tuple[float, float]

    @property
    def ok(self) -> bool:
        return self.code == 0

    def summary(self) -> str:
        verdict = ("ok" if self.ok else "failed (timed out)" if self.code is None
                   else f"failed ({signal.Signals(-self.code).name})" if self.code < 0
                   else f"failed (exit {self.code})")
        return (f"{self.name:26} {self.seconds:7.1f} s  {verdict:20} load "
                f"{self.load[0]:.1f} -> {self.load[1]:.1f}")


def run(name: str, smoke: bool, capture: bool, timeout: float | None) -> Run:
    """Run one benchmark in its own process group; ``capture``: keep its output for later."""
    argv = [sys.executable, str(BENCH / f"{name}.py"), *(["--smoke"] if smoke else [])]
    if not capture:
        print(f"\n== {name}", flush=True)
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.STDOUT if capture else None, text=True,
                          process_group=0) as proc:
        with RUNNING_LOCK:
            RUNNING.add(proc)
        try:
            out, _ = proc.communicate(timeout=timeout)
            code: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            interrupt(proc)
            out, _ = proc.communicate()
            code = None
        finally:
            with RUNNING_LOCK:
                RUNNING.discard(proc)
    return Run(name, time.monotonic() - t0, code, out if capture else None,
               (load0, os.getloadavg()[0]))


def interrupt(proc: subprocess.Popen[str]) -> None:
    """SIGINT to the benchmark's process group, as Ctrl-C at a terminal (its ``finally`` and
    ``with`` stop what it started; the servers and browsers get it too); SIGKILL to the group if
    the benchmark is still there 10 s later."""
    def signal_group(sig: int) -> None:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:   # gone already
            pass

    signal_group(signal.SIGINT)
    deadline = time.monotonic() + 10
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)   # a poll interval
    if proc.poll() is None:
        signal_group(signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    ap.add_argument("--smoke", action="store_true", help="their tiny sizes (do they run?)")
    ap.add_argument("--jobs", type=int, default=1, help="smoke runs at once (default 1)")
    ap.add_argument("--timeout", type=float, help="seconds a benchmark may take (default: any)")
    args = ap.parse_args(argv)
    known = benchmarks()
    names = [n.removesuffix(".py").removeprefix("bench/") for n in args.names] or known
    unknown = [n for n in names if n not in known]
    if unknown:
        ap.error(f"no benchmark {', '.join(unknown)} in bench/ (there are {', '.join(known)})")
    if args.jobs > 1 and not args.smoke:
        ap.error("--jobs is for --smoke runs: at their real sizes, benchmarks side by side would "
                 "measure each other")
    capture = args.jobs > 1
    print(f"{len(names)} benchmark{'s' * (len(names) != 1)}"
          f"{' at their smoke sizes' if args.smoke else ''}, {args.jobs} at a time", flush=True)
    runs: list[Run] = []

    def report(done: Run) -> None:
        if done.output is not None:
            print(f"\n== {done.name}\n{done.output.rstrip()}", flush=True)
        runs.append(done)

    stopped = False
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run, name, args.smoke, capture, args.timeout) for name in names]
        try:
            for future in futures:   # in order; with --jobs, each one's output once it ended
                report(future.result())
        except KeyboardInterrupt:   # Ctrl-C: stop the running ones, start no other
            stopped = True
            for future in futures:
                future.cancel()
            with RUNNING_LOCK:
                running = list(RUNNING)
            for proc in running:
                interrupt(proc)
            for future in futures[len(runs):]:
                if not future.cancelled():
                    report(future.result())
    print()
    for done in runs:
        print(done.summary())
    failed = [done.name for done in runs if not done.ok]
    print(f"{len(runs) - len(failed)} ok, {len(failed)} failed" +
          (f": {', '.join(failed)}" if failed else "") +
          (f"; stopped by Ctrl-C, {len(names) - len(runs)} not run" if stopped else ""))
    return 130 if stopped else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
