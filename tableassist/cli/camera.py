"""Run a table's camera next to the webcam and send what it sees to the table's server.

    tableassist camera --server http://192.168.1.20:8765 --table table-4 --key K [--camera 0]

The camera agent: a small computer at the table (a Raspberry Pi with a webcam) runs the vision
pipeline and sends the tracker's table events — not video — to the server over Socket.IO,
authenticated with the table's camera key (the venue page gives the whole command line). The
server runs the reader and the engine (``tableassist/server/agent.py``). The preview picture goes
to the host screen, a couple of times a second, only while one is connected.

Nothing is lost and nothing doubled: each frame's events are a batch with the agent's id and a
number in its sequence, kept in the agent's journal (``--journal``, on disk) until the server
acknowledges it; after a dropped connection or a restart of the agent the batches not
acknowledged are sent again, and the server drops a batch it already has. Exit code 0 on Ctrl+C,
1 when the staff closed the table, 2 for bad arguments or a refusal (a wrong key).
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

#: How often the agent sends the preview picture while the host screen shows it.
AGENT_PREVIEW_FPS = 2
#: A batch not acknowledged within this long (s) on a live connection is sent again.
ACK_TIMEOUT = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tableassist import cli
    from tableassist.server.camera import READ_FPS
    parser.add_argument("--server", required=True, metavar="URL",
                        help="the venue's address, as the server prints it "
                             "(http://192.168.1.20:8765)")
    parser.add_argument("--table", default=None, metavar="NAME",
                        help="which table this camera reads (default: the one in --server's "
                             "path /t/NAME/, else main)")
    parser.add_argument("--key", default=os.environ.get("TABLEASSIST_CAMERA_KEY"),
                        help="the table's camera key (or $TABLEASSIST_CAMERA_KEY)")
    parser.add_argument("--camera", default="0", metavar="INDEX|FILE|DIR|URL|demo",
                        help="the webcam index (default 0), a video, a folder of images, a "
                             "network camera's URL, or demo (the synthetic table)")
    parser.add_argument("--camera-size", type=cli.camera_size, default=None, metavar="WxH",
                        help=cli.CAMERA_SIZE_HELP)
    parser.add_argument("--fps", type=cli.whole_number("--fps", 1, 60), default=READ_FPS,
                        help=f"frames read per second (default {READ_FPS})")
    parser.add_argument("--journal", type=Path, default=None,
                        help="where the events not yet acknowledged are kept (default: "
                             "camera-<table>.json in the user's state folder)")


def default_journal(table: str) -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "tableassist" / f"camera-{table}.json"


class Journal:
    """The agent's id and the batches the server has not acknowledged, on disk (mode 0600,
    replaced atomically at each change), so a restarted agent sends them again under the same
    id and numbers. One agent per journal: its writer lock is held while it runs."""

    def __init__(self, path: Path) -> None:
        from tableassist.table.files import read_json
        from tableassist.table.writer_lock import LockError, WriterLock

        self.path = path
        self.warning: str | None = None
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._writer: Any = WriterLock.acquire(path, instead="give this agent another "
                                                                 "--journal")
        except LockError as exc:
            raise SystemExit(f"tableassist camera: {exc}") from None
        try:
            data = read_json(path) or {}
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            agent, seq, batches = data.get("agent"), data.get("seq", 0), data.get("batches", [])
            if not (isinstance(agent, str) and 0 < len(agent) <= 64 and isinstance(seq, int)
                    and isinstance(batches, list) and all(isinstance(b, dict) for b in batches)):
                raise ValueError("its fields are damaged")
        except (OSError, ValueError) as exc:
            if path.exists():
                self.warning = f"the journal {path} could not be read ({exc}); starting a new one"
            agent, seq, batches = secrets.token_hex(8), 0, []
        self.agent: str = agent
        self.seq: int = seq
        self.batches: list[dict[str, Any]] = batches
        self._save()

    def _save(self) -> None:
        from tableassist.table.files import replace_json
        replace_json(self.path, {"agent": self.agent, "seq": self.seq, "batches": self.batches})

    def add(self, reading: str, t: float, events: list[dict[str, Any]]) -> dict[str, Any]:
        """A new batch, kept on disk before it is sent."""
        self.seq += 1
        batch = {"agent": self.agent, "seq": self.seq, "reading": reading, "t": round(t, 4),
                 "events": events}
        self.batches.append(batch)
        self._save()
        return batch

    def done(self, seq: int) -> None:
        """The server answered batch ``seq`` (taken, or dropped as a duplicate or stale)."""
        kept = [b for b in self.batches if b["seq"] > seq]
        if len(kept) != len(self.batches):
            self.batches = kept
            self._save()

    def keep_only(self, reading: str) -> None:
        """Drop the batches of another reading: the server would drop them (another game, or
        another run of the server, whose reader is gone)."""
        kept = [b for b in self.batches if b["reading"] == reading]
        if len(kept) != len(self.batches):
            self.batches = kept
            self._save()

    def close(self) -> None:
        self._writer.release()


class Agent:
    """The camera agent: frames → pipeline → batches → server (see the module docstring).

    ``run()`` reads the source in this thread until :meth:`stop`; the Socket.IO client's threads
    take the server's ``follow`` and ``preview``, and a sender thread sends the journal's batches
    one at a time, each once the one before is answered."""

    def __init__(self, server: str, table: str, key: str, source: Any, source_name: str,
                 journal: Journal, *, fps: float, say: Any = print) -> None:
        import socketio

        from tableassist.markers.registry import load_registry
        from tableassist.camera.live import MARKERS_EVERY
        from tableassist.server.camera import Every, PreviewPicture, pipeline_for

        self.server, self.table, self.key = server, table, key
        self.source, self.source_name = source, source_name
        self.journal = journal
        self.fps = fps
        self.say = say
        registry = load_registry()
        self.pipeline_for = pipeline_for(registry)
        self.picture = PreviewPicture(registry)
        self.sio = socketio.Client(reconnection=True, reconnection_attempts=0,
                                   reconnection_delay=0.5, reconnection_delay_max=3)
        self.stopped = threading.Event()
        self.exit_code = 0
        self._cond = threading.Condition()
        self.reading: str | None = None      # the reading the pipeline tracks for
        self.game: str | None = None
        self.pipeline: Any = None
        self._pipeline_reading: str | None = None
        self._server_reading: str | None = None
        self._fresh = True                    # a new tracker: ask the server for a new reading
        self._synced = False                  # the server's follow arrived on this connection
        self._in_flight: int | None = None    # the batch sent and not yet answered
        self._sent_at = 0.0
        self.preview = False
        self.device: dict[str, Any] = {"state": "starting", "notice": f"{source_name}: starting",
                                       "mode": None, "markers": None, "stickers": []}
        self._markers_every = Every(1.0 / MARKERS_EVERY)   # the count of markers, as a local camera
        self._preview_every = Every(AGENT_PREVIEW_FPS)
        self._refused: str | None = None
        self._closed: str | None = None
        self.sent = 0
        self._handlers()

    # -- the connection ------------------------------------------------------------------------

    def _auth(self) -> dict[str, Any]:
        return {"token": self.key, "agent": self.journal.agent, "name": platform.node()}

    def _handlers(self) -> None:
        sio = self.sio

        @sio.event
        def connect() -> None:
            self.say(f"connected to table {self.table!r} at {self.server}")

        @sio.event
        def connect_error(data: Any) -> None:
            # the server's refusal comes as {"message"}; a line that cannot be had as a text
            message = data.get("message") if isinstance(data, dict) else None
            if isinstance(message, str) and message and message != self._refused:
                self._refused = message
                self.say(f"the server refused this camera agent: {message}")

        @sio.event
        def disconnect(reason: Any = None) -> None:
            with self._cond:
                self._synced = False
                self._in_flight = None
                self._cond.notify_all()
            if self._closed:
                self.say(self._closed)
                self.exit_code = 1
                self.stop()
            elif reason == sio.reason.SERVER_DISCONNECT:
                # the server let go of this connection (another of this agent's replaced it):
                # connect again, as after a dropped line
                threading.Thread(target=self._connect, daemon=True).start()
            elif not self.stopped.is_set():
                self.say("the connection to the server dropped; reconnecting …")

        @sio.on("error")
        def error(data: Any) -> None:
            if isinstance(data, dict) and data.get("event") == "closed":
                self._closed = f"the table was closed: {data.get('message')}"
            elif isinstance(data, dict):
                self.say(f"the server says: {data.get('message')}")

        @sio.on("follow")
        def follow(data: Any) -> None:
            self._follow(data)

        @sio.on("preview")
        def preview(data: Any) -> None:
            with self._cond:
                self.preview = bool(isinstance(data, dict) and data.get("on"))

    def _follow(self, data: Any) -> None:
        """The server's reading: go on with it, or start tracking afresh for a new one."""
        if not isinstance(data, dict) or not isinstance(data.get("reading"), str):
            return
        with self._cond:
            reading, game = data["reading"], data.get("game")
            self.preview = bool(data.get("preview"))
            self._server_reading = reading
            if self.reading is None or self._fresh:
                # a new tracker: send what the journal holds of this reading first (the server
                # still reads it), then ask for a reading of its own
                self.journal.keep_only(reading)
                self._fresh = True
            elif reading != self.reading:
                self.journal.keep_only(reading)      # nothing of another reading is wanted
                self.reading, self.game = reading, game if isinstance(game, str) else None
            self._synced = True
            self._cond.notify_all()
        self._send_status()

    def _connect(self, *, first: bool = False) -> bool:
        """Connect (again), waiting for the server as long as it takes; False when stopped, or
        refused at the ``first`` connection (a wrong key: trying again would not help)."""
        import socketio

        waiting = False
        while not self.stopped.is_set():
            try:
                self.sio.connect(self.server, auth=self._auth(), transports=["websocket"],
                                 socketio_path=f"t/{self.table}/socket.io", wait_timeout=5)
                return True
            except socketio.exceptions.ConnectionError as exc:
                if self._refused and first:
                    return False
                if not waiting:
                    self.say(f"waiting for the server at {self.server} ({exc}) …")
                    waiting = True
                self.stopped.wait(2.0)
        return False

    # -- sending -------------------------------------------------------------------------------

    def _sender(self) -> None:
        """One batch at a time, in the journal's order, each sent again until answered."""
        while not self.stopped.is_set():
            with self._cond:
                while not self.stopped.is_set():
                    if self._synced and self._in_flight is None and \
                            (self.journal.batches or self._fresh):
                        break
                    if self._in_flight is not None and \
                            time.monotonic() - self._sent_at > ACK_TIMEOUT:
                        self._in_flight = None   # unanswered on a live line: send it again
                        continue
                    self._cond.wait(0.5)
                if self.stopped.is_set():
                    return
                batch = self.journal.batches[0] if self.journal.batches else None
                if batch is not None:
                    self._in_flight, self._sent_at = batch["seq"], time.monotonic()
            try:
                if batch is not None:
                    self.sio.emit("camera_events", batch,
                                  callback=lambda answer, seq=batch["seq"]: self._answered(seq,
                                                                                           answer))
                else:
                    answer = self.sio.call("camera_reading", {"agent": self.journal.agent},
                                           timeout=ACK_TIMEOUT)
                    self._began(answer)
            except Exception as exc:  # noqa: BLE001 - a dropped line: sent again after reconnecting
                with self._cond:
                    self._in_flight = None
                    self._synced = self._synced and self.sio.connected
                if not self.stopped.is_set():
                    self.stopped.wait(0.2)
                    if batch is None:
                        self.say(f"could not ask for a new reading ({type(exc).__name__}); "
                                 "trying again")

    def _answered(self, seq: int, answer: Any) -> None:
        with self._cond:
            if isinstance(answer, dict) and not answer.get("ok", False):
                self.say(f"the server refused batch {seq}: {answer.get('error')}")
            self.journal.done(seq)   # taken, a duplicate, stale or refused: not sent again
            self.sent += 1
            if self._in_flight == seq:
                self._in_flight = None
            self._cond.notify_all()

    def _began(self, answer: Any) -> None:
        if not (isinstance(answer, dict) and answer.get("ok") and
                isinstance(answer.get("reading"), str)):
            raise RuntimeError(f"no reading ({answer!r})")
        with self._cond:
            self.reading = answer["reading"]
            self.game = answer.get("game") if isinstance(answer.get("game"), str) else None
            self.preview = bool(answer.get("preview"))
            self._fresh = False
            self._cond.notify_all()
        self.say(f"reading table {self.table!r}: "
                 + (f"a game of {self.game}" if self.game else "no game (command cards only)"))

    def _send_status(self) -> None:
        if not self.sio.connected:
            return
        try:
            self.sio.emit("camera_status", {"agent": self.journal.agent,
                                            "at": time.monotonic(), **self.device})
        except Exception:  # noqa: BLE001 - sent again at the next change or connection
            pass

    # -- frames --------------------------------------------------------------------------------

    def _device(self, **fields: Any) -> None:
        """The source's state (``read_frames``): kept, and sent to the server."""
        self.device.update(fields)
        self.say(f"camera: {self.device['notice']}")
        self._send_status()

    def process(self, frame: Any, t: float) -> None:
        with self._cond:
            reading, game = self.reading, self.game
            if reading is None or self._fresh:
                return   # the server has not said which game to track yet
            if self.pipeline is None or self._pipeline_reading != reading:
                self.pipeline = self.pipeline_for(game)
                self._pipeline_reading = reading
            pipeline = self.pipeline
        try:
            events = pipeline.update(frame, t)
        except Exception as exc:  # noqa: BLE001 - a bug must not stop the camera
            self.say(f"the camera could not read a frame ({type(exc).__name__}: {exc})")
            return
        if events:
            with self._cond:
                if self._pipeline_reading == self.reading:   # not overtaken by a new reading
                    self.journal.add(reading, t, [e.to_json() for e in events])
                    self._cond.notify_all()
        seen = pipeline.last
        markers = len(seen.detections) if seen is not None and game else None
        stickers = [asdict(f) for f in seen.failing] if seen is not None and game else []
        if stickers != self.device["stickers"]:   # the stickers failing: told when they change
            self.device.update(markers=markers, stickers=stickers)
            self._send_status()
        elif markers != self.device["markers"] and self._markers_every.due():
            self.device["markers"] = markers
            self._send_status()
        if self.preview and self.sio.connected and self._preview_every.due():
            picture = self.picture(frame, seen, game=game, reading=game is not None)
            if picture is not None:
                try:
                    self.sio.emit("camera_frame", picture)
                except Exception:  # noqa: BLE001 - a picture missed is no loss
                    pass

    def run(self) -> int:
        """Connect, then read the source until stopped. Returns the exit code."""
        from tableassist.camera.frames import read_frames

        if not self._connect(first=True):
            if self._refused:
                self.say(f"tableassist camera: {self._refused}")
                return 2
            return self.exit_code
        threading.Thread(target=self._sender, name="sender", daemon=True).start()
        with self._cond:   # a video or a folder is not skipped while the server says what to read
            self._cond.wait_for(lambda: self.stopped.is_set() or
                                (self.reading is not None and not self._fresh), ACK_TIMEOUT)
        try:
            read_frames(self.source, self.process, self._device, stop=self.stopped,
                        name=self.source_name, fps=self.fps)
        finally:
            self.stop()
        return self.exit_code

    def stop(self) -> None:
        self.stopped.set()
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        self.stop()
        try:
            self.sio.disconnect()
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        self.source.close()
        self.journal.close()


def where(server: str, table: str | None) -> tuple[str, str]:
    """The server's base URL and the table: ``--server`` may be a table's own address
    (``http://h:8765/t/table-4/``), which names the table."""
    parts = urlsplit(server if "://" in server else f"http://{server}")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--server {server!r} is not an address such as http://192.168.1.20:8765")
    path = parts.path.strip("/").split("/")
    named = path[1] if len(path) >= 2 and path[0] == "t" else None
    return f"{parts.scheme}://{parts.netloc}", table or named or "main"


def run(args: argparse.Namespace) -> int:
    from tableassist.cli.serve import restore_signals, stop_on_signals
    from tableassist.server.camera import camera_name
    from tableassist.table.venue import NAME

    try:
        server, table = where(args.server, args.table)
    except ValueError as exc:
        print(f"tableassist camera: {exc}", file=sys.stderr)
        return 2
    if not NAME.fullmatch(table):
        print(f"tableassist camera: --table {table!r}: a table's name is 1–32 small letters, "
              "digits and '-'", file=sys.stderr)
        return 2
    if not args.key:
        print("tableassist camera: give the table's camera key with --key (the venue page "
              "shows the whole command line)", file=sys.stderr)
        return 2
    try:
        from tableassist.vision import SourceError, open_source
        source = open_source(args.camera, args.camera_size)
    except ImportError:
        print("tableassist camera: camera support (tableassist.vision) is not part of this "
              "installation", file=sys.stderr)
        return 2
    except SourceError as exc:
        print(f"tableassist camera: --camera {args.camera}: {exc}", file=sys.stderr)
        return 2
    try:
        journal = Journal(args.journal or default_journal(table))
    except OSError as exc:
        source.close()
        print(f"tableassist camera: cannot keep the journal: {exc}", file=sys.stderr)
        return 2
    if journal.warning:
        print(f"warning: {journal.warning}", file=sys.stderr)

    def say(text: str) -> None:
        print(text, flush=True)

    agent = Agent(server, table, args.key, source, camera_name(args.camera), journal,
                  fps=args.fps, say=say)
    handlers = stop_on_signals()
    try:
        say(f"tableassist camera: {camera_name(args.camera)} for table {table!r} at {server} "
            f"(agent {journal.agent}; {len(journal.batches)} batches to send again)")
        return agent.run()
    except KeyboardInterrupt:
        return 0
    finally:
        agent.close()
        restore_signals(handlers)
