"""The Flask app and its Socket.IO events: one table, a room per viewer, a payload per room.

Clients connect with ``auth={"token": …}`` (the token from their link's ``#t=`` fragment). The token
decides the connection's :class:`~tableassist.server.tokens.Grant` and so its room: ``host``,
``table``, ``player:<name>`` or ``spectators``. After every change the server builds one payload per
occupied room from what that room may see (``Table.payload``) and sends it as a ``state`` event; a
new or reconnecting connection gets its room's payload at once, in full. Broadcasts carry the
history as a change (``history_delta``: keep the first ``from`` lines of state ``base``, append
``lines``) and leave out the parts that change only with the game (``unchanged``: ``game``,
``lobby``, ``links``; the screen keeps its own); a screen whose state is not ``base`` asks for a
``sync`` and gets everything.

Client events (each answers through its acknowledgement with ``{"ok": true, …}`` or
``{"ok": false, "error": "…"}``, and a refusal also sends an ``error`` event). Each event's data
is checked against its struct in :mod:`tableassist.server.messages` before its handler runs:

=================  =========================================================  ============
event              data                                                       who
=================  =========================================================  ============
``act``            ``{"action": {…}}``                                        may act as ``action.player``
``undo``/``redo``  ``{}``                                                     host, table
``correct``        ``{"seq": n, "action": {…} | null}`` (null strikes entry)   host, table
``alternatives``   ``{"seq": n}`` → ``{"actions": [{action, label}]}``        host, table
``start``          ``{"game", "players": [{"name", "colour"}], "options", "seed"}``  host, table
``resume``         ``{"row": n}``                                             host, table
``end``            ``{"row": n}`` (omit for the current game)                 host, table
``close``          ``{}`` (back to the lobby; the game stays saved)           host, table
``confirm``        ``{"action": {…}}``: tap one of the camera's proposals     host, table
``camera_check``   ``{"on": bool, "game": id | null}``: the live camera check  host
``record``         ``{"on": bool}``: record the camera (``serve --record``)     host
``keep_recording`` ``{"keep": bool}``: keep this game's recording after it     host
``language``       ``{"lang": "en" | "de" | "es"}``: this screen's language    any screen
``sync``           ``{}`` (send my payload again)                             any screen
``box`` …          the "Your box" screen's events (:mod:`tableassist.server.box`)  host, table
``camera_…``       what a camera agent sees (``server/agent.py``)             camera
=================  =========================================================  ============

Each screen speaks its own language: ``auth={"token": …, "lang": …}`` (a code, or the browser's
list of tags; English when the table speaks none of them) and the ``language`` event later. Every
message in what a screen is sent — view texts, history lines, prompts, button labels, refusals —
is written in it (:func:`tableassist.i18n.localize`): a room's payload is built once and written
once per language its screens speak (a room per grant and language, ``host@de``).

Server events besides ``state``: ``camera`` (the preview: ``{"jpeg", "markers", "size"}``) and
``camera_check`` (the check's report and its picture: ``{"report", "jpeg", "size"}``, its advice in
each screen's language: :meth:`TableServer.emit_to_host`), to the host screens only.

A table's Socket.IO server is its own: a venue runs one per table, each at the table's path
(``/t/<name>/socket.io/``; the home table also at ``/socket.io/``), so the rooms of two tables
are two servers' rooms and can never mix.
"""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from flask import Flask, Response, jsonify, request, send_from_directory
from flask.typing import ResponseReturnValue
from flask_socketio import ConnectionRefusedError, emit, join_room, leave_room
from werkzeug.serving import WSGIRequestHandler

import tableassist.i18n as i18n
from tableassist.games.messages import Message
from tableassist.games.protocol import names
from tableassist.i18n.registry_words import no_such_marker, unreadable_registry
from tableassist.i18n.sheets import sheet_words
from tableassist.markers.printing import PAPERS, NoSuchMarker, find_marker, render
from tableassist.markers.registry import RegistryError, load_registry, seat_colours
from tableassist.server import box as box_events
from tableassist.server import messages
from tableassist.server.messages import MAX_FRAME, MESSAGES, Refused
from tableassist.server.socket_events import (MAX_MESSAGE, Handler, checked, event_sid,
                                              new_socketio, reason)
from tableassist.server.pages import page_response
from tableassist.server.table import Table
from tableassist.server.tokens import CAMERA, HOST, PLAYER, SPECTATOR_GRANT, TABLE, Grant
from tableassist.shipped import folder
from tableassist.table import catalog
from tableassist.table.plays import csv_text, json_value
from tableassist.table.store import StoreError

log = logging.getLogger("tableassist.server")

WEBUI = folder("webui")


class QuietHandler(WSGIRequestHandler):
    """Werkzeug's handler without the request log (a table needs no access log, and nothing the
    server logs should ever hold a token), without the noise of a WebSocket's last bytes being
    read as a bad HTTP request once the socket closes, and without the version banner (Werkzeug's
    ``Server: Werkzeug/3.x Python/3.x`` tells a scanner on the network what to try)."""

    server_version = "tableassist"
    sys_version = ""
    # TCP_NODELAY on every connection: an action's answer goes out right behind the state it
    # caused, two small writes in a row, and with Nagle's algorithm the second waited for the
    # peer's delayed ACK of the first, 40 ms on Linux (an act's round trip 44 ms, 2.6 without)
    disable_nagle_algorithm = True

    def version_string(self) -> str:
        return self.server_version  # not "tableassist " with an empty sys_version after it

    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass

    def log_error(self, format: str, *args: Any) -> None:
        message = format % args if args else format
        if "Bad request" in message or "Bad HTTP" in message:
            return
        super().log_error(format, *args)


def bearer(header: str | None) -> str | None:
    """The key of an ``Authorization: Bearer KEY`` header (how the page asks for a file only the
    table's screens may have)."""
    scheme, _, key = (header or "").partition(" ")
    return (key.strip() or None) if scheme.lower() == "bearer" else None


def room_of(grant: Grant) -> str:
    if grant.role == PLAYER:
        return f"player:{grant.player}"
    return {HOST: "host", TABLE: "table", CAMERA: "camera"}.get(grant.role, "spectators")


#: The headers of every answer (a page, a file, a table's "closed" page).
HEADERS = {
    # The page must work without the internet; this also makes any stray CDN link fail loudly
    # in development instead of silently at a table without a network.
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
        "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; "
        # No other site may show the table in a frame (and trick a tap onto its buttons).
        "frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def secure(response: Any) -> Any:
    """A Flask ``after_request`` hook: :data:`HEADERS` on the answer."""
    response.headers.update(HEADERS)
    return response


class CameraAgents(Protocol):
    """The side of a table's server that speaks with its camera agent (``server/agent.py``'s
    :class:`~tableassist.server.agent.AgentLink`): the server checks each message's shape and
    that it comes from the camera's key, then hands it here."""

    def connected(self, sid: str, auth: dict[str, Any]) -> None:
        """A connection with the table's camera key: accept it (raise
        ``ConnectionRefusedError`` with the reason to refuse it)."""

    def disconnected(self, sid: str) -> None: ...

    def host_watching(self, watching: bool) -> None:
        """A host screen came or went: the agent sends the preview only while one is there."""

    def events(self, msg: messages.CameraEvents) -> dict[str, Any]: ...

    def status(self, msg: messages.CameraStatusReport) -> None: ...

    def frame(self, msg: messages.CameraFrame) -> None: ...

    def fresh(self, msg: messages.CameraReading) -> dict[str, Any]: ...

    def table(self, msg: messages.CameraTable) -> dict[str, Any]: ...


class RecordingSwitch(Protocol):
    """The host's choices about the camera's recording (``camera.recording.Recorder``)."""

    def turn(self, on: bool) -> None: ...

    def keep(self, keep: bool) -> None:
        """Raises ``ValueError`` (why not) when the game has no recording to keep."""


def page_words(lang: str) -> ResponseReturnValue:
    """``/i18n/<lang>.json``: a page's own words in a language (webui/i18n.js), from the shipped
    catalogues; the tablet page and the venue page ask for it beside themselves."""
    if lang not in i18n.LANGUAGES:
        return {"error": i18n.render(no_language(lang), screen_language(lang))}, 404
    return {"lang": lang, "names": i18n.NAMES, "messages": i18n.page_catalogue(lang)}


def no_language(lang: str) -> Message:
    """A language asked for (``?lang=``, ``/i18n/<lang>.json``) that the table does not speak."""
    return Message("app.no_language", "the table speaks {languages}, not {lang}",
                   languages=names([i18n.NAMES[code] for code in i18n.LANGUAGES]),
                   lang=repr(lang[:16]))


def speech_room(grant: Grant, lang: str) -> str:
    """The room of ``grant``'s screens that speak ``lang`` (each screen is in both rooms)."""
    return f"{room_of(grant)}@{lang}"


#: How long a table that closes waits for a connection still being made (its connect handler is
#: quick) before it tells it and lets it go (s).
LET_GO_WAIT = 2.0

#: The play log's files (``/plays.csv``, ``/plays.json``) refused to a key that is not the table's.
PLAY_LOG_TABLE_ONLY = Message("app.play_log_table_only", "only the table's own screens may read "
                              "the play log; ask the host for the table link")


def screen_language(wanted: Any) -> str:
    """The language a connecting screen asks for: a code or the browser's list of tags."""
    return i18n.best_language(wanted if isinstance(wanted, list) else [wanted])


class TableServer:
    """The Socket.IO side of a :class:`Table`: connections, their grants, rooms and events."""

    def __init__(self, table: Table, *, public_url: str | None = None) -> None:
        self.table = table
        self.public_url = public_url
        self.app = Flask(__name__, static_folder=None)
        self.app.config["SEND_FILE_MAX_AGE_DEFAULT"] = 0
        self.socketio = new_socketio(self.app)
        #: The table's camera agents' side (set by the composition; None: no agent may connect).
        self.agents: CameraAgents | None = None
        self._lock = threading.RLock()
        self._conns: dict[str, tuple[Any, Grant, str]] = {}  # sid -> (token, grant, language)
        self._closed: Message | str | None = None    # let_go's words: the table closed
        self._granted_row: int | None = table.game_row
        self._links: dict[int | None, dict[str, Any]] = {}
        #: The live camera check's switch (``server.camera.CameraCheck.want``), when a camera is
        #: composed with the table.
        self.camera_check: Callable[[bool, str | None], None] | None = None
        #: The table's camera recording (``camera.recording.Recorder``), when the server was
        #: started with ``--record`` and has a camera of its own.
        self.recording: RecordingSwitch | None = None
        table.on_change = self.broadcast
        self._routes()
        self._events()

    # -- HTTP ------------------------------------------------------------------------------

    def _routes(self) -> None:
        app = self.app

        @app.get("/")
        def index() -> Response:
            return page_response(WEBUI, "index.html")

        @app.get("/sticker/<game>/<int:marker_id>.pdf")
        def sticker(game: str, marker_id: int) -> Response:
            # one sticker to reprint, at its printed size: the link of a camera notice about a
            # sticker it cannot read (``FailingSticker``); the sheets are no secret
            # in the screen's language (``?lang=``, the link the page puts on the notice)
            paper = request.args.get("paper", "a4")
            lang = request.args.get("lang", i18n.DEFAULT)
            lang = lang if lang in i18n.LANGUAGES else i18n.DEFAULT
            if paper not in PAPERS:
                return Response(i18n.render(Message(
                    "app.sticker.no_paper", "no such paper {paper}: choose one of {papers}",
                    paper=repr(paper), papers=tuple(PAPERS)), lang) + "\n", 404,
                    mimetype="text/plain")
            try:
                registry = load_registry()
                words = sheet_words(lang)
                marker = find_marker(registry, marker_id, game)
                pdf = io.BytesIO()
                render(registry, game, paper, pdf, marker=marker, words=words)
            except NoSuchMarker as exc:
                return Response(i18n.render(no_such_marker(exc), lang) + "\n", 404,
                                mimetype="text/plain")
            except RegistryError as exc:   # the marker files are broken: the server's fault
                return Response(i18n.render(unreadable_registry(exc), lang) + "\n", 500,
                                mimetype="text/plain")
            return Response(pdf.getvalue(), mimetype="application/pdf", headers={
                "Content-Disposition": f'inline; filename="sticker-{game}-{marker_id}-{paper}.pdf"'})
        @app.get("/rules/<game_id>.json")
        def rules(game_id: str) -> ResponseReturnValue:
            # Public text shipped with the package: the page fetches it once per game and
            # language, offline. What each rule says comes in the screen's language (?lang=), the
            # rulebook's words in the rulebook's own (named, so the page can say so).
            # refused in that language, or the nearest the table speaks ("de-AT": German)
            lang = request.args.get("lang", i18n.DEFAULT)
            if lang not in i18n.LANGUAGES:
                return {"error": i18n.render(no_language(lang), screen_language(lang))}, 404
            if game_id not in catalog.ENGINES:
                return {"error": i18n.render(Message("app.no_such_game", "no such game: {game}",
                                                     game=repr(game_id[:40])), lang)}, 404
            book = catalog.rulebook(game_id)
            return jsonify({"rulebook": {"language": book["language"], "name": book["name"]},
                            "rules": i18n.rule_texts(catalog.rule_texts(game_id), lang)})

        app.get("/i18n/<lang>.json")(page_words)

        @app.get("/plays.csv", defaults={"kind": "csv"})
        @app.get("/plays.json", defaults={"kind": "json"})
        def play_log(kind: str) -> Response:
            # The play log names every game saved at this table, of every group that played at
            # it (a café's table too): the table's own screens only, as the lobby's saved games
            # are. The page sends its key in a header: a key never goes in a URL.
            # a refusal in the screen's language (``?lang=``): the page shows it as it comes
            lang = screen_language(request.args.get("lang", i18n.DEFAULT))
            if not self._grant_for(bearer(request.headers.get("Authorization"))).runs_table:
                return Response(i18n.render(PLAY_LOG_TABLE_ONLY, lang) + "\n", 403,
                                mimetype="text/plain")
            player = request.args.get("player") or None
            try:
                plays = self.table.play_log(game=request.args.get("game") or None, player=player)
            except StoreError as exc:
                unreadable = Message("app.play_log_unreadable", "the play log cannot be read: "
                                     "{why}", why=reason(exc))
                return Response(i18n.render(unreadable, lang) + "\n", 503,
                                mimetype="text/plain")
            # a play's note (a damaged row, a game this installation lacks) in ``lang``
            plays = [replace(p, note=i18n.render(p.note, lang)) if p.note else p for p in plays]
            body, mimetype = (csv_text(plays), "text/csv") if kind == "csv" else \
                (json.dumps(json_value(plays, player), ensure_ascii=False), "application/json")
            return Response(body, mimetype=mimetype, headers={
                "Cache-Control": "no-store", "Content-Disposition":
                    f'attachment; filename="plays-{self.table.store.table}.{kind}"'})

        @app.get("/<path:name>")
        def webui(name: str) -> Response:
            return send_from_directory(WEBUI, name)

        app.after_request(secure)

    # -- connections and rooms -------------------------------------------------------------

    def _grant_for(self, token: Any) -> Grant:
        return self.table.tokens.grant(token, self.table.game_row)

    def _events(self) -> None:
        sio = self.socketio

        def connect(auth: Any = None) -> None:
            token = auth.get("token") if isinstance(auth, dict) else None
            lang = screen_language(auth.get("lang") if isinstance(auth, dict) else None)
            grant = self._grant_for(token)
            if grant.role == CAMERA or (isinstance(auth, dict) and "agent" in auth):
                self._camera_connects(grant, auth, lang)
                return
            with self._lock:
                self._refuse_if_closed(lang)
                watched = self._host_watching()
                self._conns[event_sid()] = (token, grant, lang)
            join_room(room_of(grant))
            join_room(speech_room(grant, lang))
            if grant.role == HOST and not watched:
                self._tell_agents_host_watching(True)
            if token and grant is SPECTATOR_GRANT:
                emit("error", {"event": "connect", "message": i18n.render(Message(
                    "app.notice.old_link", "this link's key is not valid at this table (an old "
                    "game's link?); you are watching read-only"), lang)})
            try:
                emit("state", i18n.localize(self._payload(grant), lang))
            except Exception:  # noqa: BLE001 - say so on the screen rather than hang it
                log.exception("cannot build the state for a new connection")
                emit("error", {"event": "connect", "message": i18n.render(Message(
                    "app.notice.cannot_show", "the server cannot show this game (an internal "
                    "error; see its console)"), lang)})

        def disconnect(*_args: Any) -> None:
            sid = event_sid()
            with self._lock:
                watched = self._host_watching()
                _token, grant, _lang = self._conns.pop(sid, (None, SPECTATOR_GRANT, i18n.DEFAULT))
                still = self._host_watching()
            if grant.role == CAMERA and self.agents is not None:
                self.agents.disconnected(sid)
            if watched and not still:
                self._tell_agents_host_watching(False)

        sio.on_event("connect", connect)
        sio.on_event("disconnect", disconnect)
        self.on("sync", self._sync, table_only=False)
        self.on("act", self._act, table_only=False)
        self.on("undo", lambda grant, _msg: self._undo_redo(grant, "undo"))
        self.on("redo", lambda grant, _msg: self._undo_redo(grant, "redo"))
        self.on("correct", self._correct)
        self.on("alternatives", self._alternatives)
        self.on("start", self._start)
        self.on("resume", self._resume)
        self.on("end", self._end)
        self.on("close", self._close)
        self.on("play_again", self._play_again)
        self.on("confirm", self._confirm)
        self.on("camera_check", self._camera_check)
        self.on("record", self._record)
        self.on("keep_recording", self._keep_recording)
        self.on("language", self._language, table_only=False)
        #: The camera's help on the "Your box" screens (server/box.py), whose events these are.
        self.box_camera = box_events.register(self)
        # the camera agent's events (server/agent.py)
        self.on("camera_events", lambda _g, msg: self._agent_link().events(msg), camera=True)
        self.on("camera_status", lambda _g, msg: self._agent_link().status(msg), camera=True)
        self.on("camera_frame", lambda _g, msg: self._agent_link().frame(msg), camera=True)
        self.on("camera_reading", lambda _g, msg: self._agent_link().fresh(msg), camera=True)
        self.on("camera_table", lambda _g, msg: self._agent_link().table(msg), camera=True)

    def on(self, name: str, fn: Handler, *,
            table_only: bool = True, camera: bool = False, max_size: int = MAX_MESSAGE) -> None:
        """Register ``fn(grant, message)`` for event ``name`` with the checks every event shares
        (:func:`checked`): a screen's events (``table_only``: the host's and the table's only;
        messages up to ``max_size`` bytes), or with ``camera`` the camera agent's (pictures up to
        ``MAX_FRAME``)."""
        def grant() -> Grant:
            with self._lock:
                return self._conns.get(event_sid(), (None, SPECTATOR_GRANT, i18n.DEFAULT))[1]

        def lang() -> str:
            return self._language_of(event_sid())

        def refusal() -> str | None:
            role = grant().role
            if camera:
                return None if role == CAMERA else Message(
                    "app.refuse.camera_only", "only the table's camera agent sends that")
            if role == CAMERA:
                return Message("app.refuse.not_for_camera",
                               "a camera agent sends what its camera sees, nothing else")
            if table_only and role not in (HOST, TABLE):
                return Message("app.refuse.table_only", "only the table's own screens may do "
                               "that; ask the host for the table link")
            return None

        self.socketio.on_event(name, checked(
            name, MESSAGES, lambda msg: fn(grant(), msg), refusal=refusal, lang=lang,
            max_size=MAX_FRAME + MAX_MESSAGE if camera else max_size, binary=camera))

    def _agent_link(self) -> CameraAgents:
        if self.agents is None:
            raise Refused(Message("app.refuse.no_agents", "this table takes no camera agent"))
        return self.agents

    def _camera_connects(self, grant: Grant, auth: Any, lang: str) -> None:
        """A camera agent connects: with the camera key, to a table that takes agents. Refused
        in the agent's language (``tableassist camera --lang``: its ``auth``'s ``lang``), which
        its connection keeps for what the table tells it after."""
        try:
            if grant.role != CAMERA:
                raise Refused(Message("app.refuse.not_camera_key", "this key is not this table's "
                                      "camera key (the table's host screen and the venue page "
                                      "give it)"))
            # a connection before the agents know it: a table closed (let_go) the moment the
            # agent is taken tells it too, not a connection it has not listed yet
            with self._lock:
                self._refuse_if_closed(lang)
                self._conns[event_sid()] = (auth.get("token"), grant, lang)
            self._agent_link().connected(event_sid(), auth)
        except Refused as exc:
            with self._lock:
                self._conns.pop(event_sid(), None)
            raise ConnectionRefusedError(i18n.render(exc.args[0], lang)) from None
        join_room(room_of(grant))

    def _host_watching(self) -> bool:
        return any(grant.role == HOST for _token, grant, _lang in self._conns.values())

    def connected(self, sid: str) -> bool:
        """Is the Socket.IO session ``sid`` still connected?"""
        with self._lock:
            return sid in self._conns

    def host_watching(self) -> bool:
        """Is a host screen connected (the only one that gets the camera preview)?"""
        with self._lock:
            return self._host_watching()

    def emit_to_host(self, event: str, payload: dict[str, Any]) -> None:
        """Send ``event`` to the host screens, its messages written in each one's language
        (:func:`tableassist.i18n.localize`; the camera check's report)."""
        with self._lock:
            rooms = {lang: speech_room(grant, lang) for _token, grant, lang in self._conns.values()
                     if grant.role == HOST}
        for lang, room in sorted(rooms.items()):
            self.socketio.emit(event, i18n.localize(payload, lang), to=room)

    def _tell_agents_host_watching(self, watching: bool) -> None:
        if self.agents is not None:
            self.agents.host_watching(watching)

    def screens(self) -> dict[str, int]:
        """How many screens of each role are connected (the venue page shows it)."""
        out: dict[str, int] = {}
        with self._lock:
            for _token, grant, _lang in self._conns.values():
                if grant.role != CAMERA:
                    out[grant.role] = out.get(grant.role, 0) + 1
        return out

    def let_go(self, message: Message | str) -> None:
        """Tell every connection ``message`` (as an ``error`` event, in its language) and
        disconnect it: the table closes."""
        with self._lock:
            self._closed = message   # a connection from now on is refused in these words
            conns = {sid: conn[2] for sid, conn in self._conns.items()}
        manager = self.socketio.server.manager
        for sid, lang in conns.items():
            # one still in its connect handler (the agents have just taken it) cannot be
            # disconnected yet (python-socketio ignores it): it is, a moment later
            deadline = time.monotonic() + LET_GO_WAIT
            while manager.is_pre_connected(sid, "/") and time.monotonic() < deadline:
                time.sleep(0.01)
            self.socketio.emit("error", {"event": "closed",
                                         "message": i18n.render(message, lang)}, to=sid)
            self.socketio.server.disconnect(sid, namespace="/")

    def _refuse_if_closed(self, lang: str) -> None:
        """A connection to a table that closed: its ``closed`` notice (an agent then stops, as
        it does when the table closes under it), and refused (called under ``_lock``)."""
        if self._closed is not None:
            said = i18n.render(self._closed, lang)
            emit("error", {"event": "closed", "message": said})
            raise ConnectionRefusedError(said)

    def move_away(self) -> None:
        """Drop every connection as a process that died would (no ``closed`` notice, no close
        packet): each screen and camera agent reconnects by itself, through the venue's proxy, to
        the process that serves the table next (``served.py``: a venue of several processes)."""
        for socket in list(self.socketio.server.eio.sockets.values()):
            socket.close(wait=False, abort=True)

    def _payload(self, grant: Grant) -> dict[str, Any]:
        links = self._host_links() if grant.role == HOST else None
        with self.table.settled():
            return self.table.payload(grant, links=links)

    def broadcast(self) -> None:
        """Send each occupied room its payload (called after every change of the table)."""
        with self._lock:
            if self.table.game_row != self._granted_row:
                self._regrant()
            rooms: dict[str, tuple[Grant, set[str]]] = {}
            for _token, grant, lang in self._conns.values():
                if grant.role != CAMERA:  # a camera agent gets no view of the game
                    rooms.setdefault(room_of(grant), (grant, set()))[1].add(lang)
            shared: dict[Any, Any] = {}  # what the rooms have in common, built once
            built = []
            # Every room's payload read from the stored game (a reading of the camera applied
            # but not yet stored waits), then written and sent outside the session's lock.
            with self.table.settled():
                update = self.table.history_update()
                for grant, langs in rooms.values():
                    links = self._host_links() if grant.role == HOST else None
                    built.append((grant, langs, self.table.payload(
                        grant, links=links, history_update=update, shared=shared)))
            # Each language's texts, written once per broadcast: what rooms share is written
            # once, however many rooms and screens speak the language.
            memos: dict[str, dict[int, Any]] = {}
            for grant, langs, payload in built:
                for lang in sorted(langs):
                    self.socketio.emit("state", i18n.localize(
                        payload, lang, memos.setdefault(lang, {})), to=speech_room(grant, lang))

    def _regrant(self) -> None:
        """A different game is on: player links of the old one become spectator links."""
        self._granted_row = self.table.game_row
        server = self.socketio.server
        for sid, (token, old, lang) in list(self._conns.items()):
            new = self._grant_for(token)
            if new != old:
                for before, after in ((room_of(old), room_of(new)),
                                      (speech_room(old, lang), speech_room(new, lang))):
                    server.leave_room(sid, before, namespace="/")
                    server.enter_room(sid, after, namespace="/")
                self._conns[sid] = (token, new, lang)

    # -- the host's links ------------------------------------------------------------------

    def _host_links(self) -> dict[str, Any] | None:
        if not self.public_url:
            return None
        row = self.table.game_row
        cached = self._links.get(row)
        if cached is None:
            tokens = self.table.tokens
            base = self.public_url.rstrip("/") + "/"

            def link(token: str) -> dict[str, str]:
                return {"url": f"{base}#t={token}"}   # the page draws its QR code (webui/qr.js)

            cached = {"join": link(tokens.table), "players": {}}
            if self.table.session is not None:
                saved = self.table.session.saved
                for name, token in tokens.players(saved.id, saved.players).items():
                    cached["players"][name] = link(token)
            self._links = {row: cached}
        return cached

    # -- events ----------------------------------------------------------------------------

    def _sync(self, grant: Grant, _msg: messages.Sync) -> None:
        emit("state", i18n.localize(self._payload(grant), self._language_of(event_sid())))

    def language_of(self, sid: str) -> str:
        """The language connection ``sid`` reads (English once it is gone)."""
        return self._language_of(sid)

    def _language_of(self, sid: str) -> str:
        with self._lock:
            return self._conns.get(sid, (None, SPECTATOR_GRANT, i18n.DEFAULT))[2]

    def _language(self, grant: Grant, msg: messages.Language) -> dict[str, Any]:
        if msg.lang not in i18n.LANGUAGES:
            raise Refused(Message("app.refuse.language", "the table speaks {languages}, not "
                                  "{lang}", languages=tuple(i18n.NAMES.values()),
                                  lang=repr(msg.lang[:16])))
        sid = event_sid()
        with self._lock:
            token, grant, old = self._conns[sid]
            self._conns[sid] = (token, grant, msg.lang)
            leave_room(speech_room(grant, old))
            join_room(speech_room(grant, msg.lang))
        emit("state", i18n.localize(self._payload(grant), msg.lang))
        return {"lang": msg.lang}

    def _act(self, grant: Grant, msg: messages.Act) -> dict[str, Any]:
        actor = msg.actor
        if not grant.may_act_as(actor):
            raise Refused(Message(
                "app.refuse.not_yours", "this link may not act for {who, select, table {the "
                "table} other {{name}}}; {link, select, player {it acts for {player} only} other "
                "{it is read-only (scan the table's QR code to join)}}",
                who="table" if actor is None else "player", name=repr(actor),
                link="player" if grant.role == PLAYER else "read_only",
                player=grant.player or ""))
        notes = self.table.current().submit(msg.action, source="tablet", author=self._author(grant))
        return {"notes": [n.to_json() for n in notes]}

    def _confirm(self, grant: Grant, msg: messages.Confirm) -> None:
        self.table.confirm_camera(msg.action, self._author(grant))

    def _camera_check(self, grant: Grant, msg: messages.CameraCheck) -> None:
        if grant.role != HOST:
            raise Refused(Message("app.refuse.check_host_only", "only the host screen checks the camera"))
        if msg.game is not None and msg.game not in catalog.ENGINES:
            raise Refused(Message("app.refuse.check_no_game",
                                  "there is no game {game} to check the camera for",
                                  game=repr(msg.game[:40])))
        status = self.table.camera_status
        if self.camera_check is None or (msg.on and status.state == "off"):
            raise Refused(Message("app.refuse.check_no_camera", "no camera to check: {notice}",
                                  notice=status.notice))
        self.camera_check(msg.on, msg.game)

    def _recorder(self, grant: Grant) -> RecordingSwitch:
        if grant.role != HOST:
            raise Refused(Message("app.refuse.record_host_only",
                                  "only the host screen records the camera"))
        if self.recording is None:
            raise Refused(Message("app.refuse.record_off", "this table does not record its camera "
                                  "(start the server with --record, on the computer the camera "
                                  "is plugged into)"))
        return self.recording

    def _record(self, grant: Grant, msg: messages.Record) -> None:
        self._recorder(grant).turn(msg.on)

    def _keep_recording(self, grant: Grant, msg: messages.KeepRecording) -> None:
        try:
            self._recorder(grant).keep(msg.keep)
        except ValueError as exc:
            raise Refused(reason(exc)) from None

    @staticmethod
    def _author(grant: Grant) -> str:
        return grant.player or grant.role  # a player's grant always names the player

    def _undo_redo(self, grant: Grant, which: str) -> dict[str, Any]:
        session = self.table.current()
        step = getattr(session, which)(source="tablet", author=self._author(grant))
        return {"seq": step.seq}

    def _correct(self, grant: Grant, msg: messages.Correct) -> None:
        self.table.current().correct(msg.seq, msg.action, source="tablet",
                                     author=self._author(grant))

    def _alternatives(self, grant: Grant, msg: messages.Alternatives) -> dict[str, Any]:
        return {"actions": self.table.alternatives(msg.seq)}

    def _start(self, grant: Grant, msg: messages.Start) -> dict[str, Any]:
        # The engine's own check (stripped, none empty, none alike but for capitals) first, so
        # the names the colours are kept under are the names the game will have.
        names = list(catalog.engine_class(msg.game).player_names([s.name for s in msg.players]))
        colours = {n: s.colour for n, s in zip(names, msg.players) if s.colour}
        allowed = seat_colours(msg.game)
        for name, colour in colours.items():
            if colour not in allowed:
                raise Refused(Message("app.refuse.seat_colour", "{name} cannot be {colour}: this "
                                      "game's cards come in {colours}", name=name,
                                      colour=colour[:20], colours=tuple(allowed)))
        taken = list(colours.values())
        if len(set(taken)) != len(taken):
            raise Refused(Message("app.refuse.same_colour", "two seats have the same colour: each "
                                  "player needs their own"))
        session = self.table.start(msg.game, names, options=msg.options or {}, seed=msg.seed,
                                   colours=colours)
        return {"row": session.saved.id}

    def _resume(self, grant: Grant, msg: messages.Resume) -> dict[str, Any]:
        self.table.resume(msg.row)
        return {"row": msg.row}

    def _end(self, grant: Grant, msg: messages.End) -> None:
        self.table.end(msg.row)

    def _close(self, grant: Grant, _msg: messages.Close) -> None:
        self.table.close_game()

    def _play_again(self, grant: Grant, _msg: messages.PlayAgain) -> dict[str, Any]:
        return {"row": self.table.play_again().saved.id}


def create_app(table: Table, *, public_url: str | None = None) -> TableServer:
    """The table's server: ``.app`` (Flask, to serve) and ``.socketio``."""
    return TableServer(table, public_url=public_url)
