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

from tableassist.cli import language
from tableassist.cli.language import error, reason, say, warning
from tableassist.games.messages import Message
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
                        help=Message("serve.help.host", "address to listen on (default: all, so "
                                     "tablets on the network can join; 127.0.0.1 keeps it to this "
                                     "machine)"))
    parser.add_argument("--port", type=cli.port, default=DEFAULT_PORT,
                        help=Message("serve.help.port", "port (default {port}; 0 picks a free one)",
                                     port=str(DEFAULT_PORT)))
    parser.add_argument("--db", type=cli.database, default=None,
                        help=Message("serve.help.db", "the table's database (default {file}; a "
                                     "venue's other tables are files beside it; {postgres})",
                                     file=str(default_db()), postgres=language.DB_HELP))
    parser.add_argument("--box", type=Path, default=None, metavar="DIR",
                        help=Message("serve.help.box", "your box: your own values for the "
                                     "components (default {folder})", folder=str(default_box_dir())))
    parser.add_argument("--camera", default="auto", metavar="INDEX|URL|FILE|DIR|demo|none",
                        help=Message("serve.help.camera", "the camera that reads the table (and the "
                                     "host screen's preview): a webcam index, a network camera's "
                                     "URL (http://… MJPEG as phone camera apps serve it, rtsp://…), "
                                     "a video, a folder of images, demo, or none (default: camera "
                                     "0 if there is one, else none)"))
    parser.add_argument("--camera-size", type=cli.camera_size, default=None, metavar="WxH",
                        help=language.CAMERA_SIZE_HELP)
    parser.add_argument("--record", nargs="?", type=Path, const=BESIDE, default=None,
                        metavar="DIR",
                        help=Message("serve.help.record", "let the host record the camera, to "
                                     "replay a misread with tableassist replay-camera: the host "
                                     "screen gets the switch (off until the host turns it on; "
                                     "every screen says when it records). Each game's frames go "
                                     "in a folder of DIR (default: recordings/ beside the "
                                     "database), about 100 MB a minute at 1920x1080, and are "
                                     "deleted with the game unless the host keeps them"))
    parser.add_argument("--public-url", default=None, metavar="URL",
                        help=Message("serve.help.public_url", "a venue on PostgreSQL served by "
                                     "several processes: the venue's address as people reach it, "
                                     "the proxy's (http://HOST:PORT/); the links and join cards "
                                     "name it"))
    parser.add_argument("--advertise", default=None, metavar="HOST:PORT",
                        help=Message("serve.help.advertise", "a venue on PostgreSQL: where the "
                                     "proxy reaches this process (default: --host and --port, this "
                                     "machine's address for 0.0.0.0)"))
    parser.add_argument("--record-limit", type=cli.whole_number(Message("serve.what.record_limit", "a recording's limit in MB"), 100,
                                                                1_000_000),
                        default=None, metavar="MB",
                        help=Message("serve.help.record_limit", "a game's recording stops at this "
                                     "size (default {limit} MB, about 40 minutes at 1920x1080)",
                                     limit=str(LIMIT_MB)))


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
    from tableassist.i18n.registry_words import unreadable_registry
    from tableassist.markers.registry import RegistryError
    from tableassist.server.served import OpenError, serve_venue

    db = args.db or default_db()
    record: Path | None = None if args.record is BESIDE else args.record
    if args.record is BESIDE:
        if is_postgres(db):
            print(say(Message("serve.record_needs_folder", "--record needs a folder with a "
                              "PostgreSQL database: --record DIR")), file=sys.stderr)
            return 2
        record = beside(db)
    if record is not None and record.exists() and not record.is_dir():
        print(say(Message("serve.record_not_folder", "--record {folder}: not a folder",
                          folder=str(record))), file=sys.stderr)
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
            print(say(reason(exc)), file=sys.stderr)
            return 2
        except RegistryError as exc:   # the marker files beside the package are broken
            print(say(error("serve", unreadable_registry(exc))), file=sys.stderr)
            return 2
        try:
            return _serve(served, record_asked=record is not None)
        finally:
            served.close()
    finally:
        restore_signals(old_handlers)


def _serve(served: ServedVenue, *, record_asked: bool = False) -> int:
    if served.venue.warning:
        print(say(warning(served.venue.warning)), file=sys.stderr)
    for name, said in served.resume().items():
        print(say(said if name == "main" else Message("serve.table_said", "table {table}: {said}",
                                                      table=name, said=said)), file=sys.stderr)
    for name, problem in served.problems.items():
        print(say(Message("serve.not_served", "table {table} is not served: {why}", table=name,
                          why=problem)), file=sys.stderr)
    if served.share is not None and "main" not in served.tables:
        return _serve_share(served)
    served.watch()
    host_url = served.host_link
    print(say(Message("serve.serving", "tableassist: serving the table at {url}", url=served.url)),
          flush=True)
    print(say(Message("serve.host_link", "Open the host screen (keep this link to yourself; it can "
                      "end games):")) + f"\n  {host_url}")
    print(say(Message("serve.database", "database: {where}", where=served.store.where)))
    box = served.table.box
    print(say(Message("serve.box", "your box: {folder}", folder=str(box.folder) if box is not None
                      else Message("serve.no_box", "none"))))
    mode = getattr(served.source, "mode", None)
    print(say(Message("serve.camera", "camera: {notice}", notice=served.camera.status.notice))
          + (f" ({mode})" if mode else ""))
    recorder = served.main.recorder
    if recorder is not None:
        print(say(Message("serve.recording", "recording: available on the host screen (off until "
                          "the host turns it on); kept in {folder}",
                          folder=str(recorder.recordings.folder))))
    elif record_asked:
        print(say(warning(Message("serve.no_recording", "--record: this table has no camera of its "
                                  "own (a camera agent's frames stay on its computer); nothing is "
                                  "recorded"))), file=sys.stderr)
    if served.main.source is None:
        print(say(Message("serve.agent", "a camera agent next to the webcam (keep it to yourself "
                          "too):")) + f"\n  {served.main.agent_command(served.url)}")
    others = [t for t in served.venue.tables() if t.name != "main" and not t.closed]
    if others:
        print(say(Message("serve.more_tables", "and {count, plural, one {# more table} other "
                          "{# more tables}}: {tables}", count=len(others),
                          tables=tuple(f"{t.title} ({served.table_url(t.name)})" for t in others))))
    print(say(Message("serve.venue_page", "The venue page for the staff (tables: create, rename, "
                      "close, join cards):")) + f"\n  {served.staff_link}")
    try:
        import segno
        segno.make(host_url, error="m").terminal(compact=True)
    except (ImportError, OSError):
        pass
    return _forever(served)


def _serve_share(served: ServedVenue) -> int:
    """A process of a venue on PostgreSQL that does not serve the home table: what it serves."""
    assert served.share is not None and served.http is not None
    print(say(Message("serve.share", "tableassist: a process of the venue, reached at {address}, "
                      "serving the table at {url}", address=served.share.address, url=served.url)),
          flush=True)
    print(say(Message("serve.share_tables", "this process serves {count, plural, one {# table} "
                      "other {# tables}} now: {tables} (the others are served by the venue's other "
                      "processes; a table nobody serves is taken by the least loaded)",
                      count=len(served.tables),
                      tables=tuple(sorted(served.tables)) or Message("serve.none_yet", "none yet"))))
    print(say(Message("serve.share_venue_page", "The venue page for the staff (every table of "
                      "every process):")) + f"\n  {served.staff_link}")
    return _forever(served)


def _forever(served: ServedVenue) -> int:
    from tableassist.server.served import settle_memory

    print(say(Message("serve.ctrl_c", "Press Ctrl+C to stop; the game is saved after every action.")),
          flush=True)
    settle_memory()
    try:
        assert served.http is not None
        served.http.serve_forever()
    except KeyboardInterrupt:
        pass
    print(say(Message("serve.stopped", "tableassist: stopped; every action is saved in the database")),
          flush=True)
    return 0
