"""The camera playing along, per game: how many CAM inputs need no tap, and how long from frame to view.

For each game's scripted table (``tableassist.demo.scripts``; hands passing and 2 % single-frame
flicker) the same video is read twice per round, interleaved:

* baseline: the vision pipeline alone (detection, geometry, tracker);
* camera:   the pipeline plus the game's reader, the engine through the session, and the server's
            payload for every screen (host, table, spectators, each player) after each change —
            what a broadcast builds.

Printed per game: the share of SPEC's CAM inputs the camera supplied without a tap (goal 100 %),
the one-tap confirmations (SPEC's CAM? rows) and tablet inputs the script gave, the median
processing time per frame of both runs and their ratio, the tracker's debounce (from the first
frame showing a change to the frame that confirms it, in video seconds) and the latency beyond it:
from the start of that frame's processing to the end of the view update (p95; goal <= 150 ms).
Frame rendering is not timed.

    .venv/bin/python bench/bench_readers.py [--rounds 2] [--games abandon_ship,wreckers]
                                            [--seconds S] [--smoke]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _common  # noqa: E402
from tableassist.demo.play import TabletScript, measure  # noqa: E402
from tableassist.demo.scripts import SCRIPTS  # noqa: E402
from tableassist.markers.registry import load_registry  # noqa: E402
from tableassist.markers.sighting import TableEvent  # noqa: E402
from tableassist.server.served import serve_venue  # noqa: E402
from tableassist.vision import TablePipeline  # noqa: E402
from tableassist.vision.synthetic.render import Renderer  # noqa: E402

# Wreckers' first seconds: the deal and the first cuts, read by the camera.
SMOKE = {"rounds": 1, "games": "wreckers", "seconds": 4.0}


def baseline(scripted, renderer, registry) -> list[float]:
    pipeline = TablePipeline(scripted.game, registry)   # as the camera has it: QR cards once a second
    times = []
    for t, frame, _ in scripted.video(renderer, hands=True, flicker=0.02, seed=1).frames():
        t0 = time.perf_counter()
        pipeline.update(frame, t)
        times.append(time.perf_counter() - t0)
    return times


def with_camera(scripted, renderer, registry, tmp: Path):
    """The served table (``server.served.serve_venue``, as ``tableassist demo`` has it), its
    broadcasts replaced by building every screen's payload."""
    db = tmp / f"{scripted.game}-{time.perf_counter_ns()}.sqlite3"
    served = serve_venue(db, host="127.0.0.1", port=0)
    table, tokens, camera = served.table, served.tokens, served.camera
    session = table.start(scripted.game, list(scripted.players), options=scripted.options,
                          seed=scripted.seed, colours=scripted.colours)
    grants = [tokens.grant(tokens.host, session.saved.id), tokens.grant(tokens.table, session.saved.id),
              tokens.grant(None, session.saved.id)]
    grants += [tokens.grant(tok, session.saved.id)
               for tok in tokens.players(session.saved.id, session.saved.players).values()]
    table.on_change = lambda: [table.payload(g) for g in grants]
    tablet = TabletScript(scripted.tablet, camera)
    times, events = [], []
    frame_times = []
    for t, frame, _ in scripted.video(renderer, hands=True, flicker=0.02, seed=1).frames():
        t0 = time.perf_counter()
        camera.process(frame, t)
        times.append(time.perf_counter() - t0)
        events += [e for e in camera.pipeline.last.events if isinstance(e, TableEvent)]
        frame_times.append(t)
        tablet.play(t)
    ok = session.game.state == scripted.expected_game().state
    served.close()
    return times, camera, tablet, ok, debounce(scripted, events, frame_times)


def debounce(scripted, events, frame_times) -> list[float]:
    """For each scripted change, video seconds from the first frame showing it to its event."""
    out = []
    pieces = dict(scripted.timeline.pieces)
    for step in sorted(scripted.timeline.steps, key=lambda s: s.t):
        piece = pieces.get(step.name) or step.piece
        if piece is None or step.remove:
            continue
        mid = step.marker_id if step.marker_id is not None else piece.marker_id
        pieces[step.name] = piece.__class__(**{**piece.__dict__, "marker_id": mid})
        landed = step.t + step.duration
        shown = next((ft for ft in frame_times if ft >= landed), None)
        hit = next((e for e in events if e.sighting.marker_id == mid and e.t >= landed
                    and e.kind in ("appeared", "moved", "flipped", "rotated")), None)
        if shown is not None and hit is not None and hit.t - shown < 3.0:
            out.append(hit.t - shown)
    return out


def main() -> int:
    parser = _common.parser(__doc__)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--games", default=",".join(SCRIPTS))
    parser.add_argument("--seconds", type=float,
                        help="only the first seconds of each game's video (default: all of it)")
    args = _common.parse(parser, SMOKE)
    registry = load_registry()
    renderer = Renderer(registry.dictionary)
    print("input: each game's scripted table (tableassist/demo/scripts.py), hands passing every 4 s, "
          "2 % flicker, blur 0.4, JPEG 85; frame size and fps per game below")
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games.split(","):
            scripted = _common.cut(SCRIPTS[game](), args.seconds)
            whole = scripted.duration == SCRIPTS[game]().duration
            base, cam, lat, deb = [], [], [], []
            for _ in range(args.rounds):
                base += baseline(scripted, renderer, registry)
                times, camera, tablet, ok, d = with_camera(scripted, renderer, registry, Path(tmp))
                cam += times
                lat += camera.stats.latency
                deb += d
            m = measure(game, camera.stats, scripted.expected)
            c = scripted.viewpoint
            state = "yes" if ok else "NO" if whole else "not checked (the video is cut)"
            print(f"\n{game}: {c.width}x{c.height} at {scripted.fps:g} fps, {scripted.duration:g} s; "
                  f"final state as scripted: {state}")
            print(f"  CAM inputs read without a tap: {m['read_without_tap']} of {m['cam_inputs']}"
                  f" ({100 * (m['share'] or 0):.0f} %); one-tap confirmations: {len(tablet.tapped)};"
                  f" tablet inputs: {len(tablet.done) - len(tablet.tapped)}; notices: {m['notices']}")
            b, k = statistics.median(base), statistics.median(cam)
            print(f"  per frame, median: pipeline {b * 1000:.1f} ms, with reader+session+views "
                  f"{k * 1000:.1f} ms ({_common.ratio(k, b)})")
            print(f"  tracker debounce: median {statistics.median(deb) * 1000:.0f} ms, "
                  f"p95 {_common.pct(deb, 0.95) * 1000:.0f} ms (video time)")
            print(f"  beyond the debounce, frame to view update: median "
                  f"{statistics.median(lat) * 1000:.0f} ms, p95 {_common.pct(lat, 0.95) * 1000:.0f} ms "
                  f"over {len(lat)} camera actions (goal p95 <= 150 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
