"""Serve the table (or a venue's tables): the tablet page and the live game over Socket.IO."""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from tableassist.camera.recording import LIMIT_MB, beside
from tableassist.table.box import Box, default_box_dir
from tableassist.table.store import default_db, is_postgres

if TYPE_CHECKING:
    from tableassist.server.served import ServedVenue

DEFAULT_PORT = 8765
#: ``--record`` without a folder: beside the database (not a text: argparse would make a text
#: ``const`` a ``Path`` too, and ``Path("")`` is ``--record .``).
BESIDE = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tableassist import cli
    parser.add_argument("--host", default="0.0.0.0",
                        help="address to listen on (default: all, so tablets on the network can "
                             "join; 127.0.0.1 keeps it to this machine)")
    parser.add_argument("--port", type=cli.port, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--db", type=cli.database, default=None,
                        help=f"the table's database (default {default_db()}; a venue's other "
                             f"tables are files beside it){cli.DB_HELP}")
    parser.add_argument("--box", type=Path, default=None, metavar="DIR",
                        help="your box: your own values for the components (default "
                             f"{default_box_dir()})")
    parser.add_argument("--camera", default="auto", metavar="INDEX|URL|FILE|DIR|demo|none",
                        help="the camera that reads the table (and the host screen's preview): a "
                             "webcam index, a network camera's URL (http://… MJPEG as phone camera "
                             "apps serve it, rtsp://…), a video, a folder of images, demo, or none "
                             "(default: camera 0 if there is one, else none)")
    parser.add_argument("--camera-size", type=cli.camera_size, default=None, metavar="WxH",
                        help=cli.CAMERA_SIZE_HELP)
    parser.add_argument("--record", nargs="?", type=Path, const=BESIDE, default=None,
                        metavar="DIR",
                        help="let the host record the camera, to replay a misread with "
                             "tableassist replay-camera: the host screen gets the switch (off "
                             "until the host turns it on; every screen says when it records). "
                             "Each game's frames go in a folder of DIR (default: recordings/ "
                             "beside the database), about 100 MB a minute at 1920x1080, and are "
                             "deleted with the game unless the host keeps them")
    parser.add_argument("--public-url", default=None, metavar="URL",
                        help="a venue on PostgreSQL served by several processes: the venue's "
                             "address as people reach it, the proxy's (http://HOST:PORT/); the "
                             "links and join cards name it")
    parser.add_argument("--advertise", default=None, metavar="HOST:PORT",
                        help="a venue on PostgreSQL: where the proxy reaches this process "
                             "(default: --host and --port, this machine's address for 0.0.0.0)")
    parser.add_argument("--record-limit", type=cli.whole_number("a recording's limit in MB", 100,
                                                                1_000_000),
                        default=None, metavar="MB",
                        help=f"a game's recording stops at this size (default {LIMIT_MB} MB, "
                             "about 40 minutes at 1920x1080)")


def lan_address() -> str:
    """This machine's address on the local network, for the join link (no packet is sent:
    connecting a UDP socket only picks the route)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return str(s.getsockname()[0])
    except OSError:
        return "127.0.0.1"


#: What ``signal.signal`` takes and gives back: a function, ``SIG_DFL``/``SIG_IGN``, or None (a
#: handler not installed from Python).
SignalHandler = Callable[[int, FrameType | None], object] | int | None


def stop_on_signals() -> dict[signal.Signals, SignalHandler]:
    """SIGTERM (``kill``, a service manager) and SIGHUP (the terminal closed) stop the server as
    Ctrl+C does, so the store is closed and its WAL checkpointed: the database file alone is then
    complete. Without this they would end the process on the spot. Returns the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    return {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}


def restore_signals(handlers: dict[signal.Signals, SignalHandler]) -> None:
    for sig, handler in handlers.items():
        signal.signal(sig, handler)


def run(args: argparse.Namespace) -> int:
    from tableassist.server.served import OpenError, serve_venue

    db = args.db or default_db()
    record: Path | None = None if args.record is BESIDE else args.record
    if args.record is BESIDE:
        if is_postgres(db):
            print("--record needs a folder with a PostgreSQL database: --record DIR",
                  file=sys.stderr)
            return 2
        record = beside(db)
    if record is not None and record.exists() and not record.is_dir():
        print(f"--record {record}: not a folder", file=sys.stderr)
        return 2
    old_handlers = stop_on_signals()
    try:
        shown_host = lan_address() if args.host in ("0.0.0.0", "::", "") else args.host
        shared = is_postgres(db)
        advertise = args.advertise
        if shared and advertise is None and args.port:   # --port 0: the port it gets, on --host
            advertise = f"{shown_host}:{args.port}"
        try:
            served = serve_venue(db, host=args.host, port=args.port, camera=args.camera,
                                 camera_size=args.camera_size, public_host=shown_host,
                                 box=Box(args.box or default_box_dir()), record=record,
                                 record_limit=args.record_limit, share=shared,
                                 public_url=args.public_url, advertise=advertise)
        except OpenError as exc:
            print(exc, file=sys.stderr)
            return 2
        try:
            return _serve(served, record_asked=record is not None)
        finally:
            served.close()
    finally:
        restore_signals(old_handlers)


def _serve(served: ServedVenue, *, record_asked: bool = False) -> int:
    if served.venue.warning:
        print(f"warning: {served.venue.warning}", file=sys.stderr)
    for name, said in served.resume().items():
        print(said if name == "main" else f"table {name}: {said}", file=sys.stderr)
    for name, problem in served.problems.items():
        print(f"table {name} is not served: {problem}", file=sys.stderr)
    if served.share is not None and "main" not in served.tables:
        return _serve_share(served)
    served.watch()
    host_url = served.host_link
    print(f"tableassist: serving the table at {served.url}", flush=True)
    print(f"Open the host screen (keep this link to yourself; it can end games):\n  {host_url}")
    print(f"database: {served.store.where}")
    box = served.table.box
    print(f"your box: {box.folder if box is not None else 'none'}")
    mode = getattr(served.source, "mode", None)
    print(f"camera: {served.camera.status.notice}" + (f" ({mode})" if mode else ""))
    recorder = served.main.recorder
    if recorder is not None:
        print(f"recording: available on the host screen (off until the host turns it on); "
              f"kept in {recorder.recordings.folder}")
    elif record_asked:
        print("warning: --record: this table has no camera of its own (a camera agent's frames "
              "stay on its computer); nothing is recorded", file=sys.stderr)
    if served.main.source is None:
        print(f"a camera agent next to the webcam (keep it to yourself too):\n  "
              f"{served.main.agent_command(served.url)}")
    others = [t for t in served.venue.tables() if t.name != "main" and not t.closed]
    if others:
        print(f"and {len(others)} more tables: " + ", ".join(
            f"{t.title} ({served.table_url(t.name)})" for t in others))
    print(f"The venue page for the staff (tables: create, rename, close, join cards):\n  "
          f"{served.staff_link}")
    try:
        import segno
        segno.make(host_url, error="m").terminal(compact=True)
    except (ImportError, OSError):
        pass
    return _forever(served)


def _serve_share(served: ServedVenue) -> int:
    """A process of a venue on PostgreSQL that does not serve the home table: what it serves."""
    assert served.share is not None and served.http is not None
    print(f"tableassist: a process of the venue, reached at {served.share.address}, serving "
          f"the table at {served.url}", flush=True)
    print(f"this process serves {len(served.tables)} tables now: "
          + (", ".join(sorted(served.tables)) or "none yet") + " (the others are served by the "
          "venue's other processes; a table nobody serves is taken by the least loaded)")
    print(f"The venue page for the staff (every table of every process):\n  {served.staff_link}")
    return _forever(served)


def _forever(served: ServedVenue) -> int:
    from tableassist.server.served import settle_memory

    print("Press Ctrl+C to stop; the game is saved after every action.", flush=True)
    settle_memory()
    try:
        assert served.http is not None
        served.http.serve_forever()
    except KeyboardInterrupt:
        pass
    print("tableassist: stopped; every action is saved in the database", flush=True)
    return 0
