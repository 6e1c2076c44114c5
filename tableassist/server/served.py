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
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from werkzeug.serving import BaseWSGIServer, make_server

from tableassist.camera.live import Camera
from tableassist.camera.recording import Recorder, Recordings
from tableassist.camera.status import CameraStatus
from tableassist.markers.registry import Registry
from tableassist.server.agent import AgentLink
from tableassist.server.app import QuietHandler, TableServer, create_app
from tableassist.server.camera import (READ_FPS, BoxLook, CameraCheck, Preview, camera_name,
                                       open_camera, pipeline_for)
from tableassist.server.table import Clock, Table
from tableassist.server.tokens import Tokens
from tableassist.server.venue import Paths, VenueServer, page
from tableassist.table.box import Box
from tableassist.table.store import MAIN, Store, StoreError
from tableassist.table.stores import open_store
from tableassist.table.venue import TableEntry, Venue, VenueError, open_venue, venue_file

if TYPE_CHECKING:
    from tableassist.vision.sources import FrameSource

#: What a table without a camera of its own says until an agent connects.
NO_AGENT_YET = ("no camera yet: run the camera agent next to the webcam (tableassist camera; the "
                "venue page gives its command line)")


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
        return (f"tableassist camera --server {venue_url.rstrip('/')} --table {self.name} "
                f"--key {self.tokens.camera}")

    def watch(self, **run: Any) -> None:
        """Let the camera read its source in a thread (``run``: see ``Camera.run``; by default
        ``READ_FPS`` frames a second)."""
        if self.source is not None:
            self.camera.start(self.source, **{"name": self.source_name, "fps": READ_FPS, **run})

    def close(self, tell: str | None = None) -> None:
        """Stop the camera (its source is let go), the clock; with ``tell``, say it to every
        screen and the agent and disconnect them; close the store (its writer lock goes)."""
        if tell is not None:
            self.server.let_go(tell)
        self.camera.stop()
        if self.recorder is not None:
            self.recorder.close()
        if self.source is not None:
            self.source.close()
        self.table.clock.cancel()
        self.store.close()


def compose_table(name: str, store: Store, tokens: Tokens, registry: Registry, *,
                  source: FrameSource | None = None, source_name: str = "camera",
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
                 box: Box | None = None, clock: Clock | None = None) -> None:
        self.db = db
        self.venue = venue
        self.registry = registry
        self.whose = whose
        self.box = box
        self.clock = clock
        self.tables: dict[str, ServedTable] = {}
        self.problems: dict[str, str] = {}
        self.venue_server = VenueServer(self, venue.staff)
        self.http: BaseWSGIServer | None = None
        self.url = ""
        self._lock = threading.RLock()
        self._threads: list[threading.Thread] = []

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

    def _served(self, name: str) -> ServedTable:
        self.venue.entry(name)   # "there is no table …" for a name the venue does not know
        with self._lock:
            served = self.tables.get(name)
        if served is None:
            raise VenueError(self.problems.get(name) or f"table {name!r} is closed")
        return served

    def open(self, entry: TableEntry) -> ServedTable | None:
        """Serve the venue's table ``entry`` (its store, keys and pieces); None, with the reason
        in ``problems``, when it cannot be opened."""
        try:
            store = open_store(self.db, entry.name)
        except StoreError as exc:
            self.problems[entry.name] = f"cannot open the table's database: {exc}"
            return None
        try:
            tokens = table_tokens(store)
        except OpenError as exc:
            store.close()
            self.problems[entry.name] = str(exc)
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

        served.table.on_change = both
        with self._lock:
            self.tables = {**self.tables, served.name: served}
            self.problems.pop(served.name, None)
        return served

    def resume(self) -> dict[str, str]:
        """Every table resumes its most recent game not ended (a restart goes on where each
        table stopped). Returns, per table, what to say about it (a warning, or why the last
        game cannot be resumed)."""
        said = {}
        for name, served in list(self.tables.items()):
            try:
                session = served.table.resume_latest()
            except StoreError as exc:
                said[name] = f"the last game cannot be resumed ({exc}); starting at the lobby"
            else:
                if session is not None and session.warning:
                    said[name] = f"warning: {session.warning}"
        return said

    def create_table(self, title: str, name: str | None = None) -> TableEntry:
        entry = self.venue.create(title, name)
        if self.open(entry) is None:
            raise VenueError(f"{entry.title!r} was added but cannot be opened: "
                             f"{self.problems[entry.name]}")
        return entry

    def rename_table(self, name: str, title: str) -> TableEntry:
        return self.venue.rename(name, title)

    def close_table(self, name: str) -> TableEntry:
        entry = self.venue.close(name)
        with self._lock:
            served = self.tables.get(name)
            self.tables = {k: v for k, v in self.tables.items() if k != name}
        if served is not None:
            served.close(tell=f"the staff closed {entry.title!r}; the game is saved (the table "
                              "can be opened again on the venue page)")
        self.problems.pop(name, None)
        return entry

    def reopen_table(self, name: str) -> TableEntry:
        entry = self.venue.reopen(name)
        served = self.open(entry)
        if served is None:
            raise VenueError(f"{entry.title!r} cannot be opened: {self.problems[name]}")
        try:
            served.table.resume_latest()
        except StoreError:
            pass   # the lobby says what is wrong with the game
        return entry

    def links(self, name: str) -> dict[str, Any]:
        import segno  # only the staff's join cards need QR codes

        served = self._served(name)
        entry = self.venue.entry(name)
        return {"host": served.host_link, "join": served.join_link,
                "camera": served.agent_command(self.url),
                "card": {"title": entry.title, "url": served.join_link,
                         "qr": segno.make(served.join_link, error="m").svg_data_uri(scale=8)}}

    def rows(self) -> list[dict[str, Any]]:
        """Every table as the venue page lists it: its name and title, whether it is open, its
        game, players, round and what the game waits for, its screens and its camera."""
        out = []
        with self._lock:
            tables, problems = dict(self.tables), dict(self.problems)
        for entry in self.venue.tables():
            row: dict[str, Any] = {**entry.to_json(), "url": self.table_url(entry.name),
                                   "problem": problems.get(entry.name)}
            served = tables.get(entry.name)
            if served is None:
                row["state"] = "closed" if entry.closed else "unavailable"
            else:
                row.update(table_row(served))
            out.append(row)
        return out

    def app_for(self, name: str) -> Any:
        """The WSGI app of table ``name``, or a page saying why there is none."""
        with self._lock:
            served = self.tables.get(name)
        if served is not None:
            return served.server.app
        try:
            entry = self.venue.entry(name)
        except VenueError:
            return page("404 Not Found", "No such table",
                        f"There is no table {name!r} here; ask the staff for the table's card.")
        if entry.closed:
            return page("410 Gone", f"{entry.title} is closed",
                        "The staff closed this table; its games are saved.")
        return page("503 Service Unavailable", f"{entry.title} is not available",
                    self.problems.get(name) or "The table cannot be opened now.")

    # -- serving -------------------------------------------------------------------------------

    def serve_in_thread(self) -> None:
        """Answer the screens from a thread (the caller goes on: the demo plays its script)."""
        assert self.http is not None
        thread = threading.Thread(target=self.http.serve_forever, name="http", daemon=True)
        thread.start()
        self._threads.append(thread)

    def close(self) -> None:
        """Stop every table (cameras, clocks, stores), the HTTP server, and let go of the venue."""
        for served in reversed(list(self.tables.values())):
            served.close()
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
                           "camera": {"state": status.state, "notice": status.notice}}
    session = table.session
    if session is None:
        return row
    saved = session.saved
    game = session.game
    prompts = game.prompts()
    row.update(state="ended" if saved.ended else "over" if game.is_over else "playing",
               game={"id": saved.game, "title": game.title or saved.game, "row": saved.id},
               players=list(saved.players), round=game.round, moves=len(session.steps),
               prompt=prompts[0].to_json()["text"] if prompts else None)
    return row


def table_tokens(store: Store, whose: str = "the table's") -> Tokens:
    """The keys and links of ``store``'s table (``Tokens(store.links())``); an
    :class:`OpenError` says why they cannot be kept."""
    links = store.links()
    try:
        return Tokens(links)
    except (OSError, StoreError) as exc:
        reason = (exc.strerror or str(exc)).lower() if isinstance(exc, OSError) else exc
        raise OpenError(f"cannot write {whose} links {links.where}: {reason}") from None


def serve_venue(db: Path | str | Store, *, host: str, port: int,
                camera: str | FrameSource = "none", camera_size: tuple[int, int] | None = None,
                camera_says: str | None = None, public_host: str | None = None,
                whose: str = "the table's", box: Box | None = None,
                clock: Clock | None = None, record: Path | None = None,
                record_limit: int | None = None) -> ServedVenue:
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
    (``whose`` database or links)."""
    from tableassist.markers.registry import load_registry

    try:
        store = db if isinstance(db, Store) else open_store(db)
    except StoreError as exc:
        raise OpenError(f"cannot open {whose} database: {exc}") from None
    home = store.db   # the home database (SQLite: the --db file, not a table's own)
    venue: Venue | None = None
    served: ServedVenue | None = None
    source: FrameSource | None = None
    try:
        tokens = table_tokens(store, whose)
        try:
            venue = open_venue(home)
        except StoreError as exc:
            raise OpenError(f"cannot open {whose} database: {exc}") from None
        except OSError as exc:
            raise OpenError(f"cannot write the venue's list of tables {venue_file(home)}: "
                            f"{(exc.strerror or str(exc)).lower()}") from None
        if isinstance(camera, str):
            try:
                from tableassist.server.camera import CameraError
                source, status = open_camera(camera, camera_size)
            except CameraError as exc:
                raise OpenError(f"--camera {camera}: {exc}") from None
            name = camera_name(camera)
        else:
            source, name = camera, camera_says or "camera"
            status = CameraStatus(state="starting", notice=f"{name}: starting")
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
        try:
            served.http = make_server(host, port, app, threaded=True,
                                      request_handler=QuietHandler)
        except (OSError, SystemExit) as exc:  # werkzeug exits when the port is taken
            reason = getattr(exc, "strerror", None) or "the address is in use or not available"
            raise OpenError(f"cannot listen on {host}:{port}: {reason}") from None
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
