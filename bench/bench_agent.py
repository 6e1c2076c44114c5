"""Frame → tablet latency through a camera agent, against the camera plugged into the server.

The same rendered video (the Wreckers cut: three cuts read by the camera) is read twice per round,
interleaved, at the video's own pace (its frame rate, in real time):

* local: the server's own camera (``serve --camera``): frame → pipeline → reader → engine →
  log → broadcast;
* agent: ``tableassist camera`` in this process (:class:`tableassist.agent.Agent`): frame →
  pipeline at the agent → its journal (on disk) → Socket.IO → the server's reader → engine → log
  → broadcast.

Both are timed from the start of the frame's processing to the moment a table screen (a
python-socketio client) has the state with the new history line. Printed: p50 and max per path,
their ratio, and what the agent sent (batches, bytes a batch) against a preview picture's size.

    .venv/bin/python bench/bench_agent.py [--rounds 2] [--seconds S] [--speed 1] [--smoke]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _common  # noqa: E402
from tableassist.agent import Agent, Journal  # noqa: E402
from tableassist.demo.scripts import wreckers  # noqa: E402
from tableassist.markers.registry import load_registry  # noqa: E402
from tableassist.server.served import serve_venue  # noqa: E402
from tableassist.vision import encode_jpeg  # noqa: E402
from tableassist.vision.synthetic.render import Renderer  # noqa: E402
from tests.server.conftest import Client, wait_until  # noqa: E402

# The cut's first seconds: the deal and the first cut, read by the camera.
SMOKE = {"rounds": 1, "seconds": 4.0, "speed": 4.0}


def paced(frames, step, speed: float) -> None:
    """``step(frame, t)`` for every frame at its video time (the script's frame rate), ``speed``
    times the video's pace."""
    for t, frame in _common.paced(frames, speed):
        step(frame, t)


def screen_times(client: Client) -> dict[int, float]:
    """When the screen first had a history of each length."""
    arrived: dict[int, float] = {}
    old = client._state

    def state(payload):
        old(payload)
        n = len(client.states[-1].get("history", [])) if client.states else 0
        arrived.setdefault(n, time.perf_counter())

    client.sio.handlers["/"]["state"] = state
    return arrived


def shown(arrived: dict[int, float], k: int) -> float | None:
    """When entry ``k`` reached the screen: the first state with ``k`` entries or more."""
    times = [t for n, t in arrived.items() if n >= k]
    return min(times) if times else None


def start(served, scripted):
    served.serve_in_thread()
    session = served.table.start("wreckers", list(scripted.players), options=None,
                                 seed=scripted.seed, colours=scripted.colours)
    client = Client(served.url, served.tokens.table).connect()
    return session, client, screen_times(client)


def local(frames, scripted, tmp: Path, speed: float) -> list[float]:
    served = serve_venue(tmp / f"local-{time.perf_counter_ns()}.sqlite3", host="127.0.0.1", port=0)
    try:
        session, client, arrived = start(served, scripted)
        made: dict[int, float] = {}

        def step(frame, t):
            t0, n = time.perf_counter(), len(session.steps)
            served.camera.process(frame, t)
            for k in range(n + 1, len(session.steps) + 1):
                made[k] = t0

        paced(frames, step, speed)
        # one broadcast may bring several entries (a roll read as many is one state): entry k is
        # on the screen with the first state that shows k entries or more
        wait_until(lambda: all(shown(arrived, k) is not None for k in made), 10, "the screen")
        client.close()
        return [shown(arrived, k) - made[k] for k in made]
    finally:
        served.close()


def agent(frames, scripted, tmp: Path, speed: float) -> tuple[list[float], list[int]]:
    served = serve_venue(tmp / f"agent-{time.perf_counter_ns()}.sqlite3", host="127.0.0.1",
                         port=0)
    try:
        session, client, arrived = start(served, scripted)
        eye = Agent(served.url.rstrip("/"), "main", served.tokens.camera, None, "bench",
                    Journal(tmp / f"journal-{time.perf_counter_ns()}.json"), fps=scripted.fps,
                    say=lambda _text: None)
        eye.link.connect(first=True)
        eye.link.start_sending()
        wait_until(lambda: eye.link.tracking() is not None, 10, "the reading")
        started: dict[int, float] = {}     # batch seq -> its frame's start
        sizes: list[int] = []
        made: dict[int, float] = {}
        link = served.main.agents
        events = link.events

        def taken(msg):
            n = len(session.steps)
            answer = events(msg)
            for k in range(n + 1, len(session.steps) + 1):
                made[k] = started[msg.seq]
            return answer

        link.events = taken

        def step(frame, t):
            t0, seq = time.perf_counter(), eye.journal.seq
            eye.process(frame, t)
            if eye.journal.seq != seq:
                started[eye.journal.seq] = t0
                sizes.append(len(json.dumps(eye.journal.batches[-1])))

        paced(frames, step, speed)
        wait_until(lambda: session.steps and all(shown(arrived, k) is not None for k in made)
                   and not eye.journal.batches, 10, "the screen")
        eye.link.close()
        eye.journal.close()
        client.close()
        return [shown(arrived, k) - made[k] for k in made], sizes
    finally:
        served.close()


def main() -> int:
    parser = _common.parser(__doc__)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float,
                        help="only the first seconds of the video (default: all of it)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="times the video's pace the frames are given (default: its pace)")
    args = _common.parse(parser, SMOKE)
    registry = load_registry()
    scripted = _common.cut(wreckers(wrong_move=True), args.seconds)
    frames = [(t, f) for t, f, _ in scripted.video(Renderer(registry.dictionary)).frames()]
    jpeg = len(encode_jpeg(frames[-1][1], quality=70, width=640))
    runs: dict[str, list[float]] = {"local": [], "agent": []}
    sizes: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            runs["local"] += local(frames, scripted, Path(tmp), args.speed)
            lat, sized = agent(frames, scripted, Path(tmp), args.speed)
            runs["agent"] += lat
            sizes += sized
    print(f"frame -> tablet, {len(runs['local'])} actions a path "
          f"({args.rounds} rounds of {len(frames)} frames at {scripted.fps:g} fps"
          + (f", {args.speed:g} times the video's pace" if args.speed != 1 else "") + ")")
    for name, values in runs.items():
        print(f"  {name:6} p50 {statistics.median(values) * 1000:7.1f} ms   "
              f"max {max(values) * 1000:7.1f} ms")
    print(f"  agent / local (p50): "
          f"{_common.ratio(statistics.median(runs['agent']), statistics.median(runs['local']))}")
    print(f"agent sent {len(sizes)} batches, {statistics.mean(sizes):.0f} bytes a batch on "
          f"average (max {max(sizes)}); one 640-wide preview JPEG is {jpeg} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
