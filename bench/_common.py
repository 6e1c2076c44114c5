"""What the benchmarks of ``bench/`` do alike: their ``--smoke`` run, the ratio of two medians as
they print it, percentiles, the machine's load; for those that play a scripted table's video, its
cut and its pace; for those with screens, a quick disconnect, Debian's Chromium and the lean
Socket.IO client (:class:`Lean`) that holds many screens on one thread.

A benchmark runs its baseline and its candidate in one process, interleaved, and prints medians
and their ratio, never one absolute time: the machine is shared and noisy (STYLE.md). Each one
also takes ``--smoke``: a tiny size (a few frames, actions or tables; a second or two of work)
that goes through its whole path and prints its numbers in the usual shape, which mean nothing
at that size. ``scripts/bench --smoke`` and ``tests/test_bench.py`` run every benchmark that
way, so that none breaks unnoticed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import selectors
import socket
import struct
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

Frame = TypeVar("Frame", bound=tuple[Any, ...])

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
                 if os.path.exists(p)), None)


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A benchmark's argument parser: its docstring's first line, and ``--smoke``."""
    ap = argparse.ArgumentParser(description=(doc or "").strip().partition("\n")[0])
    ap.add_argument("--smoke", action="store_true",
                    help="a tiny size, to see that the benchmark runs (its numbers mean nothing)")
    return ap


def parse(ap: argparse.ArgumentParser, smoke: Mapping[str, Any],
          argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The benchmark's arguments. With ``--smoke``, the sizes in ``smoke`` (destination -> value)
    replace the defaults; an option given on the command line still wins."""
    args = ap.parse_args(argv)
    if args.smoke:
        unknown = [name for name in smoke if not hasattr(args, name)]
        assert not unknown, f"smoke sizes for options the benchmark does not have: {unknown}"
        ap.set_defaults(**smoke)
        args = ap.parse_args(argv)
        print("smoke run (tiny sizes: it shows the benchmark runs; its numbers mean nothing): "
              + ", ".join(f"{k}={getattr(args, k)}" for k in smoke), flush=True)
    return args


def ratio(candidate: float, baseline: float) -> str:
    """``candidate / baseline`` as the benchmarks print it (``x0.42``); ``x-`` when the baseline
    is nothing (a smoke run's CPU time can be zero clock ticks)."""
    return f"x{candidate / baseline:.2f}" if baseline else "x-"


def pct(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, a sample of them (nan for none)."""
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def cut(scripted: Any, seconds: float | None) -> Any:
    """The scripted game (a ``demo.scripts.ScriptedGame``) with its video's first ``seconds``
    only (None: all of it), as a benchmark's ``--seconds`` asks."""
    if seconds is None or seconds >= scripted.duration:
        return scripted
    return dataclasses.replace(scripted, duration=seconds)


def paced(frames: Iterable[Frame], speed: float = 1.0) -> Iterator[Frame]:
    """Each of ``frames`` (tuples, the video time in seconds first) when its time comes, as a
    webcam gives them; ``speed`` times the video's pace (a smoke run's is faster). A frame that
    comes late (rendering it took longer) is given at once."""
    t0 = time.perf_counter()
    for frame in frames:
        time.sleep(max(0.0, t0 + frame[0] / speed - time.perf_counter()))
        yield frame


def disconnect(sio: Any) -> None:
    """Disconnect a python-socketio client without the 3 s websocket-client waits for a close
    echo its own reading thread has already consumed (as ``tests/server/conftest.py``'s
    ``Client.close``)."""
    ws = getattr(sio.eio, "ws", None)
    if ws is not None:
        close = ws.close
        ws.close = lambda *a, **k: close(timeout=0.05)
    sio.disconnect()


def load() -> str:
    """The machine's 1-minute load average and its cores, to print beside the numbers."""
    return f"{os.getloadavg()[0]:.2f} (1-minute load average) on {os.cpu_count()} cores"


def chromium() -> str:
    """Debian's chromium, which the benchmarks with a page drive through Playwright; exits with
    a sentence when it is not installed."""
    if CHROMIUM is None:
        raise SystemExit("Debian's chromium is not installed (scripts/setup --test installs it)")
    return CHROMIUM


# -- the lean Socket.IO client ------------------------------------------------------------------

#: Linux's socket option (and control message) for the kernel's time of a read's arrival.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_TIMESPEC = struct.Struct("qq")
_ANCILLARY = socket.CMSG_SPACE(_TIMESPEC.size)


class Lean:
    """One Socket.IO screen spoken by hand: the Engine.IO 4 / Socket.IO 5 text protocol over
    wsproto (the WebSocket library under the server's simple-websocket), many of them on one
    thread (:func:`lean_messages`), about what a browser tab costs the machine. python-socketio's
    client starts a thread per message, which on two cores costs more than the server's sending.

    It joins the namespace with its key (``token``) and language (``lang``) when Engine.IO opens
    and answers Engine.IO's pings itself; the benchmark gets every other message, each with the
    time it was read and the kernel's time of its arrival on the socket (``SO_TIMESTAMPNS``), so
    that the time a screen's loop took to come to it is not counted as the server's. As a
    browser's, its socket has no Nagle delay (``TCP_NODELAY``)."""

    def __init__(self, url: str, path: str = "/", token: str | None = None,
                 lang: str | None = None, data: Any = None) -> None:
        from wsproto import ConnectionType, WSConnection
        from wsproto.events import Request
        parts = urlsplit(url)
        self.token, self.lang, self.data = token, lang, data
        self.sock = socket.create_connection((parts.hostname, parts.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.lock = threading.Lock()   # a sender in another thread than the reading one
        self.parts: list[str] = []
        self.closed = False
        prefix = f"/{path.strip('/')}/" if path.strip("/") else "/"
        self.sock.sendall(self.ws.send(Request(
            host=parts.netloc, target=f"{prefix}socket.io/?EIO=4&transport=websocket")))

    def send(self, text: str) -> None:
        from wsproto.events import TextMessage
        with self.lock:
            try:
                self.sock.sendall(self.ws.send(TextMessage(data=text)))
            except OSError:
                pass

    def receive(self) -> list[tuple[str, float, float]]:
        """Read the socket once: its finished messages, each with its ``perf_counter`` time of
        reading and of the kernel's arrival (Engine.IO's open and pings answered here, not
        returned); :attr:`closed` once the connection has ended."""
        from wsproto.events import CloseConnection, Ping, TextMessage
        try:
            data, ancillary, _flags, _addr = self.sock.recvmsg(1 << 16, _ANCILLARY)
        except OSError:
            data, ancillary = b"", []
        arrived = time.perf_counter()
        if not data:
            self.closed = True
            return []
        kernel = arrived
        for level, kind, stamp in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = _TIMESPEC.unpack(stamp[:_TIMESPEC.size])
                # CLOCK_REALTIME to perf_counter's CLOCK_MONOTONIC
                kernel = min(arrived, sec + nsec / 1e9 - (time.time() - time.perf_counter()))
        self.ws.receive_data(data)
        out = []
        for event in self.ws.events():
            if isinstance(event, TextMessage):
                self.parts.append(event.data)
                if event.message_finished:
                    text, self.parts = "".join(self.parts), []
                    if text.startswith("0"):     # Engine.IO open: join with the key
                        auth = {"token": self.token} if self.token else {}
                        if self.lang:
                            auth["lang"] = self.lang
                        self.send("40" + (json.dumps(auth) if auth else ""))
                    elif text == "2":            # Engine.IO ping
                        self.send("3")
                    else:
                        out.append((text, arrived, kernel))
            elif isinstance(event, Ping):
                with self.lock:
                    self.sock.sendall(self.ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                self.closed = True
                break
        return out

    def close(self) -> None:
        from wsproto.events import CloseConnection
        with self.lock:
            try:
                self.sock.sendall(self.ws.send(CloseConnection(code=1000)))
            except Exception:  # noqa: BLE001 - already closed by the server
                pass
        self.sock.close()


def lean_messages(sel: selectors.BaseSelector,
                  timeout: float | None) -> Iterator[tuple[Lean, str, float, float]]:
    """The messages of the :class:`Lean` screens registered in ``sel`` (each with itself as its
    data) that come within ``timeout`` s: (screen, text, read at, arrived at); a screen whose
    connection ended is unregistered."""
    for key, _mask in sel.select(timeout):
        screen = key.data
        for text, arrived, kernel in screen.receive():
            yield screen, text, arrived, kernel
        if screen.closed:
            sel.unregister(screen.sock)
