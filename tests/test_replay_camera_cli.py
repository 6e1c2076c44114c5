"""``tableassist replay-camera DIR``: a recorded synthetic game (the demo's scripted game on the
synthetic table, recorded through the host's switch) replays to no difference; the same log with
one camera reading corrected on the tablet shows that difference; bad input is answered in one
sentence with exit code 2."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tableassist import cli
from tableassist.camera.recording import RECORDING_FILE, Recorder, Recordings
from tableassist.games.protocol import IllegalAction
from tableassist.table.session import TableSession
from tableassist.table.stores import open_store


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["replay-camera", *args])
    out, err = capsys.readouterr()
    return code, out, err


# -- a recorded synthetic game ---------------------------------------------------------------------

def record(root: Path, *, threaded: bool = False) -> tuple[Path, Path]:
    """The demo's Shipwrecked script played once through ``serve``'s composition, recorded from
    its first frame (the host turned the recording on before the camera read it); ``threaded``:
    the camera read it with its threads, as ``serve`` reads a camera. Returns the recording's
    folder and the table's database."""
    from tableassist.demo.play import Demo
    from tests.server.conftest import Client

    demo = Demo("shipwrecked", db=root / "table.sqlite3", record=root / "recordings")
    try:
        demo.start()
        host = Client(demo.url, demo.tokens.host).connect()
        assert host.call("record", {"on": True}) == {"ok": True}
        host.close()
        demo.play(realtime=False, threaded=threaded)
    finally:
        demo.close()
    (folder,) = list((root / "recordings").iterdir())
    return folder, root / "table.sqlite3"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    yield record(tmp_path_factory.mktemp("recorded"))


@pytest.mark.slow
def test_a_game_the_camera_read_with_its_threads_replays_to_no_difference(tmp_path, capsys):
    """Recorded as ``serve`` reads a camera (capture, detection and the worker on their own
    threads): each frame's line still notes the log as it stood once the frame was read."""
    folder, _db = record(tmp_path, threaded=True)
    code, out, err = replay(capsys, str(folder))
    assert code == 0, out + err
    assert "no difference: the replay reads what the log has" in out


@pytest.mark.slow
def test_a_recorded_synthetic_game_replays_to_no_difference(recorded, capsys):
    folder, _db = recorded
    code, out, err = replay(capsys, str(folder))
    assert (code, err) == (0, "")
    assert "6 camera readings of the log compared with the replay's 6" in out
    assert "no difference: the replay reads what the log has" in out
    code, out, _ = replay(capsys, str(folder), "--json")
    result = json.loads(out)
    assert code == 0 and result["same"] and result["differences"] == []
    assert result["game"] == "shipwrecked" and result["frames"] == 125


@pytest.mark.slow
def test_a_corrected_camera_reading_shows_as_a_difference(recorded, capsys, tmp_path):
    folder, db = recorded
    copy = tmp_path / "table.sqlite3"
    shutil.copy(db, copy)
    with open_store(copy) as store:
        session = TableSession.open(store, 1)
        steps = list(session.steps)
        corrected = None
        for i, step in enumerate(steps):
            if (step.source, step.author) != ("camera", "camera"):
                continue
            for other in session.game.correction_choices([s.action for s in steps], i):
                if other == step.action:
                    continue
                try:   # the host's Fix on the tablet: the camera misread this one
                    session.correct(step.seq, other, source="tablet", author="host")
                except IllegalAction:
                    continue
                corrected = (step.seq, step.action, other)
                break
            if corrected:
                break
    assert corrected is not None
    seq, read, fixed = corrected
    code, out, err = replay(capsys, str(folder), "--db", str(copy))
    assert (code, err) == (1, "")
    (line,) = [x for x in out.splitlines() if x.startswith(f"entry {seq} at ")]
    assert "the log has" in line and "corrected on the tablet" in line and "the replay reads" in line
    assert out.rstrip().endswith("1 difference") or "1 difference\n" in out
    code, out, _ = replay(capsys, str(folder), "--db", str(copy), "--json")
    (difference,) = json.loads(out)["differences"]
    assert difference["what"] == "misread"
    assert difference["log"]["seq"] == seq and difference["log"]["action"] == fixed
    assert difference["log"]["was"] == read and difference["replay"]["action"] == read


# -- bad input -------------------------------------------------------------------------------------

@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, Path]:
    """A real two-frame recording of a Wreckers game (the recorder fed by hand), and its log."""
    db = tmp_path / "table.sqlite3"
    with open_store(db) as store:
        session = TableSession.create(store, "wreckers", ["Ann", "Bea"], seed=1)
        recorder = Recorder(Recordings(tmp_path / "rec", store))
        recorder.follow(session, {})
        recorder.turn(True)
        for k in range(2):
            recorder(k / 8, np.full((60, 80, 3), 80, np.uint8), None)
        recorder.close()
        folder = recorder.recordings.of(session.saved)
    return folder, db


def one_sentence(code: int, out: str, err: str) -> str:
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.count("\n") == 1, err
    return err


def test_bad_input_is_answered_in_one_sentence(small, tmp_path, capsys):
    folder, db = small
    assert "is not a folder" in one_sentence(*replay(capsys, str(tmp_path / "nowhere")))
    assert "is not a camera recording (it has no recording.json); it holds 1" in \
        one_sentence(*replay(capsys, str(folder.parent)))

    broken = tmp_path / "broken"
    shutil.copytree(folder, broken)
    (broken / RECORDING_FILE).write_text("{not json")
    assert "cannot be read as a recording's header (not JSON)" in \
        one_sentence(*replay(capsys, str(broken)))
    (broken / RECORDING_FILE).write_text(json.dumps({"format": "something else"}))
    assert "is not a recording tableassist can read" in one_sentence(*replay(capsys, str(broken)))

    empty = tmp_path / "empty"
    shutil.copytree(folder, empty)
    (empty / "index.jsonl").unlink()
    assert "holds no frame to replay" in one_sentence(*replay(capsys, str(empty)))

    assert "cannot open the game's log: there is no database at" in \
        one_sentence(*replay(capsys, str(folder), "--db", str(tmp_path / "gone.sqlite3")))

    other = tmp_path / "other.sqlite3"
    with open_store(other) as store:
        TableSession.create(store, "shipwrecked", ["Ann", "Bea", "Cy"], seed=2)
    assert "game #1 of" in (err := one_sentence(*replay(capsys, str(folder), "--db", str(other))))
    assert "is not this recording's (a wreckers game of Ann, Bea" in err


def test_a_small_recording_with_nothing_to_read_replays_without_difference(small, capsys):
    # two frames of a grey table: no reading in the log, none in the replay
    folder, _db = small
    code, out, err = replay(capsys, str(folder))
    assert (code, err) == (0, "")
    assert "0 camera readings of the log compared with the replay's 0" in out
