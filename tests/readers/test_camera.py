"""The camera (``camera.live.Camera``) on a real session, fed hand-built table events and QR
command cards: each printed card does what its text says, through the calls the tablet's buttons
make (source and author "camera"); a refused save is reported and the camera goes on."""

from __future__ import annotations

import pytest

from tableassist import i18n
from tableassist.camera.live import COMMANDS, Camera
from tableassist.camera.status import CameraStatus
from tableassist.markers.registry import load_registry
from tableassist.markers.sighting import CardShown
from tableassist.readers.base import expected_text
from tableassist.table.session import TableSession
from tableassist.table.stores import open_store
from tests.readers.table import Table
from tests.readers.test_abandon_ship_reader import ALL_ONES, cheese_events, roll
from tests.readers.test_shipshape_reader import COLOURS, X, lay, turn_up

PLAYERS = ["Ann", "Bea", "Cy"]
DICE = ("red", "blue", "green", "yellow", "orange", "purple", "black", "white")


def on_a_session(tmp_path, game_id, colours=None, seed=1):
    store = open_store(tmp_path / f"{game_id}.sqlite3")
    session = TableSession.create(store, game_id, PLAYERS, seed=seed)
    camera = Camera(grace=0.0)
    heard: list[CameraStatus] = []
    camera.subscribe(heard.append)
    camera.follow(session, colours)
    return session, camera, heard


def show(camera, command, t=100.0):
    camera.feed([CardShown(command=command, t=t)], t)


def log(session):
    return [(e.kind, e.source, e.author) for e in session.store.entries(session.saved.id)]


def crate_in_a_hold(tmp_path):
    """ShipShape: holds dealt, crew cards laid and revealed, the top crate shown and put in
    Ann's hold: the camera proposes "placed", one option."""
    session, camera, heard = on_a_session(tmp_path, "shipshape", COLOURS)
    table = Table("shipshape")
    camera.feed([table.appear("hold", h, seat=COLOURS[p], pos=(X[p], 560.0))
                 for p, h in {"Ann": "H01", "Bea": "H02", "Cy": "H03"}.items()], table.t)
    camera.feed([lay(table, p) for p in PLAYERS], table.t)
    camera.feed([turn_up(table, "Ann", 9), turn_up(table, "Bea", 4), turn_up(table, "Cy", 7)],
                table.t)
    top = next(a for a in session.game.legal_actions(None) if a["type"] == "show_top_crate")["crate"]
    camera.feed([table.appear("crate", top, "front", zone="offer")], table.t)
    camera.feed([table.move("crate", top, "front", zone="hold H01", cell="r2c2", rotation=270)],
                table.t)
    return session, camera, heard, table, top


def test_every_printed_command_card_is_obeyed():
    printed = {c.name for c in load_registry().commands}
    assert printed == set(COMMANDS)
    assert all(callable(getattr(Camera, f"_card_{name}", None)) for name in printed)


def test_the_confirm_card_taps_the_one_proposal(tmp_path):
    session, camera, heard, _, top = crate_in_a_hold(tmp_path)
    [row] = camera.status.confirm
    assert [o.action["type"] for o in row.options] == ["place_crate"]
    before = len(session.steps)
    show(camera, "confirm")
    assert len(session.steps) == before + 1
    step = session.steps[-1]
    assert (step.action["type"], step.action["crate"], step.source, step.author) == (
        "place_crate", top, "camera", "camera")
    assert camera.status.confirm == () and camera.status.report.startswith("Confirm card: confirmed")
    assert heard[-1] is camera.status          # the listeners were told


def test_the_confirm_card_leaves_two_choices_to_the_tablet(tmp_path):
    session, camera, _ = on_a_session(tmp_path, "abandon_ship")
    table = Table("abandon_ship")
    camera.feed([table.appear("die_face", f"{d}:face-1", zone="pool") for d in DICE]
                + [table.appear("rat", c, zone="space", cell="1") for c in DICE[:-1]]
                + cheese_events(table), table.t)
    camera.feed(roll(table, {**ALL_ONES, "blue": 2, "white": 2}), table.t)
    camera.feed([table.move("rat", "blue", zone="space", cell="3")], table.t)
    before = len(session.steps)
    show(camera, "confirm")
    assert len(session.steps) == before
    assert camera.status.report == ("Confirm card: the camera proposes 2 choices: tap the right "
                                    "one on the tablet")
    assert len(camera.status.confirm[0].options) == 2    # still offered


def test_the_cancel_card_sets_the_proposal_aside_until_the_table_changes(tmp_path):
    session, camera, _, table, top = crate_in_a_hold(tmp_path)
    show(camera, "cancel")
    assert camera.status.confirm == () and camera.status.report.startswith("Cancel card:")
    camera.feed([], table.t + 1)                       # the same table: not proposed again
    assert camera.status.confirm == ()
    camera.feed([table.move("crate", top, "front", zone="hold H01", cell="r2c2", rotation=0)],
                table.t)                                # turned: another reading, proposed
    assert [o.action["rotation"] for o in camera.status.confirm[0].options] == [0]


def test_the_pause_card_stops_the_reading_until_shown_again(tmp_path):
    session, camera, _ = on_a_session(tmp_path, "abandon_ship")
    table = Table("abandon_ship")
    camera.feed([table.appear("die_face", f"{d}:face-1", zone="pool") for d in DICE]
                + [table.appear("rat", c, zone="space", cell="1") for c in DICE[:-1]], table.t)
    show(camera, "pause")
    assert camera.status.paused and "stopped reading" in camera.status.report
    camera.feed(cheese_events(table), table.t)
    assert session.steps == []                        # nothing read while paused
    show(camera, "pause")
    assert not camera.status.paused and camera.status.report == \
        "Pause card: the camera reads the table again"
    # the cheese lies on the ship: compared with the game again, it is placed
    assert [s.action["type"] for s in session.steps] == ["place_cheese"] * 5
    # a die face turned up while paused is not read as a roll; a roll after it is
    show(camera, "pause")
    camera.feed(roll(table, {"red": 4}), table.t)
    show(camera, "pause")
    assert [s.action["type"] for s in session.steps].count("roll_die") == 0
    camera.feed(roll(table, {"red": 2}), table.t)
    assert session.steps[-1].action == {"type": "roll_die", "player": None, "die": "red",
                                        "face": session.steps[-1].action["face"]}


def test_undo_and_redo_cards_say_why_when_there_is_nothing_to_do(tmp_path):
    session, camera, _ = on_a_session(tmp_path, "abandon_ship")
    show(camera, "undo")
    assert camera.status.report == "Undo card: there is nothing to undo"
    show(camera, "redo", t=101.0)
    assert camera.status.report == "Redo card: there is nothing to redo"
    assert log(session) == []


def test_the_engines_refusal_in_the_notice_is_its_message_in_every_language(tmp_path):
    """Cy discards a Wreck as if it were a Search card: the engine refuses, nothing is read, and
    the out-of-sync notice keeps the engine's refusal as its message (its id and parameters), so a
    German screen reads the engine's words and the notice's in German."""
    session, camera, _ = on_a_session(tmp_path, "wreckers", seed=3)
    wrecks = sorted((c for c in session.game.deck.values() if c.type == "W"),
                    key=lambda c: (c.millions, c.discovery))
    table = Table("wreckers")
    for name in (wrecks[0].name, wrecks[1].name, wrecks[-1].name):   # Cy cuts best: Cy searches
        camera.feed([table.appear("card", name, zone="cut")], table.t)
        camera.feed([table.remove("card", name)], table.t)
    steps = len(session.steps)
    camera.feed([table.appear("card", wrecks[2].name, zone="discard")], table.t)
    notice = camera.status.out_of_sync
    assert len(session.steps) == steps and notice is not None       # nothing guessed
    assert notice.refusal is not None and notice.refusal.id == "wreckers.refuse.not_a_search"
    shown = notice.to_json()
    assert shown["text"].id == "status.notice.out_of_sync"
    assert shown["expects"].params["refusal"].id == "wreckers.refuse.not_a_search"
    assert shown["text"] == (f"Out of sync: the camera sees Cy discarded {wrecks[2].name}; the game "
                             f"expects {expected_text(session.game)} (the engine says: "
                             f"{notice.refusal})")                    # English, as it always read
    german = i18n.localize(camera.status.reading_json(runs_table=False), "de")["notice"]["text"]
    assert german.startswith("Nicht synchron: Die Kamera sieht")
    assert i18n.render(notice.refusal, "de") in german and str(notice.refusal) not in german


def test_a_frames_readings_are_one_write_and_told_once_stored(tmp_path):
    """The five cheese tokens laid in one frame are five actions, stored in one transaction
    (one flush to the disk, not five: a count), and the session's listeners hear of them only
    once they are all in the log."""
    session, camera, _ = on_a_session(tmp_path, "abandon_ship")
    store = session.store
    writes: list[int] = []
    append_all = store.append_all

    def counted(game_id, entries):
        writes.append(len(entries))
        return append_all(game_id, entries)
    store.append_all = counted
    stored_when_told: list[bool] = []
    session.subscribe(lambda c: stored_when_told.append(
        c.seq in {e.seq for e in store.entries(session.saved.id)}))
    camera.feed(cheese_events(Table("abandon_ship")), 10.0)
    assert [s.source for s in session.steps] == ["camera"] * 5
    assert writes == [5] and stored_when_told == [True] * 5
    assert [seq for _t, seq in camera.stats.accepted] == [1, 2, 3, 4, 5]


def test_a_refused_save_is_reported_and_the_camera_reads_on(tmp_path):
    """Another program wrote to the log (a stale writer): the camera's reading is not saved, the
    screens are told, and once the session has reloaded the camera reads the rest."""
    session, camera, _ = on_a_session(tmp_path, "abandon_ship")
    other = TableSession.open(open_store(session.store.path), session.saved.id)
    other.submit({"type": "place_cheese", "player": None, "space": 6, "value": 1},
                 source="tablet", author="host")
    table = Table("abandon_ship")
    camera.feed(cheese_events(table), 10.0)
    assert "was not saved" in camera.status.report and "another program wrote" in \
        camera.status.report
    assert session.steps[0].source == "tablet"          # reloaded: the other's action is in
    camera.feed([], 11.0)                               # within RETRY_AFTER: it waits
    assert len(session.steps) == 1
    camera.feed([], 13.0)
    assert [s.source for s in session.steps] == ["tablet"] + ["camera"] * 4
    assert camera.status.report is None


def test_the_status_is_one_frozen_value(tmp_path):
    _, camera, heard = on_a_session(tmp_path, "abandon_ship")
    status = camera.status
    with pytest.raises(AttributeError):
        status.state = "on"  # type: ignore[misc]
    assert heard == [CameraStatus(), status]   # told the status at once, then each new one
    assert status.reading and status.device_json()["state"] == "off"


class Blinking:
    """A source with a picture, then none for a while (unplugged), then a picture again."""

    def __init__(self, pattern):
        import numpy as np
        self.frames = [np.zeros((48, 64, 3), np.uint8) if on else None for on in pattern]

    def read(self):
        if not self.frames:
            raise SystemExit   # never reached: the test stops the camera first
        return self.frames.pop(0)

    def close(self):
        self.frames = [None] * 1000


def test_the_camera_says_when_it_has_no_picture_and_when_it_has_one_again():
    from tests.server.conftest import wait_until

    camera = Camera()
    states: list[tuple[str, str]] = []
    camera.subscribe(lambda s: states.append((s.state, s.notice)))
    assert states.pop(0) == ("off", "no camera")   # the status it starts with
    camera.start(Blinking([True] * 3 + [False] * 25 + [True] * 3 + [False] * 1000),
                 name="camera 7", fps=200)
    try:
        wait_until(lambda: len(states) >= 3, 10, "the camera on, lost, on")
    finally:
        camera.stop()
    assert states[:3] == [("on", "camera 7"), ("lost", "camera 7: no picture (unplugged, or the "
                                                        "video ended)"), ("on", "camera 7")]
    assert states[-1] == ("off", "the camera was stopped") and camera.status.mode == "64x48"


def test_a_tracker_started_afresh_mid_game_reads_the_table_as_found(tmp_path):
    """A camera agent restarted (``read_afresh``) or a game resumed: the new tracker reports the
    card lying in the cut spot as appeared, and that is no new cut; a card laid after is."""
    from tableassist.games.wreckers import Wreckers

    session, camera, _heard = on_a_session(tmp_path, "wreckers", seed=3)
    assert isinstance(session.game, Wreckers)
    wrecks = sorted((c for c in session.game.deck.values() if c.type == "W"),
                    key=lambda c: (c.millions, c.discovery))
    table = Table("wreckers")
    ann = table.appear("card", wrecks[0].name, zone="cut")
    camera.feed([ann], table.t)
    assert [s.action["type"] for s in session.steps] == ["deal", "cut_card"]
    camera.read_afresh()            # the agent started again: its tracker finds Ann's card
    camera.feed([table.appear("card", wrecks[0].name, zone="cut")], table.t)
    assert len(session.steps) == 2 and camera.notice is None
    resumed = TableSession.open(session.store, session.saved.id)
    again = Camera(grace=0.0)
    again.follow(resumed)           # the server started again: the same
    again.feed([table.appear("card", wrecks[0].name, zone="cut")], table.t)
    assert len(resumed.steps) == 2
    again.feed([table.event("removed", "card", wrecks[0].name, zone="cut"),
                table.appear("card", wrecks[1].name, zone="cut", pos=(120.0, 100.0))], table.t)
    assert [s.action.get("cutter") for s in resumed.steps] == [None, "Ann", "Bea"]


def test_the_reading_loops_notices_come_in_the_screens_language():
    """What the loop says of its source is a message: a German screen reads it in German."""
    import threading

    from tableassist.camera.frames import link_notice, read_frames
    from tableassist.vision.sources import Link

    said: list = []
    read_frames(Blinking([True, False]), lambda frame, t: None,
                lambda **fields: said.append(fields["notice"]), stop=threading.Event(),
                name="Kamera 7", until_end=True)
    assert said[-1] == "Kamera 7: the video ended"
    assert i18n.render(said[-1], "de") == "Kamera 7: das Video ist zu Ende"
    assert i18n.render(said[-1], "es") == "Kamera 7: el vídeo ha terminado"
    from tableassist.vision.sources import _SAYS
    link = Link("reconnecting", attempt=2, retry_in=2.5, reason=_SAYS["no_picture_for"](seconds=4))
    lost = link_notice("Kamera 7", link)
    # the command line's English word for word; the wait's decimals as each language writes them
    assert lost == f"Kamera 7: {link.text}"
    assert i18n.render(lost, "de") == \
        "Kamera 7: neue Verbindung (seit 4 s kein Bild): Versuch 2, nächster in 2,5 s"
    # every reason a stream drops for, in the screen's language (no English word)
    from tests.words import english_left, lowered
    for lang in ("de", "es"):
        shown = {key: i18n.render(link_notice("Kamera 7", Link("lost", reason=_SAYS[key](
            **({"seconds": 4} if key == "no_picture_for" else {})))), lang)
            for key in ("stream_closed", "no_picture_for", "undecodable", "closed",
                        "no_stream_short", "no_camera_short")}
        english = {key: str(link_notice("Kamera 7", Link("lost", reason=_SAYS[key](
            **({"seconds": 4} if key == "no_picture_for" else {})))))
            for key in shown}
        report = english_left(shown, lowered(english.values()), lang, allowed=["Kamera"])
        assert not report, f"English in the {lang} camera card: {report}"
    assert "el siguiente en 2,5 s" in i18n.render(lost, "es")
    assert i18n.render(link_notice("Kamera 7", Link("lost")), "es") == \
        "Kamera 7: la transmisión se ha detenido"


def test_a_slow_camera_says_how_long_a_card_must_lie_in_view():
    """A camera that reads two pictures a second (a busy computer): the tracker wants a card in 3
    pictures, so the host's panel says a card is read once it has lain 1.5 s in view. At ten a
    second it says nothing. The real pipeline (command cards only) on plain pictures, their
    times as a source gives them."""
    import numpy as np

    from tableassist.camera.frames import PACE_FRAMES, SLOW_PACE
    from tableassist.vision import TablePipeline

    registry = load_registry()
    camera = Camera(pipeline_for=lambda game: TablePipeline(None, registry))
    told = []
    camera.subscribe(lambda s: told.append(s.slow))
    picture = np.full((48, 64, 3), 128, np.uint8)
    for k in range(PACE_FRAMES + 5):
        camera.process(picture, 0.5 * k)                  # 2 a second
    assert SLOW_PACE > 2.0 and camera.status.slow == (2.0, 1.5)
    assert camera.status.device_json()["slow"] == {"pace": 2.0, "seconds": 1.5}
    assert told.count((2.0, 1.5)) == 1                    # said once, not with every picture
    for k in range(PACE_FRAMES):
        camera.process(picture, 10.0 + 0.1 * k)           # 10 a second
    assert camera.status.slow is None and told[-1] is None
    for k in range(PACE_FRAMES):
        camera.process(picture, 20.0 + 0.4 * k)           # 2.5 a second: 1.2 s, to the half second
    assert camera.status.slow == (2.5, 1.0)


def test_a_slow_cameras_notice_goes_when_it_stops():
    """The camera's threads reading a source whose pictures come half a second apart (its own
    time): slow, and once stopped no longer."""
    import itertools

    from tableassist.vision import TablePipeline
    from tests.server.conftest import wait_until

    registry = load_registry()
    camera = Camera(pipeline_for=lambda game: TablePipeline(None, registry))
    clock = itertools.count(0.0, 0.5)
    camera.start(Blinking([True] * 1000), name="camera 7", fps=200, frame_time=lambda: next(clock))
    try:
        wait_until(lambda: camera.status.slow is not None, 10, "the slow camera's notice")
    finally:
        camera.stop()
    assert camera.status.device_json()["state"] == "off" and camera.status.slow is None
