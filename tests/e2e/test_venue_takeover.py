"""A takeover with a camera agent in the middle of a move: PostgreSQL, nginx, two `tableassist
serve` processes and the real `tableassist camera` process (rendered frames of the Wreckers cut)
through the proxy. The process serving the table dies with SIGKILL while the batch with Cy's cut
is unanswered; the other takes the table and the agent's reading over, and Cy's cut is in the log
exactly once:

* ``stopped``: the owner is stopped (SIGSTOP) before the batch comes, so it never reads it; the
  new owner reads it from the agent's journal;
* ``committed``: the owner's write of Cy's cut waits for a lock the test holds in PostgreSQL; the
  owner is killed, the lock let go, and its database session commits the entry (its answer goes
  nowhere); the new owner finds the batch in the log and drops it as a duplicate when the agent
  sends it again."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest
from socketio.exceptions import ConnectionError

from tableassist.demo.scripts import DEMO_PLAYERS
from tests.e2e.test_venue_agents import (CY_LAID, EMPTY, QUIET, appears, camera_process, cuts,
                                         journal_batches, journal_seqs, write_frames)
from tests.server.conftest import PATIENCE, camera_arguments, wait_until
from tests.server.test_tournament import TAKEOVER, owners, staff, tournament

pytestmark = pytest.mark.slow
__all__ = ["cuts", "tournament"]   # fixtures

#: Frames of the empty cut spot between Bea's cut and Cy's: long enough (12 s at 5 fps) for the
#: test to see Bea's cut logged and to stop the owner before Cy's card comes.
PAUSE = 60


def entries(postgres, name: str, table: str) -> list[tuple[dict[str, Any], str]]:
    """The table's log: each action and its author, in order."""
    with postgres.connect(name) as conn:
        rows = conn.execute("SELECT action, author FROM entries WHERE table_name = %s "
                            "ORDER BY game_id, seq", (table,)).fetchall()
    return [(json.loads(action), author) for action, author in rows]


def journal(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


@pytest.mark.parametrize("how", ["stopped", "committed"])
def test_a_move_unanswered_at_a_kill_9_is_read_by_the_next_owner_exactly_once(
        postgres, tournament, cuts, tmp_path, how):
    scripted, frames = cuts
    url, name, proxy, procs = tournament
    with postgres.connect(name) as conn:
        key = conn.execute("SELECT value FROM meta WHERE key = 'staff'").fetchone()[0]
    sio, _rows = staff(proxy, key)
    agent = None
    lock = None
    try:
        assert sio.call("create_table", {"title": "Table 1"}, timeout=10 * PATIENCE)["ok"]
        wait_until(lambda: owners(postgres, name).get("table-1"), 20, "table-1 served")
        links = sio.call("table_links", {"name": "table-1"}, timeout=10 * PATIENCE)
        links = links.get("data", links)
        camera_key = camera_arguments(links["camera"]).key
        address, token = links["join"].split("#t=")
        from tests.server.test_tournament import Screen
        screen = Screen(address, token)

        def connected() -> bool:   # the proxy learns the new table's process within a second
            try:
                screen.connect()
                return True
            except ConnectionError:
                return False
        wait_until(connected, 20, "table-1's screen through the proxy")
        started = screen.call("start", {"game": "wreckers", "seed": scripted.seed, "players": [
            {"name": p, "colour": scripted.colours[p]} for p in DEMO_PLAYERS]})
        assert started["ok"], started
        screen.close()

        folder = write_frames(frames[:QUIET] + [frames[EMPTY]] * PAUSE + frames[QUIET:CY_LAID],
                              tmp_path / "frames")
        path = tmp_path / "agent.json"
        agent = camera_process(proxy.url.rstrip("/"), "table-1", camera_key, folder, path)

        def said() -> str:
            log = path.with_suffix(".log")
            return log.read_text() if log.exists() else ""

        # the deal, Ann's and Bea's cuts read through the agent and answered
        wait_until(lambda: len(entries(postgres, name, "table-1")) == 3 and
                   journal(path).get("table") and not journal_seqs(path), 90,
                   lambda: f"Bea's cut read and answered; the log holds "
                           f"{len(entries(postgres, name, 'table-1'))} entries, the journal "
                           f"{journal_seqs(path)}; the agent said:\n{said()}")
        reading = journal(path)["table"]["reading"]
        owner = owners(postgres, name)["table-1"]
        victim = next(p for p in procs if p.proc.pid == owner)
        survivor = next(p for p in procs if p is not victim)
        cy = scripted.expected[3]["card"]
        if how == "stopped":
            victim.proc.send_signal(signal.SIGSTOP)
        else:   # hold every write of the log: the owner's write of Cy's cut waits
            lock = postgres.connect(name)
            lock.execute("BEGIN")
            lock.execute("LOCK TABLE entries IN SHARE MODE")
        assert len(entries(postgres, name, "table-1")) == 3, "Cy's cut came too early"
        wait_until(lambda: any(appears(events, cy) for _seq, events in journal_batches(path)),
                   60, "the batch with Cy's cut journalled, unanswered")
        cy_seq = next(seq for seq, events in journal_batches(path) if appears(events, cy))
        if how == "committed":
            wait_until(lambda: lock.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                "WHERE c.relname = 'entries' AND NOT l.granted").fetchone()[0], 30,
                "the owner's write of Cy's cut waiting")
        victim.kill()
        if lock is not None:
            lock.execute("ROLLBACK")   # the dead owner's database session commits Cy's cut now
            lock.close()
            lock = None
            wait_until(lambda: len(entries(postgres, name, "table-1")) == 4, 30,
                       "Cy's cut committed by the dead owner's session")
            assert cy_seq in journal_seqs(path)   # its answer never came
        wait_until(lambda: owners(postgres, name).get("table-1") == survivor.proc.pid, TAKEOVER,
                   "the survivor serving table-1")
        # the agent reconnects through the proxy, the survivor takes its reading over (the
        # journal still names it) and reads Cy's batch: once
        wait_until(lambda: not journal_seqs(path), 60,
                   f"the agent's journal answered by the survivor; the agent said:\n{said()}")
        logged = entries(postgres, name, "table-1")
        assert [action for action, _author in logged] == scripted.expected[:4], said()
        assert journal(path)["table"]["reading"] == reading   # taken over, not begun anew
        agent_id = journal(path)["agent"]
        # each action names the batch that read it (the dead owner's and the survivor's alike)
        assert all(author.startswith(f"camera/{agent_id}/{reading}/") for _a, author in logged)
        assert logged[3][1] == f"camera/{agent_id}/{reading}/{cy_seq}"
        assert "refused" not in said(), said()
    finally:
        if lock is not None:
            lock.close()
        if agent is not None and agent.poll() is None:
            agent.terminate()
            agent.wait(10)
        if sio.connected:
            sio.disconnect()
