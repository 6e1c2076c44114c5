"""How the server takes a client's Socket.IO events: every Socket.IO server set up alike (a
table's and the venue page's), the session of the event being handled, the checks every event
shares, a refusal in the screen's words, and one short line for a message that cannot even be
read.

A table's server (:mod:`tableassist.server.app`), its box screen (:mod:`tableassist.server.box`)
and the venue page (:mod:`tableassist.server.venue`) register their events through
:func:`checked`; none of them needs another's internals for it.
"""

from __future__ import annotations

import heapq
import json
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import engineio.packet
import engineio.socket
import simple_websocket
import socketio.packet
from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI
from flask import Flask, request
from flask_socketio import SocketIO, emit
from wsproto.utilities import LocalProtocolError

import tableassist.i18n as i18n
from tableassist.games.messages import Message
from tableassist.games.protocol import IllegalAction, SetupError
from tableassist.server import messages
from tableassist.server.messages import Refused, parse
from tableassist.server.tokens import Grant
from tableassist.table.store import StoreError
from tableassist.table.venue import VenueError

log = logging.getLogger("tableassist.server")

#: Largest client message the handlers accept (an action is a few hundred bytes).
MAX_MESSAGE = 16 * 1024
#: Largest message the transport reads at all; bigger ones close the connection. Kept well above
#: MAX_MESSAGE so an oversized message normally gets a polite error event instead.
MAX_TRANSPORT = 1024 * 1024
#: A client's unreadable messages are told at most once in this many seconds, with how many
#: were dropped since: each would otherwise print a traceback of 1.7 KB for 130 bytes sent.
UNREADABLE_EVERY = 60.0

#: An event's handler, as a table's server registers it: the connection's grant and the
#: event's checked message (its struct in :mod:`tableassist.server.messages`) → the answer.
Handler = Callable[[Grant, Any], dict[str, Any] | None]


def event_sid() -> str:
    """The Socket.IO session of the event being handled (Flask-SocketIO sets ``request.sid``)."""
    found = getattr(request, "sid", None)
    if not isinstance(found, str):
        raise RuntimeError("there is no Socket.IO session outside a Socket.IO event")
    return found


def new_socketio(app: Flask) -> SocketIO:
    """The Socket.IO server of one Flask app (a table's, or the venue page's), set up alike:
    threading mode (see docs/server.md, "One process, many tables"), each WebSocket read by the
    thread that waits for its messages (:class:`InlineWebSocket`)."""
    for name in ("engineio.server", "werkzeug"):
        logging.getLogger(name).addFilter(UNREADABLE)   # once: addFilter keeps one of each
    # async_handlers=False: an event is handled in the thread that read it (the connection's
    # own), not in a new thread per event; serializer: each emit's JSON written once
    sio = SocketIO(app, async_mode="threading", logger=False, engineio_logger=False,
                   max_http_buffer_size=MAX_TRANSPORT, cors_allowed_origins=None,
                   ping_interval=10, ping_timeout=10, async_handlers=False,
                   serializer=JsonOncePacket, client_manager=WholeMessages())
    eio = sio.server.eio
    # Engine.IO's threading driver, with its WebSocket class replaced (the driver is a table of
    # its parts; this server's own copy of it)
    eio._async = {**eio._async, "websocket": InlineWebSocketWSGI}
    start = eio.start_background_task

    def start_background_task(target: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if getattr(target, "__func__", None) is engineio.socket.Socket._send_ping:
            return PINGER.schedule(getattr(target, "__self__"))   # its next ping
        return start(target, *args, **kwargs)

    eio.start_background_task = start_background_task
    return sio


class WholeMessages(socketio.Manager):  # type: ignore[misc]  # untyped library
    """python-socketio's rooms, each message queued to a client whole.

    A message with binary data is several Engine.IO packets: a header, then one per attachment
    (a camera preview's JPEG). The library queues them to a client one by one with no lock, so
    a broadcast from another thread (the table's worker while the camera's thread sends a
    preview) could slip its packet between a header and its attachment, and the page read the
    state's JSON as the JPEG (its client raised "Invalid ... 0xFF"). Here one lock is held while
    a message is encoded and its packets are queued to all its clients: no I/O (each
    connection's writer thread sends them)."""

    def __init__(self) -> None:
        super().__init__()
        self._queueing = threading.RLock()

    def set_server(self, server: Any) -> None:
        super().set_server(server)

        # the library's _send_packet (acks, connects, emits with a callback), with the lock
        def whole(eio_sid: str, pkt: Any) -> None:
            encoded = pkt.encode()
            with self._queueing:
                for part in encoded if isinstance(encoded, list) else [encoded]:
                    server.eio.send(eio_sid, part)

        server._send_packet = whole

    def emit(self, *args: Any, **kwargs: Any) -> None:
        # the library's emit, its packets queued to every client under the lock (a table's own:
        # only its preview and its broadcasts wait for each other, for the time of one encoding)
        with self._queueing:
            super().emit(*args, **kwargs)


class JsonOncePacket(socketio.packet.Packet):  # type: ignore[misc]  # untyped library
    """python-socketio's packet, its data written as JSON once, when it is made.

    python-socketio looks for binary data by walking the whole of every emitted message in Python
    (``Packet.data_is_binary``, not stopping at the first find), then writes its JSON: for a
    table's state, a few hundred values per screen per broadcast, a third of a broadcast's
    time under the profiler. Here the JSON encoder (C) walks it once: what it cannot write
    (bytes: a camera preview's JPEG) makes it a binary packet as before, and otherwise the JSON it
    wrote is the packet's."""

    def __init__(self, packet_type: int = socketio.packet.EVENT, data: Any = None,
                 namespace: str | None = None, id: int | None = None,
                 binary: bool | None = None, encoded_packet: Any = None) -> None:
        self._json: str | None = None
        if binary is None and encoded_packet is None and data is not None:
            try:
                self._json = self.json.dumps(data, separators=(",", ":"), default=_binary)
                binary = False
            except _Binary:
                binary = True
        super().__init__(packet_type, data, namespace, id, binary, encoded_packet)

    def encode(self) -> Any:
        if self._json is None or self.packet_type in (socketio.packet.BINARY_EVENT,
                                                      socketio.packet.BINARY_ACK):
            return super().encode()
        encoded = str(self.packet_type)
        if self.namespace is not None and self.namespace != "/":
            encoded += self.namespace + ","
        if self.id is not None:
            encoded += str(self.id)
        return encoded + self._json


class _Binary(Exception):
    """A message holds binary data (raised from within the JSON encoder)."""


def _binary(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        raise _Binary
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class Pinger:
    """Engine.IO's pings of every connection of the process, sent by one thread.

    python-engineio starts a thread per connection and ping cycle that sleeps ``ping_interval``
    and queues one PING (``Socket._send_ping``): an OS thread per screen, asleep, and one
    started per screen every 10 s. :func:`new_socketio` hands those pings to this one thread,
    which queues each connection's PING when its time comes, as that thread would have (the
    connection's writer sends it; its PONG schedules the next)."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, Any]] = []
        self._cv = threading.Condition()
        self._thread: threading.Thread | None = None
        self._count = 0

    def schedule(self, socket: Any) -> None:
        due = time.monotonic() + socket.server.ping_interval
        with self._cv:
            self._count += 1
            heapq.heappush(self._due, (due, self._count, socket))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="engineio pings",
                                                daemon=True)
                self._thread.start()
            self._cv.notify()

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._due or self._due[0][0] > time.monotonic():
                    self._cv.wait(None if not self._due else self._due[0][0] - time.monotonic())
                _due, _n, socket = heapq.heappop(self._due)
            if not socket.closing and not socket.closed:
                socket.last_ping = time.time()
                try:
                    socket.send(engineio.packet.Packet(engineio.packet.PING))
                except Exception:  # noqa: BLE001 - a closed connection's ping is nobody's error
                    log.debug("a ping could not be queued", exc_info=True)


#: The process's one ping thread, for every table's Socket.IO server.
PINGER = Pinger()


class _NotStarted:
    """simple-websocket's reader thread, never started: :class:`InlineWebSocket` reads in the
    thread that asks for a message."""

    name = "simple_websocket.Base._thread (inline)"

    def __init__(self, target: Callable[[], None]) -> None:
        self.target = target

    def start(self) -> None:
        pass


class InlineWebSocket(simple_websocket.Server):  # type: ignore[misc]  # untyped library
    """simple-websocket's WebSocket server, read by the thread that waits for a message.

    In threading mode a WebSocket has Werkzeug's request thread, which runs Engine.IO's receive
    loop and does nothing but wait for the next message, and simple-websocket's reader thread,
    which reads the socket and hands each message over. Here the request thread reads the
    socket itself: one OS thread fewer per screen (four to three), and one hand-over fewer per
    message. Sending is as before (Engine.IO's writer thread)."""

    connected: bool

    def __init__(self, environ: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(environ, thread_class=_NotStarted, **kwargs)

    def receive(self, timeout: float | None = None) -> Any:
        while self.connected and not self.input_buffer:
            try:
                data = self.sock.recv(self.receive_bytes)
                if not data:
                    raise OSError("the client closed the connection")
                self.ws.receive_data(data)
                self.connected = self._handle_events()
            except (OSError, LocalProtocolError):
                self.connected = False
        if self.input_buffer:
            return self.input_buffer.pop(0)
        self.sock.close()   # what the reader thread did once the connection ended
        raise simple_websocket.ConnectionClosed(self.close_reason, self.close_message)


class InlineWebSocketWSGI(SimpleWebSocketWSGI):  # type: ignore[misc]  # untyped library
    """Engine.IO's WebSocket for threading mode (``engineio.async_drivers._websocket_wsgi``),
    on an :class:`InlineWebSocket`."""

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        self.ws = InlineWebSocket(environ, **self.server_args)
        ret = self.app(self)
        if self.ws.mode == "gunicorn":
            raise StopIteration()
        if self.ws.mode == "werkzeug":
            raise ConnectionError()   # Werkzeug writes no response of its own after it
        return ret


def reason(exc: BaseException) -> Message | str:
    """Why ``exc`` was raised, as a message where it carries one (the engine's, the table's), to
    be a parameter of a refusal of our own; else its English text (a file's, the system's)."""
    text = exc.args[0] if exc.args else str(exc)
    return text if isinstance(text, Message) else str(exc)


def words(exc: BaseException, lang: str) -> str:
    """A refusal's sentence in ``lang``."""
    return i18n.render(reason(exc), lang)


def checked(name: str, structs: dict[str, type[messages.Message]],
            fn: Callable[[Any], dict[str, Any] | None], *,
            refusal: Callable[[], str | Message | None] = lambda: None,
            lang: Callable[[], str] = lambda: i18n.DEFAULT,
            max_size: int = MAX_MESSAGE, binary: bool = False) -> Callable[..., dict[str, Any]]:
    """The Socket.IO handler of event ``name`` with the checks every event shares: one message,
    its size (``max_size``; binary data only with ``binary``, where the struct takes bytes), the
    connection's permission (``refusal()``: None, or why not), the message's shape (its struct in
    ``structs``, which ``fn`` receives), and errors turned into an ``error`` event with a human
    message (never a traceback, never a state change). The answer's and the refusal's messages
    are written in the connection's language (``lang()``)."""
    if name not in structs:
        raise KeyError(f"event {name!r} has no struct in tableassist.server.messages")

    def handler(data: Any = None, *extra: Any) -> dict[str, Any]:
        try:
            if extra:
                raise Refused(Message("socket_events.refuse.one_message",
                                      "{event} takes one message, not {count}",
                                      event=repr(name), count=1 + len(extra)))
            if data is None:
                data = {}
            if binary and isinstance(data, dict):  # a picture: bytes are counted
                size = sum(len(v) if isinstance(v, bytes) else len(json.dumps(v))
                           for v in data.values())
            else:
                try:
                    size = len(json.dumps(data))
                except (TypeError, ValueError):  # bytes sent as a binary attachment
                    raise Refused(Message("socket_events.refuse.binary", "a message holds JSON "
                                          "values only, not binary data")) from None
            if size > max_size:
                raise Refused(Message("socket_events.refuse.too_large",
                                      "that message is too large (over {kb} KB)",
                                      kb=max_size // 1024))
            why = refusal()
            if why:
                raise Refused(why)
            answer = fn(parse(name, data, structs)) or {}
            return {"ok": True, **i18n.localize(answer, lang())}
        except (Refused, IllegalAction, SetupError, StoreError, VenueError) as exc:
            message = words(exc, lang())
        except Exception:  # noqa: BLE001 - a bug must not take the table down
            # Only the kind of error is logged: the message could hold a secret action field.
            log.exception("internal error in %r", name)
            message = i18n.render(Message("socket_events.refuse.internal", "the server could not do "
                                          "that (an internal error; see its console)"), lang())
        emit("error", {"event": name, "message": message})
        return {"ok": False, "error": message}

    return handler


# -- a message that cannot be read ----------------------------------------------------------------

#: The transport's modules: an error raised in these alone came from reading a client's message.
_TRANSPORT = ("engineio", "socketio", "simple_websocket", "json")
#: Where the transport reads a client's messages (Engine.IO's handler thread, its WebSocket loop).
_READERS = ("engineio.server", "engineio.socket")


def unreadable(exc: BaseException | None) -> bool:
    """Did ``exc`` come from reading a client's message (Engine.IO's or Socket.IO's decoding, the
    JSON decoder: an integer of over 100 digits, an ack id of over 100, JSON cut short, an event
    without a name), before any handler of the server's ran? A bug in a handler is not one."""
    if exc is None:
        return False
    # this module's packet class decodes as python-socketio's does (in its frames)
    modules = ["socketio.packet" if frame.f_code is JsonOncePacket.__init__.__code__
               else frame.f_globals.get("__name__", "") for frame, _line in
               traceback.walk_tb(exc.__traceback__)]
    for module in reversed(modules):   # from where it was raised, outwards
        if module in _READERS:
            return True
        if module.partition(".")[0] not in _TRANSPORT:
            return False
    return False


class UnreadableMessages(logging.Filter):
    """The filter of the transport's loggers (Engine.IO's and Werkzeug's): a client's message
    that cannot be read is told in one line, at most once every ``every`` seconds (with how many
    were dropped since), instead of a traceback each time — any client, even a spectator without
    a key, could otherwise fill the console. Every other record passes as it is."""

    def __init__(self, every: float = UNREADABLE_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every, self.clock = every, clock
        self._lock = threading.Lock()
        self._told_at: float | None = None
        self._dropped = 0   # unreadable messages not told since the last line

    @property
    def dropped(self) -> int:
        """How many unreadable messages were dropped untold since the last line."""
        with self._lock:
            return self._dropped

    def filter(self, record: logging.LogRecord) -> bool:
        exc = self._exception(record)
        if not unreadable(exc):
            return True
        with self._lock:
            now = self.clock()
            if self._told_at is not None and now - self._told_at < self.every:
                self._dropped += 1
                return False
            dropped, self._dropped, self._told_at = self._dropped, 0, now
        what = f"{type(exc).__name__}: {exc}"
        record.msg = "a client sent a message the server cannot read (%s); it was dropped%s"
        record.args = (what[:120], f", as were {dropped} more since the last such line"
                       if dropped else "")
        record.exc_info, record.exc_text = None, None
        return True

    @staticmethod
    def _exception(record: logging.LogRecord) -> BaseException | None:
        if record.exc_info:
            return record.exc_info[1]
        if record.name == "werkzeug" and str(record.msg).startswith("Error on request"):
            # Werkzeug writes the traceback into the message itself, from within the except
            # block that caught it: the exception being handled is the one it tells.
            return sys.exc_info()[1]
        return None


#: The one filter of the process: its loggers are the process's, whichever server logs.
UNREADABLE = UnreadableMessages()
