"""The marker registry (markers/*.toml): every CAM component of SPEC.md has a marker, ids are unique per
game, backs never give a face away (SPEC X2), and broken files fail with a clear message."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from tableassist import cli
from tableassist.markers.registry import (DICTIONARY_SIZES, MARKERS_DIR, SEAT_COLOURS, Marker,
                                  RegistryError, load_registry, seat_colours)

ROOT = Path(__file__).parents[1]
DATA = ROOT / "tableassist" / "games" / "data"
RULES = Path("/work/shared/rules")

#: SPEC's CAM / CAM? rows, as (game, component, side) -> how many markers. Boards are located by
#: their 4 corner markers; dice by a marker on every face.
SPEC_CAM_ROWS = {
    # §1.1 / §1.3: bid cards face (colour, type) and back (colour); the 20 resource and 4 Hidden cards
    # face, and one back for the whole stack (its position, CAM?)
    ("shipwrecked", "bid_board", "top"): 4,
    ("shipwrecked", "bid_card", "face"): 24,
    ("shipwrecked", "bid_card", "back"): 4,
    ("shipwrecked", "resource_card", "face"): 24,
    ("shipwrecked", "resource_card", "back"): 1,
    # §2.1 / §2.3: every face of the 8 dice, 7 rats, 5 cheese, 8 sinking tokens, 7 tiles, the board
    ("abandon_ship", "board", "top"): 4,
    ("abandon_ship", "ship", "top"): 2,
    ("abandon_ship", "die_face", "top"): 48,
    ("abandon_ship", "rat", "top"): 7,
    ("abandon_ship", "cheese_token", "face"): 5,
    ("abandon_ship", "sinking_token", "face"): 8,
    ("abandon_ship", "tile", "face"): 7,
    # §3.1 / §3.3: 30 contraband cards (face; one shared back: which spaces hold a card), the die's
    # faces, the piece, the board (track)
    ("schmuggler", "board", "top"): 4,
    ("schmuggler", "contraband_card", "face"): 30,
    ("schmuggler", "contraband_card", "back"): 1,
    ("schmuggler", "die_face", "top"): 6,
    ("schmuggler", "piece", "top"): 1,
    # §4.1: the 84 cards of the common deck
    ("wreckers", "card", "face"): 84,
    # §5.1 / §5.3: 54 crates x 2 faces, 18 holds, 60 crew cards (face) and their 6 colour backs
    ("shipshape", "crate", "front"): 54,
    ("shipshape", "crate", "back"): 54,
    ("shipshape", "hold", "top"): 18,
    ("shipshape", "crew_card", "face"): 60,
    ("shipshape", "crew_card", "back"): 6,
}

#: SPEC X2: components whose face is hidden information.
SPEC_X2 = {("shipwrecked", "bid_card"), ("shipwrecked", "resource_card"),
           ("abandon_ship", "tile"), ("abandon_ship", "sinking_token"),
           ("schmuggler", "contraband_card"), ("wreckers", "card"), ("shipshape", "crew_card")}


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def data_file(game: str) -> dict:
    path = DATA / f"{game}.toml"
    if not path.exists():
        pytest.skip(f"{path.name} is not written yet")
    return tomllib.loads(path.read_text(encoding="utf-8"))


def items(registry, game, component, side=None) -> list[str]:
    return [m.item for m in registry.markers(game)
            if m.game == game and m.component == component and (side is None or m.side == side)]


# ---- shape of the registry

def test_dictionary_is_an_opencv_dictionary_that_holds_every_id(registry):
    assert registry.dictionary in DICTIONARY_SIZES
    assert max(m.id for m in registry.all_markers) < DICTIONARY_SIZES[registry.dictionary]


def test_five_games_and_the_global_markers(registry):
    assert set(registry.games()) == {"shipwrecked", "abandon_ship", "schmuggler", "wreckers",
                                     "shipshape"}
    glob = registry.markers(None)
    assert sorted(m.item for m in glob if m.component == "table_corner") == ["NE", "NW", "SE", "SW"]
    seats = [m.item for m in glob if m.component == "seat"]
    assert len(seats) >= 7  # Abandon Ship seats up to 7 players
    assert all(m.game is None for m in glob)


def test_ids_unique_within_every_game_including_the_global_markers(registry):
    for game in registry.games():
        ids = Counter(m.id for m in registry.markers(game))
        assert [i for i, n in ids.items() if n > 1] == [], game


def test_sizes_positive_and_the_sticker_fits_its_component(registry):
    for m in registry.all_markers:
        # the marker and its one-cell quiet zone: 12 mm on a 16 mm die face is 15.4 mm
        assert 0 < m.size_mm < registry.sticker_mm(m) <= min(m.component_size_mm), m.label
    die = next(m for m in registry.all_markers if m.component == "die_face")
    assert registry.sticker_mm(die) == pytest.approx(die.size_mm * 9 / 7)


def test_every_spec_cam_row_has_its_markers(registry):
    counts = Counter((m.game, m.component, m.side) for m in registry.all_markers if m.game)
    for key, n in SPEC_CAM_ROWS.items():
        assert counts[key] == n, key
    assert set(counts) == set(SPEC_CAM_ROWS), "a marker kind SPEC does not list"


def test_lookup_global_markers_match_any_game(registry):
    corner = next(m for m in registry.markers(None) if m.item == "NW")
    for game in [None, *registry.games()]:
        assert registry.lookup(corner.id, game) == corner


def test_lookup_game_markers_only_in_their_game(registry):
    food = next(m for m in registry.markers("shipwrecked") if m.item == "FOOD-10")
    assert registry.lookup(food.id, "shipwrecked") == food
    assert registry.lookup(food.id, None) is None
    other = registry.lookup(food.id, "wreckers")
    assert other is None or other.game == "wreckers"
    assert registry.lookup(9999, "shipwrecked") is None


def test_label_names_game_component_and_side(registry):
    food = next(m for m in registry.markers("shipwrecked") if m.item == "FOOD-10")
    assert food.label == "Shipwrecked · resource card FOOD-10 · face"
    assert isinstance(food, Marker) and food.component_size_mm == (63.0, 88.0)


def test_markers_of_an_unknown_game_is_a_clear_error(registry):
    with pytest.raises(RegistryError, match="no markers for game 'chess'"):
        registry.markers("chess")


# ---- SPEC X2: backs never carry face information

def test_spec_x2_components_are_marked_secret(registry):
    secret = {(m.game, m.component) for m in registry.all_markers if m.secret}
    assert SPEC_X2 <= secret
    assert secret == SPEC_X2


def test_no_back_encodes_a_face(registry):
    for game in registry.games():
        ms = [m for m in registry.markers(game) if m.game == game]
        for back in (m for m in ms if m.side == "back" and m.secret):
            faces = [m for m in ms if m.component == back.component and m.side != "back"]
            assert back.item not in {f.item for f in faces}, back.label
            # the owner's colour, or "any" for a back shared by the whole component; one id printed on
            # every card it covers, so a face-down card never tells which card it is
            covered = [f for f in faces if back.item in ("any", f.item.split("-")[0])]
            assert covered and back.copies == len(covered), back.label


def test_secret_components_without_backs_carry_a_face_marker_only(registry):
    for game, component in [("abandon_ship", "tile"), ("abandon_ship", "sinking_token"), ("wreckers", "card")]:
        assert set(m.side for m in registry.markers(game) if m.component == component) == {"face"}



def test_owner_colours_on_backs_are_seat_colours(registry):
    """A face-down card is matched to its owner by colour, so each back colour has a seat marker."""
    seats = {m.item for m in registry.markers(None) if m.component == "seat"}
    backs = {m.item for m in registry.all_markers if m.side == "back" and m.secret and m.item != "any"}
    assert backs and backs <= seats

def test_seat_markers_are_printed_for_the_seat_colours_in_their_order(registry):
    seats = [m.item for m in sorted(registry.markers(None), key=lambda m: m.id)
             if m.component == "seat"]
    assert seats == list(SEAT_COLOURS)


def test_a_game_with_coloured_backs_offers_only_their_colours():
    assert seat_colours("shipwrecked") == ("red", "blue", "green", "yellow")
    assert seat_colours("shipshape") == ("red", "blue", "green", "yellow", "purple", "orange")
    assert seat_colours("wreckers") == seat_colours(None) == SEAT_COLOURS  # no owner-coloured backs
    assert seat_colours("no_such_game") == SEAT_COLOURS


def test_command_cards_are_short_tableassist_texts(registry):
    names = {c.name for c in registry.commands}
    assert {"new_game", "undo", "redo", "confirm"} <= names
    for c in registry.commands:
        assert c.text == f"tableassist:cmd/{c.name}"


# ---- aligned with SPEC's names, the rulebooks and the engines' data files

def test_shipwrecked_names_follow_spec(registry):
    assert items(registry, "shipwrecked", "resource_card", "face") == [
        f"{g}-{p}" for g in ["FOOD", "SHELTER", "WATER", "FRIENDS"] for p in (10, 20, 30, 40, 50)] + [
        "HIDDEN-1", "HIDDEN-2", "HIDDEN-3", "HIDDEN-4"]
    assert items(registry, "shipwrecked", "resource_card", "back") == ["any"]
    per_colour = Counter(re.sub(r"-\d$", "", i).split("-", 1)[1]
                         for i in items(registry, "shipwrecked", "bid_card", "face"))
    assert per_colour == {"PASS": 12, "STOP": 8, "STRIKE": 4}


def test_wreckers_cards_are_the_rulebook_card_list(registry):
    text = (RULES / "wreckers.txt").read_text(encoding="utf-8")
    listed = text.split("COMMON DECK CARD LIST")[1].split("LINKS")[0].splitlines()[2:]
    names = [re.split(r"\t+|\s{2,}", line.strip())[0] for line in listed if line.strip()]
    assert items(registry, "wreckers", "card") == names


def test_wreckers_cards_match_the_engine_data(registry):
    deck = data_file("wreckers")["deck"]
    cards = deck["cards"] if isinstance(deck, dict) else deck
    assert sorted(items(registry, "wreckers", "card")) == sorted(c["name"] for c in cards)


def test_abandon_ship_matches_the_engine_data(registry):
    data = data_file("abandon_ship")
    assert items(registry, "abandon_ship", "rat") == data["rats"]["colours"]
    assert items(registry, "abandon_ship", "die_face") == [
        f"{d['id']}:face-{n}" for d in data["dice"] for n in range(1, len(d["faces"]) + 1)]
    assert len(items(registry, "abandon_ship", "tile")) == len(data["tiles"]["sets"])
    assert len(items(registry, "abandon_ship", "sinking_token")) == len(data["sinking_tokens"]["values"])
    assert len(items(registry, "abandon_ship", "cheese_token")) == len(data["cheese_tokens"]["values"])


def test_shipshape_matches_the_engine_data(registry):
    data = data_file("shipshape")
    assert items(registry, "shipshape", "crate", "front") == [c["id"] for c in data["crates"]]
    assert items(registry, "shipshape", "crate", "back") == [c["id"] for c in data["crates"]]
    assert items(registry, "shipshape", "hold") == [h["id"] for h in data["holds"]]
    values = data.get("crew_values", list(range(1, 11)))
    assert Counter(int(i.split("-")[1]) for i in items(registry, "shipshape", "crew_card", "face")) == \
        {v: 6 for v in values}


def test_schmuggler_goods_and_die_match_the_engine_data(registry):
    data = data_file("schmuggler")
    assert items(registry, "schmuggler", "contraband_card", "face") == [g["id"] for g in data["goods"]]
    assert items(registry, "schmuggler", "die_face") == [
        f"die:face-{n}" for n in range(1, len(data["die"]["faces"]) + 1)]


def test_shipwrecked_cards_match_the_engine_data(registry):
    data = data_file("shipwrecked")
    assert items(registry, "shipwrecked", "resource_card", "face") == \
        [c["id"] for c in data["resource_cards"]] + data["hidden_cards"]


# ---- the command

def test_markers_json_lists_every_spec_cam_component(capsys):
    assert cli.main(["markers", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dictionary"] == load_registry().dictionary
    counts = Counter((m["game"], m["component"], m["side"]) for m in out["markers"] if m["game"])
    assert {k: counts[k] for k in SPEC_CAM_ROWS} == SPEC_CAM_ROWS
    assert {"id", "game", "component", "side", "size_mm", "item", "label"} <= set(out["markers"][0])
    assert sum(1 for m in out["markers"] if m["component"] == "table_corner") == 4


def test_markers_table_for_one_game(capsys):
    assert cli.main(["markers", "--game", "shipwrecked"]) == 0
    out = capsys.readouterr().out
    assert "FOOD-10" in out and "table_corner" in out and "Derelict" not in out


def test_markers_unknown_game_is_a_message_not_a_traceback(capsys):
    assert cli.main(["markers", "--game", "chess"]) == 2
    assert "no markers for game 'chess'" in capsys.readouterr().err


# ---- broken files fail clearly

@pytest.fixture
def copy_dir(tmp_path):
    target = tmp_path / "markers"
    shutil.copytree(MARKERS_DIR, target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_copy_of_the_files_loads_the_same(copy_dir):
    assert load_registry(copy_dir).all_markers == load_registry().all_markers


def test_duplicate_id_names_both_markers(copy_dir):
    edit(copy_dir / "shipwrecked.toml", "first_id = 68", "first_id = 67")
    with pytest.raises(RegistryError, match=r"shipwrecked.toml: id 67 is used twice: .*FRIENDS-50.*HIDDEN-1"):
        load_registry(copy_dir)


def test_game_id_colliding_with_a_global_marker(copy_dir):
    edit(copy_dir / "wreckers.toml", "first_id = 16", "first_id = 2")
    with pytest.raises(RegistryError, match="id 2 is used twice: table corner SE"):
        load_registry(copy_dir)


def test_non_positive_size(copy_dir):
    edit(copy_dir / "shipshape.toml", "size_mm = 17", "size_mm = 0")
    with pytest.raises(RegistryError, match=r"shipshape.toml, group 1 \(crate\): sizes must be positive"):
        load_registry(copy_dir)


def test_marker_larger_than_its_component(copy_dir):
    edit(copy_dir / "abandon_ship.toml", "size_mm = 12", "size_mm = 20")
    with pytest.raises(RegistryError, match=r"die_face\): a 20 mm marker with its quiet zone \(25.7 mm\) "
                                            "does not fit on a 16 x 16 mm component"):
        load_registry(copy_dir)


def test_back_naming_a_face_is_refused(copy_dir):
    edit(copy_dir / "shipwrecked.toml", 'items = ["red", "blue", "green", "yellow"]\nside = "back"',
         'items = ["red-STOP-1", "blue", "green", "yellow"]\nside = "back"')
    with pytest.raises(RegistryError, match=r"names a face item.*SPEC X2"):
        load_registry(copy_dir)


def test_back_printed_fewer_times_than_the_cards_it_covers(copy_dir):
    edit(copy_dir / "shipshape.toml", "copies = 10", "copies = 1")
    with pytest.raises(RegistryError, match="crew card red · back is printed 1 times but covers 10 cards"):
        load_registry(copy_dir)


def test_unknown_dictionary(copy_dir):
    edit(copy_dir / "global.toml", 'dictionary = "', 'dictionary = "DICT_9X9_')
    with pytest.raises(RegistryError, match="not an OpenCV predefined dictionary"):
        load_registry(copy_dir)


def test_ids_beyond_the_dictionary(copy_dir):
    edit(copy_dir / "global.toml", 'dictionary = "DICT_5X5_250"', 'dictionary = "DICT_5X5_100"')
    with pytest.raises(RegistryError, match=r"outside DICT_5X5_100 \(0..99\)"):
        load_registry(copy_dir)


def test_unknown_key_and_bad_toml(copy_dir):
    edit(copy_dir / "wreckers.toml", "size_mm = 28", "size_mm = 28\nsizemm = 3")
    with pytest.raises(RegistryError, match=r"wreckers.toml, group 1: unknown keys \['sizemm'\]"):
        load_registry(copy_dir)
    (copy_dir / "wreckers.toml").write_text("game = [", encoding="utf-8")
    with pytest.raises(RegistryError, match="wreckers.toml: not valid TOML"):
        load_registry(copy_dir)

