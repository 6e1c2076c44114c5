"""The table session and its log, on both stores (``store_factory``): durability, undo/redo,
corrections, a killed writer; and SQLite's bad files."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from tableassist.table import catalog
from tableassist.games.protocol import IllegalAction, SetupError
from tableassist.table.session import TableSession, open_latest
from tableassist.table.store import StoreError
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions

GAME = "shipwrecked" if "shipwrecked" in catalog.game_ids() else (catalog.game_ids() or [None])[0]
PLAYERS = ["Ann", "Bea", "Cy"]
pytestmark = pytest.mark.skipif(GAME is None, reason="no engine registered yet")


def play(session: TableSession, rng: random.Random, n: int) -> list[dict]:
    done = []
    for _ in range(n):
        if session.game.is_over:
            break
        action = rng.choice(all_legal_actions(session.game))
        session.submit(action, source=rng.choice(["tablet", "camera"]), author="test")
        done.append(action)
    return done


def replayed(actions) -> dict:
    """The state of a fresh game after ``actions`` (the whole state: what a log replays to)."""
    game = catalog.new_game(GAME, PLAYERS, seed=7)
    for a in actions:
        game.apply(a)
    return game.state


@pytest.fixture
def store(store_factory):
    return store_factory()


def test_state_is_a_replay_of_the_log(store, store_factory):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    actions = play(session, random.Random(1), 60)
    assert session.game.state == replayed(actions)
    reopened = TableSession.open(store_factory(), session.saved.id)
    assert reopened.game.state == session.game.state
    assert reopened.history() == session.history()
    assert [e.source for e in store.entries(session.saved.id)] == \
        [s["source"] for s in session.history()]


def test_illegal_action_changes_neither_state_nor_log(store):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    play(session, random.Random(2), 10)
    before = (json.dumps(session.game.to_json(), sort_keys=True),
              len(store.entries(session.saved.id)))
    for bad in [{"type": "no_such_thing", "player": "Ann"}, {"player": "Ann"}, [1, 2],
                {"type": session.game.action_types()[0], "player": "Zed"}]:
        with pytest.raises(IllegalAction):
            session.submit(bad)
    assert (json.dumps(session.game.to_json(), sort_keys=True),
            len(store.entries(session.saved.id))) == before


def test_undo_is_a_replay_without_the_tail_and_redo_restores_it(store, store_factory):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    actions = play(session, random.Random(3), 30)
    session.undo(author="Ann")
    session.undo(author="Ann")
    assert session.game.state == replayed(actions[:-2])
    assert session.can_redo
    session.redo()
    assert session.game.state == replayed(actions[:-1])
    # the undo/redo survive a restart
    reopened = TableSession.open(store_factory(), session.saved.id)
    assert reopened.game.state == replayed(actions[:-1])
    assert reopened.can_redo
    # a new action ends redo
    session.submit(all_legal_actions(session.game)[0])
    assert not session.can_redo
    with pytest.raises(IllegalAction, match="nothing to redo"):
        session.redo()


def test_undo_at_the_start_is_refused(store):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    with pytest.raises(IllegalAction, match="nothing to undo"):
        session.undo()
    assert store.entries(session.saved.id) == []


def test_correction_replaces_a_reading_and_is_logged_with_its_source(store, store_factory):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    rng = random.Random(4)
    actions = play(session, rng, 12)
    last = session.steps[-1]
    # the same position offers alternatives to the last action: correct to one of them
    session.undo()
    alternatives = [a for a in all_legal_actions(session.game) if a != last.action]
    session.redo()
    if not alternatives:
        pytest.skip("no alternative at this position")
    replacement = alternatives[0]
    session.correct(last.seq, replacement, source="tablet", author="Bea")
    assert session.game.state == replayed(actions[:-1] + [replacement])
    entry = store.entries(session.saved.id)[-1]
    assert (entry.kind, entry.target, entry.source, entry.author) == \
        ("correction", last.seq, "tablet", "Bea")
    assert session.history()[-1]["corrected"] is True
    reopened = TableSession.open(store_factory(), session.saved.id)
    assert reopened.game.state == session.game.state


def test_correction_that_breaks_later_history_is_refused(store):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    play(session, random.Random(5), 20)
    first = session.steps[0]
    before = len(store.entries(session.saved.id))
    with pytest.raises(IllegalAction):
        session.correct(first.seq, {"type": "no_such_thing", "player": "Ann"})
    assert len(store.entries(session.saved.id)) == before


def test_history_never_holds_raw_actions(store):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    play(session, random.Random(6), 40)
    for line in session.history():
        assert set(line) == {"seq", "type", "source", "author", "corrected", "notes"}


def test_ended_game_is_read_only_and_open_latest_skips_it(store):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    play(session, random.Random(7), 5)
    session.end()
    with pytest.raises(IllegalAction, match="ended"):
        session.submit(all_legal_actions(session.game)[0])
    assert open_latest(store.db) is None
    second = TableSession.create(store, GAME, PLAYERS, seed=8)
    latest = open_latest(store.db)
    assert latest.saved.id == second.saved.id
    latest.store.close()


def test_a_saved_game_keeps_the_components_it_started_with(store):
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    assert session.saved.components == catalog.load_components(GAME)


def test_a_game_saved_before_the_name_check_still_replays(store, store_factory):
    """Names alike but for capitals are refused for a new game, not for one saved earlier."""
    with pytest.raises(SetupError, match="same name"):
        TableSession.create(store, GAME, ["Ann", "ann", "Cy"], seed=7)
    row = store.create_game(GAME, ["Ann", "ann", "Cy"], 7, {}, catalog.load_components(GAME))
    session = TableSession.open(store, row)
    assert session.game.players == ("Ann", "ann", "Cy")
    play(session, random.Random(2), 12)
    assert TableSession.open(store_factory(), row).history() == session.history()


def test_foreign_and_damaged_files_are_refused_clearly(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("shopping list: rope, gems, cheese\n" * 200)
    with pytest.raises(StoreError, match="not a tableassist database"):
        open_store(text)
    assert text.read_text().startswith("shopping list")  # never silently reset
    foreign = tmp_path / "other.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE photos (id INTEGER)")
    with pytest.raises(StoreError, match="another program"):
        open_store(foreign)
    newer = tmp_path / "newer.sqlite"
    open_store(newer).close()
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer tableassist"):
        open_store(newer)
    with pytest.raises(StoreError, match="folder"):
        open_store(tmp_path)


def test_unknown_saved_game_is_a_clear_error(store):
    with pytest.raises(StoreError, match="no saved game #42"):
        TableSession.open(store, 42)


CHILD = textwrap.dedent("""
    import random, sys
    from tableassist.table.session import TableSession
    from tableassist.table.stores import open_store
    from tests.games.random_play import all_legal_actions
    store = open_store(sys.argv[1])
    session = TableSession.create(store, sys.argv[2], ["Ann", "Bea", "Cy"], seed=7)
    print("game", session.saved.id, flush=True)
    rng = random.Random(int(sys.argv[3]))
    while not session.game.is_over:
        action = rng.choice(all_legal_actions(session.game))
        if rng.random() < 0.1 and session.steps:
            session.undo()
            print("undo", flush=True)
        else:
            session.submit(action)
            print("ack", flush=True)
    print("over", flush=True)
""")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_mid_game_loses_no_acknowledged_action(store_factory, seed):
    """A child plays and acknowledges actions; SIGKILL at a random moment; the reopened log holds
    every acknowledged entry, plus at most the one being acknowledged when the kill came. The
    killed writer's lock goes with it: this process may write at once."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(store_factory.db), GAME, str(seed)],
                             stdout=subprocess.PIPE, text=True, cwd=root)
    game_row = int(child.stdout.readline().split()[1])
    acked = 0
    target = random.Random(seed).randint(5, 40)
    for line in child.stdout:
        if line.strip() in ("ack", "undo"):
            acked += 1
        if acked >= target or line.strip() == "over":
            break
    child.send_signal(signal.SIGKILL)
    child.wait()
    acked += sum(1 for line in child.stdout if line.strip() in ("ack", "undo"))  # still in the pipe
    store = store_factory()  # the writer now
    entries = store.entries(game_row)
    assert acked <= len(entries) <= acked + 1
    session = TableSession.open(store, game_row)
    fresh = catalog.new_game(GAME, PLAYERS, seed=7)
    for step in session.steps:
        fresh.apply(step.action)
    assert fresh.state == session.game.state


def test_undo_never_reaches_a_sealed_entry_even_one_step_at_a_time(store):
    """Schmuggler seals a draw once the next action follows (who drew which is secret, SPEC
    §3.7): undoing the second draw is fine (its card is still shown), but undo then stops before
    the first draw, even though the first draw is now the last action."""
    session = TableSession.create(store, "schmuggler", ["Ann", "Bea", "Cy"], seed=3)
    pool = [a for a in session.game.legal_actions(None) if a["type"] == "draft_card"]
    session.submit(pool[0], source="camera")
    session.submit(pool[1], source="camera")
    session.undo()
    before = session.game.to_json()
    with pytest.raises(IllegalAction, match="undo stops here: that card lies face down"):
        session.undo()
    assert session.game.to_json() == before
    session.redo()
    session.submit(next(a for a in session.game.legal_actions(None)
                        if a["type"] == "draft_card"), source="camera")
    session.undo()  # the newest draw, still shown
    with pytest.raises(IllegalAction, match="undo stops here"):
        session.undo()


def test_changes_made_together_are_one_write_stored_before_anyone_hears(store, store_factory):
    """A frame's several readings (TableSession.together): one transaction, so one flush to the
    disk however many actions (a count), and each listener told only once all are stored."""
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    writes: list[int] = []
    append_all = store.append_all

    def counted(game_id, entries):
        writes.append(len(entries))
        return append_all(game_id, entries)
    store.append_all = counted
    heard: list[tuple[str, int | None, bool]] = []
    session.subscribe(lambda c: heard.append(
        (c.kind, c.seq, c.seq in {e.seq for e in store.entries(session.saved.id)})))
    rng = random.Random(3)
    with session.together(source="camera"):
        acked = play(session, rng, 5)
        session.undo(source="camera")
        assert heard == [] and writes == []        # nothing told, nothing written yet
    assert writes == [6]                           # five actions and an undo: one write
    assert heard == [("action", n, True) for n in range(1, 6)] + [("undo", 6, True)]
    assert session.game.state == replayed(acked[:-1])
    reopened = TableSession.open(store_factory(), session.saved.id)
    assert reopened.game.state == session.game.state
    assert reopened.history() == session.history()
    play(session, rng, 2)                           # outside a block: a write per action
    assert writes == [6, 1, 1]


def test_changes_made_together_are_stored_all_or_none(store, store_factory):
    """The store refuses the block's write (another program wrote meanwhile): none of its
    changes is saved or applied, the listeners hear one reload, and it says so."""
    session = TableSession.create(store, GAME, PLAYERS, seed=7)
    other = TableSession.open(store_factory(), session.saved.id)
    theirs = play(other, random.Random(5), 1)
    heard: list[str] = []
    session.subscribe(lambda c: heard.append(c.kind))
    with pytest.raises(StoreError, match="another program wrote.*the action and the 2 changes "
                                         "after it were not saved and not applied"):
        with session.together(source="camera"):
            # not the other program's action: the same one, written in the same millisecond, is
            # the same entry (a write whose answer was lost is found so), and rightly not refused
            session.submit(next(a for a in all_legal_actions(session.game) if a != theirs[0]),
                           source="camera", author="test")
            play(session, random.Random(6), 2)
    assert heard == ["reload"]
    assert [e.action for e in store.entries(session.saved.id)] == theirs
    assert session.game.state == replayed(theirs)
    play(session, random.Random(7), 1)            # the table plays on from the log
    assert len(store.entries(session.saved.id)) == 2
