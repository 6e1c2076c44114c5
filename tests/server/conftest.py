"""A real table server on 127.0.0.1 (a random port), and python-socketio clients that follow it.

No sleeps: every wait polls a condition until a deadline."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import socketio

from tableassist.agent.link import InOrderClient, disconnect
from tableassist.camera.live import Camera
from tableassist.server import Table, Tokens
from tableassist.server.served import ServedVenue, serve_venue
from tableassist.server.table import Clock
from tableassist.table.box import Box
from tableassist.table.store import Store
from tests.services import end

ROOT = Path(__file__).resolve().parents[2]


#: Every deadline of a wait is this many times the one a test names: a deadline only fails a test
#: that would otherwise hang, and the suite runs four workers on two shared cores, where a server
#: answer can take several times what it takes alone. A green wait returns at once regardless.
PATIENCE = 3.0


def wait_until(predicate: Callable[[], Any], timeout: float = 5.0,
               what: str | Callable[[], str] = "condition") -> Any:
    """``predicate()``'s first true value, polled for ``timeout`` × PATIENCE s; else an
    AssertionError naming ``what`` (a callable: worded when it fails, with what was seen)."""
    timeout *= PATIENCE
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            said = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout} s waiting for {said}")
        time.sleep(0.01)  # a poll interval, not a wait for the server


def camera_arguments(command: str) -> Any:
    """The arguments ``tableassist camera`` reads from ``command``, a line the venue prints
    (parsed by the command's own parser, as a shell would split it)."""
    import shlex
    from tableassist.cli import build_parser
    words = shlex.split(command)
    assert words[:2] == ["tableassist", "camera"], command
    return build_parser(words[1:]).parse_args(words[1:])


@dataclass
class Client:
    """A Socket.IO client that keeps every ``state`` and ``error`` it receives."""

    url: str
    token: str | None = None
    lang: str | None = None   # the screen's language, as the page sends it on connect
    states: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sio = InOrderClient(reconnection=False)
        self.sio.on("state", self._state)
        self.sio.on("error", lambda e: self.errors.append(e))

    def _state(self, payload: dict[str, Any]) -> None:
        """Keep the payload, with a change merged as the page merges it (the history's delta, and
        the parts it left out as ``unchanged``)."""
        import json
        self.raw.append(json.dumps(payload))
        delta = payload.pop("history_delta", None)
        if delta is not None:
            last = self.states[-1] if self.states else None
            if last is None or last["version"] != delta["base"] or "history" not in last:
                # as the page asks for the whole state; not once the test has disconnected (a
                # last broadcast may still arrive on the client's thread)
                if self.sio.connected:
                    try:
                        self.sio.emit("sync", {})
                    except socketio.exceptions.BadNamespaceError:
                        pass
                return
            payload["history"] = last["history"][:delta["from"]] + delta["lines"]
            for key in payload.pop("unchanged", []):
                payload[key] = last[key]
        self.states.append(payload)

    def connect(self) -> "Client":
        auth = {"token": self.token} if self.token is not None else None
        # a venue's table answers at its own path (/t/<name>/socket.io/), the home table at /
        path = urlsplit(self.url).path.strip("/")
        if self.lang is not None:
            auth = {**(auth or {}), "lang": self.lang}
        self.sio.connect(self.url, auth=auth, transports=["websocket"], wait_timeout=5,
                         socketio_path=f"{path}/socket.io" if path else "socket.io")
        wait_until(lambda: self.states, what="the first state")
        return self

    @property
    def state(self) -> dict[str, Any]:
        return self.states[-1]

    def call(self, event: str, data: Any = None) -> dict[str, Any]:
        return self.sio.call(event, data, timeout=5 * PATIENCE)

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        return self.call("act", {"action": action})

    def wait_state(self, predicate: Callable[[dict[str, Any]], Any], what: str = "state",
                   timeout: float = 5.0) -> dict[str, Any]:
        wait_until(lambda: self.states and predicate(self.states[-1]), timeout, what)
        return self.states[-1]

    def close(self) -> None:
        if self.sio.connected:
            disconnect(self.sio)   # without websocket-client's 3 s wait for a close echo


@dataclass
class RunningServer:
    url: str
    table: Table
    tokens: Tokens
    app: Any = None
    served: ServedVenue | None = None
    clients: list[Client] = field(default_factory=list)

    @property
    def camera(self) -> Camera:
        """The table's camera (without a source: a test feeds it events or frames)."""
        assert self.served is not None
        return self.served.camera

    def client(self, token: str | None = None, lang: str | None = None) -> Client:
        c = Client(self.url, token, lang).connect()
        self.clients.append(c)
        return c


@contextmanager
def serving(db: Path | Store, *, box: Box | None = None,
            clock: Clock | None = None) -> Iterator[RunningServer]:
    """The table ``tableassist serve --camera none`` serves (the same composition) on ``db``, in
    a thread of this process (with ``box``: the players' box, as ``--box`` gives it; ``clock``:
    the stop window's time and alarms, e.g. a test's ManualClock)."""
    served = serve_venue(db, host="127.0.0.1", port=0, box=box, clock=clock)
    served.serve_in_thread()
    running = RunningServer(served.url, served.table, served.tokens, served.server, served)
    try:
        yield running
    finally:
        for c in running.clients:
            c.close()
        served.close()


class ServerProcess:
    """``tableassist serve`` as a child process (so it can be killed with SIGKILL)."""

    def __init__(self, db: Path | str, *, port: int = 0, more: tuple[str, ...] = ()) -> None:
        self.db = db
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tableassist", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--db", str(db), "--camera", "none", *more],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.startup: list[str] = []  # what it printed up to its URL
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self._wait_for_url()

    def _read(self) -> None:
        for line in self.proc.stdout:  # type: ignore[union-attr]
            self.lines.put(line)

    def _wait_for_url(self, timeout: float = 60.0) -> str:   # a deadline: a loaded machine starts slowly
        deadline = time.monotonic() + timeout
        seen = self.startup
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            if "serving the table at" in line:
                return line.rsplit(" ", 1)[1].strip()
        raise AssertionError("the server did not start: " + "".join(seen))

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no clean shutdown, no flush
        self.proc.wait(timeout=10)
        self.proc.stdout.close()  # type: ignore[union-attr]

    def stop(self) -> None:
        end(self.proc)
        if self.proc.stdout and not self.proc.stdout.closed:
            self.proc.stdout.close()
