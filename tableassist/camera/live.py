"""The camera at the table: frames -> vision pipeline -> reader -> session, and what it tells the
screens.

:class:`Camera` is the camera's side of one table, whatever game it plays. The table tells it
which session is on (:meth:`Camera.follow`); each frame goes through that game's vision pipeline
(``TablePipeline.update``), the stable events go to the game's reader, and every reading is
handled at once:

* an action is submitted through the session with source ``"camera"``: the engine checks it like
  any other input, the log keeps it, the screens follow;
* a confirmation (SPEC's CAM? rows) waits in the status until a table screen taps it
  (:meth:`Camera.confirm`, again a submission with source ``"camera"``);
* a reading the engine refuses, or one the reader itself finds at odds with the game, becomes the
  out-of-sync notice ("the camera sees …; the game expects …"). It stays until the table matches
  again or someone corrects the game on the tablet; nothing is guessed.

A mismatch the reader finds must persist for ``grace`` seconds (3 by default) before it is shown:
a rolled die lies still a moment before the piece is moved, and that is not a disagreement.

QR command cards held up to the camera (``markers/global.toml``) go through the same calls as the
tablet's buttons, with source and author ``"camera"``, once per showing (:data:`COMMANDS`).

The camera listens to its session: after a change it did not make itself (the tablet, the clock,
an undo; told apart by the change's source) it reads the table again, so a reading that waited for
that change goes in now. It publishes one :class:`CameraStatus` to its listeners (the server)
whenever what the screens show of it changes.

The camera is typed by the parts it uses: the vision's frame sources and pipeline
(``tableassist.vision``), the table's session (``tableassist.table.session.TableSession``), the
game's reader. It imports the first two for their types only, so the server imports it without
loading OpenCV. The server is told through :class:`StatusListener` and :class:`FrameListener`,
which it fills.

Threads. :meth:`Camera.start` reads a capture source with three threads, so the camera never
waits for the screens (docs/server.md, "The camera's threads"):

* the capture thread reads the source (``frames.read_frames``) and hands each frame over
  (``frames.Latest``: from a live source the newest wins, a frame not taken in time is dropped
  and counted; from a video file or a folder every frame is read);
* the detection thread runs the vision pipeline on the newest frame (OpenCV lets go of the GIL,
  so it has the second core), hands the frame's events to the worker and goes on with the next
  frame;
* the worker (``table.worker.TableWorker``) owns the reader and everything after it: the
  reader, the engine, the log's append and the screens' broadcast, the status's listeners, then
  the frame listeners (the preview, the recording: told after the frame's reading, as
  :meth:`process` tells them), one job at a time in the order they came, so a reading is stored
  before anyone is told of it.

Without :meth:`start` the worker is synchronous: :meth:`Camera.process`, :meth:`Camera.feed`
and :meth:`Camera.run` apply each frame's reading before they return, in order (the tests,
``replay-camera``); after :meth:`start` they wait for the worker to apply it. The actions read
at once (a roll of eight dice) are one write (``TableSession.together``: one transaction, the
session's listeners told once all are stored); if the store refuses it, none is saved and the
reader is put back to read them again. Each accepted camera action records its latency: from the
frame's capture (or the start of its processing) to the end of the session's update (the
frame's actions stored, the session's listeners told; the server broadcasts what a job of the
worker changed once the job ends: ``TableWorker.after``), and where it went (:class:`Timing`).
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from tableassist.camera.author import CAMERA
from tableassist.camera.frames import Latest, Pace, read_frames
from tableassist.camera.status import CameraState, CameraStatus, Notice, Option, Proposal
from tableassist.games.messages import Message
from tableassist.games.protocol import Game, IllegalAction, SetupError
from tableassist.markers.sighting import CardShown, FailingSticker, TableEvent
from tableassist.readers import READERS, Reader, Reading, reader_for
from tableassist.readers.base import expected_text
from tableassist.table.worker import TableWorker

if TYPE_CHECKING:
    from tableassist.table.session import Change, TableSession
    from tableassist.vision.pipeline import FrameResult, TablePipeline
    from tableassist.vision.frame import Frame
    from tableassist.vision.sources import FrameSource

log = logging.getLogger("tableassist.camera")

#: Most camera actions submitted after one frame (a reveal of 4 cards, a roll of 8 dice, ...).
MAX_ACTIONS_PER_FRAME = 16
#: After the store refused a reading (a full disk, another writer), wait this long (s) before
#: submitting again, rather than failing on every frame.
RETRY_AFTER = 2.0
#: The count of markers seen is published at most this often (s): it changes with every hand.
MARKERS_EVERY = 1.0

#: The QR command cards the camera obeys (``markers/global.toml`` lists the same names; a test
#: keeps them equal, so no printed card does nothing).
COMMANDS = ("new_game", "undo", "redo", "confirm", "cancel", "pause")


# -- who is told -------------------------------------------------------------------------------

#: Each command card as the camera's report names it ("Undo card: entry 12 was undone").
_CARDS = {
    "new_game": Message("live.card.name.new_game", "New game card"),
    "undo": Message("live.card.name.undo", "Undo card"),
    "redo": Message("live.card.name.redo", "Redo card"),
    "confirm": Message("live.card.name.confirm", "Confirm card"),
    "cancel": Message("live.card.name.cancel", "Cancel card"),
    "pause": Message("live.card.name.pause", "Pause card"),
}


def _why(exc: BaseException) -> Message | str:
    """A store's refusal as its message (its English text where it has none)."""
    return exc.args[0] if exc.args and isinstance(exc.args[0], Message) else str(exc)

class StatusListener(Protocol):
    """Told each new :class:`CameraStatus` (the server shows it and sends the screens theirs)."""

    def __call__(self, status: CameraStatus) -> None: ...


class FrameListener(Protocol):
    """Told each frame after it was read (the host's preview): its time, the frame, and what the
    pipeline found in it (None when no game's pipeline ran)."""

    def __call__(self, t: float, frame: Frame, seen: FrameResult | None) -> None: ...


@dataclass
class Stats:
    """What the camera did: actions read without a tap, confirmations offered and tapped, notices,
    command cards obeyed, and per accepted action the latency (seconds) from the frame to the
    session's update and (in ``accepted``) the frame's time and the log entry it was stored as;
    frames dropped because a newer one came before the detection thread was free."""

    read: dict[str, int] = field(default_factory=dict)
    confirmed: dict[str, int] = field(default_factory=dict)
    offered: int = 0
    notices: int = 0
    commands: dict[str, int] = field(default_factory=dict)
    latency: list[float] = field(default_factory=list)
    accepted: list[tuple[float, int]] = field(default_factory=list)
    dropped: int = 0
    #: Per accepted action, where its latency went (:class:`Timing`, the camera's clock).
    timings: list[Timing] = field(default_factory=list)


class Timing(NamedTuple):
    """Where one accepted camera action's time went, in the camera's ``clock``: its frame handed
    over (``started``), taken by the detection thread, its detection done, the worker's job for
    it begun, the action
    handed to ``TableSession.submit`` (after the reader and the job's earlier actions) and
    stored (the engine, the log's append, the session's listeners). ``t`` and ``seq``: as in
    ``Stats.accepted``. ``frame`` is False for an action read again after another change (the
    tablet's, the clock's, a tap on a proposal): it waited for that change, not for its frame,
    so ``started`` is when the change was heard and the stages before ``job`` are that moment.
    The benchmarks put the screens' side after it (bench_frame_to_dom)."""

    t: float
    seq: int
    started: float
    detecting: float
    detected: float
    job: float
    submitted: float
    stored: float
    frame: bool = True


def settle(reader: Reader[Any], game: Callable[[], Game[Any, Any]],
           submit: Callable[[dict[str, Any]], object],
           *, stats: Stats | None = None
           ) -> tuple[list[Reading], list[Reading], IllegalAction | None]:
    """Submit the reader's actions until it has none left (or one is refused).

    Returns (confirmations waiting, mismatches, the refusal if the last action was refused: the
    engine's message, with its reading's ``sees`` in ``args[1]``). Whatever else ``submit`` raises
    goes up."""
    for _ in range(MAX_ACTIONS_PER_FRAME):
        readings = reader.read(game()) + reader.early_faces()
        action = next((r for r in readings if r.action is not None), None)
        if action is None or action.action is None:
            return ([r for r in readings if r.confirm], [r for r in readings if r.expects], None)
        try:
            submit(action.action)
        except IllegalAction as exc:
            return ([r for r in readings if r.confirm], [r for r in readings if r.expects],
                    IllegalAction(exc.message, action.sees))
        reader.accepted(action)
        if stats is not None:
            kind = action.action["type"]
            stats.read[kind] = stats.read.get(kind, 0) + 1
    return [], [], None


ReaderFor = Callable[[str, Sequence[str], Mapping[str, str] | None], Reader[Any]]


class Camera:
    """The camera's side of a table (see the module docstring).

    ``pipeline_for(game)`` makes the vision pipeline for a game's table (``None``: no game, command
    cards only); without it the camera reads only what :meth:`feed` gives it. ``play_again`` is
    the table's "a new game like this one" (the New game card). ``clock`` times the latency.

    The reader's side (reader, confirmations, notice, pause) is the worker's: it changes in the
    worker's jobs only, and so does the status it publishes."""

    def __init__(self, *, pipeline_for: Callable[[str | None], TablePipeline] | None = None,
                 reader_for: ReaderFor = reader_for,
                 play_again: Callable[[], object] | None = None, grace: float = 3.0,
                 status: CameraStatus = CameraStatus(),
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.pipeline_for = pipeline_for
        self.reader_for = reader_for
        self.play_again = play_again
        self.grace = grace
        self.clock = clock
        self.status = status
        self.stats = Stats()
        self.session: TableSession | None = None
        self.reader: Reader[Any] | None = None
        self.pipeline: TablePipeline | None = None
        self.frames = 0
        #: Where the readings are applied: synchronous until :meth:`start`, a thread after.
        self.worker = TableWorker("camera readings")
        # Which reading the events belong to: every follow() counts one up, and events of a
        # pipeline made for an earlier one are not read (the detection thread runs ahead of it).
        self._generation = 0
        self._pipeline_gen = -1             # the generation the pipeline was made for
        self._colours: Mapping[str, str] | None = None   # the seat colours of the session
        self._unsubscribe: Callable[[], None] | None = None
        self._listeners: list[StatusListener] = []
        self._frame_listeners: list[FrameListener] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None       # capture
        self._detection: threading.Thread | None = None
        self._latest = Latest()
        self._source: FrameSource | None = None
        self._t = 0.0                       # the last frame's time
        # the job's frame: handed over, taken to detection, detected; the job begun
        self._times = (0.0, 0.0, 0.0, 0.0)
        self._markers_at = -1e9             # when the markers count was last published
        self._pace = Pace()                 # how many pictures a second it reads
        self._reset()

    def _reset(self) -> None:
        self.notice: Notice | None = None
        self.confirmations: list[Reading] = []
        self.paused = False
        self.report: str | None = None
        self._mismatch_since: dict[str, float] = {}
        self._set_aside: list[tuple[dict[str, Any], ...]] = []   # rows the Cancel card dropped
        self._retry_at = -1e9
        self._unsaved = False               # the report says a reading was not saved
        #: The next table events are the table as found by a tracker started afresh mid-game
        #: (see :meth:`follow`), not moves just made.
        self._as_found = False

    # -- listeners -----------------------------------------------------------------------------

    def subscribe(self, listener: StatusListener) -> Callable[[], None]:
        """Tell ``listener`` the status now and each new one; returns the unsubscribe function."""
        def now() -> None:
            self._listeners.append(listener)
            listener(self.status)
        self.worker.call(now)
        return lambda: self._listeners.remove(listener)

    def on_frame(self, listener: FrameListener) -> Callable[[], None]:
        """Tell ``listener`` each frame read (see :class:`FrameListener`)."""
        self._frame_listeners.append(listener)
        return lambda: self._frame_listeners.remove(listener)

    def _publish(self, **device: Any) -> None:
        """Publish the status if what the screens show of the camera changed. ``device`` sets the
        source's fields (state, notice, mode, markers).

        The status is the worker's, as the reading it shows: made and told in a job of the
        worker (at once in the worker's own jobs, so a broadcast that follows sees it; after
        what is queued from the capture and detection threads)."""
        self.worker.post(partial(self._status, device))

    def _status(self, device: dict[str, Any]) -> None:
        game = self.session.game if self.session is not None else None
        status = replace(
            self.status, **device, reading=self.reader is not None, paused=self.paused,
            out_of_sync=self.notice, report=self.report,
            confirm=() if game is None else tuple(
                Proposal(r.sees, tuple(Option(dict(a), game.label(a)) for a in r.confirm))
                for r in self.confirmations))
        if status == self.status:
            return
        self.status = status
        for listener in list(self._listeners):
            listener(status)

    # -- which game ----------------------------------------------------------------------------

    def follow(self, session: TableSession | None, colours: Mapping[str, str] | None = None) -> None:
        """Read ``session``'s game from now on (None: no game is played). ``colours`` are its
        players' seat colours. A new session gets a new pipeline and reader.

        A game followed mid-game (resumed: it has actions already) is read as found: its new
        tracker reports every marker on the table as appeared, and what its first events show
        is what was played before, so it is used up at once, as the Pause card's resume does;
        what changes after is read."""
        self.worker.call(lambda: self._follow(session, colours))

    def _follow(self, session: TableSession | None, colours: Mapping[str, str] | None) -> None:
        if session is self.session:
            return
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.session = session
        self._colours = colours
        saved = None if session is None else session.saved
        reads = saved is not None and not saved.ended and saved.game in READERS
        self.reader = self.reader_for(saved.game, list(saved.players), colours) \
            if reads and saved is not None else None
        self._reset()
        self._as_found = self.reader is not None and session is not None \
            and bool(session.steps)
        # last: the detection thread makes a new pipeline, for this session, at its next frame
        self._generation += 1
        if session is not None:
            self._unsubscribe = session.subscribe(self._heard)
        self._publish(markers=None, stickers=())

    def read_afresh(self) -> None:
        """Read the same game with a new reader, as for a new session: a tracker that starts
        afresh (a camera agent that started again) reports every marker on the table as new,
        and the old reader's picture of the table must not mix with it."""
        def afresh() -> None:
            session = self.session
            self._follow(None, self._colours)
            self._follow(session, self._colours)
            self._as_found = self.reader is not None
        self.worker.call(afresh)

    def show_device(self, *, state: CameraState, notice: str, mode: str | None = None,
                    size: tuple[int, int] | None = None, codec: str | None = None,
                    fps: float | None = None, attempt: int | None = None,
                    retry_in: float | None = None, markers: int | None = None,
                    stickers: tuple[FailingSticker, ...] = (),
                    slow: tuple[float, float] | None = None) -> None:
        """What the source is doing, when something else than :meth:`run` reads it (a camera
        agent on another computer reports its camera's state: the fields of
        :class:`CameraStatus` about the source)."""
        self._publish(state=state, notice=notice, mode=mode, size=size, codec=codec, fps=fps,
                      attempt=attempt, retry_in=retry_in, markers=markers, stickers=stickers,
                      slow=slow)

    def _heard(self, change: Change) -> None:
        """The session changed. What the camera did itself it has read already; anything else (the
        tablet, the clock, an undo) may let a waiting reading go in now: the worker reads the
        table again (the tablet's thread does not wait for it)."""
        if change.source == "camera":
            return
        heard = self.clock()

        def again() -> None:
            if self.session is not change.session or self.session.saved.ended:
                return
            self.report = None
            self._sync(self._t, heard)
            self._publish()
        self.worker.post(self._safely(again))

    def _pipeline(self, generation: int) -> TablePipeline | None:
        if self.pipeline_for is None:
            return None
        if self.pipeline is None or self._pipeline_gen != generation:
            session = self.session
            reading = session is not None and self.reader is not None
            self.pipeline = self.pipeline_for(session.saved.game
                                              if reading and session is not None else None)
            self._pipeline_gen = generation
        return self.pipeline

    # -- one frame -----------------------------------------------------------------------------

    def process(self, frame: Frame, t: float, *, started: float | None = None) -> FrameResult | None:
        """Run one frame (time ``t`` s) through the pipeline, the reader and the command cards;
        returns what the pipeline found (None without a pipeline). ``started`` is the ``clock``
        time the frame's processing began, for the latency. The frame's reading is applied when
        this returns."""
        started = self.clock() if started is None else started
        detecting = self.clock()
        generation, events, seen = self._detect(frame, t)
        if events is not None:
            detected = self.clock()
            self.worker.call(lambda: self._take(events, t, started, generation,
                                                (detecting, detected)))
        self._tell_frame(t, frame, seen)
        return seen

    def _tell_frame(self, t: float, frame: Frame, seen: FrameResult | None) -> None:
        for listener in list(self._frame_listeners):
            listener(t, frame, seen)

    def _detect(self, frame: Frame, t: float
                ) -> tuple[int, list[TableEvent | CardShown] | None, FrameResult | None]:
        """The pipeline's part of a frame (the detection thread's): its reading's generation,
        its events (None without a pipeline) and what the pipeline found."""
        generation = self._generation       # first: the session read after is this one's
        pipeline = self._pipeline(generation)
        if pipeline is None:
            return generation, None, None
        events = pipeline.update(frame, t)
        self.frames += 1
        if self._pace.read(t, pipeline.tracker.confirm_frames):
            self._publish(slow=self._pace.slow)
        seen = pipeline.last
        if seen is not None and self.reader is not None:
            self._count(len(seen.detections))
            if tuple(seen.failing) != self.status.stickers:
                self._publish(stickers=tuple(seen.failing))
        return generation, list(events), seen

    def feed(self, events: Iterable[TableEvent | CardShown], t: float, *,
             author: str = CAMERA) -> None:
        """Events from elsewhere (a test's hand-built table, a camera agent) instead of a frame;
        applied when this returns. What they read is logged with ``author`` (a camera agent's
        batch names itself: ``camera.author.batch_author``)."""
        started = self.clock()
        taken = list(events)
        self.worker.call(lambda: self._take(taken, t, started, None, author=author))

    def replay(self, events: Iterable[TableEvent | CardShown], *, looked: bool) -> None:
        """Events the reader of this reading took before (a camera agent's, in another process
        or a run of the server before): folded into the reader's picture and used up, reading
        nothing, as the table as found is; what comes after is read as moves. ``looked``: the
        reading's first look is among them (so the next events are not the table as found).
        Command cards among them were obeyed then: they are not again."""
        taken = [e for e in events if isinstance(e, TableEvent)]

        def replay() -> None:
            if self.reader is None or self.session is None:
                return
            self.reader.feed(taken, self.session.game)
            self.reader.picture.use(list(self.reader.picture.fresh))
            if looked:
                self._as_found = False
        self.worker.call(replay)

    def _take(self, events: Sequence[TableEvent | CardShown], t: float, started: float,
              generation: int | None, detection: tuple[float, float] | None = None, *,
              author: str = CAMERA) -> None:
        """Apply a frame's events (``detection``: when the detection began and ended), what they
        read logged with ``author``."""
        if generation is not None and generation != self._generation:
            return      # seen by the pipeline of the game before: not this game's table
        self._t = t
        self._times = (started, *(detection or (started, started)), self.clock())
        if self.reader is not None and self.session is not None:
            table = [e for e in events if isinstance(e, TableEvent)]
            self.reader.feed(table, self.session.game)
            if self._as_found and table:
                # the new tracker's first look: all it saw at once lay there already
                self._as_found = False
                self.reader.picture.use(e.sighting.key for e in table
                                        if e.kind in ("appeared", "flipped"))
            self._sync(t, started, author)
        for e in events:
            if isinstance(e, CardShown):
                self._obey(e.command, t)
        self._publish()

    def _count(self, markers: int) -> None:
        now = self.clock()
        if markers != self.status.markers and now - self._markers_at >= MARKERS_EVERY:
            self._markers_at = now
            self._publish(markers=markers)

    def _submit(self, action: dict[str, Any], done: list[tuple[int, float]],
                author: str = CAMERA) -> None:
        assert self.session is not None
        submitted = self.clock()
        self.session.submit(action, source="camera", author=author)
        done.append((self.session.entries, submitted))

    def _stored(self, done: list[tuple[int, float]], started: float) -> None:
        """The actions ``done`` (their entries, when each was submitted) are stored: counted."""
        if done and self._unsaved:   # saved again: the report of the refused one is old news
            self.report, self._unsaved = None, False
        stored = self.clock()
        frame, detecting, detected, job = self._times
        again = frame != started     # a confirmation or a re-reading, not this frame's job
        if again:
            detecting = detected = job = started
        for seq, submitted in done:
            self.stats.latency.append(stored - started)
            self.stats.accepted.append((self._t, seq))
            self.stats.timings.append(Timing(self._t, seq, started, detecting, detected, job,
                                             submitted, stored, not again))

    def _sync(self, t: float, started: float, author: str = CAMERA) -> None:
        """Submit what the reader reads now (logged with ``author``); keep its confirmations and
        its notice."""
        reader, session = self.reader, self.session
        if reader is None or session is None:
            return
        if self.paused:
            self.confirmations, self.notice = [], None
            return
        if t < self._retry_at:
            return
        done: list[tuple[int, float]] = []
        # The reader as it was before its first action, and its counts, until the reading is
        # stored: if the store refuses it, it is read again as if it had not been read.
        before: list[tuple[Reader[Any], dict[str, int]]] = []

        def submit(action: dict[str, Any]) -> None:
            if not before:
                before.append((copy.deepcopy(reader, {id(reader.components): reader.components}),
                               dict(self.stats.read)))
            self._submit(action, done, author)
        try:
            # the frame's actions in one write, told to the screens once stored
            with session.together(source="camera", author=author):
                confirm, mismatches, refused = settle(reader, lambda: session.game, submit,
                                                      stats=self.stats)
        except RuntimeError as exc:   # the store refused: nothing was saved, the session reloaded
            if before:
                self.reader, self.stats.read = before[0]
            self._retry_at = t + RETRY_AFTER
            self.report = f"a camera reading was not saved ({exc}); the camera tries again in a " \
                          f"moment"
            self._unsaved = True
            return
        self._stored(done, started)
        # a row the Cancel card set aside stays aside while the reader still proposes it
        self._set_aside = [c for c in self._set_aside if any(r.confirm == c for r in confirm)]
        confirm = [r for r in confirm if r.confirm not in self._set_aside]
        offered = [r.confirm for r in self.confirmations]
        self.stats.offered += sum(1 for r in confirm if r.confirm not in offered)
        self.confirmations = confirm
        notice = None
        if refused is not None:
            # what the reading saw, and the engine's refusal as its message, for every language
            notice = Notice(refused.args[1], expected_text(session.game), t, refused.message)
        live = set()
        for m in mismatches:
            key = m.sees + "|" + (m.expects or "")
            live.add(key)
            since = self._mismatch_since.setdefault(key, t)
            if notice is None and t - since >= self.grace:
                notice = Notice(m.sees, m.expects or "", since)
        self._mismatch_since = {k: v for k, v in self._mismatch_since.items() if k in live}
        if notice is not None and self.notice is not None and \
                (notice.sees, notice.expects, notice.refusal) == \
                (self.notice.sees, self.notice.expects, self.notice.refusal):
            notice = self.notice          # the same notice goes on: keep when it began
        elif notice is not None:
            self.stats.notices += 1
        self.notice = notice

    # -- the tablet's side ---------------------------------------------------------------------

    def confirm(self, action: Mapping[str, Any], *, author: str | None = None) -> None:
        """A table screen tapped one of the camera's proposals: submit it (source "camera"), on
        the worker, and wait for it (the tap is answered once it is stored or refused)."""
        self.worker.call(lambda: self._confirm(action, author))

    def _confirm(self, action: Mapping[str, Any], author: str | None) -> None:
        reading = next((r for r in self.confirmations if dict(action) in r.confirm), None)
        if reading is None or self.session is None or self.reader is None:
            raise IllegalAction(Message("live.refuse.not_proposed", "the camera no longer "
                                        "proposes that; look at the table again"))
        # the row goes first: the submission's broadcast must not show it any more
        rows = self.confirmations
        self.confirmations = [r for r in rows if r is not reading]
        self._publish()
        try:
            self.session.submit(dict(action), source="camera", author=author or "tablet")
        except Exception:
            self.confirmations = rows
            self._publish()
            raise
        self.reader.accepted(reading)
        kind = action["type"]
        self.stats.confirmed[kind] = self.stats.confirmed.get(kind, 0) + 1
        self._sync(self._t, self.clock())
        self._publish()

    # -- the command cards ---------------------------------------------------------------------

    def _obey(self, command: str, t: float) -> None:
        """Do what the command card held up says, through the calls the tablet's buttons make."""
        self.stats.commands[command] = self.stats.commands.get(command, 0) + 1
        card = _CARDS.get(command, command)
        obey = getattr(self, f"_card_{command}", None)
        did: Message | str
        try:
            did = Message("live.card.unknown", "this version of tableassist does not know that "
                          "card") if obey is None else obey()
        except (IllegalAction, SetupError) as exc:
            did = exc.message
        except RuntimeError as exc:   # the store refused
            did = Message("live.card.not_saved", "not saved ({why})", why=_why(exc))
        # a message: each screen shows it in its language (str() is the English)
        self.report = Message("live.card.did", "{card}: {did}", card=card, did=did)
        if command != "new_game":
            self._sync(t, self.clock())   # the game changed: read the table against it

    def _session(self) -> TableSession:
        if self.session is None or self.session.saved.ended:
            raise IllegalAction(Message("live.refuse.no_game", "no game is being played"))
        return self.session

    def _card_undo(self) -> Message:
        step = self._session().undo(source="camera", author="camera")
        return Message("live.card.undone", "entry {seq} was undone", seq=str(step.seq))

    def _card_redo(self) -> Message:
        step = self._session().redo(source="camera", author="camera")
        return Message("live.card.redone", "entry {seq} was done again", seq=str(step.seq))

    def _card_confirm(self) -> Message:
        self._session()
        rows = self.confirmations
        if not rows:
            return Message("live.card.nothing_to_confirm", "the camera proposes nothing to confirm")
        if len(rows) > 1 or len(rows[0].confirm) > 1:
            n = sum(len(r.confirm) for r in rows)
            return Message("live.card.choices", "the camera proposes {n} choices: tap the right one "
                           "on the tablet", n=n)
        action = rows[0].confirm[0]
        label = self._session().game.label(action)
        self.confirm(action, author="camera")
        return Message("live.card.confirmed", "confirmed {label}", label=label)

    def _card_cancel(self) -> Message:
        self._session()
        rows = self.confirmations
        if not rows:
            return Message("live.card.nothing_to_cancel", "the camera proposes nothing to cancel")
        self._set_aside += [r.confirm for r in rows]
        self.confirmations = []
        return Message("live.card.set_aside", "the camera's proposal was set aside: play it on "
                       "the tablet (the camera asks again when the table changes)")

    def _card_pause(self) -> Message:
        self._session()
        self.paused = not self.paused
        if self.paused:
            return Message("live.card.paused", "the camera stopped reading the table; show Pause "
                           "again to go on")
        if self.reader is not None:
            # what was turned over while paused is not read; what lies on the table is compared
            # with the game again
            self.reader.picture.use(list(self.reader.picture.fresh))
        return Message("live.card.reads_again", "the camera reads the table again")

    def _card_new_game(self) -> Message:
        if self.play_again is None:
            return Message("live.card.new_game_on_tablet", "start a new game on the tablet")
        self.play_again()
        return Message("live.card.new_game", "a new game with the same players")

    # -- reading a source ----------------------------------------------------------------------

    def run(self, source: FrameSource, *, name: str = "camera", fps: float | None = None,
            frame_time: Callable[[], float] | None = None, until_end: bool = False) -> None:
        """Read ``source`` until :meth:`stop` (or, with ``until_end``, until it gives no frame):
        :func:`read_frames` with this camera's :meth:`process` and status."""
        read_frames(source, self._process_safely, self._publish, stop=self._stop,
                    clock=self.clock, name=name, fps=fps, frame_time=frame_time,
                    until_end=until_end)

    def _process_safely(self, frame: Frame, t: float) -> None:
        try:
            self.process(frame, t)
        except Exception:  # noqa: BLE001 - a bug must not stop the camera
            self._failed()

    def _failed(self) -> None:
        """A frame could not be read (a bug): logged, and the host's camera panel says so, from
        whichever thread it failed on; the camera goes on with the next frame."""
        log.exception("the camera could not read a frame")

        def report() -> None:
            self.report = Message("live.frame_failed", "the camera could not read a frame (an "
                                  "internal error; see the server's console)")
            self._publish()
        self.worker.post(report)

    def _safely(self, job: Callable[[], None]) -> Callable[[], None]:
        """``job`` as the worker runs it for the camera: a failure is the camera's report."""
        def safely() -> None:
            try:
                job()
            except Exception:  # noqa: BLE001 - a bug must not stop the worker's readings
                self._failed()
        return safely

    # -- the threads (start) ---------------------------------------------------------------------

    def start(self, source: FrameSource, **run: Any) -> None:
        """Read ``source`` with a capture thread, a detection thread and a worker (see the module
        docstring; ``run``: as for :meth:`run`); the camera owns ``source`` and closes it at
        :meth:`stop`."""
        self._source = source
        self._stop.clear()
        self._latest = Latest()
        self._pace.clear()
        self.worker.start()
        self._detection = threading.Thread(target=self._detecting, args=(self._latest,),
                                           name="camera detection", daemon=True)
        self._thread = threading.Thread(target=self._capturing, args=(source, self._latest),
                                        kwargs=run, name="camera capture", daemon=True)
        self._detection.start()
        self._thread.start()

    def _capturing(self, source: FrameSource, latest: Latest, **run: Any) -> None:
        """The capture thread: each frame read goes to the detection thread, newest first."""
        live = getattr(source, "link", None) is not None   # a stream (FrameSource.link)

        def hand_over(frame: Frame, t: float) -> None:
            latest.put(frame, t, self.clock(), wait=not live)
            self.stats.dropped = latest.dropped
        try:
            read_frames(source, hand_over, self._publish, stop=self._stop, clock=self.clock,
                        **run)
        except Exception:  # noqa: BLE001 - said on the host's panel, not a silent dead thread
            log.exception("the camera's capture failed")
            self._publish(state="lost", notice=Message("live.capture_failed", "the camera stopped "
                                                       "reading (an internal error; see the "
                                                       "server's console)"),
                          markers=None, stickers=())
        finally:
            latest.close()

    def _detecting(self, latest: Latest) -> None:
        """The detection thread: the pipeline on the newest frame; its events to the worker.
        OpenCV on one thread while it runs (as in `read_frames`: no thread count set and reset
        with every frame)."""
        from tableassist.vision.detect import one_thread
        with one_thread():
            self._detect_latest(latest)

    def _detect_latest(self, latest: Latest) -> None:
        while (item := latest.take()) is not None:
            frame, t, started = item
            try:
                detecting = self.clock()
                generation, events, seen = self._detect(frame, t)
                if events is not None:
                    self.worker.post(self._safely(partial(self._take, events, t, started,
                                                          generation, (detecting, self.clock()))))
                # after the frame's reading, as with process(): the recording notes the log's
                # last entry once the camera had read the frame (replay-camera relies on it)
                self.worker.post(self._safely(partial(self._tell_frame, t, frame, seen)))
            except Exception:  # noqa: BLE001 - a bug must not stop the camera
                self._failed()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the source started with :meth:`start` gave its last frame (``until_end``)
        and every reading handed over is applied (True), or ``timeout`` s passed (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in (self._thread, self._detection):
            if thread is not None:
                thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
                if thread.is_alive():
                    return False
        return self.worker.drain(None if deadline is None
                                 else max(0.0, deadline - time.monotonic()))

    def stop(self, notice: str = "the camera was stopped") -> None:
        """Stop reading, let the source go (the camera is free for other programs) and say so.
        The threads are joined, and every reading handed to the worker is applied first."""
        self._stop.set()
        if self._thread is None:
            return
        self._latest.close()
        self._thread.join(timeout=3)
        self._thread = None
        if self._detection is not None:
            self._detection.join(timeout=30)
            self._detection = None
        if self._source is not None:
            self._source.close()
            self._source = None
        self._publish(state="off", notice=notice, markers=None, stickers=(), slow=None)
        self.worker.stop()
