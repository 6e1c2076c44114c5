"""The camera agent's journal (``tableassist/agent/journal.py``): kept on disk across restarts,
started anew when damaged (said in words), one agent per journal."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tableassist.agent import Journal, JournalError

ROOT = Path(__file__).resolve().parents[1]


def test_a_restarted_agent_finds_its_id_and_the_batches_not_answered(tmp_path):
    path = tmp_path / "camera-main.json"
    journal = Journal(path)
    journal.add("r1", 1.23456, [{"kind": "appeared"}])
    journal.add("r1", 2.0, [])
    journal.done(1)
    journal.close()
    again = Journal(path)
    try:
        assert again.agent == journal.agent and again.seq == 2 and again.warning is None
        assert again.batches == [{"agent": journal.agent, "seq": 2, "reading": "r1", "t": 2.0,
                                  "events": []}]
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        again.close()


@pytest.mark.parametrize("text", ["not json", "[]", '{"agent": 5}',
                                  '{"agent": "a", "seq": 1, "batches": [{"events": []}]}'])
def test_a_damaged_journal_is_started_anew_and_said_so(tmp_path, text):
    path = tmp_path / "j.json"
    path.write_text(text)
    journal = Journal(path)
    try:
        assert journal.batches == [] and journal.seq == 0
        assert journal.warning is not None
        assert journal.warning.startswith(f"the journal {path} could not be read (")
        assert json.loads(path.read_text())["agent"] == journal.agent
    finally:
        journal.close()


def test_one_agent_per_journal_and_a_journal_that_cannot_be_kept_is_one_sentence(tmp_path):
    path = tmp_path / "j.json"
    # another agent's process holds it (in one process the writer lock is shared, counted)
    other = subprocess.Popen(
        [sys.executable, "-c", "import sys; from tableassist.agent import Journal; "
         f"j = Journal(__import__('pathlib').Path({str(path)!r})); print('held', flush=True); "
         "sys.stdin.read()"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        with pytest.raises(JournalError, match="give this agent another --journal"):
            Journal(path)
    finally:
        other.communicate("", timeout=30)
    Journal(path).close()   # free again once the other let go
    (tmp_path / "a-file").write_text("")
    with pytest.raises(JournalError) as refused:
        Journal(tmp_path / "a-file" / "j.json")
    assert str(refused.value) == (f"cannot keep the journal {tmp_path / 'a-file' / 'j.json'}: "
                                  f"{tmp_path / 'a-file'} is not a folder")


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_journals_faults_are_said_in_the_commands_language(tmp_path, lang):
    """``tableassist camera --lang`` prints the journal's warning and refusal: messages, the
    system's reason worded too (``table.files.os_reason``)."""
    from tableassist import i18n
    from tests.words import english_left, lowered
    said: dict[str, dict[str, str]] = {}
    for speaks in ("en", lang):
        path = tmp_path / speaks / "j.json"
        path.parent.mkdir()
        path.write_text('{"agent": "a", "seq": 1, "batches": [{"events": []}]}')
        journal = Journal(path)
        journal.close()
        (tmp_path / speaks / "a-file").write_text("")
        with pytest.raises(JournalError) as refused:
            Journal(tmp_path / speaks / "a-file" / "j.json")
        (tmp_path / speaks / "folder").mkdir()
        (tmp_path / speaks / "folder" / "j.json").mkdir()
        with pytest.raises(JournalError) as is_a_folder:
            Journal(tmp_path / speaks / "folder" / "j.json")
        said[speaks] = {what: i18n.render(text, speaks).replace(str(tmp_path / speaks), " ")
                        for what, text in (("damaged", journal.warning),
                                           ("no folder", refused.value.args[0]),
                                           ("a folder", is_a_folder.value.args[0]))}
    assert "batches are damaged" in said["en"]["damaged"]
    assert "is a directory" in said["en"]["a folder"]
    report = english_left(said[lang], lowered(said["en"].values()), lang)
    assert not report, f"English in the {lang} journal's words: {report}"


def test_the_batches_taken_fold_into_the_readings_table_one_sighting_per_marker(tmp_path):
    """What a server that takes the reading over rebuilds its reader from: each marker's last
    sighting (a card moved twice is one event, one removed is none), kept across a restart;
    a batch dropped unread is not in it, and another reading's table goes."""
    from tableassist.markers.sighting import Sighting, TableEvent

    def event(kind: str, marker: int, zone: str, t: float) -> dict:
        seen = Sighting(marker_id=marker, component="card", item=f"C{marker}", side="face",
                        zone=zone, changed=t)
        return TableEvent(kind=kind, sighting=seen, t=t).to_json()

    path = tmp_path / "j.json"
    journal = Journal(path)
    journal.add("r1", 1.0, [event("appeared", 1, "cut", 1.0), event("appeared", 2, "cut", 1.0)])
    journal.add("r1", 2.0, [event("moved", 1, "discard", 2.0), event("removed", 2, "cut", 2.0)])
    journal.add("r1", 3.0, [event("appeared", 3, "cut", 3.0)])
    journal.done(1)
    journal.done(2)
    journal.done(3, taken=False)   # stale or refused: the server's reader never had it
    assert journal.table is not None
    assert (journal.table["reading"], journal.table["upto"]) == ("r1", 2)
    assert [(e["kind"], e["sighting"]["marker_id"], e["sighting"]["zone"])
            for e in journal.table["events"]] == [("appeared", 1, "discard")]
    journal.close()
    again = Journal(path)
    try:
        assert again.table == journal.table and again.reading == "r1"
        again.keep_only("r2")
        assert again.table is None and again.reading is None
    finally:
        again.close()
