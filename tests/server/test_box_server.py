"""The "Your box" screen's events over real sockets (tableassist/server/box.py): who may use them,
saving and refusing entries, the lobby's progress, the preview by the engine's rule, export and
import, a new game with the saved crate, and the camera picking an entry with a photo (and
saying nothing of a secret card while a game is on)."""

from __future__ import annotations

import pytest

from tableassist.markers.registry import load_registry
from tableassist.table.box_file import parse_text
from tableassist.vision import MarkerDetector
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import Scene, Viewpoint, registry_piece
from tests.box_photos import crate_piece, read_cells
from tests.server.conftest import wait_until

C17 = ["#  .  G3", "K2 .  X1", "G2 R1 ."]
SEATS = [{"name": "Ann", "colour": "red"}, {"name": "Bea", "colour": "blue"}]


def listening(client):
    seen: list[dict] = []
    client.sio.on("box_seen", seen.append)
    return seen


def test_only_the_tables_own_screens_open_a_box(box_server):
    spectator = box_server.client()
    answer = spectator.call("box", {"game": "shipshape"})
    assert answer == {"ok": False, "error": "only the table's own screens may do that; ask the "
                                            "host for the table link"}
    for event, data in [("box_save", {"game": "shipshape", "path": "crates[C17]", "values": {}}),
                        ("box_import", {"text": "tableassist_box = 1\n"}),
                        ("box_export", {})]:
        assert not spectator.call(event, data)["ok"]
    assert not box_server.table.box.folder.exists()


def test_open_save_and_the_lobby_counts(box_server):
    table = box_server.client(box_server.tokens.table)
    assert table.state["lobby"]["box"]["shipshape"]["text"] == "ShipShape: 0 of 72 checked"
    opened = table.call("box", {"game": "shipshape"})
    assert opened["ok"] and opened["title"] == "ShipShape" and opened["keeps"] is True
    entry = next(e for e in opened["entries"] if e["path"] == "crates[C17]")
    assert entry["group"] == "Crates" and entry["editor"] == "crate" and not entry["checked"]
    assert entry["values"]["back"] == "mirror" and entry["values"]["sticker_front"] == "NW"
    assert entry["what"].startswith("A transparent crate")
    saved = table.call("box_save", {"game": "shipshape", "path": "crates[C17]",
                                    "values": {**entry["values"], "front": C17}, "checked": True})
    assert saved["ok"] and saved["entry"]["checked"] and saved["entry"]["values"]["front"] == C17
    assert saved["progress"]["text"] == "ShipShape: 1 of 72 checked"
    table.wait_state(lambda s: s["lobby"]["box"]["shipshape"]["checked"] == 1,
                     "the lobby's progress")
    assert box_server.table.box.entries("shipshape")["crates[C17]"]["front"] == C17


@pytest.mark.parametrize("data, words", [
    ({"game": "shipshape", "path": "crates[C17]", "values": {"front": ["# . G3"]}},
     "not saved: crates[C17]: front: a crate has 3 rows of 3 cells, not 1 rows"),
    ({"game": "shipshape", "path": "crates[C99]", "values": {}},
     "not saved: 'crates[C99]': no such entry in ShipShape's components"),
    ({"game": "shipwrecked", "path": "resource_cards[FOOD-10]", "values": {"income": 99}},
     "not saved: resource_cards[FOOD-10]: income: a whole number 0–10, not 99"),
    ({"game": "monopoly", "path": "board", "values": {}}, "unknown game 'monopoly'"),
    ({"game": "shipshape", "path": "crates[C17]", "values": [1]},
     "an entry's \"values\" are a JSON object of its fields"),
    ({"game": "shipshape", "path": "crates[C17]", "values": {}, "checked": "yes"},
     "\"checked\" is true or false"),
])
def test_a_bad_entry_is_refused_and_nothing_changes(box_server, data, words):
    table = box_server.client(box_server.tokens.table)
    version = table.state["version"]
    answer = table.call("box_save", data)
    assert not answer["ok"] and words in answer["error"], answer
    assert not box_server.table.box.folder.exists()
    assert table.state["version"] == version


def test_the_preview_is_the_engines_visibility(box_server):
    """The worked example of docs/games/shipshape.md: crate C01 front up on hold H01."""
    table = box_server.client(box_server.tokens.table)
    answer = table.call("box_preview", {
        "hold": [".  R2 .", ".  .  R1", ".  .  ."],
        "crates": [{"front": ["#  .  G3", "G3 K1 K2", ".  .  ."], "face": "front",
                    "rotation": 0}]})
    assert answer["ok"]
    shows = [[c["shows"] for c in row] for row in answer["cells"]]
    assert shows == [["#", "R2", "G3"], ["G3", "K1", "K2"], [".", ".", "."]]
    assert [c["layer"] for c in answer["cells"][0]] == [0, -1, 0]
    assert answer["totals"] == {"gold": 6, "rats": 2, "cannons": 3, "contraband": 0,
                                "filled": 5, "spaces": 9, "full": False}
    # turned and flipped, as the engine orients it (G-SS-06)
    turned = table.call("box_preview", {"hold": [". . ."] * 3, "crates": [
        {"front": ["#  .  G3", "G3 K1 K2", ".  .  ."], "face": "back", "rotation": 90}]})
    assert [[c["shows"] for c in row] for row in turned["cells"]] == \
        [[".", "K2", "G3"], [".", "K1", "."], [".", "G3", "#"]]
    bad = table.call("box_preview", {"hold": [". . ."] * 3, "crates": [
        {"front": ["Q1 . ."] * 3, "face": "front", "rotation": 0}]})
    assert not bad["ok"] and "cannot read cell 'Q1'" in bad["error"]
    sideways = table.call("box_preview", {"hold": [". . ."] * 3, "crates": [
        {"front": [". . ."] * 3, "face": "side", "rotation": 45}]})
    assert sideways["error"] == "the preview: face must be 'front' or 'back', not 'side' (G-SS-06)"


def test_export_import_over_the_socket(box_server):
    table = box_server.client(box_server.tokens.table)
    box = box_server.table.box
    box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
    exported = table.call("box_export", {"game": "shipshape"})
    assert exported["ok"] and exported["filename"] == "tableassist-box-shipshape.toml"
    assert parse_text(exported["text"]) == {"shipshape": box.entries("shipshape")}
    before = box.path("shipshape").read_bytes()
    refused = table.call("box_import", {"text": "not a box file at all ="})
    assert not refused["ok"] and refused["error"].startswith("that file is damaged")
    deep = table.call("box_import", {"text": "tableassist_box = 1\na = " + "[" * 5000 + "]" * 5000})
    assert deep["error"] == "that file is nested far too deeply to be a box file (is it the right file?)"
    foreign = table.call("box_import", {"text": "tableassist_box = 1\n[schmuggler.\"goods[good_05]\"]"
                                                "\nname = \"Kaffee\"\n", "game": "shipshape"})
    assert foreign["error"] == "that file holds Schmuggler an Bord, not ShipShape"
    assert box.path("shipshape").read_bytes() == before
    theirs = exported["text"].replace("G3", "G4")
    imported = table.call("box_import", {"text": theirs})
    assert imported["ok"] and imported["report"] == {
        "shipshape": {"added": 0, "replaced": 1, "unchanged": 0}}
    assert box.entries("shipshape")["crates[C17]"]["front"][0] == "#  .  G4"


def test_a_new_game_is_played_with_the_saved_crate(box_server):
    table = box_server.client(box_server.tokens.table)
    box_server.table.box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
    answer = table.call("start", {"game": "shipshape", "players": SEATS})
    assert answer["ok"], answer
    state = table.wait_state(lambda s: s.get("view"))
    assert "crates[C17]" not in state["view"]["unverified"]
    assert len(state["view"]["unverified"]) == 71
    components = box_server.table.session.saved.components
    assert next(c for c in components["crates"] if c["id"] == "C17")["front"] == C17


def crate_frame(grid, crate="C17", side="front", corner="NW", rotation=25.0, extra=()):
    registry = load_registry()
    piece = crate_piece(registry, crate, side, grid, corner, 120, 80, rotation)
    scene = Scene(240, 160, (piece, *extra), rim=10)
    frame, _ = Renderer(registry.dictionary).render(scene, Viewpoint(tilt=8))
    return frame


def test_the_camera_picks_the_entry_and_keeps_its_photo(box_server):
    table = box_server.client(box_server.tokens.table)
    seen = listening(table)
    camera = box_server.app.box_camera
    frame = crate_frame(C17)
    detector = MarkerDetector(load_registry().dictionary)
    camera.look(frame, detector.detect(frame))
    assert seen == []                       # nobody has a box screen open
    assert table.call("box", {"game": "shipshape"})["ok"]
    assert camera.watching()
    camera.look(frame, detector.detect(frame))
    wait_until(lambda: seen, what="box_seen")
    got = seen[-1]
    assert (got["path"], got["label"], got["side"], got["problem"]) == \
        ("crates[C17]", "Crate C17", "front", None)
    assert got["photo"].startswith("data:image/jpeg;base64,")
    saved = table.call("box_save", {"game": "shipshape", "path": "crates[C17]",
                                    "values": {"front": C17}, "checked": True, "keep_photo": True})
    assert saved["photos_kept"] == ["front"] and saved["entry"]["photos"] == ["front"]
    photos = table.call("box_photos", {"game": "shipshape", "path": "crates[C17]"})["photos"]
    assert photos["front"].startswith("data:image/jpeg;base64,")
    kept = box_server.table.box.images("shipshape", "crates[C17]")["front"]
    import cv2
    image = cv2.imread(str(kept))
    assert [[t for t in row] for row in read_cells(image)][1:] == [["K", ".", "X"], ["G", "R", "."]]
    # the screen closes: the camera stops looking
    table.call("box_close", {})
    assert not camera.watching()


def test_a_secret_card_is_neither_named_nor_photographed_while_a_game_is_on(box_server):
    registry = load_registry()
    marker = next(m for m in registry.markers("shipwrecked") if m.item == "FOOD-40")
    piece = registry_piece(registry, "shipwrecked", marker.id, 120, 80)
    scene = Scene(240, 160, (piece,), rim=10)
    frame, _ = Renderer(registry.dictionary).render(scene, Viewpoint())
    found = MarkerDetector(registry.dictionary).detect(frame)
    table = box_server.client(box_server.tokens.table)
    seen = listening(table)
    table.call("box", {"game": "shipwrecked"})
    camera = box_server.app.box_camera
    camera.look(frame, found)
    wait_until(lambda: seen, what="box_seen at the lobby")
    assert seen[-1]["path"] == "resource_cards[FOOD-40]" and seen[-1]["photo"]
    assert table.call("start", {"game": "shipwrecked", "players": SEATS + [
        {"name": "Cy", "colour": "green"}]})["ok"]
    seen.clear()
    camera.look(frame, found)
    wait_until(lambda: seen, what="box_seen during the game")
    assert seen[-1] == {"game": "shipwrecked", "path": None, "notice":
                        "the camera sees a resource card, whose face is secret in the game being "
                        "played: it is named and photographed at the lobby only"}
    assert "FOOD" not in str(seen)


def test_a_camera_at_the_lobby_does_not_redraw_the_screens_every_frame(box_server):
    """The box screen is tapped while the camera reads the table: a state per frame would
    redraw the page under the finger (the camera said "on" at every frame before). Counted."""
    from tests.camera_sources import Still

    table = box_server.client(box_server.tokens.table)
    seen = listening(table)
    assert table.call("box", {"game": "shipshape"})["ok"]   # the camera looks for the box too
    camera = box_server.camera
    camera.start(Still(crate_frame(C17)), name="synthetic", fps=20)
    try:
        # the camera said "on" (a broadcast) before it handed the first frame to the box screen
        wait_until(lambda: seen, what="box_seen")
        before, frames = len(table.states), camera.frames
        wait_until(lambda: camera.frames >= frames + 8, timeout=20, what="8 more frames read")
        assert len(table.states) - before <= 1   # "camera on", once
    finally:
        camera.stop()


@pytest.mark.parametrize("lang, words", [
    ("de", {"refused": "nicht gespeichert: crates[C17]: front: eine Kiste hat 3 Reihen zu 3 Zellen, "
                       "nicht 1 Reihen",
            "progress": "ShipShape: 0 von 72 geprüft", "group": "Kisten"}),
    ("es", {"refused": "no guardado: crates[C17]: front: una caja tiene 3 filas de 3 celdas, "
                       "no 1 filas",
            "progress": "ShipShape: 0 de 72 comprobados", "group": "Cajas"}),
])
def test_the_box_screen_speaks_the_screens_language(box_server, lang, words):
    """The box's refusals (a field's check inside "not saved: …"), its progress line and the box
    form's words reach a German or Spanish screen in its language, not in English."""
    table = box_server.client(box_server.tokens.table, lang)
    assert table.state["lobby"]["box"]["shipshape"]["text"] == words["progress"]
    opened = table.call("box", {"game": "shipshape"})
    entry = next(e for e in opened["entries"] if e["path"] == "crates[C17]")
    assert entry["group"] == words["group"], entry
    answer = table.call("box_save", {"game": "shipshape", "path": "crates[C17]",
                                     "values": {"front": ["# . G3"]}})
    assert answer == {"ok": False, "error": words["refused"]}
    assert not box_server.table.box.folder.exists()
