"""A venue end to end: two tables in one server, each read by its own camera agent looking at
rendered frames of the synthetic table; the agent and the server killed with SIGKILL mid-game.

The agents are the real ``tableassist camera`` (:class:`~tableassist.cli.camera.Agent`, in a
thread of the test or as a child process) speaking Socket.IO to the real server; the screens are
python-socketio clients of each table."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tableassist.cli.camera import Agent, Journal
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
