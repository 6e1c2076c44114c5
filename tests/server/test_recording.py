"""The camera's recording on a served table (``serve --record``): off until the host turns it on
(nothing is written before), every screen's payload says so while it records (in the screen's
language), a full queue drops frames and says how many, and a game's recording is deleted with
the game unless the host keeps it. The frames go through the camera's real frame listeners
(``Camera.process``), the switch through the host's Socket.IO event."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tableassist.camera.recording import (RECORDING_LINE, FrameWriter, Recording, Recordings,
                                          read_parts)
from tableassist.server.served import ServedVenue, serve_venue
from tableassist.table.stores import open_store
from tableassist.vision.sources import write_image
from tests.server.conftest import Client, wait_until

SEATS = [{"name": "Ann", "colour": "red"}, {"name": "Bea", "colour": "blue"}]
FRAME = np.full((120, 160, 3), 90, np.uint8)   # a grey table: the pipeline finds nothing


@pytest.fixture
def folder_camera(tmp_path: Path) -> str:
    """A camera of the server's own (a folder of one picture); the tests hand it frames."""
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    write_image(pictures / "table.png", FRAME)
    return str(pictures)


def serve(tmp_path: Path, camera: str, record: Path | None) -> ServedVenue:
    served = serve_venue(tmp_path / "table.sqlite3", host="127.0.0.1", port=0, camera=camera,
                         record=record)
    served.serve_in_thread()
    return served


@pytest.fixture
def served(tmp_path: Path, folder_camera: str) -> Iterator[ServedVenue]:
    served = serve(tmp_path, folder_camera, tmp_path / "rec")
    try:
        yield served
    finally:
        served.close()


def frames(served: ServedVenue, n: int, t0: float = 0.0) -> None:
    """``n`` frames read by the table's camera (each through its frame listeners)."""
    for k in range(n):
        served.camera.process(FRAME, t0 + k / 8)


def start(host: Client) -> int:
    answer = host.call("start", {"game": "wreckers", "players": SEATS, "seed": 3})
    assert answer["ok"], answer
    return int(answer["row"])


def written(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "index.jsonl").read_text().splitlines()]


def only_folder(root: Path) -> Path:
    (folder,) = list(root.iterdir())
    return folder


def test_recording_is_off_until_the_host_turns_it_on_and_writes_nothing_before(served, tmp_path):
    host = Client(served.url, served.tokens.host).connect()
    try:
        start(host)
        frames(served, 5)
        assert not (tmp_path / "rec").exists()          # not even the folder
        panel = host.wait_state(lambda s: "recording" in s)["recording"]
        assert panel["available"] and not panel["switch"] and not panel["on"]
        # only the host screen holds the switch
        table = Client(served.url, served.tokens.table).connect()
        assert table.call("record", {"on": True}) == {
            "ok": False, "error": "only the host screen records the camera"}
        table.close()
        assert not (tmp_path / "rec").exists()
    finally:
        host.close()


def test_a_server_without_record_writes_nothing_and_refuses_the_switch(tmp_path, folder_camera):
    served = serve(tmp_path, folder_camera, None)
    host = Client(served.url, served.tokens.host).connect()
    try:
        start(host)
        frames(served, 3)
        assert "recording" not in host.states[-1]
        answer = host.call("record", {"on": True})
        assert not answer["ok"] and "--record" in answer["error"]
        assert not any("rec" in p.name for p in tmp_path.iterdir())
    finally:
        host.close()
        served.close()


def test_every_screen_says_the_camera_is_recorded_while_it_is(served, tmp_path):
    host = Client(served.url, served.tokens.host).connect()
    clients = [host]
    try:
        start(host)
        ann = served.tokens.players(served.table.game_row, ["Ann", "Bea"])["Ann"]
        screens = {"table": Client(served.url, served.tokens.table),
                   "player": Client(served.url, ann, lang="de"),
                   "spectator": Client(served.url, None, lang="es")}
        for screen in screens.values():
            clients.append(screen.connect())
        assert all("recording" not in s.states[-1] for s in screens.values())
        assert host.call("record", {"on": True}) == {"ok": True}
        frames(served, 4)
        for name, screen in screens.items():
            line = screen.wait_state(lambda s: (s.get("recording") or {}).get("on"),
                                     f"the {name}'s recording line")["recording"]
            assert set(line) == {"on", "text"}      # the line, not the host's panel
        assert screens["table"].states[-1]["recording"]["text"] == str(RECORDING_LINE)
        assert screens["player"].states[-1]["recording"]["text"].startswith(
            "Die Kamera wird aufgezeichnet")
        assert screens["spectator"].states[-1]["recording"]["text"].startswith("Grabando la cámara")
        panel = host.wait_state(lambda s: s["recording"]["on"])["recording"]
        assert panel["switch"] and panel["game"] == served.table.game_row
        folder = only_folder(tmp_path / "rec")
        wait_until(lambda: len([e for e in written(folder) if "n" in e]) == 4, what="4 frames")
        assert host.call("record", {"on": False}) == {"ok": True}
        for screen in screens.values():
            screen.wait_state(lambda s: "recording" not in s, "the line gone")
        frames(served, 3, t0=1.0)
        lines = written(folder)
        assert [e for e in lines if "n" in e][-1]["n"] == 4     # nothing after the switch
        assert lines[-1]["stop"] == 1 and lines[-1]["frames"] == 4
    finally:
        for c in clients:
            c.close()


def test_a_games_recording_is_deleted_with_it_unless_kept(served, tmp_path):
    host = Client(served.url, served.tokens.host).connect()
    try:
        first = start(host)
        host.call("record", {"on": True})
        frames(served, 3)
        gone = only_folder(tmp_path / "rec")
        assert host.call("end", {}) == {"ok": True}
        assert not gone.exists()

        second = start(host)       # the switch stays on: the next game is recorded too
        frames(served, 3)
        kept = only_folder(tmp_path / "rec")
        assert f"game-{second}-" in kept.name and second != first
        assert host.call("keep_recording", {"keep": True}) == {"ok": True}
        host.wait_state(lambda s: s["recording"]["keep"], "kept")
        assert host.call("end", {}) == {"ok": True}
        assert kept.is_dir() and Recording.read(kept).frames == 3
        answer = host.call("keep_recording", {"keep": True})   # no game: nothing to keep
        assert answer == {"ok": False, "error": "this game has no recording to keep"}
    finally:
        host.close()


def test_a_recording_whose_game_was_ended_elsewhere_goes_at_the_next_start(tmp_path,
                                                                          folder_camera):
    served = serve(tmp_path, folder_camera, tmp_path / "rec")
    host = Client(served.url, served.tokens.host).connect()
    try:
        row = start(host)
        host.call("record", {"on": True})
        frames(served, 2)
        folder = only_folder(tmp_path / "rec")
    finally:
        host.close()
        served.close()
    assert folder.is_dir()
    with open_store(tmp_path / "table.sqlite3") as store:
        store.end_game(row)
        other = Recordings(tmp_path / "rec", open_store(tmp_path / "other.sqlite3"))
        assert other.forget_ended() == []          # another log's recordings are left alone
        other.store.close()
    assert folder.is_dir()
    served = serve(tmp_path, folder_camera, tmp_path / "rec")
    try:
        assert not folder.exists()
    finally:
        served.close()


def test_a_full_queue_drops_frames_and_says_how_many(tmp_path):
    frame = np.zeros((120, 160, 3), np.uint8)
    told = []
    writer = FrameWriter(tmp_path / "game", 1, 0, queue_bytes=2 * frame.nbytes,
                         told=lambda: told.append(writer.counts.dropped))
    # the writer's thread has not taken any yet: two frames wait, the others find it full
    offered = [writer.offer(k / 8, frame, 0) for k in range(5)]
    assert offered == [True, True, False, False, False]
    assert writer.counts.dropped == 3
    writer.start()
    writer.stop(seq=0)
    assert writer.counts.frames == 2
    lines = written(tmp_path / "game")
    assert lines[-1] == {**lines[-1], "stop": 1, "frames": 2, "dropped": 3}
    assert [e["n"] for e in lines if "n" in e] == [1, 2]
    assert told and told[0] == 3        # the host's panel hears it from the writer's thread
    index = (tmp_path / "game" / "index.jsonl").read_text().splitlines()
    (part,), damaged = read_parts(tmp_path / "game", index)
    assert damaged == []
    assert part.missing == (3, 4, 5)      # the replay says which frames it does not have


@pytest.mark.browser
@pytest.mark.slow
def test_the_host_turns_it_on_and_every_page_shows_the_line(served, chromium, tmp_path):
    from tests.plugins.browser import TABLET
    from tests.server.tablet import Tablet

    host = Client(served.url, served.tokens.host).connect()
    try:
        row = start(host)
    finally:
        host.close()
    ann = served.tokens.players(row, ["Ann", "Bea"])["Ann"]
    host_page = Tablet(chromium.new_page(viewport=TABLET), f"{served.url}#t={served.tokens.host}")
    phone = Tablet(chromium.new_context(locale="de-DE", viewport={"width": 390, "height": 800})
                   .new_page(), f"{served.url}#t={ann}")
    line = '#notices [data-notice="recording"]'
    assert host_page.page.locator(line).count() == 0 and phone.page.locator(line).count() == 0
    record = host_page.page.locator('#camera-recording [data-do="record"]')
    assert record.inner_text() == "Record the camera"
    record.click()
    frames(served, 3)
    host_page.page.locator(line).wait_for()
    phone.page.locator(line).wait_for()
    assert host_page.page.locator(line).inner_text().startswith("Recording the camera")
    assert phone.page.locator(line).inner_text().startswith("Die Kamera wird aufgezeichnet")
    keep = host_page.page.locator('[data-field="keep-recording"]')
    keep.check()
    host_page.page.wait_for_function(
        "() => window.tableassist.state.recording && window.tableassist.state.recording.keep")
    assert json.loads((only_folder(tmp_path / "rec") / "recording.json").read_text())["keep"]
    host_page.page.locator('#camera-recording [data-do="record"]', has_text="Stop recording").click()
    phone.page.locator(line).wait_for(state="detached")
    assert not host_page.errors and not phone.errors


def test_a_recording_stops_by_itself_at_its_limit_and_says_why(tmp_path):
    from tableassist.camera.recording import Recorder
    from tableassist.table.session import TableSession

    noise = np.random.default_rng(0).integers(0, 256, (480, 640, 3), np.uint8)  # ~ 400 KB each
    with open_store(tmp_path / "t.sqlite3") as store:
        session = TableSession.create(store, "wreckers", ["Ann", "Bea"], seed=1)
        told = []
        recorder = Recorder(Recordings(tmp_path / "rec", store, limit_mb=1), publish=told.append)
        recorder.follow(session, {})
        recorder.turn(True)
        for k in range(8):
            recorder(k / 8, noise, None)
        wait_until(lambda: not recorder.status.switch, what="the recording to stop")
        status = recorder.status
        assert not status.on and str(status.stopped) == \
            "the recording stopped: it reached its limit of 1 MB"
        from tableassist import i18n
        from tests.words import english_left, lowered
        for lang in ("de", "es"):   # the host's panel says it in its language
            report = english_left({"stopped": i18n.render(status.stopped, lang)},
                                  lowered([str(status.stopped)]), lang)
            assert not report, f"English in the {lang} recording's stop: {report}"
        assert told[-1] == status                     # the host's panel is told
        frames_kept = sum(f.stat().st_size for f in
                          (recorder.recordings.of(session.saved) / "frames").iterdir())
        assert 2**20 <= frames_kept < 2**20 + 2 * noise.nbytes
        recorder.close()


def test_serve_record_refuses_what_cannot_hold_recordings(tmp_path, capsys):
    from tableassist import cli

    a_file = tmp_path / "notes.txt"
    a_file.write_text("")
    base = ["serve", "--camera", "none", "--port", "0", "--db", str(tmp_path / "t.sqlite3")]
    assert cli.main([*base, "--record", str(a_file)]) == 2
    assert capsys.readouterr().err == f"--record {a_file}: not a folder\n"
    assert cli.main(["serve", "--camera", "none", "--db", "postgresql://u@h/db", "--record"]) == 2
    assert capsys.readouterr().err == \
        "--record needs a folder with a PostgreSQL database: --record DIR\n"
    assert not (tmp_path / "t.sqlite3").exists()       # refused before anything was opened
