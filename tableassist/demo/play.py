"""Watch the camera play a scripted game on a synthetic table, live on the tablet (tableassist demo).

The demo is ``tableassist serve`` (the same composition: ``tableassist.server.served.serve_venue``)
whose camera looks at the synthetic table (``tableassist.vision.synthetic``) playing a scripted
game (``tableassist.demo.scripts``): every frame goes through the real pipeline — detection,
tracker, the game's reader, the engine through the session, the server, the tablet page — at the
camera's frame rate. The tablet-only inputs of SPEC §6.3 (a STOP, a one-tap confirmation) are
played by a scripted person at the tablet at their time. When the camera's script is over, the
scripted person plays the rest of the game on the tablet (``Demo.finish``: seeded random legal
actions, the table's by the engine's own draw), so the demo ends on the end screen. At the end
the demo prints what the camera read without a tap and the latency from frame to view.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tableassist.camera.live import Camera, Stats
from tableassist.demo.scripts import SCRIPTS, ScriptedGame
from tableassist.games.messages import Message
from tableassist.games.protocol import Game, IllegalAction
from tableassist.readers import CAM_INPUTS
from tableassist.table import catalog

if TYPE_CHECKING:
    import numpy as np

    from tableassist.vision import FrameResult
    from tableassist.vision.synthetic.script import SyntheticVideo

#: How the demo's screens call its camera.
SYNTHETIC_TABLE = Message("play.synthetic_table", "synthetic table")


class TabletScript:
    """The scripted person at the tablet: each input is given once it is due and the game takes
    it (a confirmation as a tap on the camera's CAM? row, anything else as a tablet action).
    A frame listener of the camera (``Camera.on_frame``): it looks at the clock at every frame."""

    def __init__(self, inputs: list[tuple[float, dict[str, Any]]], camera: Camera) -> None:
        self.pending = sorted(inputs, key=lambda ta: ta[0])
        self.camera = camera
        self.done: list[dict[str, Any]] = []
        self.tapped: list[dict[str, Any]] = []     # given as a tap on a camera confirmation

    def __call__(self, t: float, frame: np.ndarray, seen: FrameResult | None) -> None:
        self.play(t)

    def play(self, t: float) -> None:
        camera = self.camera
        while self.pending and self.pending[0][0] <= t and camera.session is not None:
            action = self.pending[0][1]
            try:
                if any(action in r.confirm for r in camera.confirmations):
                    camera.confirm(action, author="tablet")
                    self.tapped.append(action)
                else:
                    camera.session.submit(action, source="tablet", author="tablet")
            except IllegalAction:
                return        # not yet: the camera has not caught up; try at the next frame
            self.done.append(action)
            self.pending.pop(0)


class ScriptedSource:
    """The synthetic table's video as the camera's frame source: a frame per ``read()``, at its
    time when ``realtime`` (as a webcam delivers them), else as fast as they are drawn; None at
    the end. ``frame_time()`` is the video time of the frame read last."""

    def __init__(self, video: SyntheticVideo, *, realtime: bool = False) -> None:
        self.video = video
        self.realtime = realtime
        self.mode = f"{video.viewpoint.width}x{video.viewpoint.height} at {video.fps:g} fps, synthetic"
        self._frames = iter(video.frames())
        self._t = 0.0
        self._t0: float | None = None

    def read(self) -> np.ndarray | None:
        try:
            t, frame, _truth = next(self._frames)
        except StopIteration:
            return None
        if self.realtime:
            if self._t0 is None:
                self._t0 = time.perf_counter() - t
            wait = self._t0 + t - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        self._t = t
        return frame

    def frame_time(self) -> float:
        return self._t

    def close(self) -> None:
        self._frames = iter(())


def play(scripted: ScriptedGame, camera: Camera, source: ScriptedSource, *,
         threaded: bool = False) -> TabletScript:
    """The camera reads ``source`` to its end while the scripted person plays the tablet's
    inputs (this thread; the camera must follow the script's session). ``threaded``: with the
    camera's threads, as ``serve`` reads a camera (``Camera.start``; the source is closed at the
    end)."""
    tablet = TabletScript(scripted.tablet, camera)
    stop_listening = camera.on_frame(tablet)
    title = catalog.engine_class(scripted.game).title or scripted.game
    name = f"synthetic table: a scripted game of {title}"
    try:
        if threaded:
            camera.start(source, name=name, frame_time=source.frame_time, until_end=True)
            camera.wait()
            camera.stop(f"{name}: the video ended")
        else:
            camera.run(source, name=name, frame_time=source.frame_time, until_end=True)
    finally:
        stop_listening()
    return tablet


def measure(game: str, stats: Stats, expected: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The share of SPEC's CAM inputs the camera supplied without a tap, and the latency.

    The CAM inputs are those of ``expected`` (the scripted game's actions) when given, so one
    the camera missed and the tablet had to type counts against the share; otherwise those the
    camera read or had confirmed."""
    cam = CAM_INPUTS[game]["CAM"]
    read = sum(n for k, n in stats.read.items() if k in cam)
    tapped = sum(n for k, n in stats.confirmed.items() if k in cam)
    total = read + tapped if expected is None else sum(1 for a in expected if a["type"] in cam)
    lat = sorted(stats.latency)
    p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else None
    return {"cam_inputs": total, "read_without_tap": read,
            "share": read / total if total else None,
            "confirmations": sum(stats.confirmed.values()), "notices": stats.notices,
            "latency_p95_ms": None if p95 is None else round(p95 * 1000, 1),
            "latency_median_ms": round(statistics.median(lat) * 1000, 1) if lat else None}


def tablet_move(game: Game[Any, Any], rng: random.Random) -> dict[str, Any] | None:
    """The scripted person's next move once the camera's script is over: a seeded random legal
    action, a table input by the engine's own draw; None when the game is over and scored (or
    the engine waits for something no one at the table can give)."""
    if game.result() is not None:
        return None
    table = game.legal_actions(None)
    mine = [a for p in game.players for a in game.legal_actions(p)]
    if game.is_over or not mine or (table and rng.random() < 0.5):
        return game.chance_action() or (table[0] if table else None)
    return rng.choice(mine)


def demo_plan(scripted: ScriptedGame, *, max_actions: int = 2000) -> dict[str, Any]:
    """What the demo's banner says of the whole game before it is played: the game's title,
    how many moves the camera reads (the script's) and how many there are in all (the script's
    and the tablet's after it, played here on the engine alone as :meth:`Demo.finish` will play
    them: the same seed, the same moves)."""
    game = scripted.expected_game()
    rng = random.Random(scripted.seed)
    rest = 0
    while rest < max_actions:
        action = tablet_move(game, rng)
        if action is None:
            break
        game.apply(action)
        rest += 1
    camera = len(scripted.expected)
    return {"game": scripted.game, "title": game.title or scripted.game,
            "camera_moves": camera, "moves": camera + rest}


class Demo:
    """A served table whose game is played by the synthetic table's camera.

    Made, the table is open (``url``, ``host_link``); ``start()`` serves it and starts the
    scripted game; ``play()`` runs the video through the camera (in real time by default);
    ``close()`` stops everything. ``record`` is ``serve --record``'s folder (the host turns the
    recording on). Everything between frame and page is the real thing; opening
    raises ``server.served.OpenError`` with one line when the database or the port cannot be
    had."""

    def __init__(self, game: str, *, host: str = "127.0.0.1", port: int = 0,
                 db: Path | None = None, hands: bool = True, flicker: float = 0.02,
                 size: tuple[int, int] | None = None, record: Path | None = None) -> None:
        from tableassist.markers.registry import load_registry
        from tableassist.server.served import serve_venue
        from tableassist.vision.synthetic.render import Renderer

        self.scripted = SCRIPTS[game]()
        self.plan = demo_plan(self.scripted)
        self._tmp = None
        if db is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="tableassist-demo-")
            db = Path(self._tmp.name) / "demo.sqlite3"
        registry = load_registry()
        self.source = ScriptedSource(self.scripted.video(Renderer(registry.dictionary),
                                                         hands=hands, flicker=flicker, size=size))
        try:
            self.served = serve_venue(db, host=host, port=port, camera=self.source,
                                      camera_says=SYNTHETIC_TABLE, whose="demo",
                                      record=record)
        except BaseException:
            if self._tmp is not None:
                self._tmp.cleanup()
            raise
        self.table, self.tokens, self.camera = \
            self.served.table, self.served.tokens, self.served.camera
        self.url = self.served.url

    @property
    def host_link(self) -> str:
        return self.served.host_link

    def start(self) -> None:
        """Serve the table and start the script's game (the camera follows it)."""
        s = self.scripted
        session = self.table.start(s.game, list(s.players), options=s.options, seed=s.seed,
                                   colours=s.colours)
        # Every screen says this is the demo's game (only that one: a real game started from
        # the lobby afterwards is not) and where it is.
        self.table.demo = {**self.plan, "row": session.saved.id}
        self.served.serve_in_thread()

    def play(self, *, realtime: bool = True, threaded: bool = False) -> TabletScript:
        """The camera reads the scripted game to its end (this thread; ``threaded``: with the
        camera's threads, as ``serve`` reads a camera) while the scripted person plays the
        tablet's inputs."""
        self.source.realtime = realtime
        return play(self.scripted, self.camera, self.source, threaded=threaded)

    def finish(self, *, pace: float = 0.25, max_actions: int = 2000) -> int:
        """Play the rest of the game on the tablet, one action every ``pace`` seconds (0: at
        once), until it is over and scored (Abandon Ship: its tiles shown): a seeded random
        legal action, a table input by the engine's own draw. Returns how many it played."""
        session = self.table.session
        if session is None:
            return 0
        rng = random.Random(self.scripted.seed)
        played = 0
        while played < max_actions:
            action = tablet_move(session.game, rng)
            if action is None:
                break
            session.submit(action, source="script", author="demo")
            played += 1
            if pace:
                time.sleep(pace)
        return played

    def measure(self) -> dict[str, Any]:
        return measure(self.scripted.game, self.camera.stats, self.scripted.expected)

    def close(self) -> None:
        self.served.close()
        if self._tmp is not None:
            self._tmp.cleanup()
