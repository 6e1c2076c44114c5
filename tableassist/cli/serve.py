"""Serve the table: the tablet page and the live game over Socket.IO (tableassist serve)."""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
from pathlib import Path

from tableassist.server.app import QuietHandler, create_app
from tableassist.server.table import Table
from tableassist.server.tokens import Tokens, links_file
from tableassist.table.box import Box, default_box_dir
from tableassist.table.store import Store, StoreError, default_db

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tableassist import cli
    parser.add_argument("--host", default="0.0.0.0",
                        help="address to listen on (default: all, so tablets on the network can "
                             "join; 127.0.0.1 keeps it to this machine)")
    parser.add_argument("--port", type=cli.port, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--db", type=Path, default=None,
                        help=f"the table's database (default {default_db()})")
    parser.add_argument("--box", type=Path, default=None, metavar="DIR",
                        help=f"your box: your own values for the components (default "
                             f"{default_box_dir()})")
    parser.add_argument("--camera", default="auto", metavar="INDEX|FILE|DIR|demo|none",
                        help="camera preview source on the host screen (default: camera 0 if "
                             "there is one, else none)")


def lan_address() -> str:
    """This machine's address on the local network, for the join link (no packet is sent:
    connecting a UDP socket only picks the route)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def stop_on_signals() -> dict[int, object]:
    """SIGTERM (``kill``, a service manager) and SIGHUP (the terminal closed) stop the server as
    Ctrl+C does, so the store is closed and its WAL checkpointed: the database file alone is then
    complete. Without this they would end the process on the spot. Returns the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    return {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}


def restore_signals(handlers: dict[int, object]) -> None:
    for sig, handler in handlers.items():
        signal.signal(sig, handler)  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> int:
    db = args.db or default_db()
    old_handlers = stop_on_signals()
    try:
        try:
            store = Store(db)  # the writer lock first: a second server stops here, naming it
        except StoreError as exc:
            print(f"cannot open the table's database: {exc}", file=sys.stderr)
            return 2
        try:
            return _serve(args, db, store)
        finally:
            store.close()
    finally:
        restore_signals(old_handlers)


def _serve(args: argparse.Namespace, db: Path, store: Store) -> int:
    from werkzeug.serving import make_server

    try:
        tokens = Tokens(links_file(db))
    except OSError as exc:
        print(f"cannot write the table's links file {links_file(db)}: "
              f"{(exc.strerror or str(exc)).lower()}", file=sys.stderr)
        return 2
    table = Table(store, tokens, box=Box(args.box or default_box_dir()))
    try:
        session = table.resume_latest()
    except StoreError as exc:
        print(f"the last game cannot be resumed ({exc}); starting at the lobby", file=sys.stderr)
    else:
        if session is not None and session.warning:
            print(f"warning: {session.warning}", file=sys.stderr)

    from tableassist.server.camera import CameraError, start_camera
    try:
        camera = start_camera(args.camera, table)
    except CameraError as exc:
        print(f"--camera {args.camera}: {exc}", file=sys.stderr)
        return 2

    tserver = create_app(table)
    try:
        server = make_server(args.host, args.port, tserver.app, threaded=True,
                             request_handler=QuietHandler)
    except (OSError, SystemExit) as exc:  # werkzeug exits when the port is taken
        reason = getattr(exc, "strerror", None) or "the address is in use or not available"
        print(f"cannot listen on {args.host}:{args.port}: {reason}", file=sys.stderr)
        return 2
    shown_host = lan_address() if args.host in ("0.0.0.0", "::", "") else args.host
    public_url = f"http://{shown_host}:{server.server_port}/"
    tserver.public_url = public_url  # known only now that --port 0 has its port
    if camera is not None:
        camera.attach(tserver)

    host_url = f"{public_url}#t={tokens.host}"
    print(f"tableassist: serving the table at {public_url}", flush=True)
    print(f"Open the host screen (keep this link to yourself; it can end games):\n  {host_url}")
    print(f"database: {db}")
    print(f"your box: {table.box.folder if table.box else 'none'}")
    print(f"camera: {table.camera_status.get('notice')}")
    try:
        import segno
        segno.make(host_url, error="m").terminal(compact=True)
    except (ImportError, OSError):
        pass
    print("Press Ctrl+C to stop; the game is saved after every action.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if camera is not None:
            camera.stop()
        table.clock.cancel()
        server.server_close()
    print("tableassist: stopped; every action is saved in the database", flush=True)
    return 0
