"""The venue's side of the server: which table answers a path, and the staff's venue page.

One HTTP server runs every table of the venue (``server/served.py`` puts them together). Each
table has its own Flask app and its own Socket.IO server, reached at its own path:

=========================  ==========================================================
path                       answered by
=========================  ==========================================================
``/t/<name>/…``            table ``name``: its page, and its Socket.IO at
                           ``/t/<name>/socket.io/`` (the page asks for it there)
``/venue/…``               the venue page for the staff, and its Socket.IO at
                           ``/venue/socket.io/``
``/_tableassist/route``     a venue of several processes: the proxy's question, which
                           process serves ``X-Original-URI`` (``server/proxy.py``)
everything else            the home table ``main``, as before venues: its page at ``/``,
                           its Socket.IO at ``/socket.io/``, so every old link still works
=========================  ==========================================================

A table's rooms are its own server's: no event of one table can reach a screen of another,
whatever the room is called. A path per table is also what a proxy needs to send each table to
the process that runs it (several processes per venue).

The venue page's Socket.IO takes the staff's key (printed at start, like the host link; kept in
the venue's file) and the screen's language (``auth.lang``, as a table's screens say it). It
sends the staff the list of tables (``tables``) when they connect and whenever a table changes
(at most twice a second), its prompts and camera notices in each staff screen's language, and
takes the staff's events, each checked against its struct in
:data:`~tableassist.server.messages.VENUE_MESSAGES`:

=================  ===========================================  ==============================
event              data                                         answer
=================  ===========================================  ==============================
``create_table``   ``{"title", "name"?}``                       ``{"name"}``
``rename_table``   ``{"name", "title"}``
``close_table``    ``{"name"}``: its screens and camera are let go; its log and keys stay
``reopen_table``   ``{"name"}``
``table_links``    ``{"name"}``                                 ``{"host", "join", "camera",
                                                                "card": {title, url, qr}}``
=================  ===========================================  ==============================
"""

from __future__ import annotations

import hmac
import html
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from flask import Flask, Response, send_from_directory
from flask_socketio import ConnectionRefusedError, emit, join_room

import tableassist.i18n as i18n
from tableassist.games.messages import Message
from tableassist.server import messages
from tableassist.server.app import HEADERS, WEBUI, page_words, screen_language, secure
from tableassist.server.messages import VENUE_MESSAGES
from tableassist.server.pages import page_response
from tableassist.server.socket_events import checked, event_sid, new_socketio
from tableassist.table.venue import NAME, TableEntry

#: The staff's page is updated at most this often (s) however busy the tables are.
PUSH_EVERY = 0.5
#: A venue of several processes: the path the proxy asks which process serves a request, and the
#: header of the answer (``served.ServedVenue.route``; docs/venue.md "Run a tournament").
ROUTE = "/_tableassist/route"
OWNER_HEADER = "X-Tableassist-Owner"

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class VenueOps(Protocol):
    """What the venue page asks of the venue being served (``served.ServedVenue``)."""

    def rows(self) -> list[dict[str, Any]]:
        """Every table as the venue page lists it."""
        ...

    def create_table(self, title: str, name: str | None = None) -> TableEntry: ...

    def rename_table(self, name: str, title: str) -> TableEntry: ...

    def close_table(self, name: str) -> TableEntry: ...

    def reopen_table(self, name: str) -> TableEntry: ...

    def links(self, name: str) -> dict[str, Any]:
        """Table ``name``'s host link, join link, camera agent command and join card."""
        ...


class VenueServer:
    """The venue page: ``.app`` (Flask: ``webui/venue/``) and ``.socketio``."""

    def __init__(self, ops: VenueOps, staff: str) -> None:
        self.ops = ops
        self._staff = staff
        self.app = Flask(__name__, static_folder=None)
        self.app.config["SEND_FILE_MAX_AGE_DEFAULT"] = 0
        self.app.after_request(secure)
        self.socketio = new_socketio(self.app)
        self._lock = threading.Lock()
        self._sids: dict[str, str] = {}   # each staff screen's language
        self._pending = False
        self._last = -1e9
        self.pushes = 0
        self._routes()
        self._events()

    def _routes(self) -> None:
        @self.app.get("/")
        def index() -> Response:
            return page_response(WEBUI, "venue/index.html")

        self.app.get("/i18n/<lang>.json")(page_words)

        @self.app.get("/<path:name>")
        def files(name: str) -> Response:
            return send_from_directory(WEBUI / "venue", name)

    def _events(self) -> None:
        sio = self.socketio

        def connect(auth: Any = None) -> None:
            token = auth.get("token") if isinstance(auth, dict) else None
            lang = screen_language(auth.get("lang") if isinstance(auth, dict) else None)
            if not (isinstance(token, str) and 0 < len(token) <= 200
                    and hmac.compare_digest(token.encode(), self._staff.encode())):
                raise ConnectionRefusedError(i18n.render(Message(
                    "venue.refuse.not_staff_key", "this link's key is not the venue's staff key "
                    "(the server prints the venue page's link at start)"), lang))
            with self._lock:
                self._sids[event_sid()] = lang
            join_room(f"staff@{lang}")
            emit("tables", i18n.localize(self.ops.rows(), lang))

        def disconnect(*_args: Any) -> None:
            with self._lock:
                self._sids.pop(event_sid(), None)

        sio.on_event("connect", connect)
        sio.on_event("disconnect", disconnect)

        def on(name: str, fn: Callable[[Any], dict[str, Any] | None]) -> None:
            def refusal() -> Message | None:
                with self._lock:
                    staff = event_sid() in self._sids
                return None if staff else Message("venue.refuse.staff_only",
                                                  "only the venue's staff may do that")

            def lang() -> str:
                with self._lock:
                    return self._sids.get(event_sid(), i18n.DEFAULT)

            def then_push(msg: Any) -> dict[str, Any] | None:
                answer = fn(msg)
                self.changed()
                return answer

            sio.on_event(name, checked(name, VENUE_MESSAGES, then_push, refusal=refusal,
                                         lang=lang))

        on("create_table", self._create)
        on("rename_table", lambda m: self._name(self.ops.rename_table(m.name, m.title)))
        on("close_table", lambda m: self._name(self.ops.close_table(m.name)))
        on("reopen_table", lambda m: self._name(self.ops.reopen_table(m.name)))
        on("table_links", lambda m: self.ops.links(m.name))

    def _create(self, msg: messages.CreateTable) -> dict[str, Any]:
        return self._name(self.ops.create_table(msg.title, msg.name))

    @staticmethod
    def _name(entry: TableEntry) -> dict[str, Any]:
        return {"name": entry.name, "title": entry.title}

    # -- the list, kept up to date ---------------------------------------------------------------

    def changed(self) -> None:
        """Something a table row shows changed: the staff's screens get the list again, at most
        every :data:`PUSH_EVERY` seconds (a busy venue changes many times a second), and only
        while a staff screen is connected (nobody looking: nothing is built)."""
        with self._lock:
            if self._pending or not self._sids:
                return
            self._pending = True
            wait = max(0.0, self._last + PUSH_EVERY - time.monotonic())
        timer = threading.Timer(wait, self._push)
        timer.daemon = True
        timer.start()

    def _push(self) -> None:
        with self._lock:
            self._pending = False
            self._last = time.monotonic()
            languages = set(self._sids.values())
        self.pushes += 1
        rows = self.ops.rows()
        for lang in languages:   # each staff screen in its language
            self.socketio.emit("tables", i18n.localize(rows, lang), to=f"staff@{lang}")


# -- which app answers a path --------------------------------------------------------------------

#: The heading of the page of a path that names no table.
NO_TABLE = Message("venue.page.no_table", "No such table")


def page(status: str, title: Message | str, text: Message | str) -> WSGIApp:
    """A small page in words (a table that is closed, or not there), with the usual headers, in
    the language the browser asks for first (``Accept-Language``) of those the table speaks."""
    def answer(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        lang = page_language(environ.get("HTTP_ACCEPT_LANGUAGE", ""))
        body = (f"<!doctype html><html lang={lang}><meta charset=utf-8><meta name=viewport "
                "content='width=device-width, initial-scale=1'><title>tableassist</title>"
                "<link rel=stylesheet href=/style.css><body><main><h1>"
                f"{html.escape(i18n.render(title, lang))}</h1><p class=big>"
                f"{html.escape(i18n.render(text, lang))}</p></main></body></html>").encode()
        start_response(status, [("Content-Type", "text/html; charset=utf-8"),
                                ("Content-Length", str(len(body))),
                                ("Content-Language", lang), ("Vary", "Accept-Language"),
                                *HEADERS.items()])
        return [body]

    return answer


def page_language(accept: str) -> str:
    """The language of an HTTP request's ``Accept-Language`` (``"de-AT,de;q=0.9,en;q=0.5"``):
    its tags by their weight, the first the table speaks (English when none is)."""
    tags = []
    for i, part in enumerate(str(accept).split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        if tag and weight > 0:
            tags.append((-weight, i, tag))
    return i18n.best_language([tag for _, _, tag in sorted(tags)])


def redirect(location: str) -> WSGIApp:
    def answer(_environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response("302 Found", [("Location", location), ("Content-Length", "0"),
                                     *HEADERS.items()])
        return []

    return answer


class Paths:
    """The venue's WSGI app: each request to the app of its path (see the module docstring).
    ``table(name)`` is table ``name``'s app, or a page saying why there is none."""

    def __init__(self, home: WSGIApp, venue: WSGIApp, table: Callable[[str], WSGIApp], *,
                 route: Callable[[str], str | None] | None = None) -> None:
        self.home, self.venue, self.table = home, venue, table
        self.route = route

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]
                 ) -> Iterable[bytes]:
        path = environ.get("PATH_INFO") or "/"
        if path == ROUTE and self.route is not None:
            return self._route(environ, start_response)
        if path == "/venue":
            return redirect(self._root(environ) + "/venue/")(environ, start_response)
        if path.startswith("/venue/"):
            return self.venue(self._shift(environ, "/venue", path[len("/venue"):]),
                              start_response)
        if path.startswith("/t/"):
            name, slash, rest = path[3:].partition("/")
            if not NAME.fullmatch(name):
                return page("404 Not Found", NO_TABLE, Message(
                    "venue.page.no_table_at_address", "There is no table at this address."))(
                        environ, start_response)
            if not slash:
                return redirect(f"{self._root(environ)}/t/{name}/")(environ, start_response)
            return self.table(name)(self._shift(environ, f"/t/{name}", "/" + rest),
                                    start_response)
        return self.home(environ, start_response)

    def _route(self, environ: dict[str, Any], start_response: Callable[..., Any]
               ) -> list[bytes]:
        """The proxy's question (nginx's ``auth_request``): which process serves the request
        named in ``X-Original-URI``? The answer is ``204`` with ``X-Tableassist-Owner:
        host:port`` (docs/venue.md "Run a tournament")."""
        assert self.route is not None
        uri = str(environ.get("HTTP_X_ORIGINAL_URI") or "/")
        owner = self.route(uri)
        headers = [("Content-Length", "0"), ("Cache-Control", "no-store")]
        if owner:
            headers.append((OWNER_HEADER, owner))
        start_response("204 No Content" if owner else "503 Service Unavailable", headers)
        return []

    @staticmethod
    def _root(environ: dict[str, Any]) -> str:
        return str(environ.get("SCRIPT_NAME", "")).rstrip("/")

    @staticmethod
    def _shift(environ: dict[str, Any], prefix: str, rest: str) -> dict[str, Any]:
        shifted = dict(environ)
        shifted["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "").rstrip("/") + prefix
        shifted["PATH_INFO"] = rest
        return shifted
