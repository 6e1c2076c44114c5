"""Recording the camera: a game's frames kept beside its log, so a misread can be replayed
(``tableassist replay-camera``, :mod:`tableassist.camera.replay`).

Only the host turns it on (``tableassist serve --record [DIR]`` makes the switch available on the
host screen; it is off until the host taps it, and off again after every restart): the people at
the table are not the ones who typed the command line, and the tap is made where they can see the
line it puts on every screen. While it records, every screen's payload says so
(:meth:`RecordingStatus.screen_json`). Each game's recording is deleted when the game is ended,
unless the host chose to keep it; a recording whose game was ended while the server was not
running goes at the next start (:meth:`Recordings.forget_ended`).

The format, one folder per game (``<DIR>/<table>-game-<row>-<date>-<time>/``: the game's table,
row and creation; mode 0700, its files 0600: they are what a camera saw):

* ``recording.json``: the game it belongs to (the table, the SQLite file of its log, the row, the
  game, players, seed, seat colours and the row's creation time, so a replay can check the log is
  that game's) and whether it is kept;
* ``frames/<part>-<n>.jpg``: every frame the camera read, at its read rate, as JPEG at
  :data:`QUALITY` and full size (the replay must give the pipeline what it saw);
* ``index.jsonl``: one line per frame written, ``{"part", "n", "t", "at", "seq", "file"}`` (``t``
  the frame's time as the pipeline got it, ``at`` the wall clock when it was read, as the log
  writes times, ``seq`` the log's last entry once the camera had read it), and a line where each
  part of the recording begins (``{"part", "seq", "at"}``: the host turned it on, or the game was
  opened) and ends (``{"stop", "seq", "at", "frames", "dropped", "offered"}``). A frame's number
  ``n`` counts the frames offered, so a gap says where frames were dropped.

JPEG files and a line each rather than a video (an MJPEG AVI through ``cv2.VideoWriter``, the same
JPEG bytes in a container): a video has one frame rate, but the camera reads at the pace its work
allows and the tracker's rules are timed, so each frame's time is needed anyway; a video's index
is written when it is closed, so a server killed mid-game (the evening one wants to replay) would
leave a file OpenCV may not read, where every frame whose line is in the index is whole. PNG would
be lossless and 15 times larger. Measured through the writer at 1920x1080, 8 frames a second
(the server's read rate), JPEG quality 85: 193 KB a frame on the synthetic table, 230 KB with a
webcam's sensor noise (sigma 3): 90-108 MB a minute, about 6 GB an hour. A recording stops
by itself at ``limit_mb`` (:data:`LIMIT_MB` by default, about 40 minutes at 1080p) or when the
disk has less than :data:`MIN_FREE_MB` left, and the host screen says why.

The camera is never slowed: the recorder is a frame listener (``Camera.on_frame``) that puts the
frame in a bounded queue (:data:`QUEUE_MB` of frames: 16 at 1080p, two seconds) and returns; a
thread of its own encodes and writes. When the queue is full the frame is dropped and counted.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tableassist.games.messages import Message
from tableassist.games.protocol import names
from tableassist.table.files import os_reason, read_json, replace_json
from tableassist.table.store import SavedGame, Store, StoreError, is_postgres, now

if TYPE_CHECKING:
    from tableassist.table.session import TableSession
    from tableassist.vision.pipeline import FrameResult
    from tableassist.vision.frame import Frame

log = logging.getLogger("tableassist.camera")

#: What ``recording.json`` says it is, and the version of the format.
FORMAT = "tableassist camera recording"
VERSION = 1
#: JPEG quality of the frames kept: the replay reads them as the live camera read the originals
#: (the synthetic games replay to no difference at this quality).
QUALITY = 85
#: The frames waiting to be written, at most (MB of raw pixels; at least two frames).
QUEUE_MB = 100
#: A recording stops by itself at this size (MB) unless ``--record-limit`` says otherwise.
LIMIT_MB = 4096
#: ... or when the disk has less than this free (MB).
MIN_FREE_MB = 1024
#: The host screen's counts (frames, MB, dropped) are sent again at most this often (s), by the
#: writer's thread, never the camera's.
COUNTS_EVERY = 10.0
#: How the recording of one game is named in its folder.
RECORDING_FILE = "recording.json"
INDEX_FILE = "index.jsonl"


class RecordingError(Exception):
    """A recording that cannot be read (the message is one sentence naming what is wrong)."""


# -- what the screens are shown ------------------------------------------------------------------

#: The line every screen shows while the camera is recorded.
RECORDING_LINE = Message("recording.line", "Recording the camera: this table's computer keeps "
                         "the pictures of this game (the host can stop it)")


@dataclass(frozen=True)
class RecordingStatus:
    """The table's recording as the screens show it: whether the server may record
    (``available``: started with ``--record``), the host's switch (``switch``), whether the
    camera is recorded now (``on``: the switch is on and a game is played), which game
    (``game``: its row), whether that game's recording is kept after the game ends, its counts
    (of this part), its folder, and why it stopped by itself (``stopped``: the limit, the
    disk)."""

    available: bool = False
    switch: bool = False
    on: bool = False
    game: int | None = None
    keep: bool = False
    frames: int = 0
    dropped: int = 0
    megabytes: float = 0.0
    folder: str | None = None
    stopped: Message | None = None

    def screen_json(self) -> dict[str, Any] | None:
        """What every screen is sent: the line while the camera is recorded, else nothing."""
        return {"on": True, "text": RECORDING_LINE} if self.on else None

    def host_json(self) -> dict[str, Any]:
        """The host screen's recording panel."""
        return {"available": self.available, "switch": self.switch, "on": self.on, "game": self.game, "keep": self.keep,
                "frames": self.frames, "dropped": self.dropped,
                "megabytes": round(self.megabytes, 1), "folder": self.folder,
                "stopped": self.stopped, "text": RECORDING_LINE if self.on else None}


# -- one part of a recording: the queue and the writer --------------------------------------------

@dataclass
class _Counts:
    frames: int = 0
    dropped: int = 0
    bytes: int = 0


class FrameWriter:
    """One part of a game's recording (from the host's tap, or the game's opening, to the switch
    off or the game's end): frames offered by the camera's thread (:meth:`offer`, which never
    waits) are written by a thread of its own (:meth:`start`), as JPEG files with their lines in
    the index.

    At most ``queue_bytes`` of frames wait (never fewer than two); a frame offered when they
    are full is dropped and counted. ``limit_bytes`` ends the part when the recording's files
    reach it; a write that fails (a full disk) ends it too; :attr:`stopped` then says why, and
    ``told`` is called (from the writer's thread) whenever the counts or the reason change."""

    def __init__(self, folder: Path, part: int, seq: int, *, quality: int = QUALITY,
                 queue_bytes: int = QUEUE_MB * 2**20, limit_bytes: int = LIMIT_MB * 2**20,
                 min_free_bytes: int = MIN_FREE_MB * 2**20, written: int = 0,
                 told: Callable[[], None] = lambda: None) -> None:
        self.folder = folder
        self.part = part
        self.quality = quality
        self.queue_bytes = queue_bytes
        self.limit_bytes = limit_bytes
        self.min_free_bytes = min_free_bytes
        self.told = told
        #: Why the part stopped by itself, or None.
        self.stopped: Message | None = None
        self.counts = _Counts(bytes=written)
        self._offered = 0
        self._queue: deque[tuple[int, float, str, int, Frame]] = deque()
        self._queued_bytes = 0
        self._ready = threading.Condition()
        self._closing = False
        self._thread: threading.Thread | None = None
        self._told_at = -1e9
        self._told_dropped = 0
        (folder / "frames").mkdir(mode=0o700, parents=True, exist_ok=True)
        self._line({"part": part, "seq": seq, "at": now()})

    # -- the camera's side ---------------------------------------------------------------------

    def offer(self, t: float, frame: Frame, seq: int) -> bool:
        """Queue one frame (time ``t``, the log's last entry ``seq``); False when it is dropped
        (the queue is full, or the part stopped). Never waits: this runs on the camera's thread,
        after the frame was read."""
        with self._ready:
            self._offered += 1
            if self.stopped is not None or self._closing:
                return False
            size = int(frame.nbytes)
            if self._queue and self._queued_bytes + size > max(self.queue_bytes, 2 * size):
                self.counts.dropped += 1
                return False
            self._queue.append((self._offered, t, now(), seq, frame))
            self._queued_bytes += size
            self._ready.notify()
            return True

    # -- the writer's thread -------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera recording", daemon=True)
        self._thread.start()

    def stop(self, seq: int) -> None:
        """Write what waits, then the part's last line (the log's last entry ``seq``)."""
        with self._ready:
            self._closing = True
            self._ready.notify()
        if self._thread is not None:
            self._thread.join()
        else:
            self._drain()
        self._line({"stop": self.part, "seq": seq, "at": now(), "frames": self.counts.frames,
                    "dropped": self.counts.dropped, "offered": self._offered})

    def _run(self) -> None:
        self._drain()

    def _drain(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closing:
                    self._ready.wait()
                if not self._queue:
                    return
                n, t, at, seq, frame = self._queue.popleft()
                self._queued_bytes -= int(frame.nbytes)
            if self.stopped is None:
                self._write(n, t, at, seq, frame)
            now_ = time.monotonic()
            if now_ - self._told_at >= COUNTS_EVERY or self.stopped is not None \
                    or self.counts.dropped != self._told_dropped:
                self._told_at, self._told_dropped = now_, self.counts.dropped
                self.told()

    def _write(self, n: int, t: float, at: str, seq: int, frame: Frame) -> None:
        from tableassist.vision.sources import SourceError, encode_jpeg

        name = f"frames/{self.part:03d}-{n:06d}.jpg"
        try:
            if self.counts.frames % 50 == 0 and \
                    shutil.disk_usage(self.folder).free < self.min_free_bytes:
                self._stop_by_itself(Message("recording.stop.disk_low", "the disk has less than "
                                             "{mb} MB free", mb=self.min_free_bytes // 2**20))
                return
            jpeg = encode_jpeg(frame, quality=self.quality)
            fd = os.open(self.folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(jpeg)
            # the line after the file: every frame the index names is whole
            self._line({"part": self.part, "n": n, "t": round(t, 4), "at": at, "seq": seq,
                        "file": name})
        except (OSError, SourceError) as exc:
            # encode_jpeg's one refusal (the camera may not read the catalogues to word its own)
            reason = os_reason(exc) if isinstance(exc, OSError) else Message(
                "recording.stop.no_jpeg", "it cannot be encoded as JPEG")
            self._stop_by_itself(Message("recording.stop.frame_unwritten", "a frame could not be "
                                         "written ({why})", why=reason))
            return
        self.counts.frames += 1
        self.counts.bytes += len(jpeg)
        if self.counts.bytes >= self.limit_bytes:
            self._stop_by_itself(Message("recording.stop.limit", "it reached its limit of {mb} MB",
                                         mb=self.limit_bytes // 2**20))

    def _stop_by_itself(self, why: Message) -> None:
        with self._ready:
            self.stopped = Message("recording.stopped", "the recording stopped: {why}", why=why)
            self.counts.dropped += len(self._queue)
            self._queue.clear()
            self._queued_bytes = 0
        log.warning("camera recording %s: %s", self.folder, self.stopped)

    def _line(self, data: Mapping[str, Any]) -> None:
        fd = os.open(self.folder / INDEX_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(json.dumps(data, separators=(",", ":")) + "\n")


# -- the folder of a table's recordings -----------------------------------------------------------

def beside(db: str | os.PathLike[str]) -> Path:
    """Where ``--record`` without a folder keeps the recordings: beside the SQLite file."""
    return Path(db).resolve().parent / "recordings"


class Recordings:
    """The folder a table's recordings are kept in (``--record DIR``), one folder per game, and
    which of them go: a recording is deleted with its game (when the game is ended) unless kept.

    ``store`` is the table's log: each recording names it (its SQLite file, its table) and the
    game's row and creation time, and only the recordings of this log are ever deleted here (one
    folder may hold the recordings of several tables and databases)."""

    def __init__(self, folder: Path, store: Store, *, limit_mb: int = LIMIT_MB,
                 quality: int = QUALITY) -> None:
        self.folder = Path(folder)
        self.store = store
        self.limit_mb = limit_mb
        self.quality = quality
        self.db = None if is_postgres(store.db) else str(Path(store.db).resolve())

    def of(self, saved: SavedGame) -> Path:
        """The folder of game ``saved``'s recording: its table, row and the day and time it was
        created (two databases' games of one number never share a folder)."""
        stamp = "".join(c for c in saved.created[:19] if c.isdigit())
        return self.folder / f"{self.store.table}-game-{saved.id}-{stamp[:8]}-{stamp[8:]}"

    def header(self, saved: SavedGame, colours: Mapping[str, str]) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "table": self.store.table, "db": self.db,
                "where": self.store.where, "game_row": saved.id, "game": saved.game,
                "players": list(saved.players), "seed": saved.seed, "created": saved.created,
                "colours": dict(colours), "quality": self.quality, "keep": False}

    def ours(self, header: Any, saved: SavedGame | None = None) -> bool:
        """Whether ``header`` is of a recording of this log (of game ``saved``, if given)."""
        return isinstance(header, dict) and header.get("format") == FORMAT \
            and header.get("table") == self.store.table and header.get("db") == self.db \
            and header.get("where") == self.store.where \
            and (saved is None or (header.get("game_row"), header.get("created")) ==
                 (saved.id, saved.created))

    def kept(self, saved: SavedGame) -> bool:
        header = _header(self.of(saved))
        return bool(self.ours(header, saved) and header.get("keep"))

    def keep(self, saved: SavedGame, keep: bool) -> bool:
        """Keep game ``saved``'s recording after the game ends (or not); False when it has none."""
        folder = self.of(saved)
        header = _header(folder)
        if not self.ours(header, saved):
            return False
        replace_json(folder / RECORDING_FILE, {**header, "keep": keep})
        return True

    def forget(self, saved: SavedGame) -> bool:
        """Game ``saved`` was ended: delete its recording unless it is kept. True if deleted."""
        folder = self.of(saved)
        header = _header(folder)
        if not self.ours(header, saved) or header.get("keep"):
            return False
        shutil.rmtree(folder, ignore_errors=True)
        return True

    def forget_ended(self) -> list[Path]:
        """Delete every recording of this log whose game was ended and is not kept (a game ended
        while the server did not run, or a deletion a crash interrupted). Returns what went."""
        gone: list[Path] = []
        if not self.folder.is_dir():
            return gone
        for folder in sorted(self.folder.iterdir()):
            header = _header(folder)
            if not self.ours(header) or header.get("keep"):
                continue
            try:
                saved = self.store.game(int(header["game_row"]))
            except (StoreError, ValueError, TypeError, KeyError):
                continue      # not a game of this log any more: not ours to delete
            if saved.ended and self.ours(header, saved) and folder == self.of(saved):
                shutil.rmtree(folder, ignore_errors=True)
                gone.append(folder)
        return gone


def _header(folder: Path) -> Any:
    try:
        return read_json(folder / RECORDING_FILE)
    except (OSError, ValueError):
        return None


# -- the table's switch ---------------------------------------------------------------------------

@dataclass
class _Part:
    saved: SavedGame
    session: TableSession
    writer: FrameWriter


class Recorder:
    """The table's recording: the host's switch (:meth:`turn`) and keep choice (:meth:`keep`),
    the game it follows (:meth:`follow`, a table's session follower), and a frame listener of the
    camera (``__call__``: ``Camera.on_frame``). While the switch is on, each game played gets its
    recording (:class:`Recordings`); :meth:`ended` deletes an ended game's unless kept.
    ``publish`` is told every new :class:`RecordingStatus` (the table shows it)."""

    def __init__(self, recordings: Recordings, *,
                 publish: Callable[[RecordingStatus], None] = lambda status: None,
                 queue_bytes: int = QUEUE_MB * 2**20) -> None:
        self.recordings = recordings
        self.publish = publish
        self.queue_bytes = queue_bytes
        self.switch = False
        self.stopped: Message | None = None
        self._lock = threading.RLock()         # the switch, the game and the part
        self._told_lock = threading.Lock()     # the status (taken by the writer's thread too)
        self._session: TableSession | None = None
        self._colours: dict[str, str] = {}
        self._part: _Part | None = None
        self.status = RecordingStatus(available=True, folder=str(recordings.folder))
        recordings.forget_ended()
        publish(self.status)      # the host screen shows the switch from the start

    # -- the host's choices --------------------------------------------------------------------

    def turn(self, on: bool) -> None:
        """The host's switch: record the game being played (and the next ones) from now on, or
        stop."""
        with self._lock:
            self.switch, self.stopped = on, None
            self._switch()

    def keep(self, keep: bool) -> None:
        """Keep the current game's recording after the game is ended (or not). A ``ValueError``
        says there is none."""
        with self._lock:
            session = self._session
            if session is None or not self.recordings.keep(session.saved, keep):
                raise ValueError(Message("recording.refuse.none_to_keep",
                                         "this game has no recording to keep"))
            self._tell()

    # -- the table's side ----------------------------------------------------------------------

    def follow(self, session: TableSession | None, colours: Mapping[str, str]) -> None:
        """The table plays ``session`` now (None: none): the part of the game before ends, and,
        while the switch is on, the new game's begins."""
        with self._lock:
            self._session, self._colours = session, dict(colours)
            self._switch()

    def ended(self, saved: SavedGame) -> None:
        """Game ``saved`` was ended: its recording goes unless kept."""
        with self._lock:
            if self._part is not None and self._part.saved.id == saved.id:
                self._end_part()
            self.recordings.forget(saved)
            self._tell()

    def close(self) -> None:
        """The table closes: the part being recorded ends (its files stay)."""
        with self._lock:
            self._end_part()
            self._tell()

    # -- the camera's side ---------------------------------------------------------------------

    def __call__(self, t: float, frame: Frame, seen: FrameResult | None) -> None:
        part = self._part      # one read: the camera's thread takes no lock here
        if part is not None:
            part.writer.offer(t, frame, part.session.entries)

    # -- parts ---------------------------------------------------------------------------------

    def _switch(self) -> None:
        session = self._session
        wanted = self.switch and session is not None and not session.closed
        if self._part is not None and (not wanted or self._part.session is not session):
            self._end_part()
        if wanted and self._part is None and session is not None:
            self._begin_part(session)
        self._tell()

    def _begin_part(self, session: TableSession) -> None:
        saved = session.saved
        folder = self.recordings.of(saved)
        try:
            if not self.recordings.ours(_header(folder), saved):
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.chmod(folder, 0o700)
                replace_json(folder / RECORDING_FILE, self.recordings.header(saved, self._colours))
            parts, written = _parts_and_bytes(folder)
            writer = FrameWriter(folder, parts + 1, session.entries,
                                 quality=self.recordings.quality, queue_bytes=self.queue_bytes,
                                 limit_bytes=self.recordings.limit_mb * 2**20, written=written,
                                 told=self._told)
        except OSError as exc:
            self.switch = False
            self.stopped = Message("recording.cannot_record", "the camera cannot be recorded in "
                                   "{folder}: {why}", folder=str(folder), why=os_reason(exc))
            return
        writer.start()
        self._part = _Part(saved, session, writer)

    def _end_part(self) -> None:
        part, self._part = self._part, None
        if part is not None:
            try:
                part.writer.stop(part.session.entries)
            except OSError as exc:
                log.warning("camera recording %s: its last line could not be written (%s)",
                            part.writer.folder, exc)

    def _told(self) -> None:
        """The writer's counts changed (on its thread, which must not wait for ``_lock``: a
        part's end joins it while holding it). A part that stopped by itself turns the switch
        off, from a thread of its own."""
        part = self._part
        if part is not None and part.writer.stopped is not None:
            threading.Thread(target=self._stopped_by_itself, args=(part,), daemon=True).start()
        self._tell()

    def _stopped_by_itself(self, part: _Part) -> None:
        with self._lock:
            if self._part is part:
                self.switch, self.stopped = False, part.writer.stopped
                self._end_part()
                self._tell()

    def _tell(self) -> None:
        with self._told_lock:
            part = self._part
            recording = part is not None and part.writer.stopped is None
            counts = part.writer.counts if part is not None else _Counts()
            status = replace(self.status, switch=self.switch, on=recording,
                             game=part.saved.id if part is not None else None,
                             keep=part is not None and self.recordings.kept(part.saved),
                             frames=counts.frames, dropped=counts.dropped,
                             megabytes=counts.bytes / 2**20,
                             stopped=self.stopped or (part.writer.stopped if part else None))
            if status == self.status:
                return
            self.status = status
            self.publish(status)


def _parts_and_bytes(folder: Path) -> tuple[int, int]:
    """How many parts a recording has, and the bytes of its frames (a part added after a
    restart counts towards the same limit)."""
    parts = 0
    try:
        with open(folder / INDEX_FILE, encoding="utf-8") as index:
            for line in index:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and "part" in entry and "n" not in entry:
                    parts = max(parts, int(entry["part"]))
    except FileNotFoundError:
        pass
    frames = folder / "frames"
    size = sum(f.stat().st_size for f in frames.iterdir()) if frames.is_dir() else 0
    return parts, size


# -- reading a recording (the replay) -------------------------------------------------------------

@dataclass(frozen=True)
class RecordedFrame:
    """One frame of a recording: its part, number, time as the pipeline got it (``t``), wall
    clock (``at``), the log's last entry once the camera had read it (``seq``) and its file."""

    part: int
    n: int
    t: float
    at: str
    seq: int
    file: Path


@dataclass(frozen=True)
class Part:
    """One stretch of a recording: where the log stood when it began (``seq``) and ended
    (``end``: None when the server stopped without ending it), its frames, and the numbers of
    the frames offered but not written (``missing``: dropped, or the last ones of a crash)."""

    number: int
    seq: int
    at: str
    frames: tuple[RecordedFrame, ...] = ()
    end: int | None = None
    missing: tuple[int, ...] = ()


@dataclass(frozen=True)
class Recording:
    """A game's recording as :meth:`read` finds it in its folder."""

    folder: Path
    header: dict[str, Any]
    parts: tuple[Part, ...]
    #: What the index holds that could not be read (a line cut short by a crash), in words.
    damaged: tuple[str, ...] = field(default=())

    @property
    def game_row(self) -> int:
        return int(self.header["game_row"])

    @property
    def frames(self) -> int:
        return sum(len(p.frames) for p in self.parts)

    @classmethod
    def read(cls, folder: Path) -> Recording:
        """The recording in ``folder``; :class:`RecordingError` says in one sentence why there
        is none to read."""
        folder = Path(folder)
        if not folder.is_dir():
            raise RecordingError(Message("recording.not_folder", "{folder} is not a folder (name a "
                                         "game's recording, such as {example})",
                                         folder=str(folder),
                                         example="recordings/main-game-3-20260101-201500"))
        try:
            header = read_json(folder / RECORDING_FILE)
        except (OSError, ValueError):
            raise RecordingError(Message("recording.header_not_json", "{file} cannot be read as "
                                         "a recording's header (not JSON)",
                                         file=str(folder / RECORDING_FILE))) from None
        if header is None:
            inner = sorted(p.name for p in folder.iterdir() if (p / RECORDING_FILE).is_file())
            raise RecordingError(Message("recording.not_recording", "{folder} is not a camera "
                                         "recording (it has no {file}){holds, select, yes {; it "
                                         "holds {count}: {inner}} other {}}", folder=str(folder),
                                         file=RECORDING_FILE, holds="yes" if inner else "no",
                                         count=len(inner), inner=names(inner[:4]) if inner else ""))
        problems = _header_problems(header)
        if problems:
            raise RecordingError(Message("recording.unreadable_header", "{file} is not a "
                                         "recording tableassist can read: {why}",
                                         file=str(folder / RECORDING_FILE), why=problems))
        try:
            with open(folder / INDEX_FILE, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            lines = []
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordingError(Message("recording.index_unreadable", "{file} cannot be read "
                                         "({why})", file=str(folder / INDEX_FILE),
                                         why=os_reason(exc) if isinstance(exc, OSError) else
                                         Message("recording.not_utf8", "not UTF-8 text"))
                                 ) from None
        parts, damaged = read_parts(folder, lines)
        if not any(p.frames for p in parts):
            raise RecordingError(Message("recording.no_frames", "{folder} holds no frame to "
                                         "replay", folder=str(folder)))
        return cls(folder, header, tuple(parts), tuple(damaged))


def _header_problems(header: Any) -> Message | None:
    """What is wrong with a recording's header, or None."""
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return Message("recording.header.not_one", "it does not say it is one")
    if header.get("version") != VERSION:
        return Message("recording.header.version", "it is version {version} of the format, this "
                       "tableassist reads {reads}", version=repr(header.get("version")),
                       reads=str(VERSION))
    wanted = {"table": str, "game_row": int, "game": str, "players": list, "seed": int,
              "created": str, "colours": dict}
    wrong = [k for k, kind in wanted.items() if not isinstance(header.get(k), kind)]
    return Message("recording.header.damaged", "its {fields} {count, plural, one {is} other "
                   "{are}} missing or damaged", fields=names(wrong),
                   count=len(wrong)) if wrong else None


def read_parts(folder: Path, lines: list[str]) -> tuple[list[Part], list[str]]:
    """The parts of a recording from its index's ``lines`` (``folder``: where its frames are),
    and what could not be read of them, in words."""
    parts: list[Part] = []
    frames: list[RecordedFrame] = []
    damaged: list[str] = []
    current: Part | None = None

    def close(end: int | None, offered: int = 0) -> None:
        nonlocal current, frames
        if current is not None:
            numbers = {f.n for f in frames}
            last = max(max(numbers, default=0), offered)
            missing = tuple(n for n in range(1, last + 1) if n not in numbers)
            parts.append(replace(current, frames=tuple(frames), end=end, missing=missing))
        current, frames = None, []

    for number, line in enumerate(lines, start=1):
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict):
                raise ValueError
            if "stop" in entry:
                close(int(entry["seq"]), int(entry.get("offered", 0)))
            elif "n" in entry:
                if current is None or int(entry["part"]) != current.number:
                    raise ValueError
                frames.append(RecordedFrame(current.number, int(entry["n"]), float(entry["t"]),
                                            str(entry["at"]), int(entry["seq"]),
                                            folder / str(entry["file"])))
            elif "part" in entry:
                close(None)
                current = Part(int(entry["part"]), int(entry["seq"]), str(entry["at"]))
            else:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            damaged.append(Message("recording.line_cut_short", "line {line} of {file} cannot "
                                   "be read (cut short: the server stopped while writing it)",
                                   line=str(number), file=INDEX_FILE) if number == len(lines)
                           else Message("recording.line_unreadable", "line {line} of {file} "
                                        "cannot be read", line=str(number), file=INDEX_FILE))
    close(None)
    return parts, damaged
