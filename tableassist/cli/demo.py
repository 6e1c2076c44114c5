"""Watch the camera play a scripted game on a synthetic table, live on the tablet."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from tableassist.cli.language import reason, say
from tableassist.games.messages import Message
from tableassist import cli
from tableassist.demo.play import Demo
from tableassist.demo.scripts import SCRIPTS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="abandon_ship", choices=sorted(SCRIPTS),
                        help=Message("demo.help.game", "which game the synthetic table plays "
                                     "(default abandon_ship)"))
    parser.add_argument("--port", type=cli.port, default=8765,
                        help=Message("demo.help.port", "port (default 8765; 0: a free one)"))
    parser.add_argument("--host", default="127.0.0.1",
                        help=Message("demo.help.host", "address to listen on (default 127.0.0.1: "
                                     "this machine only; 0.0.0.0 to open it on a tablet on the "
                                     "same network)"))
    parser.add_argument("--db", type=Path, default=None,
                        help=Message("demo.help.db", "database for the demo game (default: a "
                                     "temporary file)"))
    parser.add_argument("--once", action="store_true",
                        help=Message("demo.help.once", "play the script once and exit (default: "
                                     "keep serving after it)"))
    parser.add_argument("--camera-size", type=cli.camera_size, default=None, metavar="WxH",
                        help=Message("demo.help.camera_size", "the synthetic camera's frame size, "
                                     "e.g. 640x480, to see what a smaller camera reads (default: "
                                     "the script's, 1280x720 or 1600x900)"))
    parser.add_argument("--fast", action="store_true",
                        help=Message("demo.help.fast", "do not wait for each frame's time (for "
                                     "tests and benchmarks)"))


def run(args: argparse.Namespace) -> int:
    from tableassist.cli.serve import restore_signals, stop_on_signals
    handlers = stop_on_signals()  # a SIGTERM closes the store as Ctrl+C does
    try:
        return _run(args)
    finally:
        restore_signals(handlers)


def _tablet_hint(host: str) -> Message:
    """How to watch the demo on a tablet: the server listens on this machine only by default."""
    if host in ("127.0.0.1", "localhost", "::1"):
        return Message("demo.tablet_local", "On a tablet: this listens on 127.0.0.1 (this machine) "
                       "only; start it with --host 0.0.0.0 (scripts/start demo --host 0.0.0.0) and "
                       "open the host link with this computer's network address in place of "
                       "127.0.0.1.")
    return Message("demo.tablet_lan", "On a tablet on the same network: open the host link above.")


def _run(args: argparse.Namespace) -> int:
    from tableassist.server.served import OpenError
    try:
        demo = Demo(args.game, host=args.host, port=args.port, db=args.db, size=args.camera_size)
    except OpenError as exc:
        print(say(reason(exc)), file=sys.stderr)
        return 2
    try:
        demo.start()
        print(say(Message("demo.started", "tableassist demo: a scripted game of {game}, read by the "
                          "synthetic table's camera", game=args.game)))
        print(say(Message("demo.host_link", "Open the host screen to watch it live:"))
              + f"\n  {demo.host_link}", flush=True)
        print(say(_tablet_hint(args.host)), flush=True)
        tablet = demo.play(realtime=not args.fast)
        m = demo.measure()
        session = demo.table.session
        print(say(Message("demo.script_over", "the camera's script is over: {actions} actions; "
                          "{read} of {inputs} CAM inputs read without a tap; {taps} one-tap "
                          "confirmations and {tablet} tablet inputs; latency frame to view p95 "
                          "{latency} ms", actions=len(session.steps) if session else 0,
                          read=m["read_without_tap"], inputs=m["cam_inputs"],
                          taps=len(tablet.tapped), tablet=len(tablet.done) - len(tablet.tapped),
                          latency=str(m["latency_p95_ms"]))), flush=True)
        rest = demo.finish(pace=0 if args.fast else 0.25)
        session = demo.table.session
        result = session.game.result() if session else None
        if result is not None:
            print(say(Message("demo.over", "the tablet played the rest ({rest} actions): the game "
                              "is over, {count, plural, =0 {nobody won} other {{winners} won}}; the "
                              "end screen is on the host link", rest=rest,
                              count=len(result["winners"]), winners=tuple(result["winners"]))),
                  flush=True)
        if not args.once:
            print(say(Message("demo.serving", "Still serving the table; press Ctrl+C to stop.")),
                  flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        demo.close()
    return 0
