"""The server's side of a table's camera agent: what ``tableassist camera`` sees, read by the
table's own camera (reader, engine, log), as if the webcam were plugged into the server.

The agent runs the vision pipeline next to the webcam and sends the tracker's table events, not
video. The server keeps the reading: the table's :class:`~tableassist.camera.live.Camera` is fed
the events (``Camera.feed``), and so reads them through the game's reader into the session like a
local camera's; the agent's camera state reaches the host screen the same way (``show_device``).

**Readings.** A tracker and a reader belong together: a reader's picture of the table is folded
from one tracker's events. The server names each pairing (a *reading*: an id, ``run.n.game``:
this server run's, its count, the game's row) and tells the agent (``follow``: the reading, the
game to track, whether to send the preview): a new one when the table plays another game, when
the server starts, and when the agent starts afresh (``camera_reading``: its tracker is new, so
the server makes a new reader). Every batch of events names its reading; a batch of another
reading is acknowledged and dropped (``"stale"``), so events of an old game never reach the
reader of this one.

**Taking a reading over.** A server that has just opened the table (another process after a
takeover, or the server started again) and whose reader has read nothing yet takes over the
reading the connecting agent names, when it is of the game the table plays: its tracker goes on,
so its next events are moves, not the table as found. The server asks for the reading's table
first (``follow`` with ``table``: what the reader before had taken, folded in the agent's journal,
``camera_table``), folds it into its new reader without reading anything (``Camera.replay``), and
reads on from the batches not yet acknowledged. A batch the log already holds (the process before
committed it and died before its answer) is a duplicate too: each action read from a batch is
logged with the batch as its author (``camera.author.batch_author``), so the log says which batches
it has; such a batch is folded in unread as well. An agent that sends a batch before the table (an
older agent) is given a new reading instead, as before.

**Nothing lost, nothing doubled.** Each batch (one frame's events) carries the agent's id and its
place in the agent's sequence. The agent keeps each batch in its journal (on disk) until the
server acknowledges it, sends one at a time, and after a reconnection or a restart sends again
what was not acknowledged; the server drops a batch it has already taken (``"duplicate"``). The
server acknowledges a batch once the camera has handled it: every action read from it has been
through the engine and into the log. Numbers go up one by one, so the server refuses a batch
implausibly far ahead of the agent's last (:data:`MAX_SEQ_AHEAD`: a damaged journal's, say),
which would make every real batch after it look like one it has; and it takes a batch far
behind (:data:`RESENT_WITHIN`) as the first of a journal begun again, not as a repeat. An agent
that starts afresh (``camera_reading``) begins its numbering anew at the server.

One agent reads a table at a time: another agent is refused while one is connected; the same
agent connecting again (it restarted before the server noticed it had gone) replaces its old
connection. A table that reads a camera of its own (``serve --camera 0``) takes no agent.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import tableassist.i18n as i18n

from tableassist.camera.author import batch_author, batch_of
from tableassist.camera.live import Camera
from tableassist.games.messages import Message
from tableassist.markers.sighting import FailingSticker, event_from_json
from tableassist.server import messages
from tableassist.server.messages import Refused

if TYPE_CHECKING:
    from tableassist.server.app import TableServer
    from tableassist.table.session import TableSession

#: How the screens call a camera that is an agent's.
#: How far ahead of the agent's last batch taken its next may be. The agent numbers each batch
#: one more than the last and sends them in order, so a gap is only the batches it dropped unsent
#: (another game's, while it was away); a million is days of frames at READ_FPS, more than any
#: journal holds (it is rewritten whole at each batch).
MAX_SEQ_AHEAD = 1_000_000
#: How far behind the last batch taken a batch is one sent again. The agent sends its next batch
#: only once the last is answered, so a repeat is the last one or, reordered among the server's
#: threads, one of the few before it; a batch further behind is of a journal begun again.
RESENT_WITHIN = 1000


@dataclass
class AgentStats:
    """What the link did: batches taken, duplicates and stale batches dropped, pictures passed
    on to the host screen, readings begun, tables of a reading taken over replayed."""

    taken: int = 0
    duplicates: int = 0
    stale: int = 0
    frames: int = 0
    readings: int = 0
    tables: int = 0


class AgentLink:
    """The camera agent's side of one table's server (``server.agents``): the table follows its
    sessions through it (:meth:`follow`, which tells the camera first), and the server hands it
    the agent's connection and messages."""

    def __init__(self, server: TableServer, camera: Camera, *, own: str | None = None) -> None:
        self.server = server
        self.camera = camera
        #: The table's own camera, when it has one ("camera 0"): then no agent is taken.
        self.own = own
        self.stats = AgentStats()
        self._lock = threading.RLock()
        self._run = secrets.token_hex(4)     # this server run: readings of another never match
        self._readings = 0
        self.reading = self._next_reading()
        # an agent's batch taken, a table replayed or a reading begun afresh in this run: from
        # then on this run's reader has read, and no reading of another run is taken over
        self._used = False
        # a reading taken over waits for its table (camera_table) before its batches
        self._rebuilding = False
        self._logged: dict[str, int] = {}    # agent id -> its last batch of the reading logged
        self.game: str | None = None          # what the agent's tracker tracks (None: cards only)
        self.sid: str | None = None
        self.agent: str | None = None         # the connected agent's id
        self.where = ""                       # "pi-table4": where the agent runs
        self._taken: dict[str, int] = {}      # agent id -> the last batch taken
        self._status_at = -1.0

    def _next_reading(self) -> str:
        self._readings += 1
        self.stats.readings += 1
        return f"{self._run}.{self._readings}.{self._game_row()}"

    def _game_row(self) -> str:
        """The game the camera reads, as a reading names it: its row's id ("-": none)."""
        session = self.camera.session
        return "-" if session is None else str(session.saved.id)

    # -- the table's side ------------------------------------------------------------------------

    def follow(self, session: TableSession | None, colours: dict[str, str]) -> None:
        """The table plays ``session`` now: the camera reads it with a new reader, and the agent
        is told the new reading (a ``SessionFollower`` of the table)."""
        if session is self.camera.session:
            return
        # Not under the link's lock: following waits for the camera's worker, whose own job may
        # follow a game too (the New game card) and then tell this link.
        self.camera.follow(session, colours)
        with self._lock:
            self._begin()

    def _begin(self) -> None:
        """A new reading for the camera's reader as it is now; tell the agent."""
        self.reading = self._next_reading()
        self._rebuilding, self._logged = False, {}
        self.game = None if self.camera.reader is None or self.camera.session is None \
            else self.camera.session.saved.game
        if self.sid is not None:
            self.server.socketio.emit("follow", self._follow(), to=self.sid)

    def _follow(self) -> dict[str, Any]:
        return {"reading": self.reading, "game": self.game,
                "preview": self.server.host_watching(), "table": self._rebuilding}

    def _take_over(self, agent: str, reading: object) -> None:
        """Take over the agent's ``reading`` (see the module docstring) if this run's reader has
        read nothing yet and it is a reading of another run of the game the camera reads."""
        if not isinstance(reading, str) or reading == self.reading or self._used:
            return
        run, _, rest = reading.partition(".")
        _count, _, row = rest.partition(".")
        session = self.camera.session
        if run == self._run or self.game is None or session is None or \
                row != self._game_row():
            return
        logged = 0
        for entry in session.store.entries(session.saved.id):
            batch = batch_of(entry.author)
            if batch is not None and batch[:2] == (agent, reading):
                logged = max(logged, batch[2])
        self.reading, self._used, self._rebuilding = reading, True, True
        self._logged = {agent: logged}

    # -- the agent's connection ------------------------------------------------------------------

    def connected(self, sid: str, auth: dict[str, Any]) -> None:
        """Agent ``auth`` connects as ``sid``; :class:`Refused` (the table server refuses the
        connection in the agent's words) when it is no agent or the table takes none now."""
        agent, name = auth.get("agent"), auth.get("name")
        if not isinstance(agent, str) or not 1 <= len(agent) <= 64:
            raise Refused(Message("agent.refuse.not_for_screen", "a camera key is for the camera "
                                  "agent (tableassist camera), not for a screen"))
        if self.own is not None:
            raise Refused(Message("agent.refuse.own_camera", "this table reads a camera of its own "
                                  "({camera}); restart the server with --camera none to use a "
                                  "camera agent", camera=self.own))
        where = name[:40] if isinstance(name, str) else ""
        with self._lock:
            old = self.sid
            if old is not None and agent != self.agent:
                raise Refused(Message("agent.refuse.agent_there", "another camera agent "
                                      "({placed, select, yes {on {where}} other {elsewhere}}) "
                                      "reads this table; stop it first",
                                      placed="yes" if self.where else "no", where=self.where))
            self.sid, self.agent, self.where = sid, agent, where
            self._status_at = -1.0
            self._take_over(agent, auth.get("reading"))
            follow = self._follow()
        if old is not None and old != sid:   # the same agent, started again: its old line goes
            self.server.socketio.server.disconnect(old, namespace="/")
        self.server.socketio.emit("follow", follow, to=sid)
        self.camera.show_device(state="starting", notice=_agent_says(
            where, Message("agent.notice.connected", "connected")))

    def disconnected(self, sid: str) -> None:
        with self._lock:
            if sid != self.sid:
                return
            self.sid = None
            where = self.where
        since = time.strftime("%H:%M:%S")
        self.camera.show_device(state="lost", notice=_agent_says(where, Message(
            "agent.notice.not_connected", "not connected (since {since}); it reconnects by "
            "itself when it can", since=since)))

    def host_watching(self, watching: bool) -> None:
        with self._lock:
            sid = self.sid
        if sid is not None:
            self.server.socketio.emit("preview", {"on": watching}, to=sid)

    # -- what the agent sends ------------------------------------------------------------------------

    def _check(self, agent: str) -> None:
        if agent != self.agent:
            raise Refused(Message("agent.refuse.another_agent",
                                  "another camera agent reads this table"))

    def events(self, msg: messages.CameraEvents) -> dict[str, Any]:
        """One frame's events: fed to the camera once, in the agent's order (the agent sends the
        next batch only when this one is answered)."""
        answer: dict[str, Any] = {"seq": msg.seq, "taken": False}
        with self._lock:
            self._check(msg.agent)
            if msg.reading == self.reading and self._rebuilding:
                self._begin()   # no table came first (an older agent): read afresh instead
            if msg.reading != self.reading:
                self.stats.stale += 1
                return {**answer, "why": "stale"}   # another game's, or the server's last run's
            last = self._taken.get(msg.agent)
            if last is not None and last - RESENT_WITHIN <= msg.seq <= last:
                self.stats.duplicates += 1
                return {**answer, "why": "duplicate"}
            if last is not None and msg.seq > last + MAX_SEQ_AHEAD:
                raise Refused(Message(
                    "agent.refuse.far_ahead", "batch {seq} is implausibly far ahead of this "
                    "agent's last batch ({last}): an agent numbers its batches one by one, so it "
                    "was dropped", seq=msg.seq, last=last))
            events = _events(msg.events)
            self._used = True
            if msg.seq <= self._logged.get(msg.agent, 0):
                # taken and logged by the process before, which died before its answer: read
                # already, so folded in unread
                self.camera.replay(events, looked=True)
                self._taken[msg.agent] = msg.seq
                self.stats.duplicates += 1
                return {**answer, "why": "duplicate"}
            self.camera.feed(events, msg.t, author=batch_author(msg.agent, msg.reading, msg.seq))
            self._taken[msg.agent] = msg.seq
            self.stats.taken += 1
        return {**answer, "taken": True}

    def table(self, msg: messages.CameraTable) -> dict[str, Any]:
        """What the reader of a reading taken over had taken (see the module docstring)."""
        with self._lock:
            self._check(msg.agent)
            if msg.reading == self.reading and self._rebuilding:
                self._rebuilding = False
                self.camera.replay(_events(msg.events), looked=msg.upto > 0 and bool(msg.events))
                if msg.upto:
                    self._taken[msg.agent] = max(msg.upto, self._taken.get(msg.agent, 0))
                self.stats.tables += 1
            return {"reading": self.reading, "taken": msg.reading == self.reading}

    def status(self, msg: messages.CameraStatusReport) -> None:
        with self._lock:
            self._check(msg.agent)
            if msg.at < self._status_at:
                return   # overtaken by a newer report
            self._status_at = msg.at
            where = self.where
        # the agent's own words as a message where it sent one, so each screen reads its language
        said = i18n.from_json(msg.said) if msg.said is not None else None
        notice = _agent_says(where, said if isinstance(said, Message) and said == msg.notice
                             else msg.notice)
        reads = self.camera.reader is not None
        self.camera.show_device(
            state=msg.state, notice=notice, mode=msg.mode,
            size=None if msg.size is None else (msg.size[0], msg.size[1]), codec=msg.codec,
            fps=msg.fps, attempt=msg.attempt, retry_in=msg.retry_in,
            markers=msg.markers if reads else None,
            stickers=tuple(FailingSticker(**s.model_dump()) for s in msg.stickers) if reads
            else (), slow=None if msg.slow is None else (msg.slow[0], msg.slow[1]))

    def frame(self, msg: messages.CameraFrame) -> None:
        """The agent's preview picture: to the host screen, while one is connected."""
        if not self.server.host_watching():
            return
        if not msg.jpeg.startswith(b"\xff\xd8"):
            raise Refused(Message("agent.refuse.not_jpeg", "a preview picture is a JPEG"))
        self.stats.frames += 1
        self.server.socketio.emit("camera", {"jpeg": msg.jpeg, "markers": msg.markers,
                                             "size": list(msg.size)}, to="host")

    def fresh(self, msg: messages.CameraReading) -> dict[str, Any]:
        """The agent's tracker starts afresh: so does the reader (see the module docstring)."""
        with self._lock:
            self._check(msg.agent)
            self._used = True
            # Its batches of the reading before are stale from now on: its numbering starts anew.
            self._taken.pop(msg.agent, None)
            self.camera.read_afresh()
            self._begin()
            return self._follow()


def _events(data: list[dict[str, Any]]) -> list[Any]:
    """An agent's events as JSON, read (a malformed one refuses the whole batch)."""
    try:
        return [event_from_json(e) for e in data]
    except ValueError as exc:
        raise Refused(Message("agent.refuse.malformed_event",
                              "a camera event is malformed: {why}", why=str(exc))) from None


def _agent_says(where: str, said: Message | str) -> Message:
    """What the camera card says of the agent: "camera agent on pi-table4: connected"."""
    return Message("agent.notice.says",
                   "camera agent{placed, select, yes { on {where}} other {}}: {said}",
                   placed="yes" if where else "no", where=where, said=said)
