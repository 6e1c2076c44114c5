"""The camera plays along: frames -> vision pipeline -> reader -> session, in a thread.

:class:`CameraTable` is the glue for one table. Each frame goes through the vision pipeline
(``TablePipeline.update``); the stable events go to the game's reader; every reading the reader
makes is handled at once:

* an action is submitted through ``TableSession.submit`` with source ``"camera"``: the engine
  checks it like any other input, the log keeps it, the tablet's view follows;
* a confirmation (SPEC's CAM? rows) waits in :attr:`CameraTable.confirmations` until the tablet
  taps one (:meth:`CameraTable.confirm`, again a ``submit`` with source ``"camera"``);
* a reading the engine refuses, or one the reader itself finds at odds with the game, becomes the
  out-of-sync :attr:`CameraTable.notice` ("the camera sees …; the game expects …"). It stays until
  the table matches again or someone corrects the game on the tablet; nothing is guessed.

A mismatch the reader finds must persist for ``grace`` seconds (3 by default) before it is shown:
a rolled die lies still a moment before the piece is moved, and that is not a disagreement.

:meth:`CameraTable.run` reads a capture source in a thread; tests call :meth:`process` directly.
Each accepted camera action records its latency: from the frame time at which the tracker
confirmed the change to the end of the session's update (every listener, the server's broadcast
included, has run by then).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tableassist.games.protocol import Game, IllegalAction
from tableassist.readers import Reader, Reading, reader_for
from tableassist.readers.base import expected_text

#: Most camera actions submitted after one frame (a reveal of 4 cards, a roll of 8 dice, ...).
MAX_ACTIONS_PER_FRAME = 16


@dataclass
class Notice:
    """The out-of-sync notice: what the camera sees and what the game expects."""

    sees: str
    expects: str
    since: float

    def to_json(self) -> dict[str, Any]:
        return {"sees": self.sees, "expects": self.expects,
                "text": f"Out of sync: the camera sees {self.sees}; the game expects {self.expects}"}


@dataclass
class Stats:
    """What the camera did: actions read without a tap, confirmations offered and tapped, notices,
    and per accepted action the latency (seconds) from the frame to the session's update."""

    read: dict[str, int] = field(default_factory=dict)
    confirmed: dict[str, int] = field(default_factory=dict)
    offered: int = 0
    notices: int = 0
    latency: list[float] = field(default_factory=list)


def settle(reader: Reader, game: Callable[[], Game], submit: Callable[[dict], Any], *,
           stats: Stats | None = None) -> tuple[list[Reading], list[Reading], IllegalAction | None]:
    """Submit the reader's actions until it has none left (or one is refused).

    Returns (confirmations waiting, mismatches, the refusal if the last action was refused with
    its reading's ``sees`` in ``args[1]``)."""
    for _ in range(MAX_ACTIONS_PER_FRAME):
        readings = reader.read(game()) + reader.early_faces()
        action = next((r for r in readings if r.action is not None), None)
        if action is None:
            return ([r for r in readings if r.confirm], [r for r in readings if r.expects], None)
        try:
            submit(action.action)
        except IllegalAction as exc:
            return ([r for r in readings if r.confirm], [r for r in readings if r.expects],
                    IllegalAction(str(exc), action.sees))
        reader.accepted(action)
        if stats is not None:
            kind = action.action["type"]
            stats.read[kind] = stats.read.get(kind, 0) + 1
    return [], [], None


class CameraTable:
    """The camera's side of one table session (see the module docstring)."""

    def __init__(self, session: Any, pipeline: Any, reader: Reader | None = None, *,
                 colours: Mapping[str, str] | None = None, grace: float = 3.0,
                 on_change: Callable[[], None] = lambda: None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.session = session
        self.pipeline = pipeline
        saved = session.saved
        self.reader = reader or reader_for(saved.game, saved.players, colours)
        self.grace = grace
        self.on_change = on_change
        self.clock = clock
        self.stats = Stats()
        self.notice: Notice | None = None
        self.confirmations: list[Reading] = []
        self._mismatch_since: dict[str, float] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames = 0

    # -- one frame ---------------------------------------------------------------------------

    def process(self, frame: Any, t: float, *, started: float | None = None) -> list:
        """Run one frame (time ``t`` s) through the pipeline and the reader. ``started`` is the
        wall-clock (``self.clock``) time the frame was captured, for the latency."""
        started = self.clock() if started is None else started
        events = self.pipeline.update(frame, t)
        self.frames += 1
        with self._lock:
            self.reader.feed(events, self.session.game)
            self._sync(t, started)
        return events

    def feed(self, events: list, t: float) -> None:
        """Events from elsewhere (a test's hand-built table) instead of a frame."""
        with self._lock:
            self.reader.feed(events, self.session.game)
            self._sync(t, self.clock())

    def _submit(self, action: dict, started: float) -> None:
        self.session.submit(action, source="camera", author="camera")
        self.stats.latency.append(self.clock() - started)

    def _sync(self, t: float, started: float) -> None:
        before = (self._notice_key(), [r.confirm for r in self.confirmations])
        confirm, mismatches, refused = settle(self.reader, lambda: self.session.game,
                                              lambda a: self._submit(a, started), stats=self.stats)
        offered = [r.confirm for r in self.confirmations]
        self.stats.offered += sum(1 for r in confirm if r.confirm not in offered)
        self.confirmations = confirm
        notice = None
        if refused is not None:
            notice = Notice(refused.args[1], f"{expected_text(self.session.game)} "
                                             f"(the engine says: {refused.args[0]})", t)
        live = set()
        for m in mismatches:
            key = m.sees + "|" + (m.expects or "")
            live.add(key)
            since = self._mismatch_since.setdefault(key, t)
            if notice is None and t - since >= self.grace:
                notice = Notice(m.sees, m.expects or "", since)
        self._mismatch_since = {k: v for k, v in self._mismatch_since.items() if k in live}
        if notice is not None and (notice.sees, notice.expects) == self._notice_key():
            notice = self.notice          # the same notice goes on: keep when it began
        elif notice is not None:
            self.stats.notices += 1
        self.notice = notice
        if before != (self._notice_key(), [r.confirm for r in self.confirmations]):
            self.on_change()

    def _notice_key(self) -> tuple[str, str] | None:
        return None if self.notice is None else (self.notice.sees, self.notice.expects)

    # -- the tablet's side -------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What the table's screens show of the camera: the notice and the one-tap rows. Built
        from readings only, which never hold a secret the game has not revealed."""
        with self._lock:
            game = self.session.game
            return {
                "notice": None if self.notice is None else self.notice.to_json(),
                "confirm": [{"sees": r.sees, "options": [
                    {"action": a, "label": "CAM? " + game.label(a)} for a in r.confirm]}
                    for r in self.confirmations],
            }

    def confirm(self, action: Mapping[str, Any], *, author: str | None = None) -> None:
        """The tablet tapped one of the camera's proposals: submit it (source "camera")."""
        with self._lock:
            reading = next((r for r in self.confirmations if dict(action) in r.confirm), None)
            if reading is None:
                raise IllegalAction("the camera no longer proposes that; look at the table again")
            # the row goes before the submission, whose broadcast must not show it any more
            rows = self.confirmations
            self.confirmations = [r for r in rows if r is not reading]
            try:
                self.session.submit(dict(action), source="camera", author=author or "tablet")
            except Exception:
                self.confirmations = rows
                raise
            self.reader.accepted(reading)
            kind = action["type"]
            self.stats.confirmed[kind] = self.stats.confirmed.get(kind, 0) + 1
            self._sync(self.pipeline.last.t if getattr(self.pipeline, "last", None) else 0.0,
                       self.clock())

    def recheck(self) -> None:
        """The game changed from elsewhere (the tablet, the clock, an undo): read the table
        again against the new state, so a reading waiting for that change goes in now."""
        with self._lock:
            t = self.pipeline.last.t if getattr(self.pipeline, "last", None) else 0.0
            self._sync(t, self.clock())

    # -- the thread --------------------------------------------------------------------------

    def run(self, source: Any, *, fps: float | None = None) -> None:
        """Read ``source`` (``.read()`` -> frame or None) in a thread until :meth:`stop`."""
        def loop() -> None:
            t0 = self.clock()
            while not self._stop.is_set():
                started = self.clock()
                frame = source.read()
                if frame is None:
                    self._stop.wait(0.05)
                    continue
                self.process(frame, started - t0, started=started)
                if fps:
                    self._stop.wait(max(0.0, 1.0 / fps - (self.clock() - started)))
        self._thread = threading.Thread(target=loop, name="camera-reader", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)


class PlayAlong:
    """The camera of a served table (``tableassist serve --camera …``): whatever game the table
    is playing, a :class:`CameraTable` for it reads the frames. A new game (or a resumed one)
    gets a new pipeline and reader, attached to the table so its notice and one-tap rows reach
    the screens; with no game, or a game without a reader, frames are only detected."""

    def __init__(self, table: Any, registry: Any = None, *,
                 on_change: Callable[[], None] = lambda: None) -> None:
        if registry is None:
            from tableassist.markers.registry import load_registry
            registry = load_registry()
        self.table = table
        self.registry = registry
        self.on_change = on_change
        self.camera: CameraTable | None = None

    def process(self, frame: Any, t: float) -> Any:
        """Run one frame; returns the pipeline's ``FrameResult`` (for the preview), or None when
        no game with a reader is being played."""
        from tableassist.readers import READERS
        from tableassist.vision import TablePipeline

        session = self.table.session
        if session is None or session.saved.ended or session.saved.game not in READERS:
            self.camera = None
            return None
        if self.camera is None or self.camera.session is not session:
            colours = self.table.tokens.colours(session.saved.id)
            self.camera = CameraTable(session, TablePipeline(session.saved.game, self.registry,
                                                             qr_every=None),
                                      colours=colours, on_change=self.on_change)
            self.table.attach_camera(self.camera)
        self.camera.process(frame, t)
        return self.camera.pipeline.last
