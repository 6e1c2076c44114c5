"""Where a broadcast's time goes inside the server: each ``act`` timed stage by stage.

Installed in a benchmark's server process before it starts (``bench_broadcast_tables --stages``),
by wrapping the library's and the server's own functions (the server's code is unchanged). Each
``act`` event gets a record, stamped on ``time.perf_counter()`` (CLOCK_MONOTONIC: one clock for
the benchmark's processes):

- ``read``: its Socket.IO message taken from the WebSocket (the connection's reading thread);
- ``handler``: its handler running (python-socketio starts a thread per event);
- ``commit0``/``commit1``: the log's SQLite transaction (``append_all``, the one transaction of
  an act's entries: BEGIN IMMEDIATE .. COMMIT);
- ``broadcast0``/``broadcast1``: every room's payload built and handed to Socket.IO;
- ``emits``: each emit's time after ``broadcast0`` (queued for its screens' writers);
- ``writes``: for each packet of it a screen's writer thread sent, the time it was written
  (``ws.send`` returned), and how long that write took;
- ``ack``: the handler returned (its answer queued).

At exit the records go as JSON lines to the file named by ``$BENCH_STAGES``, and after them one
line ``{"gc": [[generation, start, seconds], …]}``: every collection of the garbage collector
(``gc.callbacks``), which holds every thread of the process while it runs.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import threading
import time
from typing import Any

_local = threading.local()
_records: list[dict[str, Any]] = []
_read_at: dict[int, float] = {}
_collections: list[tuple[int, float, float]] = []


def install() -> None:
    import socketio
    from engineio import packet as eio_packet
    from engineio import socket as eio_socket

    from tableassist.server import app as ta_app
    from tableassist.server import socket_events
    from tableassist.table import sqlite_store

    now = time.perf_counter
    server_cls = socketio.Server

    handle_event = server_cls._handle_event

    def _handle_event(self: Any, eio_sid: str, namespace: str, id: Any, data: Any) -> Any:
        if isinstance(data, list) and data and data[0] == "act":
            _read_at[id_of(data)] = now()
        return handle_event(self, eio_sid, namespace, id, data)

    internal = server_cls._handle_event_internal

    def _handle_event_internal(self: Any, server: Any, sid: str, eio_sid: str, data: Any,
                               namespace: str, id: Any) -> Any:
        read = _read_at.pop(id_of(data), None)
        if read is None:
            return internal(self, server, sid, eio_sid, data, namespace, id)
        rec = {"read": read, "handler": now(), "emits": [], "writes": []}
        _local.rec = rec
        try:
            return internal(self, server, sid, eio_sid, data, namespace, id)
        finally:
            rec["ack"] = now()
            _local.rec = None
            _records.append(rec)

    server_cls._handle_event = _handle_event
    server_cls._handle_event_internal = _handle_event_internal

    append = sqlite_store.SqliteStore.append_all

    def _append(self: Any, *args: Any, **kwargs: Any) -> Any:
        rec = getattr(_local, "rec", None)
        t0 = now()
        try:
            return append(self, *args, **kwargs)
        finally:
            if rec is not None:
                rec["commit0"], rec["commit1"] = t0, now()

    sqlite_store.SqliteStore.append_all = _append

    broadcast = ta_app.TableServer.broadcast

    def _broadcast(self: Any) -> None:
        rec = getattr(_local, "rec", None)
        t0 = now()
        try:
            broadcast(self)
        finally:
            if rec is not None and "broadcast0" not in rec:
                rec["broadcast0"], rec["broadcast1"] = t0, now()

    ta_app.TableServer.broadcast = _broadcast

    send = eio_socket.Socket.send

    def _send(self: Any, pkt: Any) -> Any:
        rec = getattr(_local, "rec", None)
        if rec is not None and pkt.packet_type == eio_packet.MESSAGE:
            pkt._bench = rec
            rec["emits"].append(now())
        return send(self, pkt)

    eio_socket.Socket.send = _send

    encode = eio_packet.Packet.encode

    def _encode(self: Any, *args: Any, **kwargs: Any) -> Any:
        _local.writing = getattr(self, "_bench", None)
        return encode(self, *args, **kwargs)

    eio_packet.Packet.encode = _encode

    ws_send = socket_events.InlineWebSocket.send

    def _ws_send(self: Any, data: Any) -> Any:
        rec = getattr(_local, "writing", None)
        t0 = now()
        try:
            return ws_send(self, data)
        finally:
            if rec is not None:
                t1 = now()
                rec["writes"].append((t1, t1 - t0))
                _local.writing = None

    socket_events.InlineWebSocket.send = _ws_send

    started: dict[str, float] = {}

    def _collected(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started["t"] = now()
        elif "t" in started:
            _collections.append((info["generation"], started["t"], now() - started.pop("t")))

    gc.callbacks.append(_collected)

    out = os.environ.get("BENCH_STAGES")
    if out:
        atexit.register(lambda: Path_write(out))

        # Written every few seconds too: a server that takes longer than the benchmark waits
        # to stop is killed, and its atexit never runs (then its stages printed nan).
        def _keep_writing() -> None:
            while True:
                time.sleep(3.0)
                Path_write(out)

        threading.Thread(target=_keep_writing, daemon=True, name="bench-stages").start()


def id_of(data: Any) -> int:
    return id(data)


def Path_write(path: str) -> None:
    """Every record so far (the file is replaced whole, so a reader never sees half of it)."""
    part = path + ".part"
    with open(part, "w") as f:
        for rec in list(_records):
            f.write(json.dumps(rec) + "\n")
        f.write(json.dumps({"gc": list(_collections)}) + "\n")
    os.replace(part, path)


def install_profile(path: str) -> None:
    """cProfile over the table servers' broadcasts (one at a time; the others run unprofiled),
    its statistics written to ``path`` at exit."""
    import cProfile

    from tableassist.server import app as ta_app

    prof = cProfile.Profile()
    lock = threading.Lock()
    broadcast = ta_app.TableServer.broadcast

    def _broadcast(self: Any) -> None:
        if not lock.acquire(blocking=False):
            return broadcast(self)
        try:
            prof.enable()
            try:
                return broadcast(self)
            finally:
                prof.disable()
        finally:
            lock.release()

    ta_app.TableServer.broadcast = _broadcast
    atexit.register(lambda: prof.dump_stats(path))
