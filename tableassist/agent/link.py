"""The camera agent's link to its table's server: one Socket.IO client, authenticated with the
table's camera key, that sends the journal's batches one at a time and follows the server's
reading.

The server names each reading (``follow``) and asks for the preview while a host screen is
there (``preview``); the link keeps both for the agent's camera (:meth:`Link.tracking`,
:attr:`Link.preview`). A new tracker asks for a reading of its own (``camera_reading``) once the
journal holds nothing more of the server's. Each batch is sent (``camera_events``) once the one
before is answered, and again after a reconnection, or when no answer came within
:data:`ACK_TIMEOUT` on a live connection; the server drops one it already took.

The link names the journal's reading when it connects; a server that takes that reading over
(another process after a takeover, the server started again) asks for its table first
(``follow`` with ``table``), and the link sends it (``camera_table``) before the batches.
"""

from __future__ import annotations

import platform
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import engineio
import socketio

from tableassist.agent.journal import Journal
from tableassist.games.messages import Message

#: A batch not acknowledged within this long (s) on a live connection is sent again.
ACK_TIMEOUT = 10.0


class InOrderEngineIO(engineio.Client):  # type: ignore[misc]  # untyped library
    """python-engineio's client, each message handled by the thread that read it, in the order
    it came. The library hands every message to a new thread, and two such threads run in either
    order: a binary message's attachment could be taken before its header (the client then fails
    on the JPEG's first byte and drops the connection), a later ``preview`` off before an
    earlier on. The handlers here are short and never wait for the server."""

    def _trigger_event(self, event: str, *args: Any, **kwargs: Any) -> Any:
        if event == "message":
            kwargs["run_async"] = False
        return super()._trigger_event(event, *args, **kwargs)


class InOrderClient(socketio.Client):  # type: ignore[misc]  # untyped library
    """python-socketio's client on :class:`InOrderEngineIO`: events handled in order."""

    def _engineio_client_class(self) -> type[engineio.Client]:
        return InOrderEngineIO


def where(server: str, table: str | None) -> tuple[str, str]:
    """The server's base URL and the table: ``--server`` may be a table's own address
    (``http://h:8765/t/table-4/``), which names the table; else ``table``, else ``main``.
    Anything but an http(s) address raises ``ValueError``."""
    refused = Message("link.not_an_address", "--server {server} is not an address such as "
                      "http://192.168.1.20:8765", server=repr(server))
    try:
        parts = urlsplit(server if "://" in server else f"http://{server}")
        parts.port   # read here: a port out of range or not a number raises ValueError
    except ValueError:
        raise ValueError(refused) from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(refused)
    path = parts.path.strip("/").split("/")
    named = path[1] if len(path) >= 2 and path[0] == "t" else None
    return f"{parts.scheme}://{parts.netloc}", table or named or "main"


def disconnect(sio: Any) -> None:
    """Disconnect a python-socketio client at once. websocket-client waits 3 s for a close echo
    that its own reading thread has already consumed (the server has closed by then), so a
    stopped agent would hang 3 s for nothing."""
    ws = getattr(sio.eio, "ws", None)
    if ws is not None:
        close = ws.close
        ws.close = lambda *a, **k: close(timeout=0.05)
    sio.disconnect()


def not_connected(exc: BaseException) -> Message:
    """Why the Socket.IO client could not connect, in words: its own text (English, the
    library's) only as the detail of one it does not explain."""
    said = str(exc)
    if said == "Connection error":    # nothing answered: no server there, or not reachable
        return Message("link.why.unreachable", "no answer: the server is not running there, or "
                       "this computer cannot reach it")
    return Message("link.why.library", "the connection failed; the Socket.IO client says: {said}",
                   said=said)


class Link:
    """The agent's connection to table ``table`` at ``server`` (a base URL, :func:`where`).

    :meth:`connect` connects, waiting for the server as long as it takes; :meth:`start_sending`
    starts the sender thread; the Socket.IO client's threads take the server's messages.
    :attr:`status` is what the server is shown of the camera (``camera_status``), sent at each
    change (:meth:`show`) and at each new reading. The link stops (:attr:`stopped`) when the
    staff close the table (:attr:`exit_code` 1) or when told to (:meth:`stop`)."""

    def __init__(self, server: str, table: str, key: str, journal: Journal, *,
                 status: dict[str, Any], say: Callable[[Message | str], None],
                 lang: str = "en") -> None:
        self.server, self.table, self.key = server, table, key
        self.lang = lang      # the server words its refusals and notices to this agent in it
        self.journal = journal
        self.status = status
        self.say = say
        self.sio = InOrderClient(reconnection=True, reconnection_attempts=0,
                                   reconnection_delay=0.5, reconnection_delay_max=3)
        self.stopped = threading.Event()
        self.exit_code = 0
        #: Batches answered by the server.
        self.sent = 0
        #: The server asks for the preview picture (a host screen of the table is connected).
        self.preview = False
        self.reading: str | None = None      # the reading the agent's tracker tracks for
        self.game: str | None = None
        # guards the reading, the journal and what is in flight, across the client's threads,
        # the sender and the camera's
        self._cond = threading.Condition()
        self._fresh = True                    # a new tracker: ask the server for a new reading
        self._synced = False                  # the server's follow arrived on this connection
        # the reading a server takes over, whose table it wants before the batches
        self._table_wanted: str | None = None
        self._in_flight: int | None = None    # the batch sent and not yet answered
        self._sent_at = 0.0
        self._refused: str | None = None
        self._closed: str | None = None
        for event, handler in (("connect", self._on_connect),
                               ("connect_error", self._on_connect_error),
                               ("disconnect", self._on_disconnect), ("error", self._on_error),
                               ("follow", self._on_follow), ("preview", self._on_preview)):
            self.sio.on(event, handler)

    @property
    def connected(self) -> bool:
        return bool(self.sio.connected)

    @property
    def refused(self) -> str | None:
        """Why the server refused this agent (a wrong key, another agent there), in its words."""
        return self._refused

    # -- the connection ------------------------------------------------------------------------

    def _auth(self) -> dict[str, str]:
        auth = {"token": self.key, "agent": self.journal.agent, "name": platform.node(),
                "lang": self.lang}
        with self._cond:
            # the reading the journal's batches and table are of, for a server to take over
            reading = self.journal.reading if self._fresh or self.reading is None \
                else self.reading
        if reading is not None:
            auth["reading"] = reading
        return auth

    def connect(self, *, first: bool = False) -> bool:
        """Connect (again), waiting for the server as long as it takes; False when stopped, or
        refused at the ``first`` connection (a wrong key: trying again would not help)."""
        waiting = False
        while not self.stopped.is_set():
            try:
                # asked at each connection, so a reconnection names the reading of then
                self.sio.connect(self.server, auth=self._auth, transports=["websocket"],
                                 socketio_path=f"t/{self.table}/socket.io", wait_timeout=5)
                return True
            except socketio.exceptions.ConnectionError as exc:
                if self._refused and first:
                    return False
                if not waiting:
                    self.say(Message("link.waiting", "waiting for the server at {server} ({why}) …",
                                     server=self.server, why=self._refused or not_connected(exc)))
                    waiting = True
                self.stopped.wait(2.0)
        return False

    def _on_connect(self) -> None:
        self.say(Message("link.connected", "connected to table {table} at {server}",
                         table=repr(self.table), server=self.server))

    def _on_connect_error(self, data: object) -> None:
        if self._closed:   # the table closed as this agent connected: told already
            return
        # the server's refusal comes as {"message"}; a line that cannot be had as a text
        message = data.get("message") if isinstance(data, dict) else None
        if isinstance(message, str) and message and message != self._refused:
            self._refused = message
            self.say(Message("link.refused", "the server refused this camera agent: {why}",
                             why=message))

    def _on_disconnect(self, reason: object = None) -> None:
        with self._cond:
            self._synced = False
            self._table_wanted = None
            self._in_flight = None
            self._cond.notify_all()
        if self._closed:
            return   # told and stopped when the notice came (_on_error)
        if reason == self.sio.reason.SERVER_DISCONNECT:
            # the server let go of this connection (another of this agent's replaced it):
            # connect again, as after a dropped line
            threading.Thread(target=self.connect, daemon=True).start()
        elif not self.stopped.is_set():
            self.say(Message("link.dropped", "the connection to the server dropped; reconnecting …"))

    def _on_error(self, data: object) -> None:
        if isinstance(data, dict) and data.get("event") == "closed":
            if self._closed:
                return
            self._closed = Message("link.closed", "the table was closed: {why}",
                                   why=str(data.get('message')))
            # the end, here: the server's disconnect that follows can be dropped by the client
            # (python-socketio ignores one that comes before its connect() has returned)
            self.say(self._closed)
            self.exit_code = 1
            self.stop()
            threading.Thread(target=disconnect, args=(self.sio,), daemon=True).start()
        elif isinstance(data, dict):
            self.say(Message("link.server_says", "the server says: {said}",
                             said=str(data.get('message'))))

    def _on_preview(self, data: object) -> None:
        with self._cond:
            self.preview = bool(isinstance(data, dict) and data.get("on"))

    def _on_follow(self, data: object) -> None:
        """The server's reading: go on with it, or start tracking afresh for a new one."""
        if not isinstance(data, dict) or not isinstance(data.get("reading"), str):
            return
        with self._cond:
            reading, game = data["reading"], data.get("game")
            self.preview = bool(data.get("preview"))
            if self.reading is None or self._fresh:
                # a new tracker: send what the journal holds of this reading first (the server
                # still reads it), then ask for a reading of its own
                self.journal.keep_only(reading)
                self._fresh = True
            elif reading != self.reading:
                self.journal.keep_only(reading)      # nothing of another reading is wanted
                self.reading, self.game = reading, game if isinstance(game, str) else None
            # a server taking this reading over rebuilds its reader from the table first
            self._table_wanted = reading if data.get("table") and \
                self.journal.reading in (reading, None) else None
            self._synced = True
            self._cond.notify_all()
        self._send_status()

    def stop(self) -> None:
        self.stopped.set()
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        """Stop and let go of the connection."""
        self.stop()
        try:
            disconnect(self.sio)
        except Exception:  # noqa: BLE001 - closing anyway
            pass

    # -- the reading ---------------------------------------------------------------------------

    def tracking(self) -> tuple[str, str | None] | None:
        """The reading the agent's tracker tracks for and its game (None: command cards only),
        or None while the server has not said which."""
        with self._cond:
            if self.reading is None or self._fresh:
                return None
            return self.reading, self.game

    def wait_for_reading(self, timeout: float | None) -> None:
        """Until the server says what to read (or the link stops, or ``timeout`` s pass; None:
        as long as it takes)."""
        with self._cond:
            self._cond.wait_for(lambda: self.stopped.is_set() or
                                (self.reading is not None and not self._fresh), timeout)

    def add(self, reading: str, t: float, events: list[dict[str, Any]]) -> None:
        """One frame's events, tracked for ``reading``, into the journal to be sent; dropped
        when the server has begun another reading meanwhile."""
        with self._cond:
            if reading == self.reading:
                self.journal.add(reading, t, events)
                self._cond.notify_all()

    # -- sending -------------------------------------------------------------------------------

    def start_sending(self) -> None:
        threading.Thread(target=self._sender, name="sender", daemon=True).start()

    def _sender(self) -> None:
        """One batch at a time, in the journal's order, each sent again until answered."""
        while not self.stopped.is_set():
            with self._cond:
                while not self.stopped.is_set():
                    if self._synced and self._in_flight is None and \
                            (self.journal.batches or self._fresh or self._table_wanted):
                        break
                    if self._in_flight is not None and \
                            time.monotonic() - self._sent_at > ACK_TIMEOUT:
                        self._in_flight = None   # unanswered on a live line: send it again
                        continue
                    self._cond.wait(0.5)
                if self.stopped.is_set():
                    return
                table = self._table(self._table_wanted) if self._table_wanted else None
                batch = self.journal.batches[0] if self.journal.batches and table is None \
                    else None
                if batch is not None:
                    self._in_flight, self._sent_at = batch["seq"], time.monotonic()
            try:
                if table is not None:
                    answer = self.sio.call("camera_table", table, timeout=ACK_TIMEOUT)
                    if isinstance(answer, dict) and not answer.get("ok", False):
                        self.say(Message("link.table_refused", "the server refused the table: {why}",
                                         why=str(answer.get('error'))))
                    with self._cond:   # answered: the server reads on (or began another reading)
                        if self._table_wanted == table["reading"]:
                            self._table_wanted = None
                elif batch is not None:
                    self.sio.emit("camera_events", batch,
                                  callback=lambda answer, seq=batch["seq"]: self._answered(seq,
                                                                                           answer))
                else:
                    answer = self.sio.call("camera_reading", {"agent": self.journal.agent},
                                           timeout=ACK_TIMEOUT)
                    self._began(answer)
            except Exception as exc:  # noqa: BLE001 - a dropped line: sent again after reconnecting
                with self._cond:
                    # sent again in a moment: a dropped line clears _synced itself
                    # (_on_disconnect); the server's follow may also come before the connection's
                    # own acknowledgement, so a send right after it can find no namespace yet
                    self._in_flight = None
                if not self.stopped.is_set():
                    self.stopped.wait(0.2)
                    if batch is None and table is None:
                        self.say(Message("link.no_reading", "could not ask for a new reading ({why}); "
                                         "trying again", why=type(exc).__name__))

    def _table(self, reading: str) -> dict[str, Any]:
        """What the server's reader of ``reading`` took, from the journal (``camera_table``)."""
        table = self.journal.table
        table = table if table is not None and table["reading"] == reading else None
        return {"agent": self.journal.agent, "reading": reading,
                "upto": table["upto"] if table is not None else 0,
                "events": table["events"] if table is not None else []}

    def _answered(self, seq: int, answer: object) -> None:
        with self._cond:
            if isinstance(answer, dict) and not answer.get("ok", False):
                self.say(Message("link.batch_refused", "the server refused batch {seq}: {why}",
                                 seq=str(seq), why=str(answer.get('error'))))
            taken = isinstance(answer, dict) and (answer.get("taken") is True
                                                  or answer.get("why") == "duplicate")
            # taken, a duplicate, stale or refused: not sent again
            self.journal.done(seq, taken=taken)
            self.sent += 1
            if self._in_flight == seq:
                self._in_flight = None
            self._cond.notify_all()

    def _began(self, answer: object) -> None:
        if not (isinstance(answer, dict) and answer.get("ok") and
                isinstance(answer.get("reading"), str)):
            raise RuntimeError(f"no reading ({answer!r})")
        game = answer.get("game")
        with self._cond:
            self.reading = answer["reading"]
            self.journal.keep_only(self.reading)   # the table of the reading before goes
            self.game = game if isinstance(game, str) else None
            self.preview = bool(answer.get("preview"))
            self._fresh = False
            self._cond.notify_all()
        self.say(Message("link.reading", "reading table {table}: {what}", table=repr(self.table),
                         what=Message("link.reading_game", "a game of {game}", game=self.game)
                         if self.game else Message("link.reading_no_game",
                                                   "no game (command cards only)")))

    # -- what the server is shown --------------------------------------------------------------

    def show(self, **fields: Any) -> None:
        """The camera's state changed (some of :attr:`status`'s fields): tell the server."""
        self.status.update(fields)
        self._send_status()

    def _send_status(self) -> None:
        if not self.connected:
            return
        try:
            notice = self.status.get("notice")
            # the notice's message too (frames.py's are messages): each screen its language
            said = notice.to_json() if isinstance(notice, Message) else None
            self.sio.emit("camera_status", {"agent": self.journal.agent,
                                            "at": time.monotonic(), **self.status,
                                            "said": said})
        except Exception:  # noqa: BLE001 - sent again at the next change or connection
            pass

    def send_picture(self, picture: dict[str, Any]) -> None:
        """The preview picture (``camera_frame``), while connected; one missed is no loss."""
        if not self.connected:
            return
        try:
            self.sio.emit("camera_frame", picture)
        except Exception:  # noqa: BLE001 - a picture missed is no loss
            pass
