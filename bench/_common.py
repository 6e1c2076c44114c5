"""What the benchmarks of ``bench/`` do alike: their ``--smoke`` run, the ratio of two medians as
they print it, percentiles, the machine's load; for those that play a scripted table's video, its
cut and its pace; for those with screens, a quick disconnect and Debian's Chromium.

A benchmark runs its baseline and its candidate in one process, interleaved, and prints medians
and their ratio, never one absolute time: the machine is shared and noisy (STYLE.md). Each one
also takes ``--smoke``: a tiny size (a few frames, actions or tables; a second or two of work)
that goes through its whole path and prints its numbers in the usual shape, which mean nothing
at that size. ``scripts/bench --smoke`` and ``tests/test_bench.py`` run every benchmark that
way, so that none breaks unnoticed.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

Frame = TypeVar("Frame", bound=tuple[Any, ...])

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
                 if os.path.exists(p)), None)


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A benchmark's argument parser: its docstring's first line, and ``--smoke``."""
    ap = argparse.ArgumentParser(description=(doc or "").strip().partition("\n")[0])
    ap.add_argument("--smoke", action="store_true",
                    help="a tiny size, to see that the benchmark runs (its numbers mean nothing)")
    return ap


def parse(ap: argparse.ArgumentParser, smoke: Mapping[str, Any],
          argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The benchmark's arguments. With ``--smoke``, the sizes in ``smoke`` (destination -> value)
    replace the defaults; an option given on the command line still wins."""
    args = ap.parse_args(argv)
    if args.smoke:
        unknown = [name for name in smoke if not hasattr(args, name)]
        assert not unknown, f"smoke sizes for options the benchmark does not have: {unknown}"
        ap.set_defaults(**smoke)
        args = ap.parse_args(argv)
        print("smoke run (tiny sizes: it shows the benchmark runs; its numbers mean nothing): "
              + ", ".join(f"{k}={getattr(args, k)}" for k in smoke), flush=True)
    return args


def ratio(candidate: float, baseline: float) -> str:
    """``candidate / baseline`` as the benchmarks print it (``x0.42``); ``x-`` when the baseline
    is nothing (a smoke run's CPU time can be zero clock ticks)."""
    return f"x{candidate / baseline:.2f}" if baseline else "x-"


def pct(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, a sample of them (nan for none)."""
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def cut(scripted: Any, seconds: float | None) -> Any:
    """The scripted game (a ``demo.scripts.ScriptedGame``) with its video's first ``seconds``
    only (None: all of it), as a benchmark's ``--seconds`` asks."""
    if seconds is None or seconds >= scripted.duration:
        return scripted
    return dataclasses.replace(scripted, duration=seconds)


def paced(frames: Iterable[Frame], speed: float = 1.0) -> Iterator[Frame]:
    """Each of ``frames`` (tuples, the video time in seconds first) when its time comes, as a
    webcam gives them; ``speed`` times the video's pace (a smoke run's is faster). A frame that
    comes late (rendering it took longer) is given at once."""
    t0 = time.perf_counter()
    for frame in frames:
        time.sleep(max(0.0, t0 + frame[0] / speed - time.perf_counter()))
        yield frame


def disconnect(sio: Any) -> None:
    """Disconnect a python-socketio client without the 3 s websocket-client waits for a close
    echo its own reading thread has already consumed (as ``tests/server/conftest.py``'s
    ``Client.close``)."""
    ws = getattr(sio.eio, "ws", None)
    if ws is not None:
        close = ws.close
        ws.close = lambda *a, **k: close(timeout=0.05)
    sio.disconnect()


def load() -> str:
    """The machine's 1-minute load average and its cores, to print beside the numbers."""
    return f"{os.getloadavg()[0]:.2f} (1-minute load average) on {os.cpu_count()} cores"


def chromium() -> str:
    """Debian's chromium, which the benchmarks with a page drive through Playwright; exits with
    a sentence when it is not installed."""
    if CHROMIUM is None:
        raise SystemExit("Debian's chromium is not installed (scripts/setup --test installs it)")
    return CHROMIUM
