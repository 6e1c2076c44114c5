"""The work a broadcast does, counted (never timed): an action builds its own history line, not
the whole history again; the lobby is built when it changes, not per broadcast; the host's and the
table's buttons are built once for both; each message is written once per language; a
broadcast's bytes carry the new history lines only. Real server, real python-socketio clients in
each of the seven rooms a four-player table has."""

from __future__ import annotations

import json
import random

import pytest

from tableassist import i18n
from tableassist.server import table as table_module
from tableassist.server.table import Table
from tableassist.table.session import Step
from tests.server.conftest import PATIENCE, wait_until

PLAYERS = ["Ann", "Bea", "Cy", "Dee"]


@pytest.fixture
def seven(server):
    """A Shipwrecked game with a screen in each room: host, table, the four players, a
    spectator (the table's screen first)."""
    table = server.client(server.tokens.table)
    answer = table.call("start", {"game": "shipwrecked",
                                  "players": [{"name": n} for n in PLAYERS]})
    assert answer["ok"], answer
    row = answer["row"]
    players = server.tokens.players(row, PLAYERS)
    screens = [table, server.client(server.tokens.host),
               *(server.client(players[n]) for n in PLAYERS), server.client()]
    return screens


def play(server, screens, n: int, seed: int = 1) -> int:
    """``n`` random legal actions from the table's screen, each waited for on every screen;
    returns how many were played (fewer if the game ended)."""
    rng = random.Random(seed)
    session = server.table.current()
    done = 0
    for _ in range(n):
        choices = server.table.actions_for(server.table.tokens.grant(server.tokens.table,
                                                                     server.table.game_row))
        if not choices:
            break
        version = server.table.version
        answer = screens[0].act(rng.choice(choices)["action"])
        assert answer["ok"], answer
        for screen in screens:
            screen.wait_state(lambda s: s["version"] > version, "the action's state")
        done += 1
    assert session is server.table.current()
    return done


def counting(monkeypatch, owner, name: str) -> list:
    """Count calls of ``owner.name`` (the real one still runs); the list grows by one per call."""
    real = getattr(owner, name)
    calls: list = []

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_an_action_builds_its_own_history_line_not_the_whole_history(server, seven,
                                                                      monkeypatch):
    play(server, seven, 10)                      # a history to rebuild, if it were rebuilt
    built = counting(monkeypatch, Step, "public")
    session = server.table.current()
    for i in range(10):
        before, steps = len(built), len(session.steps)
        assert play(server, seven, 1, seed=i) == 1
        # one line per new step, for all seven rooms together
        assert len(built) - before == len(session.steps) - steps == 1
    # an undo replays the game: its steps are made again, equal, and keep their lines
    before = len(built)
    assert seven[0].call("undo", {})["ok"]
    for screen in seven:
        screen.wait_state(lambda s: len(s["history"]) == len(session.steps))
    assert len(built) == before
    # every screen's history, merged from the deltas, is the session's
    for screen in seven:
        assert screen.states[-1]["history"] == session.history()


def test_a_correction_builds_the_corrected_line_alone(server, seven, monkeypatch):
    session = server.table.current()
    other = None
    for i in range(40):   # to an entry that could have been another action
        assert play(server, seven, 1, seed=i) == 1
        last = session.steps[-1]
        other = next((c["action"] for c in server.table.alternatives(last.seq)
                      if not c["current"]), None)
        if other is not None and len(session.steps) > 3:
            break
    assert other is not None
    played = len(session.steps)
    built = counting(monkeypatch, Step, "public")
    version = server.table.version
    answer = seven[0].call("correct", {"seq": last.seq, "action": other})
    assert answer["ok"], answer
    for screen in seven:
        screen.wait_state(lambda s: s["version"] > version)
    # the game is replayed with the other action: the entries before it keep their lines
    assert len(session.steps) == played and len(built) == 1
    assert seven[-1].raw and json.loads(seven[-1].raw[-1])["history_delta"]["from"] == played - 1
    for screen in seven:
        assert screen.states[-1]["history"] == session.history()


def test_the_lobby_is_built_when_it_changes_not_per_broadcast(server, seven, monkeypatch):
    built = counting(monkeypatch, table_module, "game_catalog")   # one per lobby built
    play(server, seven, 10)
    assert built == []
    lobby = server.table.lobby()
    assert server.table.lobby() is lobby
    # a change of the games table builds it again, once, for every broadcast after it
    assert seven[0].call("close", {})["ok"]
    for screen in seven[:2]:
        screen.wait_state(lambda s: s["game"] is None)
    assert len(built) == 1
    assert [s["current"] for s in seven[0].states[-1]["lobby"]["saved"]] == [False]
    assert seven[0].call("resume", {"row": seven[0].states[-1]["lobby"]["saved"][0]["id"]})["ok"]
    seven[0].wait_state(lambda s: s["game"] is not None)
    assert len(built) == 2
    assert seven[0].states[-1]["lobby"]["saved"][0]["current"] is True


def test_the_host_and_the_table_get_the_buttons_built_once(server, seven, monkeypatch):
    built = counting(monkeypatch, Table, "actions_for")
    version = server.table.version
    server.app.broadcast()
    for screen in seven:
        screen.wait_state(lambda s: s["version"] >= version)
    # the host's and the table's (the same), each player's own, the spectator's none
    roles = [grant.role for _table, grant in built]
    assert len(roles) == 6 and roles.count("host") + roles.count("table") == 1
    assert sorted(r for r in roles if r not in ("host", "table")) == ["player"] * 4 + ["spectator"]
    assert seven[0].states[-1]["actions"] == seven[1].states[-1]["actions"]
    assert seven[6].states[-1]["actions"] == []


def test_the_host_and_the_table_in_one_language_cost_the_renders_of_one(server, seven,
                                                                        monkeypatch):
    """German host and table screens share the view, the prompts, the new lines and the
    buttons: each is written once in German, for both."""
    play(server, seven, 5)
    rendered = counting(monkeypatch, i18n, "render")
    rendered_json = counting(monkeypatch, i18n, "render_json")

    def renders() -> int:
        server.app.broadcast()               # the same state again: a broadcast of everything
        server.app.broadcast()
        rendered.clear(), rendered_json.clear()
        server.app.broadcast()
        return len(rendered) + len(rendered_json)

    assert renders() == 0                    # English screens: no render at all
    server.client(server.tokens.table, "de")
    alone = renders()
    assert alone > 0 and {args[1] for args in rendered} <= {"de"}
    server.client(server.tokens.host, "de")
    assert renders() == alone


def test_a_broadcast_carries_the_new_lines_only(server, seven):
    """The history part of a broadcast is the new line(s): its bytes do not grow with the game."""
    play(server, seven, 3)
    spectator = seven[-1]
    early = len(spectator.raw)
    play(server, seven, 20, seed=2)
    deltas = [json.loads(raw)["history_delta"] for raw in spectator.raw[early:]]
    sizes = [len(json.dumps(d["lines"])) for d in deltas]
    assert all(len(d["lines"]) <= 2 for d in deltas)
    assert max(sizes) < 4 * max(1, min(s for s in sizes if s)) + 2000
    assert spectator.states[-1]["history"] == server.table.current().history()


def test_a_broadcast_in_german_and_spanish_loads_no_locale_data(server, seven, monkeypatch):
    """Babel parses a language code and loads its data at every call given the code: lists and
    numbers are written with the locale parsed once per language and process."""
    from babel import Locale
    server.client(server.tokens.table, "de")
    server.client(server.tokens.host, "es")
    play(server, seven, 3)
    real = Locale.parse.__func__
    parsed: list[str] = []

    def counted(cls, identifier, *args, **kwargs):
        if isinstance(identifier, str):
            parsed.append(identifier)
        return real(cls, identifier, *args, **kwargs)

    monkeypatch.setattr(Locale, "parse", classmethod(counted))
    assert play(server, seven, 5, seed=3) == 5
    assert parsed == []


def test_a_websocket_is_read_by_its_own_request_thread(server, seven):
    """No screen holds a reader thread of simple-websocket's (the thread that waits for the
    screen's messages reads them), and a screen that starts on long-polling and upgrades, as a
    browser without WebSocket first would, gets its broadcasts on the WebSocket too."""
    import threading

    import socketio

    assert not [t.name for t in threading.enumerate() if "simple_websocket" in t.name]
    states: list[dict] = []
    upgraded = socketio.Client(reconnection=False)
    upgraded.on("state", states.append)
    upgraded.connect(server.url, wait_timeout=5 * PATIENCE)   # polling first, then the upgrade
    try:
        wait_until(lambda: upgraded.transport() == "websocket", what="the upgrade")
        seen = len(states)
        assert play(server, seven, 1) == 1
        wait_until(lambda: len(states) > seen, what="a broadcast after the upgrade")
        assert not [t.name for t in threading.enumerate() if "simple_websocket" in t.name]
    finally:
        upgraded.disconnect()


def test_a_broadcast_walks_no_message_in_python_and_writes_each_rooms_json_once(server, seven,
                                                                                 monkeypatch):
    """python-socketio looked for binary data by walking every emitted message in Python
    (``Packet.data_is_binary``) before writing its JSON: a third of a broadcast's time under the
    profiler. The server's packet class writes the JSON once, and that is the whole walk."""
    import socketio.packet

    from tableassist.server.socket_events import JsonOncePacket
    play(server, seven, 2)
    walked: list = []
    real = socketio.packet.Packet.data_is_binary   # a class method
    monkeypatch.setattr(socketio.packet.Packet, "data_is_binary",
                        classmethod(lambda cls, data: walked.append(data) or real(data)))
    written = counting(monkeypatch, JsonOncePacket, "encode")
    assert play(server, seven, 5, seed=3) == 5
    # the clients (python-socketio, in this process) walk their own messages
    assert [d for d in walked if isinstance(d, list) and d and d[0] == "state"] == []
    # each action: its answer, and one state per room (seven rooms, all speaking English)
    assert len(written) == 5 * (1 + 7)


def test_a_packet_with_bytes_is_still_sent_as_binary():
    """The JSON encoder's refusal of bytes is what tells a binary message (a camera preview)."""
    from tableassist.server.socket_events import JsonOncePacket
    plain = JsonOncePacket(data=["state", {"a": [1, "x", None]}])
    assert plain.encode() == '2["state",{"a":[1,"x",null]}]'
    picture = JsonOncePacket(data=["camera_frame", {"jpeg": b"\xff\xd8", "n": 1}])
    encoded = picture.encode()
    assert encoded == ['51-["camera_frame",{"jpeg":{"_placeholder":true,"num":0},"n":1}]',
                       b"\xff\xd8"]


def test_an_event_and_a_ping_start_no_thread(server, seven, monkeypatch):
    """Each event used to run in a thread started for it (python-socketio's ``async_handlers``)
    and each connection's every ping cycle in another (python-engineio's ``_send_ping``, asleep
    for the ping interval): now an event runs in the thread that read it and the process's one
    ping thread pings every connection."""
    import threading

    import engineio.socket

    from tableassist.server import socket_events
    play(server, seven, 1)
    started = counting(monkeypatch, threading.Thread, "start")
    sleepers = counting(monkeypatch, engineio.socket.Socket, "_send_ping")
    sent: list = []
    real_send = engineio.socket.Socket.send

    def send(socket, pkt):
        if pkt.packet_type == engineio.packet.PING:
            sent.append(socket.sid)
        return real_send(socket, pkt)

    monkeypatch.setattr(engineio.socket.Socket, "send", send)
    eio = server.app.socketio.server.eio
    monkeypatch.setattr(eio, "ping_interval", 0.2)   # pings due within the test
    for socket in eio.sockets.values():
        socket.last_ping = None   # as if its PONG came: the next ping is due in 0.2 s
        socket.schedule_ping()
    assert play(server, seven, 5, seed=4) == 5
    ids = set(eio.sockets)
    # every connection is pinged, answers (its PONG schedules the next) and stays
    # each connection's own count (a sum over all could be reached with one left unpinged)
    wait_until(lambda: all(sent.count(sid) >= 2 for sid in ids), 10.0 * PATIENCE,
               "two pings of every screen")
    assert all(screen.sio.connected for screen in seven)
    # (the test's python-socketio clients, in this process, start a thread per message they get)
    targets = [getattr(getattr(t, "_target", None), "__name__", "") for (t,) in started]
    assert "_handle_event_internal" not in targets and "_send_ping" not in targets, targets
    assert sleepers == []
    assert socket_events.PINGER._thread is not None and socket_events.PINGER._thread.is_alive()
