"""One composition for a served table: store, table, Socket.IO server, HTTP server and camera.

``tableassist serve`` and ``tableassist demo`` are the same table: :func:`open_table` builds it
for both. They differ only in what the camera looks at (a webcam, a video, a folder; or the
synthetic table playing a script, with a scripted person at the tablet) and in which game is on
(the last one resumed; or the script's).

The pieces are wired here and nowhere else:

* the table follows its sessions; the server subscribes to the table (``on_change``) and
  broadcasts every change;
* the camera follows the table (``Table.follow``: a new game gets a new pipeline and reader),
  listens to the session it reads, and publishes its status to the table (``Table.show_camera``),
  which the server shows; a screen's tap on a camera proposal goes back to it (``Table.camera``);
* the host's preview listens to the camera's frames.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werkzeug.serving import BaseWSGIServer, make_server

from tableassist.readers.live import Camera, CameraStatus, FrameSource
from tableassist.server.app import QuietHandler, TableServer, create_app
from tableassist.server.camera import READ_FPS, Preview, camera_name, open_camera, pipeline_for
from tableassist.server.table import Table
from tableassist.server.tokens import Tokens, links_file
from tableassist.table.store import Store, StoreError


class OpenError(Exception):
    """The table cannot be opened or served; the message is one line for the person who started
    it ("cannot open the table's database: …", "cannot listen on …: …", "--camera 3: …")."""


@dataclass
class ServedTable:
    """A table being served: ``url`` is its address, ``host_link`` the host screen's."""

    store: Store
    tokens: Tokens
    table: Table
    server: TableServer
    http: BaseWSGIServer
    camera: Camera
    preview: Preview
    #: What the camera looks at (None: no camera), and how the screens call it.
    source: FrameSource | None
    source_name: str
    url: str
    _threads: list[threading.Thread] = field(default_factory=list)

    @property
    def host_link(self) -> str:
        return f"{self.url}#t={self.tokens.host}"

    def serve_in_thread(self) -> None:
        """Answer the screens from a thread (the caller goes on: the demo plays its script)."""
        thread = threading.Thread(target=self.http.serve_forever, name="http", daemon=True)
        thread.start()
        self._threads.append(thread)

    def watch(self, **run: Any) -> None:
        """Let the camera read its source in a thread (``run``: see ``Camera.run``; by default
        ``READ_FPS`` frames a second)."""
        if self.source is not None:
            self.camera.start(self.source, **{"name": self.source_name, "fps": READ_FPS, **run})

    def close(self) -> None:
        """Stop the camera (its source is let go), the clock, the HTTP server; close the store."""
        self.camera.stop()
        if self.source is not None:
            self.source.close()
        self.table.clock.cancel()
        if self._threads:
            self.http.shutdown()
        self.http.server_close()
        self.store.close()


def open_table(db: Path, *, host: str, port: int, camera: str | FrameSource = "none",
               camera_says: str | None = None, public_host: str | None = None,
               whose: str = "the table's") -> ServedTable:
    """Open the database ``db`` (its writer lock first: a second server stops here), the links
    file next to it, the camera and the HTTP server on ``host``:``port`` (0: any free port).

    ``camera`` is a ``--camera`` spec (see ``server.camera.open_camera``) or a frame source
    itself (the demo's synthetic table; ``camera_says`` is then how the screens call it).
    ``public_host`` is the address the links print (default ``host``). Raises
    :class:`OpenError` with one line naming what failed (``whose`` database or links file)."""
    from tableassist.markers.registry import load_registry

    try:
        store = Store(db)
    except StoreError as exc:
        raise OpenError(f"cannot open {whose} database: {exc}") from None
    try:
        try:
            tokens = Tokens(links_file(db))
        except OSError as exc:
            raise OpenError(f"cannot write {whose} links file {links_file(db)}: "
                            f"{(exc.strerror or str(exc)).lower()}") from None
        if isinstance(camera, str):
            try:
                from tableassist.server.camera import CameraError
                source, status = open_camera(camera)
            except CameraError as exc:
                raise OpenError(f"--camera {camera}: {exc}") from None
            name = camera_name(camera)
        else:
            source, name = camera, camera_says or "camera"
            status = CameraStatus(state="starting", notice=f"{name}: starting")
        try:
            table = Table(store, tokens)
            registry = load_registry()
            eye = Camera(pipeline_for=pipeline_for(registry), play_again=table.play_again,
                         status=status)
            # before the server subscribes to the table: a table nobody has looked at yet
            # sends nothing (and reads nothing from the store) while it is put together
            table.camera = eye
            eye.subscribe(table.show_camera)
            table.follow(eye.follow)
            server = create_app(table)
            preview = Preview(server, registry)
            eye.on_frame(preview)
            try:
                http = make_server(host, port, server.app, threaded=True,
                                   request_handler=QuietHandler)
            except (OSError, SystemExit) as exc:  # werkzeug exits when the port is taken
                reason = getattr(exc, "strerror", None) or "the address is in use or not available"
                raise OpenError(f"cannot listen on {host}:{port}: {reason}") from None
        except BaseException:
            if source is not None:
                source.close()
            raise
    except BaseException:
        store.close()
        raise
    url = f"http://{public_host or host}:{http.server_port}/"
    server.public_url = url  # known only now that --port 0 has its port
    return ServedTable(store, tokens, table, server, http, eye, preview, source, name, url)
