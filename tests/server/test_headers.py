"""What every HTTP answer of a real `tableassist serve` carries: no server version banner (not on
the page, a missing file, Socket.IO's polling and WebSocket handshake, nor an error), and a
Content-Security-Policy that forbids framing the page."""

from __future__ import annotations

import re
import socket
import urllib.error
import urllib.request

import pytest

from tests.server.conftest import ServerProcess


@pytest.fixture
def served(tmp_path):
    proc = ServerProcess(tmp_path / "table.sqlite3")
    try:
        yield proc.url.split("#")[0]
    finally:
        proc.stop()


def get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def raw_head(url: str, request: bytes) -> str:
    """The status line and headers the server answers ``request`` with, read off the socket."""
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    return data.split(b"\r\n\r\n")[0].decode("latin-1")


def test_no_answer_names_the_server_software_or_its_version(served):
    for path, status in [("", 200), ("app.js", 200), ("no-such-file.js", 404),
                         ("socket.io/?EIO=4&transport=polling", 200)]:
        code, headers = get(served + path)
        assert code == status, path
        assert headers.get_all("Server") == ["tableassist"], path
    for request in [
            b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: t\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
            b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            # answered by http.server's send_error (431), not by the app
            b"GET / HTTP/1.1\r\n" + b"".join(b"X%d: y\r\n" % i for i in range(120)) + b"\r\n"]:
        head = raw_head(served, request)
        lines = head.split("\r\n")
        assert lines[0].startswith("HTTP/1.1 "), head
        assert [line for line in lines if line.lower().startswith("server:")] in (
            [], ["Server: tableassist"]), head
        assert not re.search(r"werkzeug|python", head, re.I), head


def test_the_page_may_not_be_framed_by_another_site(served):
    for path in ("", "no-such-file.js"):
        _code, headers = get(served + path)
        policy = [p.strip() for p in headers["Content-Security-Policy"].split(";")]
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy, path
