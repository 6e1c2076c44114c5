"""Your box (tableassist/table/box*.py): the box forms against the data files and the stickers, each
field's checks in the table's words, the engine's own check of a whole box, box files that are
damaged or foreign (nothing changes), export and import, the merge into new games, and saved games
that keep the components they started with."""

from __future__ import annotations

import json
import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tableassist import cli
from tableassist.games.protocol import SetupError
from tableassist.games.shipshape import CellError, read_cell
from tableassist.markers.registry import load_registry
from tableassist.table import catalog
from tableassist.table.box import Box
from tableassist.table.box_checks import check_box, check_entry
from tableassist.table.box_file import dump_text, parse_text
from tableassist.table.box_form import BoxError, form, shipped_value
from tableassist.table.box_merge import merge
from tableassist.table.session import TableSession
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions

GAMES = list(catalog.ENGINES)
C17 = ["#  .  G3", "K2 .  X1", "G2 R1 ."]


def shipped_values(game, path):
    entry = form(game).entries[path]
    data = catalog.shipped_components(game)
    return {f.name: shipped_value(entry, f, data) for f in entry.kind.fields}


def file_state(box: Box):
    """Every file of the box folder with its bytes: what "changes nothing" compares."""
    if not box.folder.exists():
        return {}
    return {p.relative_to(box.folder).as_posix(): p.read_bytes()
            for p in sorted(box.folder.rglob("*")) if p.is_file()}


@pytest.fixture
def box(tmp_path):
    return Box(tmp_path / "box")


# -- the forms ---------------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_every_unverified_value_has_an_entry_that_says_what_and_where(game):
    the_form = form(game)
    shipped = catalog.shipped_components(game)
    assert set(catalog.unverified_values(shipped)) <= set(the_form.entries)
    for entry in the_form.entries.values():
        assert entry.kind.what.endswith(".") and entry.kind.where.endswith((".", ")"))
        assert entry.kind.fields and entry.label
    # the shipped values pass their own form's checks, and checked they leave nothing unverified
    everything = {path: {**shipped_values(game, path), "checked": True}
                  for path in the_form.entries}
    kept = check_box(game, everything)
    assert catalog.unverified_values(merge(game, shipped, kept)) == []


@pytest.mark.parametrize("game", GAMES)
def test_each_sticker_of_a_kind_selects_an_entry_of_its_game(game):
    """The form's `component` and `item` meet the marker registry: every sticker of a component
    the form names picks an entry (the camera's selection), and every list entry has a sticker."""
    the_form = form(game)
    markers = [m for m in load_registry().markers(game) if m.game == game]
    for kind in the_form.kinds:
        if kind.component is None:
            continue
        stickers = [m for m in markers if m.component == kind.component
                    and not (m.secret and m.side == "back")]
        assert stickers, kind.group
        picked = {the_form.for_marker(m.component, m.item)[0].path for m in stickers
                  if the_form.for_marker(m.component, m.item) is not None}
        entries = {p for p, e in the_form.entries.items() if e.kind is kind}
        assert picked == entries, (kind.group, entries - picked)


def test_the_slot_a_sticker_names():
    entry, slot = form("abandon_ship").for_marker("die_face", "red:face-3")
    assert (entry.path, slot) == ("dice[red]", "3")
    entry, slot = form("wreckers").for_marker("card", "Pirate Ship")
    assert (entry.path, slot) == ("copies", "Pirate Ship")
    assert form("shipshape").for_marker("crew_card", "red-3") is None


# -- one entry's checks --------------------------------------------------------------------------

@pytest.mark.parametrize("game, path, values, words", [
    ("shipshape", "crates[C17]", {"front": ["#  .  G3", "K2 .  X1 .", "G2 R1 ."]},
     "crates[C17]: front: a crate has 3 rows of 3 cells; row 2 has 4"),
    ("shipshape", "crates[C17]", {"front": ["#  .  G3", "K2 .  X1"]},
     "crates[C17]: front: a crate has 3 rows of 3 cells, not 2 rows"),
    ("shipshape", "crates[C17]", {"front": ["#  .  G0", "K2 .  X1", ". . ."]},
     "front: row 1: gold 'G0' needs a value 1–9"),
    ("shipshape", "crates[C17]", {"front": ["#  .  Z3", "K2 .  X1", ". . ."]},
     "front: row 1: a cell is . (a hole), # (blank), - (no cell), or G, K, X, R with a value "
     "such as G2; not 'Z3'"),
    ("shipshape", "crates[C17]", {"front": ["#  .  G10", "K2 .  X1", ". . ."]},
     "front: row 1: gold 'G10' needs a value 1–9"),
    ("shipshape", "crates[C17]", {"front": ["#  .  G٣", "K2 .  X1", ". . ."]},
     "front: row 1: a cell is . (a hole), # (blank), - (no cell), or G, K, X, R with a value "
     "such as G2; not 'G٣'"),
    ("shipshape", "crates[C17]", {"back": "flipped"},
     "back: \"mirror\" (the front mirrored) or a grid of its own, not 'flipped'"),
    ("shipshape", "crates[C17]", {"sticker_front": "top"},
     "sticker_front: one of NW, NE, SE, SW, not 'top'"),
    ("shipshape", "crates[C17]", {"frnt": C17},
     "crates[C17]: unknown field 'frnt' (Crate C17 has front, back, sticker_front, sticker_back)"),
    ("shipshape", "crates[C17]", {"front": C17, "checked": "yes"},
     "crates[C17]: checked is true or false, not 'yes'"),
    ("shipshape", "holds[H03]", {"grid": ["#  .  .", ". . .", ". . ."]},
     "grid: row 1: a cell is . (empty), or G, K, X, R with a value such as G2; not '#'"),
    ("shipshape", "holds[H03]", {"voyage_set": 4}, "holds[H03]: voyage_set: a whole number 1–3, not 4"),
    ("shipshape", "crates[C99]", {"front": C17},
     "'crates[C99]': no such entry in ShipShape's components (its entries are holds H01–H18, "
     "crates C01–C54)"),
    ("shipwrecked", "resource_cards[FOOD-10]", {"income": -1},
     "resource_cards[FOOD-10]: income: a whole number 0–10, not -1"),
    ("shipwrecked", "resource_cards[FOOD-10]", {"sale_value": "3"},
     "sale_value: a whole number 0–50, not '3'"),
    ("shipwrecked", "resource_cards[FOOD-10]", {"income": True},
     "income: a whole number 0–10, not True"),
    ("schmuggler", "goods[good_05]", {"name": "   "}, "name: a text, not an empty one"),
    ("schmuggler", "goods[good_05]", {"name": "x" * 31}, "name: 30 letters at most, not 31"),
    ("schmuggler", "track", {"spaces": ["coffee", "start"]}, "spaces: 31 items, not 2"),
    ("abandon_ship", "dice[red]", {"faces": ["1", "2", "3x", "4", "fwd", "sideways"]},
     "faces: face 6 cannot be 'sideways': a number, fwd or back, circled as (2), kept with x as 3x"),
    ("abandon_ship", "board", {"cheese_spaces": [6, 10, 10, 18, 22]},
     "cheese_spaces: the numbers go up, each once, from the bottom: 6, 10, 10, 18, 22"),
    ("abandon_ship", "rats", {"colours": ["red", "red", "green", "yellow", "orange", "purple",
                                          "black"]},
     "colours: each name once (red twice)"),
    ("abandon_ship", "tiles", {"sets": [["red", "blue"]] * 7}, "sets: item 1: 3 names"),
    ("wreckers", "copies", {"counts": {"Pirate Sheep": 2}},
     "counts: no card named 'Pirate Sheep' in the deck"),
    ("wreckers", "copies", {"counts": {"Pirate Ship": 13}},
     "counts: Pirate Ship: a whole number 0–12, not 13"),
])
def test_a_value_its_component_cannot_have_is_refused_in_words_and_not_saved(
        box, game, path, values, words):
    with pytest.raises(BoxError) as refused:
        check_entry(game, path, values)
    assert words in str(refused.value)
    before = file_state(box)
    with pytest.raises(BoxError) as again:
        box.save_entry(game, path, values)
    assert words in str(again.value)
    assert file_state(box) == before


@pytest.mark.parametrize("token", [".", "#", "-", "G2", "G02", "R", "R0", "K", "X9", "X10", "Q1",
                                   "g2", "G²", "G٣", "G-1", "GG", "R1x"])
@pytest.mark.parametrize("crate", [True, False], ids=["crate", "hold"])
def test_a_grid_cell_is_read_by_shipshapes_one_reader(token, crate):
    """The box reads a cell as the engine reads its data file (``shipshape.read_cell``), and
    only adds the form's largest value (9)."""
    try:
        engine = read_cell(token, crate=crate)
    except CellError:
        engine = None
    shape = "crates[C17]" if crate else "holds[H03]"
    name = "front" if crate else "grid"
    row = f"{token} .  ."
    try:
        kept = check_entry("shipshape", shape, {name: [row, ". . .", ". . ."]})[name][0].split()[0]
    except BoxError:
        kept = None
    if engine is not None and engine[:1] in "GKXR" and int(engine[1:]) > 9:
        assert kept is None
    else:
        assert kept == engine


def test_the_track_must_hold_every_good_once_and_begin_at_the_start():
    spaces = shipped_values("schmuggler", "track")["spaces"]
    swapped = [spaces[1], spaces[0], *spaces[2:]]
    with pytest.raises(BoxError, match="spaces: the loop begins at 'start'"):
        check_entry("schmuggler", "track", {"spaces": swapped})
    twice = [*spaces[:-1], "coffee"]
    with pytest.raises(BoxError, match="every space once: missing good_30; twice coffee"):
        check_entry("schmuggler", "track", {"spaces": twice})


def test_values_are_kept_in_the_data_files_notation():
    kept = check_entry("shipshape", "crates[C17]", {"front": ["# . G3", "K2 . X1", "G2 R ."],
                                                    "checked": True})
    assert kept == {"checked": True, "front": ["#  .  G3", "K2 .  X1", "G2 R1 ."]}  # R is R1
    assert check_entry("schmuggler", "goods[good_05]", {"name": "  Kaffee   aus  Brasilien "}) \
        == {"checked": False, "name": "Kaffee aus Brasilien"}


def test_the_engine_checks_the_whole_box(tmp_path, box):
    """What one field cannot see: Abandon Ship needs one cheese token per cheese space. An entry
    is saved even so (the next one may mend it), the box says why no game can use it, and no new
    game starts with it until it is mended; a file to import must be whole."""
    box.save_entry("abandon_ship", "board", {"cheese_spaces": [6, 10, 14, 18], "checked": True})
    problem = box.progress("abandon_ship")["unplayable"]
    assert problem == ("Abandon Ship cannot be played with these values: data: one cheese token "
                       "per cheese space")
    store = open_store(tmp_path / "table.sqlite3")
    try:
        with pytest.raises(SetupError, match="cannot start Abandon Ship: your box: Abandon Ship "
                                             "cannot be played with these values"):
            TableSession.create(store, "abandon_ship", ["A", "B", "C"], box=box)
        assert store.game_rows() == []
    finally:
        store.close()
    before = file_state(box)
    with pytest.raises(BoxError, match="Abandon Ship: Abandon Ship cannot be played with these "
                                       "values: data: one cheese token per cheese space"):
        box.import_text(dump_text({"abandon_ship": {"players": {"min": 3, "max": 7}}}))
    assert file_state(box) == before
    # with the tokens as well, it plays
    box.save_entry("abandon_ship", "cheese_tokens", {"values": [1, 2, 3, 4], "checked": True})
    box.save_entry("abandon_ship", "board", {"top_deck": 20, "cheese_spaces": [6, 10, 14, 18],
                                             "checked": True})
    assert box.progress("abandon_ship")["unplayable"] is None
    data = catalog.load_components("abandon_ship", box=box)
    assert data["board"]["cheese_spaces"] == [6, 10, 14, 18] and data["board"]["top_deck"] == 20
    assert catalog.new_game("abandon_ship", ["A", "B", "C"], components=data).view(None)[
        "top_deck"] == 20


def test_renaming_a_rat_renames_it_on_its_die_and_the_tiles(box):
    colours = shipped_values("abandon_ship", "rats")["colours"]
    renamed = ["pink" if c == "purple" else c for c in colours]
    box.save_entry("abandon_ship", "rats", {"colours": renamed, "checked": True})
    data = catalog.load_components("abandon_ship", box=box)
    assert data["rats"]["colours"] == renamed
    assert next(d for d in data["dice"] if d["id"] == "purple")["colour"] == "pink"
    assert not any("purple" in tile for tile in data["tiles"]["sets"])
    assert sum("pink" in tile for tile in data["tiles"]["sets"]) == 3


# -- the merge, progress, new and saved games ----------------------------------------------------

def test_a_box_merges_over_the_shipped_data_and_counts_what_is_checked(box):
    assert box.progress("shipshape")["text"] == "ShipShape: 0 of 72 checked"
    box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
    box.save_entry("shipshape", "holds[H02]", {"grid": [". G1 .", ". . .", ". . R2"]})
    progress = box.progress("shipshape")
    assert (progress["checked"], progress["total"], progress["text"]) == \
        (1, 72, "ShipShape: 1 of 72 checked")
    data = catalog.load_components("shipshape", box=box)
    crate = next(c for c in data["crates"] if c["id"] == "C17")
    assert crate["front"] == C17 and crate["verified"] is True
    assert "sticker_front" not in crate   # where the sticker sits is the camera's business
    hold = next(h for h in data["holds"] if h["id"] == "H02")
    assert hold["grid"] == [".  G1 .", ".  .  .", ".  .  R2"] and hold["verified"] is False
    unverified = catalog.unverified_values(data)
    assert "crates[C17]" not in unverified and "holds[H02]" in unverified and len(unverified) == 71
    # the shipped data itself is untouched
    assert next(c for c in catalog.load_components("shipshape")["crates"]
                if c["id"] == "C17")["front"] != C17


def test_the_banner_goes_once_everything_is_checked(box):
    the_form = form("wreckers")
    for path in the_form.entries:
        box.save_entry("wreckers", path, {**shipped_values("wreckers", path), "checked": True})
    assert box.progress("wreckers")["text"] == "Wreckers: 5 of 5 checked"
    game = catalog.new_game("wreckers", ["Ann", "Bea"],
                            components=catalog.load_components("wreckers", box=box))
    assert game.view(None)["unverified"] == []


def play_until(session, rng, stop):
    while not stop(session.game):
        options = all_legal_actions(session.game)
        action = rng.choice(options)
        if action["player"] is None:
            action = session.game.chance_action() or action
        session.submit(action, source="tablet", author="test")


def test_a_saved_game_keeps_its_components_whatever_the_box_becomes(tmp_path, box):
    store = open_store(tmp_path / "table.sqlite3")
    try:
        box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
        session = TableSession.create(store, "shipshape", ["Ann", "Bea"], seed=5, box=box)
        started_with = json.dumps(session.saved.components, sort_keys=True)
        play_until(session, random.Random(5), lambda g: g.view(None)["voyages"])
        views = {v: session.game.view(v) for v in (None, "Ann", "Bea")}
        history = session.history()
        # the players go on transcribing: every crate and hold changes
        edits = {}
        for path in form("shipshape").entries:
            values = shipped_values("shipshape", path)
            values["front" if path.startswith("crates") else "grid"] = ["G1 G1 G1"] * 3
            edits[path] = {**values, "checked": True}
        box.import_text(dump_text({"shipshape": edits}))
        reopened = TableSession.open(store, session.saved.id)
        assert json.dumps(reopened.saved.components, sort_keys=True) == started_with
        assert {v: reopened.game.view(v) for v in (None, "Ann", "Bea")} == views
        assert reopened.history() == history
        # a new game is played with the box as it is now
        fresh = TableSession.create(store, "shipshape", ["Ann", "Bea"], seed=5, box=box)
        assert fresh.game.view(None)["unverified"] == []
        assert next(c for c in fresh.saved.components["crates"] if c["id"] == "C01")["front"] \
            == ["G1 G1 G1"] * 3
    finally:
        store.close()


# -- damaged and foreign box files ---------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    (b"\x89PNG\r\n\x1a\n\x00\x00", "is not a text file (a box file is TOML, written in UTF-8)"),
    ("tableassist_box = 1\n[shipshape.\"crates[C17]\"\nfront = 3\n", "is damaged and cannot be read"),
    ("[shipshape.\"crates[C17]\"]\nchecked = true\n",
     "is not a tableassist box file: it has no `tableassist_box = 1` line"),
    ("game = \"shipshape\"\n[[crates]]\nid = \"C01\"\n",
     "is not a tableassist box file: it has no `tableassist_box = 1` line (it looks like a game's "
     "data file)"),
    ("tableassist_box = 2\n", "was written by a newer tableassist (box format 2; this one reads 1): "
                              "update tableassist to read it"),
    ("tableassist_box = 1\n[monopoly.\"board\"]\nchecked = true\n",
     "'monopoly' is not a game of this tableassist"),
    ("tableassist_box = 1\n[shipshape]\nedition = \"2020\"\n",
     "[shipshape] holds one table per entry"),
])
def test_a_damaged_or_foreign_box_file_is_refused_and_changes_nothing(box, text, words):
    box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
    before = file_state(box)
    with pytest.raises(BoxError) as refused:
        box.import_text(text, where="friend.toml")
    assert f"friend.toml {words}" in str(refused.value) or words in str(refused.value)
    assert file_state(box) == before


@pytest.mark.parametrize("lang, where", [("en", "line 2, column 25"), ("de", "Zeile 2, Spalte 25"),
                                         ("es", "línea 2, columna 25")])
def test_a_damaged_box_file_says_what_is_wrong_and_where_in_the_language(box, lang, where):
    """tomllib's sentence is English: the refusal says the fault and its place in the screen's
    language, and keeps the reader's words only as the detail, marked as such."""
    from tableassist import i18n
    with pytest.raises(BoxError) as refused:
        box.import_text("tableassist_box = 1\n[shipshape.\"crates[C17]\"\nfront = 3\n",
                        where="friend.toml")
    said = i18n.render(refused.value.problems[0], lang)
    assert where in said and said.endswith("Expected ']' at the end of a table declaration))")
    assert {"en": "a bracket", "de": "eine Klammer", "es": "falta un corchete"}[lang] in said


def nested(depth: int) -> str:
    """A box file whose one value is arrays inside arrays, ``depth`` deep: TOML, but no box."""
    return "tableassist_box = 1\n[shipshape.\"crates[C17]\"]\nfront = " + "[" * depth + \
        "]" * depth + "\n"


def test_a_box_file_nested_5000_deep_is_refused_in_one_sentence(tmp_path, capsys, box):
    """The TOML reader recurses per level: a file nested deeper than Python's stack is refused
    as a box file can be, by the screen's import, the box folder and ``tableassist box``."""
    box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
    before = file_state(box)
    said = "deep.toml is nested far too deeply to be a box file (is it the right file?)"
    with pytest.raises(BoxError) as refused:
        box.import_text(nested(5000), where="deep.toml")
    assert str(refused.value) == said
    assert file_state(box) == before
    deep = tmp_path / "deep.toml"
    deep.write_text(nested(5000))
    mine = ["--box", str(box.folder)]
    assert cli.main(["box", *mine, "check", str(deep)]) == 1
    assert capsys.readouterr().err == said.replace("deep.toml", str(deep)) + "\n"
    assert cli.main(["box", *mine, "import", str(deep)]) == 2
    assert capsys.readouterr().err == said.replace("deep.toml", str(deep)) + "\n"
    assert file_state(box) == before
    # the same file in the box folder: said, kept, and no game starts with it
    box.path("shipshape").write_text(nested(5000))
    assert box.progress("shipshape")["problem"] == \
        f"your box file {box.path('shipshape')} cannot be used: " + \
        said.replace("deep.toml", str(box.path("shipshape")))
    with pytest.raises(BoxError, match="nested far too deeply"):
        catalog.load_components("shipshape", box=box)


def test_a_box_file_of_another_game_is_refused_for_this_one(box):
    other = dump_text({"schmuggler": {"goods[good_05]": {"name": "Kaffee", "checked": True}}})
    with pytest.raises(BoxError, match="friend.toml holds Schmuggler an Bord, not ShipShape"):
        box.import_text(other, game="shipshape", where="friend.toml")
    assert file_state(box) == {}


def test_one_bad_entry_imports_nothing(box):
    text = dump_text({"shipshape": {"crates[C17]": {"front": C17, "checked": True}},
                      "shipwrecked": {"resource_cards[FOOD-10]": {"income": 11}}})
    with pytest.raises(BoxError) as refused:
        box.import_text(text)
    assert refused.value.problems == [
        "Shipwrecked: resource_cards[FOOD-10]: income: a whole number 0–10, not 11",
        "nothing was imported"]
    assert file_state(box) == {}


def test_a_damaged_box_file_in_the_folder_is_said_and_kept(tmp_path, box):
    box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
    path = box.path("shipshape")
    damaged = path.read_bytes().replace(b"G3", b"G0")   # an edit by hand gone wrong
    path.write_bytes(damaged)
    problem = box.progress("shipshape")["problem"]
    assert problem.startswith(f"your box file {path} cannot be used: crates[C17]: front: row 1:")
    with pytest.raises(BoxError, match="fix it \\(tableassist box check\\) or move it away"):
        catalog.load_components("shipshape", box=box)
    store = open_store(tmp_path / "table.sqlite3")
    try:
        with pytest.raises(SetupError, match="^cannot start ShipShape: your box file"):
            TableSession.create(store, "shipshape", ["Ann", "Bea"], box=box)
        assert store.game_rows() == []
    finally:
        store.close()
    # saving over it would lose the person's work: refused, the file as it was
    with pytest.raises(BoxError, match="nothing was saved"):
        box.save_entry("shipshape", "crates[C18]", {"front": C17})
    assert path.read_bytes() == damaged
    # the other games are not affected
    assert box.progress("wreckers")["problem"] is None


def test_a_box_file_is_read_once_per_change_not_per_lobby(box, monkeypatch):
    """Every broadcast carries each game's progress to the table's screens: the box files are
    read and set up by the engine once per change of a file, not per broadcast. Counted."""
    from tableassist.table import box as box_module
    reads: list[str] = []
    parse = box_module.parse_text
    monkeypatch.setattr(box_module, "parse_text",
                        lambda text, where="": (reads.append(where), parse(text, where))[1])
    box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
    for _ in range(50):
        assert box.progress("shipshape")["checked"] == 1
        box.progress("wreckers")                      # no file: nothing to read
    assert len(reads) == 1
    box.save_entry("shipshape", "crates[C18]", {"front": C17})
    for _ in range(50):
        box.progress("shipshape")
    assert len(reads) == 2


# -- export and import ---------------------------------------------------------------------------

def test_export_and_import_round_trip(tmp_path, box):
    box.save_entry("shipshape", "crates[C17]", {"front": C17, "back": ["G1 .  #", ".  .  .",
                                                                      ".  K1 ."],
                                                "sticker_back": "SE", "checked": True})
    box.save_entry("schmuggler", "goods[good_05]", {"name": "Kaffee \"extra\" \\ ü", "checked": True})
    box.save_entry("wreckers", "copies", {"counts": {"Pirate Ship": 2, "Archeologist’s Criticism": 3}})
    text = box.export_text()
    assert parse_text(text) == {g: box.entries(g) for g in ("shipshape", "wreckers", "schmuggler")}
    other = Box(tmp_path / "other")
    report = other.import_text(text)
    assert report == {g: {"added": 1, "replaced": 0, "unchanged": 0}
                      for g in ("shipshape", "wreckers", "schmuggler")}
    for game in GAMES:
        assert other.entries(game) == box.entries(game)
        assert catalog.load_components(game, box=other) == catalog.load_components(game, box=box)
    # again: nothing new; one game only
    assert other.import_text(text, game="wreckers") == {
        "wreckers": {"added": 0, "replaced": 0, "unchanged": 1}}
    single = box.export_text("shipshape")
    assert list(parse_text(single)) == ["shipshape"]


def test_an_imported_entry_replaces_the_one_of_the_same_path(box):
    box.save_entry("shipshape", "crates[C17]", {"front": C17, "checked": True})
    box.save_entry("shipshape", "crates[C18]", {"front": C17})
    theirs = dump_text({"shipshape": {"crates[C17]": {"front": ["#  #  #"] * 3, "checked": True},
                                      "crates[C19]": {"front": C17, "checked": True}}})
    assert box.import_text(theirs) == {"shipshape": {"added": 1, "replaced": 1, "unchanged": 0}}
    entries = box.entries("shipshape")
    assert entries["crates[C17]"]["front"] == ["#  #  #"] * 3
    assert set(entries) == {"crates[C17]", "crates[C18]", "crates[C19]"}


values = st.recursive(
    st.one_of(st.booleans(), st.integers(-10**6, 10**6),
              st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)),
    lambda inner: st.lists(inner, max_size=4), max_leaves=12)
keys = st.text(string.ascii_letters + string.digits + " _-.[]'\"’é", min_size=1, max_size=12)


@given(st.dictionaries(keys, st.dictionaries(
    keys.filter(lambda k: k != "checked"),
    st.one_of(values, st.dictionaries(keys, st.integers(0, 99), max_size=3)), max_size=4),
    max_size=4))
@settings(max_examples=60, deadline=None)
def test_a_box_file_reads_back_what_was_written(entries):
    assert parse_text(dump_text({"shipshape": entries})) == {"shipshape": entries}


def test_a_box_file_is_written_for_a_person_to_read():
    """As docs/box.md shows it: the format's line, one table per entry in the form's order,
    ``checked`` first, a grid's rows one per line."""
    text = dump_text({"shipshape": {"crates[C18]": {"front": C17},
                                    "crates[C17]": {"back": "mirror", "front": C17,
                                                    "checked": True}}})
    body = text[text.index("tableassist_box"):]
    assert body.startswith('tableassist_box = 1\n\n[shipshape."crates[C17]"]\nchecked = true\n'
                           'back = "mirror"\nfront = [\n    "#  .  G3",\n    "K2 .  X1",\n')
    assert body.index("crates[C17]") < body.index("crates[C18]")
    assert all(line.startswith("#") for line in text[:text.index("tableassist_box")].splitlines())


# -- the command line ----------------------------------------------------------------------------

def test_the_box_command(tmp_path, capsys, box):
    mine = ["--box", str(box.folder)]
    good = tmp_path / "good.toml"
    good.write_text(dump_text({"shipshape": {"crates[C17]": {"front": C17, "checked": True}}}))
    assert cli.main(["box", *mine, "check", str(good)]) == 0
    assert "ShipShape: 1 entry, 1 of 72 checked" in capsys.readouterr().out
    assert cli.main(["box", *mine, "import", str(good)]) == 0
    out = capsys.readouterr().out
    assert "ShipShape: 1 added, 0 replaced, 0 unchanged" in out
    assert "ShipShape: 1 of 72 checked" in out
    exported = tmp_path / "mine.toml"
    assert cli.main(["box", *mine, "export", "--game", "shipshape", "-o", str(exported)]) == 0
    assert parse_text(exported.read_text()) == {"shipshape": box.entries("shipshape")}
    assert cli.main(["box", *mine, "check"]) == 0
    assert "every box file is usable" in capsys.readouterr().err

    bad = tmp_path / "bad.toml"
    bad.write_text("tableassist_box = 1\n[shipshape.\"crates[C17]\"]\nfront = [\"#\"]\n")
    before = file_state(box)
    assert cli.main(["box", *mine, "check", str(bad)]) == 1
    assert "bad.toml: ShipShape: crates[C17]: front: a crate has 3 rows of 3 cells, not 1 rows" \
        in capsys.readouterr().err
    assert cli.main(["box", *mine, "import", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "ShipShape: crates[C17]: front:" in err and "nothing was imported" in err
    assert cli.main(["box", *mine, "import", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert file_state(box) == before


def test_the_progress_says_group_by_group_what_its_count_is_made_of(box):
    """Schmuggler's 28 values to check are 26 of the 30 goods, the track and the die: one count,
    group by group, that every screen shows (issue 27: 26, 28 and 30 seemed to disagree)."""
    box.save_entry("schmuggler", "goods[good_05]", {"name": "Tee", "checked": True})
    progress = box.progress("schmuggler")
    assert (progress["checked"], progress["total"]) == (1, 28)
    assert progress["parts"] == [
        {"group": "Goods", "entries": 30, "total": 26, "checked": 1},
        {"group": "The board", "entries": 1, "total": 1, "checked": 0},
        {"group": "The die", "entries": 1, "total": 1, "checked": 0}]
    assert sum(p["total"] for p in progress["parts"]) == progress["total"]
