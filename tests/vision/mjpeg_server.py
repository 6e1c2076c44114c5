"""A real MJPEG-over-HTTP camera for tests: what a phone camera app serves (``multipart/x-mixed-replace``
JPEG parts, one per picture), from a list of frames, on 127.0.0.1. It can be stopped (every connection is
closed, as when the phone's app or Wi-Fi goes away), frozen (connections stay open but no picture comes)
and started again on the same port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

BOUNDARY = b"frame"


class MJPEGCamera:
    def __init__(self, frames: Sequence[np.ndarray], *, fps: float = 20.0, path: str = "/video") -> None:
        self.jpegs = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes() for f in frames]
        self.fps = fps
        self.path = path
        self.port = 0
        self.sent = 0
        self.connections = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self.frozen = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def start(self) -> MJPEGCamera:
        camera = self
        self._stopped.clear()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                if self.path != camera.path:
                    self.send_error(404)
                    return
                camera.connections += 1
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY.decode()}")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                k = 0
                try:
                    while not camera._stopped.is_set():
                        if camera.frozen.is_set():
                            time.sleep(0.02)
                            continue
                        jpeg = camera.jpegs[k % len(camera.jpegs)]
                        self.wfile.write(b"--" + BOUNDARY + b"\r\nContent-Type: image/jpeg\r\n"
                                         + f"Content-Length: {len(jpeg)}\r\n\r\n".encode() + jpeg + b"\r\n")
                        self.wfile.flush()
                        camera.sent += 1
                        k += 1
                        time.sleep(1.0 / camera.fps)
                except OSError:
                    pass          # the client went away
                finally:
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """The camera goes away: no more connections, and the open ones are closed."""
        self._stopped.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
