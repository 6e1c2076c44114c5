"""A venue end to end: two tables in one server, each read by its own camera agent looking at
rendered frames of the synthetic table; the agent and the server killed with SIGKILL mid-game.

The agents are the real ``tableassist camera`` (:class:`~tableassist.agent.Agent`, in a
thread of the test or as a child process) speaking Socket.IO to the real server; the screens are
python-socketio clients of each table."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tableassist.agent import Agent, Journal
from tableassist.demo.scripts import DEMO_PLAYERS, wreckers
from tableassist.server.served import serve_venue
from tableassist.table import catalog
from tests.server.conftest import ROOT, Client, wait_until

pytestmark = pytest.mark.slow  # end to end: rendered video through agents, server and screens

#: Table ``table-2``'s players: other names than the home table's, so that anything of one table
#: on a screen of the other is seen.
OTHERS = ("Dan", "Eli", "Flo")


class Frames:
    """Rendered frames in order; at ``hold`` (an index) no picture until ``go`` is set (a camera
    looking at a quiet table while the test does something else), then none after the last."""

    def __init__(self, frames: list[Any], hold: int | None = None) -> None:
        self.frames = list(frames)
        self.at = 0
        self.hold = hold
        self.go = threading.Event()

    def read(self) -> Any:
        if self.at == self.hold and not self.go.is_set():
            return None
        if self.at >= len(self.frames):
            return None
        self.at += 1
        return self.frames[self.at - 1]

    def close(self) -> None:
        self.go.set()


def renamed(actions: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, Any]]:
    return [{k: names.get(v, v) if isinstance(v, str) else v for k, v in a.items()}
            for a in actions]


def expected_state(scripted, players) -> dict[str, Any]:
    game = catalog.new_game(scripted.game, list(players), seed=scripted.seed)
    for action in renamed(scripted.expected, dict(zip(DEMO_PLAYERS, players))):
        game.apply(action)
    return game.state


def start_agent(url: str, name: str, key: str, source: Any, journal: Path) -> tuple[Agent, Any]:
    said: list[str] = []
    agent = Agent(url.rstrip("/"), name, key, source, "camera synthetic", Journal(journal),
                  fps=5, say=said.append)
    agent.said = said  # type: ignore[attr-defined]
    thread = threading.Thread(target=agent.run, name=f"agent {name}", daemon=True)
    thread.start()
    return agent, thread


def stop_agent(agent: Agent, thread: threading.Thread) -> None:
    agent.stop()
    thread.join(10)
    agent.close()


@pytest.fixture(scope="module")
def cuts(renderer) -> tuple[Any, list[Any]]:
    """The Wreckers cut (three cuts, then a wrong discard) and its frames, rendered once."""
    scripted = wreckers(wrong_move=True)
    return scripted, [f for _, f, _ in scripted.video(renderer).frames()]


def test_two_tables_with_an_agent_each_and_no_screen_hears_the_other_table(cuts, tmp_path):
    scripted, frames = cuts
    served = serve_venue(tmp_path / "table.sqlite3", host="127.0.0.1", port=0)
    agents = []
    try:
        served.create_table("Table 2")
        served.serve_in_thread()
        tables = {"main": (served.tables["main"], DEMO_PLAYERS),
                  "table-2": (served.tables["table-2"], OTHERS)}
        screens: dict[str, list[Client]] = {}
        for name, (table, players) in tables.items():
            colours = {p: scripted.colours[d] for p, d in zip(players, DEMO_PLAYERS)}
            table.table.start("wreckers", list(players), options=None, seed=scripted.seed,
                              colours=colours)
            screens[name] = [Client(table.url, token).connect() for token in
                             (table.tokens.host, table.tokens.table, None)]
        for name, (table, _players) in tables.items():
            agents.append(start_agent(served.url, name, table.tokens.camera, Frames(frames),
                                      tmp_path / f"agent-{name}.json"))
        for name, (table, players) in tables.items():
            wait_until(lambda: table.table.session.game.state == expected_state(scripted, players),
                       60, f"table {name}'s cuts read through its agent")
            host = screens[name][0]
            host.wait_state(lambda s: (s.get("camera_reader") or {}).get("notice"),
                            f"table {name}'s out-of-sync notice", timeout=20)
            assert host.state["camera"]["notice"].startswith("camera agent"), host.state.keys()
            assert {line["source"] for line in host.state["history"]} == {"camera"}
        for (agent, _thread), name in zip(agents, tables):
            link = tables[name][0].agents
            assert link.stats.taken > 0 and link.stats.duplicates == 0
        # no screen of one table ever received anything of the other
        for name, (_table, players) in tables.items():
            other = OTHERS if name == "main" else DEMO_PLAYERS
            for screen in screens[name]:
                assert screen.raw and not screen.errors
                for raw in screen.raw:
                    assert not any(f'"{p}"' in raw for p in other), (name, raw[:300])
                for state in screen.states:
                    if state.get("game"):
                        assert tuple(state["game"]["players"]) == players
    finally:
        for agent, thread in agents:
            stop_agent(agent, thread)
        for clients in locals().get("screens", {}).values():
            for c in clients:
                c.close()
        served.close()


#: The cut's frames split where the table is quiet: Bea's card has just been taken back (its
#: removal is the last event before) and Cy's not yet seen.
QUIET = 43
#: A frame of the empty cut spot (Bea's card gone, Cy's not laid yet). A camera that starts
#: reading again looks at it for two seconds: its first look is the table as found, so Cy's card,
#: laid after, is a move (a card laid while no camera read the table is part of the table found).
EMPTY = 38


#: A few frames after Cy's card is confirmed (the tracker reports it at frame 45). The batch
#: after Bea's cut is Cy's: the tracker keeps a card under a resting hand, so the cut cards are
#: not reported removed one by one (they go together at frame 60).
CY_LAID = 48


def after_the_quiet(frames: list[Any]) -> list[Any]:
    return [frames[EMPTY]] * 10 + frames[QUIET:]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def camera_process(url: str, table: str, key: str, folder: Path, journal: Path
                   ) -> subprocess.Popen:
    """``tableassist camera`` as a child process (so it can be killed with SIGKILL), writing
    what it says to ``<journal>.log``."""
    with open(journal.with_suffix(".log"), "a") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "tableassist", "camera", "--server", url, "--table", table,
             f"--key={key}", "--camera", str(folder), "--journal", str(journal), "--fps", "5"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def write_frames(frames: list[Any], folder: Path) -> Path:
    import cv2
    folder.mkdir()
    for k, frame in enumerate(frames):
        cv2.imwrite(str(folder / f"{k:04d}.png"), frame)
    return folder


def journal_batches(path: Path) -> list[tuple[int, list[dict[str, Any]]]]:
    """Each batch in the agent's journal: its number and its events."""
    try:
        return [(b["seq"], b.get("events", [])) for b in json.loads(path.read_text())["batches"]]
    except (OSError, ValueError, KeyError):
        return []


def appears(events: list[dict[str, Any]], item: str) -> bool:
    return any((e.get("sighting") or {}).get("item") == item and e.get("kind") == "appeared"
               for e in events)


def journal_seqs(path: Path) -> list[int]:
    try:
        return [b["seq"] for b in json.loads(path.read_text())["batches"]]
    except (OSError, ValueError, KeyError):
        return []


def test_kill_9_of_the_agent_resends_what_was_not_acknowledged_and_nothing_doubles(cuts,
                                                                                    tmp_path):
    """The server holds back its answer to the batch in which Bea's cut appears; the agent goes on
    (the next batch in its journal) and is killed with SIGKILL; the server then takes the batch
    (its answer goes nowhere). Started again on the same journal, the agent sends both batches
    again: the first is dropped as a duplicate, the second (Cy's cut) taken; then it reads on,
    the table as found (Cy's card lying there) not read a second time."""
    scripted, frames = cuts
    first = write_frames(frames[:CY_LAID], tmp_path / "before")
    then = write_frames(frames[CY_LAID:], tmp_path / "after")
    journal = tmp_path / "agent.json"
    served = serve_venue(tmp_path / "table.sqlite3", host="127.0.0.1", port=0)
    procs: list[subprocess.Popen] = []
    gate, held = threading.Event(), threading.Event()
    try:
        served.create_table("Table 2")
        served.serve_in_thread()
        table = served.tables["table-2"]
        session = table.table.start("wreckers", list(DEMO_PLAYERS), options=None,
                                    seed=scripted.seed, colours=scripted.colours)
        link = table.agents
        bea = scripted.expected[2]["card"]
        events = link.events

        def held_back(msg):
            if any((e.get("sighting") or {}).get("item") == bea and e.get("kind") == "appeared"
                   for e in msg.events):
                held.set()
                gate.wait(30)
            return events(msg)

        link.events = held_back
        key = table.tokens.camera
        procs.append(camera_process(served.url, "table-2", key, first, journal))

        def waiting(predicate, timeout, what):
            try:
                return wait_until(predicate, timeout, what)
            except AssertionError as exc:   # say what the agent said, and what the link did
                log = journal.with_suffix(".log")
                raise AssertionError(f"{exc}; {link.stats}; steps "
                                     f"{[s.action for s in session.steps]}; the agent said:\n"
                                     + (log.read_text() if log.exists() else "")) from None

        waiting(held.is_set, 90, "the batch with Bea's cut")
        gate_seq = journal_seqs(journal)[0]
        cy = scripted.expected[3]["card"]
        # Cy's cut journalled behind the held batch (one batch is in flight at a time): on a
        # loaded machine other batches may come between, so wait for Cy's, not for "the next".
        waiting(lambda: any(seq != gate_seq and appears(events, cy)
                            for seq, events in journal_batches(journal)), 60,
                "the batch with Cy's cut journalled")
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait(10)
        gate.set()   # the held batch is taken now; its answer goes to a dead connection
        waiting(lambda: len(session.steps) == 3, 20, "deal, Ann's and Bea's cuts")
        assert gate_seq in journal_seqs(journal)   # not acknowledged: still in the journal
        procs.append(camera_process(served.url, "table-2", key, then, journal))
        waiting(lambda: len(session.steps) == len(scripted.expected)
                and session.game.state == expected_state(scripted, DEMO_PLAYERS), 90,
                "Cy's cut read after the agent's restart")
        assert link.stats.duplicates >= 1
        assert [s.action for s in session.steps] == scripted.expected   # nothing doubled
        waiting(lambda: not journal_seqs(journal), 20, "the journal emptied")
    finally:
        gate.set()
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(10)
        served.close()


def test_kill_9_of_the_server_loses_no_acknowledged_action(cuts, tmp_path):
    """The server (a child process) is killed with SIGKILL once the agent's batches up to Bea's
    cut are acknowledged; started again on the same database and port, it has every one of them,
    and the agent (which reconnects by itself) reads on into the game it resumed."""
    scripted, frames = cuts
    db = tmp_path / "table.sqlite3"
    served = serve_venue(db, host="127.0.0.1", port=0)
    try:
        served.create_table("Table 2")
        table = served.tables["table-2"]
        table.table.start("wreckers", list(DEMO_PLAYERS), options=None, seed=scripted.seed,
                          colours=scripted.colours)
        key, join = table.tokens.camera, table.tokens.table
    finally:
        served.close()
    port = free_port()
    url = f"http://127.0.0.1:{port}/"

    def start_server() -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tableassist", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--db", str(db), "--camera", "none"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:  # type: ignore[union-attr]
            if "serving the table at" in line:
                threading.Thread(target=proc.stdout.read, daemon=True).start()  # type: ignore
                return proc
        raise AssertionError("the server did not start")

    def history() -> list[str]:  # the history lines a table screen shows
        client = Client(url + "t/table-2/", join).connect()
        try:
            return [json.dumps(line, sort_keys=True) for line in client.state["history"]]
        finally:
            client.close()

    server = start_server()
    source = Frames(frames[:QUIET] + after_the_quiet(frames), hold=QUIET)
    agent, thread = start_agent(url, "table-2", key, source, tmp_path / "agent.json")
    try:
        wait_until(lambda: source.at == QUIET and not agent.journal.batches, 60,
                   "the batches up to Bea's cut acknowledged")
        before = history()
        assert len(before) == 3   # the deal, Ann's and Bea's cuts
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        server = start_server()
        assert history() == before   # nothing acknowledged was lost
        wait_until(lambda: agent.link.connected and agent.link.reading is not None, 30,
                   "the agent reconnected")
        source.go.set()
        client = Client(url + "t/table-2/", join).connect()
        try:
            client.wait_state(lambda s: len(s.get("history", [])) == 4, "Cy's cut", timeout=60)
        finally:
            client.close()
    finally:
        stop_agent(agent, thread)
        server.terminate()
        server.wait(10)
    reopened = serve_venue(db, host="127.0.0.1", port=0)
    try:
        reopened.resume()
        game = reopened.tables["table-2"].table.session.game
        assert game.state == expected_state(scripted, DEMO_PLAYERS)
    finally:
        reopened.close()
