"""From a camera frame to the tablet's DOM, per game: the camera reading a scripted game on the
real served table while the table's screen follows it in headless Chromium and a Socket.IO client
(a spectator) follows it too.

For each game's scripted table (``tableassist.demo.scripts``, hands passing, 2 % flicker), the
frames are given to the served table's camera at the video's pace (as a webcam gives them), in this
process, while the real server broadcasts to the page and the client over Socket.IO. Each game's
video is drawn once and played ``--rounds`` times (2 by default) each way asked for:

* ``threaded`` (what ``serve`` does; the default): ``Camera.start`` reads the frames on its
  capture thread, detects on its detection thread (the newest frame wins) and hands the readings
  to its worker, which applies, stores (a frame's readings in one transaction) and broadcasts
  them (once per job);
* ``sync`` (``--modes sync,threaded``: the camera before its threads, interleaved with the
  threaded way, their order swapped every round): this thread calls ``Camera.process`` for
  each frame, so detection, the reader, the engine, the log's append and the broadcast all run
  on the camera's thread, and the next frame waits for them; and each change is broadcast by
  itself (``Table.on_change`` is the server's broadcast), as before the worker.

The scripted person at the tablet plays its inputs from another thread (as a tablet's taps come
from the server's threads). For each action the camera submits, the latency is from the moment
its frame was taken (the tracker's debounce is over by then) to the moment the page has redrawn
the first state that holds it (the page notes each version's redraw time,
``tableassist.drawn``), and to the moment the Socket.IO client received it; all clocks are this
machine's wall clock. Printed per game and way: median and p95 over the camera's actions, the
camera's own latency (``Camera.stats.latency``: from the frame to the session's update stored;
the sync way's includes each change's broadcast, the threaded way's broadcast comes after its
job) and the frames dropped; where the time went, stage by stage (:data:`STAGES`: median and
p95 of each, and the three slowest actions' stages), and the interpreter's garbage collections;
then per game the p95 with its sample count (the ratio of the p95s with both ways), and over all
games. Goal: p95 <= 100 ms at a load <= 4; the load average is printed with every run.

    .venv/bin/python bench/bench_frame_to_dom.py [--games abandon_ship,wreckers] [--seconds S]
                                                 [--speed 1] [--rounds 2]
                                                 [--modes threaded|sync,threaded] [--smoke]
"""

from __future__ import annotations

import gc
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import socketio  # noqa: E402

import _common  # noqa: E402
from tableassist.demo.play import TabletScript  # noqa: E402
from tableassist.demo.scripts import SCRIPTS  # noqa: E402
from tableassist.markers.registry import load_registry  # noqa: E402
from tableassist.server.served import serve_venue, settle_memory  # noqa: E402
from tableassist.vision.sources import Link  # noqa: E402
from tableassist.vision.synthetic.render import Renderer  # noqa: E402

# Wreckers' first seconds: the deal and the first cuts, read by the camera.
SMOKE = {"games": "wreckers", "seconds": 4.0, "speed": 4.0, "rounds": 1, "modes": "sync,threaded"}


class PacedSource:
    """A webcam playing the scripted video: each frame is taken at its time (``speed`` times the
    video's pace), and a read gives the newest frame taken (waiting for the next one when that
    was read already), as a live source gives the newest picture to a reader that comes late.
    The frames are drawn beforehand (drawing is not the camera's work), and ``taken_at`` notes
    when each frame read was taken (wall clock): the latency runs from there."""

    def __init__(self, frames: list[tuple[float, Any]], speed: float) -> None:
        self.frames = frames
        self.speed = speed
        self.t = 0.0
        self.taken_at: dict[float, float] = {}  # the frame's video time -> when it was taken
        self.skipped = 0                         # taken, and never read (the reader was late)
        self._next = 0
        self._t0: float | None = None
        self.link = Link("on")   # a live stream: the camera's newest frame wins

    def read(self) -> Any:
        if self._next >= len(self.frames):
            return None
        now = time.perf_counter()
        if self._t0 is None:
            self._t0 = now - self.frames[0][0] / self.speed
        due = [self._t0 + t / self.speed for t, _ in self.frames]
        newest = self._next
        while newest + 1 < len(self.frames) and due[newest + 1] <= now:
            newest += 1
        time.sleep(max(0.0, due[newest] - now))
        self.skipped += newest - self._next
        self._next = newest + 1
        t, frame = self.frames[newest]
        self.t = t
        self.taken_at[t] = time.time() - (time.perf_counter() - due[newest])
        return frame

    def frame_time(self) -> float:
        return self.t

    def close(self) -> None:
        self._next = len(self.frames)


def draw(game: str, renderer: Renderer, seconds: float | None) -> list[tuple[float, Any]]:
    """The game's video, drawn (the same frames for both ways)."""
    scripted = _common.cut(SCRIPTS[game](), seconds)
    return [(t, frame) for t, frame, _truth in
            scripted.video(renderer, hands=True, flicker=0.02, seed=1).frames()]


def run_game(game: str, mode: str, browser: Any, frames: list[tuple[float, Any]], tmp: Path,
             seconds: float | None, speed: float) -> dict[str, Any]:
    """One run of ``game``'s video ``mode``'s way; ``WAY@S`` runs it with the interpreter's
    thread switch interval set to S seconds (``sys.setswitchinterval``; 0.005 is Python's)."""
    mode, _, switch = mode.partition("@")
    interval = sys.getswitchinterval()
    if switch:
        sys.setswitchinterval(float(switch))
    try:
        return _run_game(game, mode, browser, frames, tmp, seconds, speed)
    finally:
        sys.setswitchinterval(interval)


def _run_game(game: str, mode: str, browser: Any, frames: list[tuple[float, Any]], tmp: Path,
              seconds: float | None, speed: float) -> dict[str, Any]:
    scripted = _common.cut(SCRIPTS[game](), seconds)
    served = serve_venue(tmp / f"{game}-{mode}-{time.monotonic_ns()}.sqlite3", host="127.0.0.1",
                         port=0)
    served.serve_in_thread()
    settle_memory()                 # as tableassist serve does before it serves
    client = socketio.Client(reconnection=False)
    received: list[tuple[int, float]] = []     # (version, wall time) as the client got them
    client.on("state", lambda p: received.append((int(p.get("version", -1)), time.time())))
    try:
        table, camera = served.table, served.camera
        broadcasts, emits = _watch(served)
        pauses = _collections()
        session = table.start(scripted.game, list(scripted.players), options=scripted.options,
                              seed=scripted.seed, colours=scripted.colours)
        version_of: dict[int, int] = {}        # log entry -> the table's first version with it
        session.subscribe(lambda c: version_of.setdefault(c.seq or session.entries,
                                                          table.version))
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{served.url}#t={served.tokens.table}")
        page.wait_for_function("() => window.tableassist?.state?.view")
        client.connect(served.url, transports=["websocket"], wait_timeout=30)
        tablet = TabletScript(scripted.tablet, camera)
        source = PacedSource(frames, speed)
        if mode == "sync":
            table.on_change = served.server.broadcast   # a broadcast per change, at once
            done = threading.Event()
            taps = threading.Thread(target=_tap, args=(tablet, source, done), daemon=True)
            taps.start()
            while (frame := source.read()) is not None:
                camera.process(frame, source.t)
            done.set()
            taps.join()
        else:
            done = threading.Event()
            taps = threading.Thread(target=_tap, args=(tablet, source, done), daemon=True)
            taps.start()
            camera.start(source, name="bench", frame_time=source.frame_time, until_end=True)
            camera.wait()                       # the video ended, its readings applied
            camera.stop()                       # the last readings applied, the threads joined
            done.set()
            taps.join()
        # until the page has drawn the last state (polled, as a test waits)
        page.wait_for_function("v => window.tableassist.drawn.some(([seen]) => seen >= v)",
                               arg=table.version, timeout=30_000)
        deadline = time.monotonic() + 30
        while not any(v >= table.version for v, _ in received) and time.monotonic() < deadline:
            time.sleep(0.02)
        drawn = page.evaluate("() => window.tableassist.drawn")
        page.close()
        to_dom, to_client, stages, worst = [], [], [], []
        again = 0
        wall_of = time.time() - time.perf_counter()    # the camera's clock -> wall clock
        for timing in camera.stats.timings:
            wall, version = source.taken_at.get(timing.t), version_of.get(timing.seq)
            if not timing.frame:   # read again after the tablet's change: from that change
                wall = wall_of + timing.started
                again += 1
            if wall is None or version is None:
                continue
            at = first(drawn, version, 1, 1000)
            if at is not None:
                to_dom.append(at - wall)
            got = first(received, version)
            if got is not None:
                to_client.append(got - wall)
            # where the time went: each stage's end, in wall time (None: not seen)
            ends = [wall_of + x for x in timing[2:8]] + [
                first(broadcasts, version), first(emits, version), got,
                first(drawn, version, 2, 1000), at]
            stage, before = {}, wall
            for name, end in zip(STAGES, ends):
                if end is not None:
                    stage[name], before = max(0.0, end - before), end
            stages.append(stage)
            if at is not None:
                worst.append((at - wall, stage))
        worst.sort(key=lambda w: -w[0])
        gc.callbacks.remove(pauses.note)
        return {"dom": to_dom, "client": to_client, "camera": list(camera.stats.latency),
                "stages": stages, "worst": worst[:3], "drawn": len(drawn), "gc": pauses,
                "again": again,
                "dropped": camera.stats.dropped + source.skipped, "frames": len(frames)}
    finally:
        _common.disconnect(client)
        served.close()


#: Where an action's time goes, from its frame taken to the page's redraw (each stage runs from
#: the end of the one before): the capture thread's hand-over, the wait for the detection
#: thread (busy with the frame before), the pipeline, the wait for the worker (its jobs before), the reader (and
#: the job's earlier actions), the submission (the engine, the session's lock, the log's append,
#: the session's listeners), the wait for the broadcast (the rest of the job, the server's lock),
#: building the payloads, the emit to the Socket.IO client (the rooms before it, the socket's
#: writer), the page's receipt, and its redraw.
STAGES = ("capture", "wait", "detect", "queue", "read", "store", "to bcast", "build", "to client",
          "to page", "redraw")


def first(seen: list[Any], version: int, at: int = 1, scale: float = 1.0) -> float | None:
    """When the first of ``seen`` (rows: version first, times after) held ``version``: the
    row's ``at``-th field divided by ``scale`` (the page's times are in ms)."""
    row = next((r for r in seen if r[0] >= version and len(r) > at), None)
    return None if row is None else row[at] / scale


def _watch(served: Any) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """The server's side of each broadcast, as the bench watches it (the product keeps no
    such record): when a broadcast began building the payloads (under the server's lock,
    ``Table.history_update`` is its first step), and when each state was emitted, with its
    version (wall time)."""
    table, sio = served.table, served.server.socketio
    broadcasts: list[tuple[int, float]] = []
    emits: list[tuple[int, float]] = []
    history_update, emit = table.history_update, sio.emit

    def watched_update() -> Any:
        broadcasts.append((table.version, time.time()))
        return history_update()

    def watched_emit(event: str, *args: Any, **kwargs: Any) -> Any:
        if event == "state" and args and isinstance(args[0], dict):
            emits.append((int(args[0].get("version", -1)), time.time()))
        return emit(event, *args, **kwargs)
    table.history_update = watched_update
    sio.emit = watched_emit
    return broadcasts, emits


class _Collections:
    """The interpreter's garbage collections during a run: how many of each generation, and the
    longest pause (every thread of the process waits for one)."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.longest = [0.0, 0.0, 0.0]
        self._since = 0.0

    def note(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._since = time.perf_counter()
            return
        g = info["generation"]
        self.count[g] += 1
        self.longest[g] = max(self.longest[g], time.perf_counter() - self._since)

    def __str__(self) -> str:
        return ", ".join(f"gen{g} {n} (longest {t * 1000:.0f} ms)"
                         for g, (n, t) in enumerate(zip(self.count, self.longest)))


def _collections() -> _Collections:
    pauses = _Collections()
    gc.callbacks.append(pauses.note)
    return pauses


def _tap(tablet: TabletScript, source: PacedSource, done: threading.Event) -> None:
    """The scripted person at the tablet, on a thread of its own: each input once it is due."""
    while not done.wait(0.02):
        tablet.play(source.t)


def ms(values: list[float], q: float | None = None) -> str:
    if not values:
        return "    -"
    v = statistics.median(values) if q is None else _common.pct(values, q)
    return f"{v * 1000:5.0f}"


def breakdown(stages: list[dict[str, float]]) -> str:
    """Each stage's median / p95 in ms over the actions that reached it."""
    parts = []
    for name in STAGES:
        values = [s[name] for s in stages if name in s]
        if values:
            parts.append(f"{name} {ms(values).strip()}/{ms(values, 0.95).strip()}")
    return ", ".join(parts)


def one(stage: dict[str, float]) -> str:
    """One action's stages in ms (those over 1 ms)."""
    return " ".join(f"{k} {v * 1000:.0f}" for k, v in stage.items() if v >= 0.001)


def main() -> int:
    parser = _common.parser(__doc__)
    parser.add_argument("--games", default=",".join(SCRIPTS))
    parser.add_argument("--seconds", type=float,
                        help="only the first seconds of each game's video (default: all of it)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="times the video's pace the frames are given (default: its pace)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="runs of each game's video per way (default 2: about 7 minutes "
                             "for the five games, threaded)")
    parser.add_argument("--modes", default="threaded",
                        help="threaded (what serve does; the default), sync (the camera's "
                             "thread does everything, as before its threads), or both: "
                             "sync,threaded; WAY@S: with a thread switch interval of S s")
    args = _common.parse(parser, SMOKE)
    modes = args.modes.split(",")
    chromium = _common.chromium()
    from playwright.sync_api import sync_playwright
    renderer = Renderer(load_registry().dictionary)
    results: dict[tuple[str, str], dict[str, list[float]]] = {}
    print(f"load {_common.load()}", flush=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium,
                                     args=["--no-sandbox", "--disable-gpu"])
        for game in args.games.split(","):
            frames = draw(game, renderer, args.seconds)    # once: the same frames every round
            for round_ in range(args.rounds):
                for mode in modes if round_ % 2 == 0 else modes[::-1]:
                    got = run_game(game, mode, browser, frames, Path(tmp), args.seconds,
                                   args.speed)
                    into = results.setdefault((game, mode), {"dom": [], "client": [],
                                                             "camera": [], "stages": []})
                    for k in into:
                        into[k] += got[k]
                    print(f"{game:13} {mode:8} frame to DOM: median {ms(got['dom'])} ms, p95 "
                          f"{ms(got['dom'], 0.95)} ms over {len(got['dom'])} camera actions "
                          f"({got['again']} read again after the tablet's change: from the "
                          f"change); to "
                          f"a Socket.IO client: median {ms(got['client'])}, p95 "
                          f"{ms(got['client'], 0.95)} ms; the camera's own: median "
                          f"{ms(got['camera'])}, p95 {ms(got['camera'], 0.95)} ms; "
                          f"{got['dropped']} of {got['frames']} frames not read; {got['drawn']} states drawn; "
                          f"load {_common.load()}", flush=True)
                    print(f"{'':22} stages (median/p95 ms): {breakdown(got['stages'])}")
                    print(f"{'':22} garbage collections: {got['gc']}")
                    for total, stage in got["worst"]:
                        print(f"{'':22} slowest {total * 1000:.0f} ms: {one(stage)}")
        browser.close()
    print("p95 per game, all rounds (goal: frame to DOM <= 100 ms at load <= 4; n: the camera "
          "actions measured; of fewer than 20 the p95 is the largest):")
    for game in args.games.split(","):
        line = [f"{game:13}"]
        for mode in modes:
            r = results[(game, mode)]
            line.append(f"{mode} DOM {ms(r['dom'], 0.95)} ms (n={len(r['dom'])}), client "
                        f"{ms(r['client'], 0.95)} ms")
        if len(modes) == 2:   # the second way against the first (sync,threaded: the threads)
            base, cand = results[(game, modes[0])], results[(game, modes[1])]
            line.append(f"{modes[1]}/{modes[0]} DOM " + _common.ratio(
                _common.pct(cand["dom"], 0.95), _common.pct(base["dom"], 0.95)) + ", client "
                + _common.ratio(_common.pct(cand["client"], 0.95),
                                _common.pct(base["client"], 0.95)))
        print("; ".join(line), flush=True)
        for mode in modes:
            print(f"{'':13} {mode} stages: {breakdown(results[(game, mode)]['stages'])}")
    for mode in modes:
        everything = [v for (_g, m), r in results.items() if m == mode for v in r["dom"]]
        print(f"all games, {mode}: frame to DOM median {ms(everything)} ms, p95 "
              f"{ms(everything, 0.95)} ms (n={len(everything)}), the largest "
              f"{ms(everything, 1.0)} ms")
    print(f"load {_common.load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
