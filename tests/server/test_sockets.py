"""The server's connections send each message as it is written: an action's answer goes out right
behind the state broadcast it caused (two small writes in a row on one socket), and with Nagle's
algorithm on, the second waited for the peer's delayed ACK of the first, 40 ms on Linux: every
answer to a tablet took 44 ms instead of 3 (`tableassist/server/app.py`, `QuietHandler`). The
kernel's choice is what is checked: a time would be the machine's."""

from __future__ import annotations

import socket
import threading
import urllib.request

from tableassist.server.served import listen


def test_every_connection_the_server_accepts_has_nagle_off():
    def app(environ, start_response):
        conn = environ["werkzeug.socket"]       # the socket a WebSocket also runs on
        nodelay = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [str(nodelay).encode()]

    server = listen("127.0.0.1", 0, app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/", timeout=10) as answer:
            assert int(answer.read()) != 0
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)

