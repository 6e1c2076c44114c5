"""Replaying a camera recording: its frames through the game's pipeline and reader again, against
the game's log (``tableassist replay-camera``), so a misread evening becomes a test case.

The replay is the live camera again (:class:`~tableassist.camera.live.Camera` with the pipeline
the server gives it) reading the recorded frames at their recorded times into a game of its own
(a scratch log in a temporary folder, set up as the recorded game was: game, players, seed,
options and components). What the people at the table did goes in between the frames where the
log has it: each recorded frame says how far the log was once the camera had read it, so an
entry that is not the camera's own is played before the frame whose reading followed it in the
log, and after it otherwise. A tap on one of the camera's proposals is tapped again (if the
replayed camera proposes it); undo, redo and corrections are made again. So the replayed camera
reads what the live one read, and hears what it heard.

What is compared: every camera reading of the log within the recorded parts (the camera's own
actions, undos and redos by command card, and the proposals tapped) with the replayed camera's
readings, in order. The log is taken as it stands now: a reading corrected on the tablet is
expected to read as corrected (the table said what it really was), one struck is expected not to
be read at all. So a replay of the code that misread shows the misread, and a fix shows no
difference. A log entry the replay's game refuses (it went another way after a difference) is a
difference too. The log's entries outside the recorded parts are played as logged and not
compared.

Two limits, said in the notes rather than hidden: a part that begins mid-game starts the camera
as found (as a resumed game does: what lies on the table is taken as played before), where the
live camera had the game's whole past; and frames dropped while recording (the writer was
behind) were read live but are not replayed.
"""

from __future__ import annotations

import difflib
import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tableassist.camera.author import read_by_camera
from tableassist.games.messages import Message
from tableassist.camera.live import Camera, ReaderFor
from tableassist.camera.recording import Part, RecordedFrame, Recording
from tableassist.games.protocol import IllegalAction
from tableassist.readers import reader_for as default_reader_for
from tableassist.table.session import Change, TableSession
from tableassist.table.store import Entry, SavedGame, StoreError
from tableassist.table.stores import open_store

if TYPE_CHECKING:
    from tableassist.vision.pipeline import TablePipeline
    from tableassist.vision.frame import Frame

#: The kinds of a camera reading: an action read, a proposal tapped, an undo or a redo by card.
READ, TAP = "read", "tap"


@dataclass(frozen=True)
class Logged:
    """A camera reading as the log has it: entry ``seq`` written at ``at`` (UTC, as stored), its
    ``kind`` (``read``, ``tap``, ``undo``, ``redo``), ``author`` (who tapped), the action as the
    log has it now (``None``: struck by a correction, or an undo or redo) and, when a correction
    changed it, what the camera had read (``was``). ``label`` and ``was_label``: both in
    words."""

    seq: int
    at: str
    kind: str
    action: dict[str, Any] | None
    author: str | None = None
    was: dict[str, Any] | None = None
    struck: bool = False
    label: str = ""
    was_label: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": self.at, "kind": self.kind, "action": self.action,
                "label": self.label, "author": self.author, "was": self.was,
                "was_label": self.was_label, "struck": self.struck}


@dataclass(frozen=True)
class Replayed:
    """A reading of the replayed camera: its entry in the replay's own log (``seq``), its
    ``kind`` and action, and the frame it was read at (``part``, ``frame``: its number, ``t``:
    its time as the pipeline got it, ``at``: the wall clock when it was recorded)."""

    seq: int
    kind: str
    action: dict[str, Any] | None
    part: int
    frame: int
    t: float
    at: str
    label: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "action": self.action, "label": self.label,
                "part": self.part, "frame": self.frame, "t": self.t, "at": self.at}


#: What a difference is: the replay reads another action in a log reading's place, reads
#: nothing there, reads one the log has not, or its game refuses one of the log's entries.
MISREAD, MISSED, EXTRA, REFUSED = "misread", "missed", "extra", "refused"


@dataclass(frozen=True)
class Difference:
    """One place where the replay and the log differ (``what``: :data:`MISREAD`, :data:`MISSED`,
    :data:`EXTRA`, :data:`REFUSED`), with the log's reading and the replay's where there are,
    ``after``: the log entry an extra reading comes after, and ``why`` in words (a message:
    the report says it in the command's language, ``str()`` of it is the English)."""

    what: str
    log: Logged | None = None
    replay: Replayed | None = None
    after: int | None = None
    why: str | None = None

    @property
    def place(self) -> float:
        """Where in the log it is (to put the differences in order)."""
        if self.log is not None:
            return float(self.log.seq)
        return (self.after or 0) + 0.5

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "log": None if self.log is None else self.log.to_json(),
                "replay": None if self.replay is None else self.replay.to_json(),
                "after": self.after, "why": self.why}


@dataclass(frozen=True)
class CameraReplay:
    """The replay of one recording: how many of the log's camera readings were compared and how
    many the replay read, the differences in log order, and notes on what limits the replay."""

    recording: Recording
    saved: SavedGame
    compared: int
    replayed: int
    frames: int
    differences: tuple[Difference, ...]
    notes: tuple[str, ...] = field(default=())   # messages, as ``why``

    @property
    def same(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        first = self.recording.parts[0].at if self.recording.parts else None
        return {"recording": str(self.recording.folder), "game_row": self.saved.id,
                "game": self.saved.game, "players": list(self.saved.players),
                "started": first, "frames": self.frames, "compared": self.compared,
                "replayed": self.replayed, "same": self.same,
                "differences": [d.to_json() for d in self.differences],
                "notes": list(self.notes)}


def is_own(entry: Entry) -> bool:
    """An entry the camera made by itself (read from the table, or a command card)."""
    return entry.damaged is None and entry.source == "camera" and read_by_camera(entry.author) \
        and entry.kind in ("action", "undo", "redo")


def is_tap(entry: Entry) -> bool:
    """A camera proposal tapped on a screen."""
    return entry.damaged is None and entry.kind == "action" and entry.source == "camera" \
        and not read_by_camera(entry.author)


def effective(log: Sequence[Entry]) -> dict[int, dict[str, Any] | None]:
    """Each action entry's action as the log has it now: corrections put in place (a chain of
    corrections ends at the last), ``None`` where one struck it."""
    root: dict[int, int] = {}
    now: dict[int, dict[str, Any] | None] = {}
    for e in log:
        if e.damaged is not None:
            continue
        if e.kind == "action":
            root[e.seq] = e.seq
            now[e.seq] = e.action
        elif e.kind == "correction" and e.target in root:
            first = root[e.target]
            root[e.seq] = first
            now[first] = e.action
    return now


def replay_camera(recording: Recording, saved: SavedGame, log: Sequence[Entry], *,
                  pipeline_for: Callable[[str | None], TablePipeline],
                  reader_for: ReaderFor = default_reader_for,
                  read_frame: Callable[[Path], Frame | None] | None = None,
                  grace: float = 3.0) -> CameraReplay:
    """Replay ``recording`` (of game ``saved``, whose log is ``log``) with the camera's
    ``pipeline_for`` and ``reader_for`` (the server's) and compare its readings with the log
    (see the module docstring). ``read_frame`` reads a recorded frame (default: OpenCV's)."""
    if read_frame is None:
        from tableassist.vision.sources import read_image
        read_frame = read_image
    with tempfile.TemporaryDirectory(prefix="tableassist-replay-") as tmp:
        store = open_store(Path(tmp) / "replay.sqlite3")
        try:
            row = store.create_game(saved.game, saved.players, saved.seed, saved.options,
                                    saved.components)
            session = TableSession(store, store.game(row))
            camera = Camera(pipeline_for=pipeline_for, reader_for=reader_for, grace=grace)
            run = _Run(recording, saved, log, session, camera, read_frame)
            return run.replay()
        finally:
            store.close()


#: What a command card's entry (no action) is called in the report.
_CARD_LABELS = {"undo": Message("replay.label.undo", "undo (command card)"),
                "redo": Message("replay.label.redo", "redo (command card)")}
_NOTHING = Message("replay.label.nothing", "nothing")

class _Run:
    """One replay's state: the scratch session, the camera, where the log and frames are."""

    def __init__(self, recording: Recording, saved: SavedGame, log: Sequence[Entry],
                 session: TableSession, camera: Camera,
                 read_frame: Callable[[Path], Frame | None]) -> None:
        self.recording = recording
        self.saved = saved
        self.log = [e for e in log]
        self.session = session
        self.camera = camera
        self.read_frame = read_frame
        self.colours: Mapping[str, str] = recording.header.get("colours") or {}
        self.truth = effective(self.log)
        self.expected: list[Logged] = []
        self.replayed: list[Replayed] = []
        self.refused: list[Difference] = []
        self.notes: list[str] = []
        self.seq_map: dict[int, int] = {}
        self._own_log: list[int] = []        # the log's own readings compared, in order
        self._own_replay: list[int] = []     # the replay's own readings, in order
        self.span = False
        self.frame: RecordedFrame | None = None
        self.done = 0                        # the last log entry played or compared
        self.frames = 0
        session.subscribe(self._heard)

    # -- the run -------------------------------------------------------------------------------

    def replay(self) -> CameraReplay:
        for part in self.recording.parts:
            self._part(part)
        self.notes += list(self.recording.damaged)
        differences = sorted(self._diff() + self.refused, key=lambda d: d.place)
        return CameraReplay(self.recording, self.saved, len(self.expected), len(self.replayed),
                            self.frames, tuple(differences), tuple(self.notes))

    def _part(self, part: Part) -> None:
        if not part.frames:
            return
        self.camera.follow(None)
        for e in self._entries(self.done, part.seq):
            self._play(e)                     # before the part: as logged, not compared
        self.done = max(self.done, part.seq)
        if self.session.steps:
            self.notes.append(Message("replay.note.mid_game", "part {part} of the recording "
                                      "begins at entry {seq}, mid-game: the replayed camera "
                                      "starts as found (as a resumed game does), where the live "
                                      "one had the game's past", part=str(part.number),
                                      seq=str(part.seq)))
        if part.missing:
            self.notes.append(Message("replay.note.not_recorded", "part {part}: {n, plural, "
                                      "one {# frame was} other {# frames were}} not recorded "
                                      "({frames, plural, one {frame} other {frames}} {ranges}: "
                                      "the writer was behind, or the server stopped); they were "
                                      "read live but are not replayed", part=str(part.number),
                                      n=len(part.missing), frames=len(part.missing),
                                      ranges=_ranges(part.missing)))
        self.camera.follow(self.session, self.colours)
        self.span = True
        # OpenCV on one thread for the part, as the live camera's loop reads (camera.frames)
        from tableassist.vision.detect import one_thread
        try:
            with one_thread():
                for frame in part.frames:
                    self._frame(frame)
            if part.end is not None:
                self._between(part.end, lambda: None)
        finally:
            self.span = False
            self.frame = None
            self.camera.follow(None)

    def _frame(self, frame: RecordedFrame) -> None:
        def read() -> None:
            self.frame = frame
            picture = self.read_frame(frame.file)
            if picture is None:
                self.notes.append(Message("replay.note.no_picture", "frame {n} of part {part} "
                                          "({file}) is missing or not a picture; it was skipped",
                                          n=str(frame.n), part=str(frame.part),
                                          file=frame.file.name))
                return
            self.frames += 1
            try:
                self.camera.process(picture, frame.t)
            except Exception as exc:  # noqa: BLE001 - the live camera goes on after a bug too
                self.notes.append(Message("replay.note.internal_error", "frame {n} of part "
                                          "{part} could not be read (an internal error: {error})",
                                          n=str(frame.n), part=str(frame.part),
                                          error=type(exc).__name__))

        self._between(frame.seq, read)

    def _between(self, upto: int, read: Callable[[], None]) -> None:
        """The log's entries up to ``upto`` around one frame's reading (``read``): those before
        the first of the camera's own are played first, then the frame is read, then the rest
        (the camera's own are compared, the others played)."""
        entries = self._entries(self.done, upto)
        first = next((i for i, e in enumerate(entries) if is_own(e)), len(entries))
        for e in entries[:first]:
            self._play(e)
        read()
        for e in entries[first:]:
            if is_own(e):
                self.expected.append(self._logged(e))
                if e.kind == "action":
                    self._own_log.append(e.seq)
            else:
                self._play(e)
        self.done = max(self.done, upto)

    def _entries(self, after: int, upto: int) -> list[Entry]:
        return [e for e in self.log if after < e.seq <= upto]

    # -- the log's entries ---------------------------------------------------------------------

    def _logged(self, e: Entry) -> Logged:
        kind = {"action": READ if is_own(e) else TAP}.get(e.kind, e.kind)
        action = self.truth.get(e.seq, e.action) if e.kind == "action" else None
        was = e.action if e.kind == "action" and action != e.action else None
        struck = e.kind == "action" and action is None
        return Logged(e.seq, e.at, kind, action, e.author, was, struck,
                      self._label(action if action is not None else e.action, e.kind),
                      self._label(was, "action") if was is not None else "")

    def _play(self, e: Entry) -> None:
        """Play one of the log's entries on the replay's game, as it was made."""
        session = self.session
        if e.damaged is not None:
            self.notes.append(Message("replay.note.damaged", "entry {seq} of the log is damaged "
                                      "({why}); the replay goes on without it", seq=str(e.seq),
                                      why=e.damaged))
            return
        if e.kind == "resume":
            self.notes.append(Message("replay.note.resume", "entry {seq} is a resume marker (the "
                                      "log stopped replaying there once); the replay goes on "
                                      "without it", seq=str(e.seq)))
            return
        try:
            if is_tap(e) and self.span:
                self._tap(e)
            elif e.kind == "action":
                session.submit(e.action or {}, source=e.source, author=e.author)
            elif e.kind == "undo":
                session.undo(source=e.source, author=e.author)
            elif e.kind == "redo":
                session.redo(source=e.source, author=e.author)
            elif e.kind == "correction":
                session.correct(self._mapped(e.target or 0), e.action, source=e.source,
                                author=e.author)
        except (IllegalAction, StoreError) as exc:
            why = exc.args[0] if exc.args and isinstance(exc.args[0], Message) else str(exc)
            self.refused.append(Difference(REFUSED, self._logged(e), why=why))
            return
        self.seq_map[e.seq] = session.entries

    def _tap(self, e: Entry) -> None:
        logged = self._logged(e)
        self.expected.append(logged)
        action = e.action or {}
        seq = self.session.entries + 1       # the tap's entry is the first confirm writes
        try:
            self.camera.confirm(action, author=e.author)
        except IllegalAction:
            # not proposed by the replayed camera: the tap's action goes in all the same, so the
            # game stays the log's (the diff shows the tap as missed)
            self.session.submit(action, source="camera", author=e.author)
            return
        frame = self.frame
        self.replayed.append(Replayed(seq, TAP, action,
                                      frame.part if frame else 0, frame.n if frame else 0,
                                      frame.t if frame else 0.0, frame.at if frame else "",
                                      self._label(action, "action")))

    def _mapped(self, target: int) -> int:
        """The replay's entry for the log's entry ``target`` (a correction's target)."""
        if target in self.seq_map:
            return self.seq_map[target]
        if target in self._own_log:
            i = self._own_log.index(target)
            if i < len(self._own_replay):
                return self._own_replay[i]
        return target

    # -- the replayed camera -------------------------------------------------------------------

    def _heard(self, change: Change) -> None:
        if not self.span or change.source != "camera" or not read_by_camera(change.author) \
                or change.kind not in ("action", "undo", "redo") or change.seq is None:
            return
        action = None
        if change.kind == "action" and self.session.steps:
            action = self.session.steps[-1].action
            self._own_replay.append(change.seq)
        frame = self.frame
        self.replayed.append(Replayed(change.seq, READ if change.kind == "action" else change.kind,
                                      action, frame.part if frame else 0,
                                      frame.n if frame else 0, frame.t if frame else 0.0,
                                      frame.at if frame else "", self._label(action, change.kind)))

    def _label(self, action: Mapping[str, Any] | None, kind: str) -> str:
        # a message (the report says it in the command's language); str() of it is the English
        if action is None:
            return _CARD_LABELS.get(kind, _NOTHING)
        try:
            return self.session.game.label(action)
        except Exception:  # noqa: BLE001 - a label is words for a person, the action is kept
            return json.dumps(action, sort_keys=True)

    # -- the comparison ------------------------------------------------------------------------

    def _diff(self) -> list[Difference]:
        # in the order of each log (a tap's own reading is heard before the tap returns)
        expected = sorted(self.expected, key=lambda lg: lg.seq)
        replayed = self.replayed = sorted(self.replayed, key=lambda r: r.seq)
        wanted = [lg for lg in expected if not lg.struck]
        struck = [lg for lg in expected if lg.struck]
        a = [_key(lg.kind, lg.action) for lg in wanted]
        b = [_key(r.kind, r.action) for r in replayed]
        out: list[Difference] = []
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
            for k in range(pairs):
                out.append(Difference(MISREAD, wanted[i1 + k], self.replayed[j1 + k]))
            for lg in wanted[i1 + pairs:i2]:
                out.append(Difference(MISSED, lg, why=Message(
                    "replay.why.not_proposed", "the replayed camera does not propose it")
                    if lg.kind == TAP else None))
            after = wanted[i1 + pairs - 1].seq if i1 + pairs > 0 else None
            for r in self.replayed[j1 + pairs:j2]:
                again = next((s for s in struck if s.was == r.action), None)
                out.append(Difference(EXTRA, replay=r, after=after, why=None if again is None
                                      else Message("replay.why.struck", "entry {seq} read this "
                                                   "and was struck on the tablet",
                                                   seq=str(again.seq))))
        return out


def _key(kind: str, action: Mapping[str, Any] | None) -> str:
    return json.dumps([kind, action], sort_keys=True)


def _ranges(numbers: Sequence[int]) -> str:
    """1, 2, 3, 7 as "1-3, 7" (the note says "frames")."""
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:6])
    return text + (" …" if len(runs) > 6 else "")
