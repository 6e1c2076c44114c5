"""Run a table's camera next to the webcam and send what it sees to the table's server.

    tableassist camera --server http://192.168.1.20:8765 --table table-4 --key K [--camera 0]

The camera agent itself is ``tableassist/agent/`` (its journal, its link to the server, its
camera); this module reads the command line and puts them together. Exit code 0 on Ctrl+C, 1 when
the staff closed the table, 2 for bad arguments or a refusal (a wrong key).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tableassist.cli import language
from tableassist.cli.language import error, reason, say, warning
from tableassist.games.messages import Message


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tableassist import cli
    from tableassist.server.camera import READ_FPS
    parser.add_argument("--server", required=True, metavar="URL",
                        help=Message("camera.help.server", "the venue's address, as the server "
                                     "prints it (http://192.168.1.20:8765)"))
    parser.add_argument("--table", default=None, metavar="NAME",
                        help=Message("camera.help.table", "which table this camera reads (default: "
                                     "the one in --server's path /t/NAME/, else main)"))
    parser.add_argument("--key", default=os.environ.get("TABLEASSIST_CAMERA_KEY"),
                        help=Message("camera.help.key", "the table's camera key (or "
                                     "$TABLEASSIST_CAMERA_KEY)"))
    parser.add_argument("--camera", default="0", metavar="INDEX|FILE|DIR|URL|demo",
                        help=Message("camera.help.camera", "the webcam index (default 0), a video, "
                                     "a folder of images, a network camera's URL, or demo (the "
                                     "synthetic table)"))
    parser.add_argument("--camera-size", type=cli.camera_size, default=None, metavar="WxH",
                        help=language.CAMERA_SIZE_HELP)
    parser.add_argument("--fps", type=cli.whole_number("--fps", 1, 60), default=READ_FPS,
                        help=Message("camera.help.fps", "frames read per second (default {fps})",
                                     fps=str(READ_FPS)))
    parser.add_argument("--journal", type=Path, default=None,
                        help=Message("camera.help.journal", "where the events not yet acknowledged "
                                     "are kept (default: camera-<table>.json in the user's state "
                                     "folder)"))


def run(args: argparse.Namespace) -> int:
    from tableassist.agent import Agent, Journal, JournalError, default_journal, where
    from tableassist.i18n.registry_words import unreadable_registry
    from tableassist.markers.registry import RegistryError
    from tableassist.cli.serve import restore_signals, stop_on_signals
    from tableassist.server.camera import camera_name
    from tableassist.table.venue import NAME

    try:
        server, table = where(args.server, args.table)
    except ValueError as exc:
        print(say(error("camera", reason(exc))), file=sys.stderr)
        return 2
    if not NAME.fullmatch(table):
        print(say(error("camera", Message("camera.bad_table", "--table {table}: a table's name is "
                                          "1–32 small letters, digits and '-'", table=repr(table)))),
              file=sys.stderr)
        return 2
    if not args.key:
        print(say(error("camera", Message("camera.no_key", "give the table's camera key with --key "
                                          "(the venue page shows the whole command line)"))),
              file=sys.stderr)
        return 2
    try:
        from tableassist.vision import SourceError, open_source
        source = open_source(args.camera, args.camera_size)
    except ImportError:
        print(say(error("camera", Message("camera.no_vision", "camera support (tableassist.vision) "
                                          "is not part of this installation"))), file=sys.stderr)
        return 2
    except SourceError as exc:
        print(say(error("camera", Message("camera.cannot_open", "--camera {camera}: {why}",
                                          camera=args.camera, why=reason(exc)))), file=sys.stderr)
        return 2
    except RegistryError as exc:   # the demo table is drawn from the marker files
        print(say(error("camera", unreadable_registry(exc))), file=sys.stderr)
        return 2
    try:
        journal = Journal(args.journal or default_journal(table))
    except JournalError as exc:
        source.close()
        print(say(error("camera", reason(exc))), file=sys.stderr)
        return 2
    if journal.warning:
        print(say(warning(journal.warning)), file=sys.stderr)

    def tell(text: str) -> None:
        print(say(text), flush=True)

    try:
        agent = Agent(server, table, args.key, source, camera_name(args.camera), journal,
                      fps=args.fps, say=tell, lang=language.current())
    except RegistryError as exc:
        source.close()
        journal.close()
        print(say(error("camera", unreadable_registry(exc))), file=sys.stderr)
        return 2
    handlers = stop_on_signals()
    try:
        tell(Message("camera.started", "tableassist camera: {camera} for table {table} at {server} "
                     "(agent {agent}; {count, plural, one {# batch} other {# batches}} to send again)",
                     camera=camera_name(args.camera), table=repr(table), server=server,
                     agent=journal.agent, count=len(journal.batches)))
        return agent.run()
    except KeyboardInterrupt:
        return 0
    finally:
        agent.close()
        restore_signals(handlers)
