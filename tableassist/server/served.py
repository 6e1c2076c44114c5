"""One composition for a served venue and each of its tables: stores, tables, Socket.IO servers,
cameras, the venue page and the HTTP server.

``tableassist serve`` and ``tableassist demo`` are the same venue: :func:`serve_venue` builds it
for both. A home setup is a venue of one table, ``main``, served at ``/`` as before venues; a café
adds tables on the venue page, each at ``/t/<name>/`` (``server/venue.py``). The demo differs only
in what the main table's camera looks at (the synthetic table playing a script, with a scripted
person at the tablet) and in which game is on (the script's).

The pieces of a table are wired here and nowhere else (:func:`compose_table`):

* the table follows its sessions; the server subscribes to the table (``on_change``) and
  broadcasts every change; the venue page hears of it too (its list of tables);
* the camera follows the table through the camera agent's link (``Table.follow`` →
  ``AgentLink.follow`` → ``Camera.follow``: a new game gets a new pipeline and reader, and the
  agent, if one reads the table, a new reading), listens to the session it reads, and publishes
  its status to the table (``Table.show_camera``), which the server shows; a screen's tap on a
  camera proposal goes back to it (``Table.camera``);
* the host's preview and its camera check listen to the camera's frames (a camera of the
  server's own), and so do the "Your box" screens (the camera picks the entry under it and cuts
  the component out); an agent's preview pictures come through the link;
* with ``--record``, the camera's recording (``camera.recording.Recorder``) listens to its frames
  too, follows the table's games, is ended with them (``Table.on_end``), and publishes its status
  to the table (``Table.show_recording``); the host's switch reaches it through the server.

Every table's store is ``table.stores.open_store(db, name)`` (SQLite: the table's own file beside
the home database; PostgreSQL: the table's rows in the venue's database), its keys
``Tokens(store.links())``.

A venue on PostgreSQL may be served by several processes (:func:`serve_shared`, what ``serve``
does for a ``postgresql://`` database): each one serves the tables whose writer lock it holds,
looks every :data:`SCAN_EVERY` s and at each notification at who serves what
(``table.postgres_venue.Processes``), takes its share of the tables nobody serves (a new table, a
dead process's), and answers the proxy which process serves a path (:meth:`ServedVenue.route`;
``server/proxy.py``). docs/venue.md "Run a tournament".
"""

from __future__ import annotations

import errno
import gc
import logging
import shlex
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from werkzeug.serving import BaseWSGIServer, get_sockaddr, make_server, select_address_family

from tableassist.camera.live import Camera
from tableassist.camera.recording import Recorder, Recordings
from tableassist.camera.status import CameraStatus
from tableassist.games.messages import Message
from tableassist.table.files import os_reason
from tableassist.markers.registry import Registry
from tableassist.server.agent import AgentLink
from tableassist.server.app import QuietHandler, TableServer, create_app
from tableassist.server.camera import (READ_FPS, BoxLook, CameraCheck, Preview, camera_name,
                                       open_camera, pipeline_for, starting)
from tableassist.server.table import Clock, Table
from tableassist.server.tokens import Tokens
from tableassist.server.socket_events import reason
from tableassist.server.venue import NO_TABLE, Paths, VenueServer, page
from tableassist.table.box import Box
from tableassist.table.store import MAIN, Store, StoreError, TableHeld, is_postgres
from tableassist.table.stores import open_store, open_venue
from tableassist.table.venue import TableEntry, Venue, VenueError, venue_file

if TYPE_CHECKING:
    from tableassist.table.postgres_venue import Processes, Snapshot
    from tableassist.vision.sources import FrameSource

#: What a table without a camera of its own says until an agent connects.
NO_AGENT_YET = Message("served.notice.no_agent_yet",
                       "no camera yet: run the camera agent next to the webcam (tableassist "
                       "camera; the venue page gives its command line)")
#: How the screens call a frame source handed in (not a ``--camera`` spec) that has no name.
CAMERA = Message("served.camera", "camera")
#: A venue of several processes: how often each one looks at who serves what (s), besides when
#: a notification says something changed; a dead process's tables are taken within about this.
SCAN_EVERY = 1.0
#: A table nobody serves is taken by the process its share names (the least loaded); after this
#: long (s) without it, by any process (the one named may be stuck).
GRACE = 3.0
#: The route a proxy asks for a table nobody serves is looked up again when the last look is
#: older than this (s): another process may have just taken it.
FRESH = 0.05
#: How many tables a process opens at once when it takes several (a dead process's).
TAKERS = 4


def _closed(name: str) -> Message:
    return Message("served.refuse.closed", "table {name} is closed", name=repr(name))


def camera_command(venue_url: str, table: str, key: str) -> str:
    """The command line that runs table ``table``'s camera agent next to the webcam.

    The key is given as ``--key=KEY``: a random key may begin with '-', which a separate
    argument would turn into an unknown option ("--key: expected one argument")."""
    return (f"tableassist camera --server {shlex.quote(venue_url.rstrip('/'))} "
            f"--table {shlex.quote(table)} --key={shlex.quote(key)}")


def cannot_open(whose: str, why: Message | str) -> Message:
    """``whose`` database (``"table"``, ``"demo"`` or ``"venue"``) cannot be opened, and why."""
    return Message("served.cannot_open", "cannot open {whose, select, demo {the demo's} venue "
                   "{the venue's} other {the table's}} database: {why}", whose=whose, why=why)


def camera_refused(camera: str, exc: BaseException) -> Message:
    """``--camera camera`` cannot be used (``exc``: the camera's ``CameraError``)."""
    return Message("served.camera_refused", "--camera {camera}: {why}", camera=camera,
                   why=reason(exc))


class OpenError(Exception):
    """The venue or a table cannot be opened or served; the message is one line for the person
    who started it ("cannot open the table's database: …", "cannot listen on …: …",
    "--camera 3: …")."""


@dataclass
class ServedTable:
    """One table being served: its log, keys, game, Socket.IO server, camera, and the link its
    camera agent connects to. ``url`` is its address (the home table's is the venue's own)."""

    name: str
    store: Store
    tokens: Tokens
    table: Table
    server: TableServer
    camera: Camera
    preview: Preview
    check: CameraCheck
    agents: AgentLink
    #: What the camera looks at (None: no camera of the server's own), and how the screens call it.
    source: FrameSource | None
    source_name: str
    url: str = ""
    #: The camera's recording (``--record``, with a camera of the server's own), or None.
    recorder: Recorder | None = None

    @property
    def host_link(self) -> str:
        return f"{self.url}#t={self.tokens.host}"

    @property
    def join_link(self) -> str:
        return f"{self.url}#t={self.tokens.table}"

    def agent_command(self, venue_url: str) -> str:
        """The command line that runs this table's camera agent next to the webcam."""
        return camera_command(venue_url, self.name, self.tokens.camera)

    def watch(self, **run: Any) -> None:
        """Let the camera read its source in a thread (``run``: see ``Camera.run``; by default
        ``READ_FPS`` frames a second)."""
        if self.source is not None:
            self.camera.start(self.source, **{"name": self.source_name, "fps": READ_FPS, **run})

    def close(self, tell: Message | str | None = None, *, move: bool = False) -> None:
        """Stop the camera (its source is let go), the clock; with ``tell``, say it to every
        screen and the agent and disconnect them (``move``: drop them, so that they reconnect
        to the table's next process); close the store (its writer lock goes)."""
        if tell is not None:
            self.server.let_go(tell)
        if move:
            self.server.move_away()
        self.camera.stop()
        if self.recorder is not None:
            self.recorder.close()
        if self.source is not None:
            self.source.close()
        self.table.clock.cancel()
        self.store.close()


def compose_table(name: str, store: Store, tokens: Tokens, registry: Registry, *,
                  source: FrameSource | None = None, source_name: str = CAMERA,
                  status: CameraStatus | None = None, box: Box | None = None,
                  clock: Clock | None = None, record: Recordings | None = None) -> ServedTable:
    """Put one table together on its store and tokens (see the module docstring). ``source`` is
    a camera of the server's own (then no agent is taken), ``status`` the camera's first, ``box``
    the players' box (``--box``; None: the shipped data alone), ``clock`` the stop window's
    time and alarms (None: the system's), ``record`` where the camera's recordings go
    (``--record``; only with a ``source``: an agent's frames stay on its computer)."""
    table = Table(store, tokens, box=box, clock=clock)
    eye = Camera(pipeline_for=pipeline_for(registry), play_again=table.play_again,
                 status=status or CameraStatus(state="off", notice=NO_AGENT_YET))
    # before the server subscribes to the table: a table nobody has looked at yet sends
    # nothing (and reads nothing from the store) while it is put together
    table.camera = eye
    eye.subscribe(table.show_camera)
    server = create_app(table)
    # What a job of the camera's worker changes (a frame's readings: a roll of eight dice is eight
    # actions; a tap on a proposal and the status after it) is broadcast once, when it ends
    broadcast = table.on_change
    table.on_change = lambda: eye.worker.after(broadcast)
    agents = AgentLink(server, eye, own=source_name if source is not None else None)
    server.agents = agents
    table.follow(agents.follow)
    preview = Preview(server, registry)
    eye.on_frame(preview)
    check = CameraCheck(server, registry, source)
    eye.on_frame(check)
    server.camera_check = check.want
    eye.on_frame(BoxLook(server, registry))
    recorder = None
    if record is not None and source is not None:
        recorder = Recorder(record, publish=table.show_recording)
        table.follow(recorder.follow)
        table.on_end(recorder.ended)
        eye.on_frame(recorder)
        server.recording = recorder
    return ServedTable(name, store, tokens, table, server, eye, preview, check, agents, source,
                       source_name, recorder=recorder)


class ServedVenue:
    """A venue being served: its tables (``tables``, ``main`` first), the venue page, the HTTP
    server. A home setup is a venue of one table: ``table``, ``tokens``, ``camera`` … are the
    home table's, as ``serve`` and the tests use them.

    ``url`` is the venue's address (the home table's too), ``staff_link`` the venue page's with
    the staff's key. The staff's calls (:meth:`create_table`, …) change the venue's list first
    and then open or close the table's pieces; a table that cannot be opened (its database
    damaged, held by another process) is listed with the reason (``problems``) and the others
    are served."""

    def __init__(self, db: str | Path, venue: Venue, registry: Registry, whose: str,
                 box: Box | None = None, clock: Clock | None = None,
                 share: Processes | None = None) -> None:
        self.db = db
        self.venue = venue
        self.registry = registry
        self.whose = whose
        self.box = box
        self.clock = clock
        self.tables: dict[str, ServedTable] = {}
        self.problems: dict[str, Message | str] = {}
        self.venue_server = VenueServer(self, venue.staff)
        self.http: BaseWSGIServer | None = None
        self.url = ""
        self._lock = threading.RLock()
        self._threads: list[threading.Thread] = []
        #: A venue of several processes (PostgreSQL): this process's row and lock, the last
        #: snapshot of who serves what, the other processes' rows of the venue page.
        self.share = share
        self.snapshot: Snapshot | None = None
        self._snapshot_at = 0.0
        self._remote: dict[str, dict[str, Any]] = {}
        self._orphaned: dict[str, float] = {}
        self._dirty: set[str] = set()
        self._scan_lock = threading.Lock()
        self._stopping = threading.Event()
        self._sharing: list[threading.Thread] = []

    # -- the home table ------------------------------------------------------------------------

    @property
    def main(self) -> ServedTable:
        return self.tables[MAIN]

    @property
    def table(self) -> Table:
        return self.main.table

    @property
    def tokens(self) -> Tokens:
        return self.main.tokens

    @property
    def server(self) -> TableServer:
        return self.main.server

    @property
    def camera(self) -> Camera:
        return self.main.camera

    @property
    def preview(self) -> Preview:
        return self.main.preview

    @property
    def check(self) -> CameraCheck:
        return self.main.check

    @property
    def store(self) -> Store:
        return self.main.store

    @property
    def source(self) -> FrameSource | None:
        return self.main.source

    @property
    def host_link(self) -> str:
        return self.main.host_link

    def watch(self, **run: Any) -> None:
        """The home table's camera reads its source (see :meth:`ServedTable.watch`)."""
        self.main.watch(**run)

    @property
    def staff_link(self) -> str:
        return f"{self.url}venue/#t={self.venue.staff}"

    # -- the tables ----------------------------------------------------------------------------

    def table_url(self, name: str) -> str:
        return self.url if name == MAIN else f"{self.url}t/{name}/"

    def home_app(self, environ: dict[str, Any], start_response: Any) -> Any:
        """The home table's app (``/``), wherever it is served now."""
        return self.app_for(MAIN)(environ, start_response)

    def _served(self, name: str) -> ServedTable:
        self.venue.entry(name)   # "there is no table …" for a name the venue does not know
        with self._lock:
            served = self.tables.get(name)
        if served is None:
            raise VenueError(self.problems.get(name) or _closed(name))
        return served

    def open(self, entry: TableEntry) -> ServedTable | None:
        """Serve the venue's table ``entry`` (its store, keys and pieces); None, with the reason
        in ``problems``, when it cannot be opened."""
        try:
            store = open_store(self.db, entry.name)
        except StoreError as exc:
            self.problems[entry.name] = cannot_open("table", reason(exc))
            return None
        try:
            tokens = table_tokens(store)
        except OpenError as exc:
            store.close()
            self.problems[entry.name] = reason(exc)
            return None
        return self._add(compose_table(entry.name, store, tokens, self.registry, box=self.box,
                                       clock=self.clock))

    def _add(self, served: ServedTable) -> ServedTable:
        served.url = self.table_url(served.name) if self.url else ""
        served.server.public_url = served.url or None
        changed = served.table.on_change   # the table's broadcast, then the venue's list

        def both() -> None:
            changed()
            self.venue_server.changed()
            if self.share is not None:
                with self._lock:
                    self._dirty.add(served.name)

        served.table.on_change = both
        with self._lock:
            self.tables = {**self.tables, served.name: served}
            self.problems.pop(served.name, None)
        return served

    def resume(self) -> dict[str, Message]:
        """Every table resumes its most recent game not ended (a restart goes on where each
        table stopped). Returns, per table, what to say about it (a warning, or why the last
        game cannot be resumed)."""
        said = {}
        for name, served in list(self.tables.items()):
            try:
                session = served.table.resume_latest()
            except StoreError as exc:
                said[name] = Message("served.cannot_resume", "the last game cannot be resumed "
                                     "({why}); starting at the lobby", why=reason(exc))
            else:
                if session is not None and session.warning:
                    said[name] = Message("served.warning", "warning: {text}",
                                         text=session.warning)
        return said

    def create_table(self, title: str, name: str | None = None) -> TableEntry:
        entry = self.venue.create(title, name)
        if self.share is not None:
            self.rescan()   # the least loaded process takes it (this one, or another told)
            return entry
        if self.open(entry) is None:
            raise VenueError(Message("served.refuse.added_not_opened", "{title} was added but "
                                     "cannot be opened: {why}", title=repr(entry.title),
                                     why=self.problems[entry.name]))
        return entry

    def rename_table(self, name: str, title: str) -> TableEntry:
        return self.venue.rename(name, title)

    def close_table(self, name: str) -> TableEntry:
        entry = self.venue.close(name)
        self._let_go(name, entry)
        return entry

    def _let_go(self, name: str, entry: TableEntry) -> None:
        """Stop serving table ``name``, which the staff closed (here, or on another process)."""
        with self._lock:
            served = self.tables.get(name)
            self.tables = {k: v for k, v in self.tables.items() if k != name}
        if served is not None:
            served.close(tell=Message("served.notice.staff_closed", "the staff closed {title}; "
                                      "the game is saved (the table can be opened again on the "
                                      "venue page)", title=repr(entry.title)))
        self.problems.pop(name, None)

    def reopen_table(self, name: str) -> TableEntry:
        entry = self.venue.reopen(name)
        if self.share is not None:
            self.rescan()
            return entry
        served = self.open(entry)
        if served is None:
            raise VenueError(Message("served.refuse.not_opened", "{title} cannot be opened: "
                                     "{why}", title=repr(entry.title), why=self.problems[name]))
        try:
            served.table.resume_latest()
        except StoreError:
            pass   # the lobby says what is wrong with the game
        return entry

    def links(self, name: str) -> dict[str, Any]:
        import segno  # only the staff's join cards need QR codes

        with self._lock:
            here = name in self.tables
        if here or self.share is None:
            served = self._served(name)
            keys = {"host": served.tokens.host, "table": served.tokens.table,
                    "camera": served.tokens.camera}
        else:   # served by another process of the venue: its keys are in the database
            keys = self._keys_elsewhere(name)
        entry = self.venue.entry(name)
        url = self.table_url(name)
        join = f"{url}#t={keys['table']}"
        return {"host": f"{url}#t={keys['host']}", "join": join,
                "camera": camera_command(self.url, name, keys["camera"]),
                "card": {"title": entry.title, "url": join,
                         "qr": segno.make(join, error="m").svg_data_uri(scale=8)}}

    def _keys_elsewhere(self, name: str) -> dict[str, str]:
        """Table ``name``'s keys as the process that serves it keeps them (its links, read)."""
        entry = self.venue.entry(name)
        if entry.closed:
            raise VenueError(_closed(name))
        deadline = time.monotonic() + 2 * GRACE
        while True:   # a table just added: its process writes its keys as it opens it
            try:
                with open_store(self.db, name, read_only=True) as reader:
                    data = reader.links().load()
            except StoreError as exc:
                raise VenueError(Message("served.refuse.keys_unreadable", "the keys of {title} "
                                         "cannot be read: {why}", title=repr(entry.title),
                                         why=reason(exc))) from None
            if all(isinstance(data.get(k), str) for k in ("host", "table", "camera")):
                return {k: str(data[k]) for k in ("host", "table", "camera")}
            if time.monotonic() > deadline:
                raise VenueError(Message("served.refuse.not_served_yet", "{title} is not served "
                                         "yet (no process of the venue has opened it); try "
                                         "again in a moment", title=repr(entry.title)))
            time.sleep(0.1)   # a poll interval

    def rows(self) -> list[dict[str, Any]]:
        """Every table as the venue page lists it: its name and title, whether it is open, its
        game, players, round and what the game waits for, its screens and its camera."""
        out = []
        with self._lock:
            tables, problems = dict(self.tables), dict(self.problems)
            remote, snapshot = dict(self._remote), self.snapshot
        for entry in self.venue.tables():
            row: dict[str, Any] = {**entry.to_json(), "url": self.table_url(entry.name),
                                   "problem": problems.get(entry.name)}
            served = tables.get(entry.name)
            elsewhere = remote.get(entry.name)
            if served is not None:
                row.update(table_row(served))
                row["process"] = self.share.address if self.share is not None else None
            elif snapshot is not None and not entry.closed and \
                    snapshot.address(entry.name) is not None and elsewhere is not None:
                row.update(elsewhere)   # what the process serving it published
                row["process"] = snapshot.address(entry.name)
            else:
                row["state"] = "closed" if entry.closed else "unavailable"
                if snapshot is not None and not entry.closed and row["problem"] is None:
                    row["problem"] = (Message("served.problem.being_opened",
                                              "being opened by a process of the venue") if
                                      snapshot.address(entry.name) is None else None)
            out.append(row)
        return out

    def app_for(self, name: str) -> Any:
        """The WSGI app of table ``name``, or a page saying why there is none. A process of a
        shared venue that is stopping serves no table: the screens it drops reconnect at once,
        and must reach the process taking their table over, not this one's closing store."""
        with self._lock:
            served = self.tables.get(name)
        if served is not None and not (self.share is not None and self._stopping.is_set()):
            return served.server.app
        try:
            entry = self.venue.entry(name)
        except VenueError:
            return page("404 Not Found", NO_TABLE, Message(
                "served.page.no_table", "There is no table {name} here; ask the staff for the "
                "table's card.", name=repr(name)))
        if entry.closed:
            return page("410 Gone", Message("served.page.closed_title", "{title} is closed",
                                            title=entry.title),
                        Message("served.page.closed",
                                "The staff closed this table; its games are saved."))
        if self.share is not None and name not in self.problems:
            return page("503 Service Unavailable",
                        Message("served.page.moving_title", "{title} is moving",
                                title=entry.title),
                        Message("served.page.moving", "Another server of the venue takes this "
                                "table over; this page works again in a few seconds."))
        return page("503 Service Unavailable",
                    Message("served.page.unavailable_title", "{title} is not available",
                            title=entry.title),
                    self.problems.get(name) or Message("served.page.unavailable",
                                                       "The table cannot be opened now."))

    # -- a venue of several processes (PostgreSQL) --------------------------------------------

    def start_sharing(self) -> None:
        """Serve this venue's tables together with its other processes: listen to the venue's
        notifications, look at who serves what every :data:`SCAN_EVERY` s, take this process's
        share of the tables nobody serves, publish this process's rows of the venue page."""
        share = self.share
        assert share is not None
        for target, name in ((lambda: share.listen(self._heard, SCAN_EVERY), "venue-listen"),
                             (self._publish_loop, "venue-publish")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._sharing.append(thread)
        share.notify([{"hello": share.id}])   # the others publish their rows for this one

    def _heard(self, payload: dict[str, Any] | None) -> None:
        try:
            self._hear(payload)
        except Exception:  # noqa: BLE001 - the venue's watch goes on whatever one look met
            logging.getLogger(__name__).exception("the venue's watch met an error; it goes on")

    def _hear(self, payload: dict[str, Any] | None) -> None:
        if self._stopping.is_set():
            return
        if payload is None or "venue" in payload:
            self.rescan()
        elif "hello" in payload:
            with self._lock:
                self._dirty.update(self.tables)
        elif isinstance(payload.get("row"), dict) and isinstance(payload.get("name"), str):
            name = payload["name"]
            with self._lock:
                if name not in self.tables:
                    self._remote[name] = payload["row"]
            self.venue_server.changed()

    def rescan(self, *, resume: bool = True) -> None:
        """Look at who serves what (:meth:`Processes.snapshot`): stop serving the tables the
        staff closed or another process holds now, take this process's share of those nobody
        serves (and any nobody took for :data:`GRACE` s), hand one table over when this
        process serves two more than the least loaded. ``resume``: a table taken resumes its
        last game (at start the caller resumes them all)."""
        share = self.share
        if share is None or self._stopping.is_set():
            return
        with self._scan_lock:
            if self._stopping.is_set():
                return
            try:
                snap = share.snapshot()
            except StoreError:
                return   # the database is away: serve on what this process has, look again
            self.snapshot, self._snapshot_at = snap, time.monotonic()
            changed = False
            with self._lock:
                here = dict(self.tables)
            for name, served in here.items():
                owner = snap.owners.get(name)
                if name in snap.closed:
                    self._let_go(name, self.venue.entry(name))
                    changed = True
                elif owner is not None and owner != share.id:
                    self._drop(name, move=True)   # another process took it (a lost connection)
                    changed = True
            now = time.monotonic()
            orphans = set(snap.orphans())
            self._orphaned = {n: self._orphaned.get(n, now) for n in orphans}
            shares = snap.shares()
            mine = [name for name in sorted(orphans) if name not in here and (
                shares.get(name) == share.id or now - self._orphaned[name] > GRACE)]
            # a few at once: opening a table is mostly waiting for the database (connect,
            # lock, read its log), so a dead process's tables are back sooner
            with ThreadPoolExecutor(max_workers=TAKERS, thread_name_prefix="take") as pool:
                done = list(pool.map(lambda n: self._take(n, resume=resume), mine))
            taken = [name for name, ok in zip(mine, done) if ok]
            if taken:   # the others' routes know at once
                changed = True
                try:
                    share.notify([{"venue": "taken", "tables": taken}])
                except StoreError:
                    pass
            if self._hand_over(snap):
                changed = True
            with self._lock:
                self._remote = {k: v for k, v in self._remote.items()
                                if k not in self.tables and snap.address(k) is not None}
        if changed:
            self.venue_server.changed()

    def _take(self, name: str, *, resume: bool) -> bool:
        try:
            entry = self.venue.entry(name)
        except (VenueError, StoreError):
            return False
        if entry.closed:
            return False
        try:
            store = open_store(self.db, name)
        except TableHeld:
            return False   # another process was quicker
        except StoreError as exc:
            self.problems[name] = cannot_open("table", reason(exc))
            return False
        try:
            tokens = table_tokens(store)
        except OpenError as exc:
            store.close()
            self.problems[name] = reason(exc)
            return False
        served = compose_table(name, store, tokens, self.registry, box=self.box,
                               clock=self.clock)
        if resume:
            # before it is served: a camera agent reconnecting at once finds the game followed
            # by the camera, and so its reading can be taken over (agent.py), not begun anew
            try:
                served.table.resume_latest()
            except StoreError:
                pass   # the lobby says what is wrong with the game
        self._add(served)
        with self._lock:
            self._dirty.add(name)
        return True

    def _drop(self, name: str, *, move: bool) -> None:
        with self._lock:
            served = self.tables.get(name)
            self.tables = {k: v for k, v in self.tables.items() if k != name}
        if served is not None:
            served.close(move=move)

    def _hand_over(self, snap: Snapshot) -> bool:
        """Serving two tables more than the least loaded process: let the newest go (its screens
        reconnect to the process that takes it), one per look, so the tables spread over the
        processes that came later."""
        share = self.share
        assert share is not None and share.id is not None
        if len(snap.processes) < 2:
            return False
        mine = snap.load(share.id)
        least = min(snap.load(p) for p in snap.processes)
        if mine < least + 2:
            return False
        with self._lock:
            names = [n for n in self.tables if n != MAIN or self.main.source is None]
        if not names:
            return False
        self._drop(names[-1], move=True)
        try:
            share.notify([{"venue": names[-1]}])
        except StoreError:
            pass
        return True

    def _publish_loop(self) -> None:
        """This process's changed rows of the venue page, to the other processes, at most every
        ``PUSH_EVERY`` s (one statement for all)."""
        from tableassist.server.venue import PUSH_EVERY
        share = self.share
        assert share is not None
        while not self._stopping.wait(PUSH_EVERY):
            with self._lock:
                dirty, self._dirty = self._dirty, set()
                tables = {n: self.tables[n] for n in dirty if n in self.tables}
            if not tables:
                continue
            try:
                share.notify([{"name": n, "row": table_row(t), "process": share.id}
                              for n, t in tables.items()])
            except StoreError:
                with self._lock:
                    self._dirty |= set(tables)

    def route(self, uri: str) -> str | None:
        """Where the proxy sends a request for ``uri``: the address of the process serving its
        table (``/t/<name>/…``; anything else is the home table's, or the venue page, which the
        home table's process answers too); this process's own when it serves it, or when no
        process does (it answers that the table is moving)."""
        share = self.share
        if share is None:
            return None
        name = MAIN
        if uri.startswith("/t/"):
            name = uri[3:].partition("/")[0].partition("?")[0]
        with self._lock:
            if name in self.tables:
                return share.address
        snap = self.snapshot
        found = snap.address(name) if snap is not None else None
        if found is None and time.monotonic() - self._snapshot_at > FRESH:
            try:   # a table just taken by another process: look again before saying "moving"
                snap = share.snapshot()
            except StoreError:
                return share.address
            self.snapshot, self._snapshot_at = snap, time.monotonic()
            found = snap.address(name)
        return found or share.address

    # -- serving -------------------------------------------------------------------------------

    def serve_in_thread(self) -> None:
        """Answer the screens from a thread (the caller goes on: the demo plays its script)."""
        assert self.http is not None
        thread = threading.Thread(target=self.http.serve_forever, name="http", daemon=True)
        thread.start()
        self._threads.append(thread)

    def close(self) -> None:
        """Stop every table (cameras, clocks, stores), the HTTP server, and let go of the venue."""
        self._stopping.set()
        with self._scan_lock:   # a look under way finishes first (it may be taking a table)
            for served in reversed(list(self.tables.values())):
                served.close(move=self.share is not None)
        if self.share is not None:   # the others take this process's tables at once
            try:
                self.share.notify([{"venue": "left", "process": self.share.id}])
            except StoreError:
                pass
            self.share.close()
            for thread in self._sharing:   # the listener ends within SCAN_EVERY
                thread.join(timeout=3 * SCAN_EVERY)
        if self.http is not None:
            if self._threads:
                self.http.shutdown()
            self.http.server_close()
        self.venue.release()


def table_row(served: ServedTable) -> dict[str, Any]:
    """What the venue page shows of an open table (public facts only: the game, its players, its
    round, what the shared prompt asks for, the screens connected, the camera)."""
    table = served.table
    status = table.camera_status
    row: dict[str, Any] = {"state": "lobby", "game": None, "players": [], "round": None,
                           "moves": 0, "prompt": None, "screens": served.server.screens(),
                           "camera": {"state": status.state, "notice": said(status.notice)}}
    session = table.session
    if session is None:
        return row
    saved = session.saved
    game = session.game
    prompts = game.prompts()
    row.update(state="ended" if saved.ended else "over" if game.is_over else "playing",
               game={"id": saved.game, "title": game.title or saved.game, "row": saved.id},
               players=list(saved.players), round=game.round, moves=len(session.steps),
               prompt=said(prompts[0].text) if prompts else None)
    return row


def said(text: Message | str) -> dict[str, Any]:
    """A text of a row as it travels (``{"text", "id", "params"}``): the venue page's screens get
    it in their language (``i18n.localize``), the English ``text`` as it is."""
    return {"text": str(text), **(text.to_json() if isinstance(text, Message) else {})}


def table_tokens(store: Store, whose: str = "table") -> Tokens:
    """The keys and links of ``store``'s table (``Tokens(store.links())``); an
    :class:`OpenError` says why they cannot be kept (``whose``: as :func:`cannot_open`)."""
    links = store.links()
    try:
        return Tokens(links)
    except (OSError, StoreError) as exc:
        why = os_reason(exc) if isinstance(exc, OSError) else reason(exc)
        raise OpenError(Message("served.cannot_write_links", "cannot write {whose, select, demo "
                                "{the demo's} other {the table's}} links {where}: {why}",
                                whose=whose, where=links.where, why=why)) from None


def settle_memory() -> None:
    """Once the server is set up, what it holds for good (the engines, the markers' registry, the
    app: some 86,000 objects) is left out of the garbage collector's full passes
    (``gc.freeze``), after one pass that frees what setting up left behind. A full pass over them
    held every thread of the process for 100-134 ms at a load of 9, a camera's broadcast included
    (``bench_frame_to_dom`` counts the collections and their longest pause); what is made later
    (the games, the payloads) is collected as before. ``tableassist serve`` calls it before it
    serves."""
    gc.collect()
    gc.freeze()


#: Why a server cannot listen, by errno (the system's own words are English).
_CANNOT_LISTEN = {
    errno.EADDRINUSE: Message("served.port_taken", "the port is in use by another program: stop "
                              "it, or choose another --port"),
    errno.EADDRNOTAVAIL: Message("served.no_such_address", "this machine has no such address: "
                                 "choose another --host"),
    errno.EACCES: Message("served.port_not_allowed", "this user may not open that port (ports "
                          "below 1024 need root): choose another --port"),
}


def listen(host: str, port: int, app: Any) -> BaseWSGIServer:
    """The HTTP server for ``app`` on ``host:port``, or :class:`OpenError` saying why not.

    The socket is bound here and handed to werkzeug (``fd``): werkzeug binding it itself would
    print its own English lines and exit when the port is taken."""
    family = select_address_family(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as socketserver does
        sock.bind(get_sockaddr(host, port, family))
        sock.listen(BaseWSGIServer.request_queue_size)
    except (OSError, UnicodeError) as exc:   # UnicodeError: a host name IDNA cannot encode
        sock.close()
        why = _CANNOT_LISTEN.get(getattr(exc, "errno", None) or 0) or \
            (os_reason(exc) if isinstance(exc, OSError) else str(exc))
        raise OpenError(Message("served.cannot_listen", "cannot listen on {host}:{port}: {why}",
                                host=host, port=str(port), why=why)) from None
    try:
        server = make_server(host, port, app, threaded=True, request_handler=QuietHandler,
                             fd=sock.fileno())
    finally:
        sock.close()   # werkzeug's socket is its own copy of it (socket.fromfd)
    # what http.server's server_bind (not called for a socket handed in) would have set
    server.server_name = socket.getfqdn(str(server.server_address[0]))
    server.server_port = int(server.server_address[1])
    return server


def serve_venue(db: Path | str | Store, *, host: str, port: int,
                camera: str | FrameSource = "none", camera_size: tuple[int, int] | None = None,
                camera_says: str | None = None, public_host: str | None = None,
                whose: str = "table", box: Box | None = None,
                clock: Clock | None = None, record: Path | None = None,
                record_limit: int | None = None, share: bool = False,
                public_url: str | None = None, advertise: str | None = None) -> ServedVenue:
    """Open the venue whose home database is ``db``: the home table's store (its writer lock
    first: a second server stops here; a path is an SQLite file, a ``postgresql://`` URL a
    venue's database, a :class:`Store` the home table's already open), the venue's list of
    tables, each open table, the camera of the home table, and the HTTP server on
    ``host``:``port`` (0: any free port).

    ``camera`` is a ``--camera`` spec (see ``server.camera.open_camera``; ``camera_size`` the
    ``--camera-size`` asked of a webcam) or a frame source itself (the demo's synthetic table;
    ``camera_says`` is then how the screens call it). ``box`` is the players' box (``--box``:
    their own component values, merged over the shipped data for every new game; None: the
    shipped data alone), the same for every table. ``public_host`` is the address the links
    print (default ``host``). ``clock`` gives every table's stop-window clock its time and
    alarms (None: the system's; a test's moves on by hand). ``record`` is the folder the home
    table's camera recordings go in (``--record``; None: never recorded), ``record_limit`` a
    recording's largest size in MB. Raises :class:`OpenError` with one line naming what failed
    (``whose`` database or links: ``"table"``, or ``"demo"``)).

    ``share`` (a ``postgresql://`` URL): this process is one of the venue's serving processes
    (:func:`serve_shared`); ``public_url`` is then the venue's address as people reach it (the
    proxy's), ``advertise`` the ``host:port`` the proxy reaches this process at."""
    from tableassist.markers.registry import load_registry

    if share and isinstance(db, str) and is_postgres(db):
        return serve_shared(db, host=host, port=port, camera=camera, camera_size=camera_size,
                            public_url=public_url, advertise=advertise, box=box, clock=clock,
                            record=record, record_limit=record_limit)
    try:
        store = db if isinstance(db, Store) else open_store(db)
    except StoreError as exc:
        raise OpenError(cannot_open(whose, reason(exc))) from None
    home = store.db   # the home database (SQLite: the --db file, not a table's own)
    venue: Venue | None = None
    served: ServedVenue | None = None
    source: FrameSource | None = None
    try:
        tokens = table_tokens(store, whose)
        try:
            venue = open_venue(home)
        except StoreError as exc:
            raise OpenError(cannot_open(whose, reason(exc))) from None
        except OSError as exc:
            raise OpenError(Message("served.cannot_write_venue", "cannot write the venue's list "
                                    "of tables {file}: {why}", file=str(venue_file(home)),
                                    why=os_reason(exc))) from None
        if isinstance(camera, str):
            try:
                from tableassist.server.camera import CameraError
                source, status = open_camera(camera, camera_size)
            except CameraError as exc:
                raise OpenError(camera_refused(camera, exc)) from None
            name = camera_name(camera)
        else:
            source, name = camera, camera_says or CAMERA
            status = CameraStatus(state="starting", notice=starting(name))
        registry = load_registry()
        served = ServedVenue(home, venue, registry, whose, box, clock)
        recordings = None if record is None else Recordings(
            record, store, **({} if record_limit is None else {"limit_mb": record_limit}))
        served._add(compose_table(MAIN, store, tokens, registry, source=source, source_name=name,
                                  status=status, box=box, clock=clock, record=recordings))
        for entry in venue.tables():
            if entry.name != MAIN and not entry.closed:
                served.open(entry)
        app = Paths(served.main.server.app, served.venue_server.app, served.app_for)
        served.http = listen(host, port, app)
    except BaseException:
        if served is not None:
            for other in served.tables.values():
                if other.name != MAIN:
                    other.close()
        if source is not None:
            source.close()
        if venue is not None:
            venue.release()
        store.close()
        raise
    # known only now that --port 0 has its port
    served.url = f"http://{public_host or host}:{served.http.server_port}/"
    for name_, table in served.tables.items():
        table.url = served.table_url(name_)
        table.server.public_url = table.url
    return served


def serve_shared(db: str, *, host: str, port: int, camera: str | FrameSource = "none",
                 camera_size: tuple[int, int] | None = None, public_url: str | None = None,
                 advertise: str | None = None, box: Box | None = None,
                 clock: Clock | None = None, record: Path | None = None,
                 record_limit: int | None = None) -> ServedVenue:
    """This process as one of the serving processes of the PostgreSQL venue ``db`` (any number
    of them, on one computer or several, behind a proxy: docs/venue.md "Run a tournament"). It
    listens first (its port is its address), makes its row and lock in ``processes``, takes the
    home table ``main`` if no process serves it (with the camera of its own, if one is given),
    then its share of the tables nobody serves (:meth:`ServedVenue.rescan`), and from then on
    follows the venue (:meth:`ServedVenue.start_sharing`)."""
    from tableassist.markers.registry import load_registry
    from tableassist.table.postgres_venue import Processes

    try:   # the home table first, as on one process (its faults said in the same words)
        store: Store | None = open_store(db)
    except TableHeld:
        store = None   # another process of the venue serves the home table
    except StoreError as exc:
        raise OpenError(cannot_open("table", reason(exc))) from None
    try:
        venue = open_venue(db)
    except StoreError as exc:
        if store is not None:
            store.close()
        raise OpenError(cannot_open("table", reason(exc))) from None
    served: ServedVenue | None = None
    source: FrameSource | None = None
    try:
        served = ServedVenue(db, venue, load_registry(), "table", box, clock)
        app = Paths(served.home_app, served.venue_server.app, served.app_for,
                    route=served.route)
        served.http = listen(host, port, app)
        address = advertise or f"{host}:{served.http.server_port}"
        served.url = public_url or f"http://{address}/"
        if not served.url.endswith("/"):
            served.url += "/"
        try:
            served.share = Processes(db, address)
        except StoreError as exc:
            raise OpenError(cannot_open("venue", reason(exc))) from None
        if store is not None:
            try:
                tokens = table_tokens(store)
            except OpenError:
                store.close()
                raise
            if isinstance(camera, str):
                try:
                    from tableassist.server.camera import CameraError
                    source, status = open_camera(camera, camera_size)
                except CameraError as exc:
                    store.close()
                    raise OpenError(camera_refused(camera, exc)) from None
                name = camera_name(camera)
            else:
                source, name = camera, CAMERA
                status = CameraStatus(state="starting", notice=starting(name))
            recordings = None if record is None else Recordings(
                record, store, **({} if record_limit is None else {"limit_mb": record_limit}))
            served._add(compose_table(MAIN, store, tokens, served.registry, source=source,
                                      source_name=name, status=status, box=box, clock=clock,
                                      record=recordings))
        store = None   # the venue's now
        served.rescan(resume=False)
        served.start_sharing()
    except BaseException:
        if store is not None and (served is None or MAIN not in served.tables):
            store.close()
        if served is not None:
            served.close()
        else:
            venue.release()
        raise
    return served
