"""Geometry on synthetic frames: zone, cell, seat, rotation and side of each component (issue 8)."""

from __future__ import annotations

import numpy as np
import pytest

from tableassist.vision import Detections, Layout, LayoutError, MarkerDetector, TableGeometry
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import Scene, Viewpoint, project
from tests.vision.conftest import table


def locate(registry, renderer, game, scene, tilt=30.0, blur=0.6):
    frame, truth = renderer.render(scene, Viewpoint(1280, 720, tilt=tilt), Effects(blur=blur))
    found = MarkerDetector(registry.dictionary).detect(frame)
    assert sorted(found.ids.tolist()) == sorted(truth.ids.tolist())
    geometry = TableGeometry(Layout.load(game), registry, game)
    geometry.update(found)
    return {p.marker_id: p for p in geometry.locate(found)}


@pytest.mark.parametrize("tilt", [0.0, 45.0])
def test_shipwrecked_cards_in_zones_cells_and_seats(registry, renderer, tilt):
    # the bid board's sticker centres: NW (420, 90) ... a 300 x 420 board; cell r3c2 is at board
    # (116.25, 242.5) with rows counted from the bottom
    board = [(16, 420, 90, 0), (17, 720, 90, 0), (18, 720, 510, 0), (19, 420, 510, 0)]
    cards = [
        (44, 420 + 116.25, 90 + 242.5, 0),     # a red back on the bid board: row 3, column 2
        (48, 290, 300, 90),                    # FOOD-10 face up in the bank, turned a quarter
        (21, 300, 480, 180),                   # red-PASS-2 face up in front of red, upside down
        (52, 100, 190, 270),                   # a resource card in front of blue (left)
    ]
    placed = locate(registry, renderer, "shipwrecked", table(registry, "shipwrecked", board + cards), tilt)
    back = placed[44]
    assert (back.component, back.item, back.side) == ("bid_card", "red", "back")
    assert (back.zone, back.cell, back.seat, back.rotation) == ("bid", "r3c2", None, 0)
    assert (placed[48].zone, placed[48].rotation, placed[48].seat) == ("bank", 90, None)
    assert (placed[21].zone, placed[21].seat, placed[21].rotation, placed[21].side) == (None, "red", 180, "face")
    assert (placed[52].seat, placed[52].rotation) == ("blue", 270)
    assert placed[48].position_mm == pytest.approx((290, 300), abs=4)


def test_shipshape_crate_in_a_turned_hold_is_placed_in_the_holds_own_grid(registry, renderer):
    # hold H01 turned 90 deg clockwise at (250, 200): its local (0, 90) lies at table (160, 200)
    cards = [(124, 250, 200, 90), (16, 160, 200, 180)]
    placed = locate(registry, renderer, "shipshape", table(registry, "shipshape", cards))
    crate = placed[16]
    assert (crate.component, crate.item, crate.side) == ("crate", "C01", "front")
    assert (crate.zone, crate.cell) == ("hold H01", "r4c5")
    assert crate.rotation == 90      # 180 on the table, 90 against the hold


def test_schmuggler_piece_on_the_track_and_a_card_in_the_kitty(registry, renderer):
    board = [(16, 240, 90, 0), (17, 660, 90, 0), (18, 660, 510, 0), (19, 240, 510, 0)]
    # 31 spaces along the loop [20, 20, 400, 400] of the board: space 1 ("coffee") is centred 73.5 mm along
    # the top edge, 25 mm in
    cards = [(56, 240 + 20 + 73.5, 90 + 45, 0), (22, 240 + 210, 90 + 210, 0)]
    placed = locate(registry, renderer, "schmuggler", table(registry, "schmuggler", board + cards))
    assert placed[56].zone == "space coffee"
    assert (placed[22].item, placed[22].zone) == ("gold", "kitty")


def test_without_four_corners_there_are_no_table_coordinates(registry, renderer):
    scene = table(registry, "wreckers", [(20, 450, 300, 0)])
    scene = Scene(pieces=scene.pieces[1:])      # the NW corner is missing
    placed = locate(registry, renderer, "wreckers", scene)
    assert placed[20].position_mm is None and placed[20].zone is None and placed[20].component == "card"


def test_every_game_has_a_layout_and_the_loop_track_covers_the_schmuggler_track():
    for game in ("shipwrecked", "abandon_ship", "schmuggler", "wreckers", "shipshape"):
        assert Layout.load(game).game == game
    spaces = [z for z in Layout.load("schmuggler").boards[0].zones if z.name.startswith("space ")]
    assert len(spaces) == 31 and spaces[0].name == "space start"
    with pytest.raises(LayoutError, match="no table layout for game 'chess'"):
        Layout.load("chess")


def test_projective_centre_is_where_the_diagonals_cross():
    from tableassist.vision.geometry import marker_center
    trapezoid = np.float32([[0, 0], [10, 0], [8, 6], [2, 6]])
    # diagonals (0,0)-(8,6) and (10,0)-(2,6) cross at x = 5, y = 3.75, not at the corners' mean y = 3
    assert marker_center(trapezoid) == pytest.approx((5, 3.75))
    square = np.float32([[0, 0], [4, 0], [4, 4], [0, 4]])
    assert marker_center(square) == pytest.approx((2, 2))


def test_a_card_halfway_between_two_seats_does_not_change_hands_with_pixel_noise(registry):
    from tableassist.vision import Detections
    camera = Viewpoint(1280, 720, tilt=20)
    geometry = TableGeometry(Layout.load("wreckers"), registry, "wreckers")

    def seat_at(x, y):
        scene = table(registry, "wreckers", [(20, x, y, 0)])
        truth = project(scene, camera)
        found = Detections(truth.ids, truth.corners, (1280, 720))
        geometry.update(found)
        return {p.marker_id: p for p in geometry.locate(found)}[20].seat

    # red sits at (450, 570), blue at (30, 300): (240, 435) is as far from both; (243, 437) is 7 mm nearer
    # to red, (237, 433) 7 mm nearer to blue
    seats = [seat_at(x, y) for x, y in [(243, 437), (237, 433), (245, 438), (236, 432), (240, 435)]]
    assert seats == ["red"] * 5
    assert seat_at(120, 330) == "blue"           # really moved: the nearest seat at once


def test_abandon_ship_waterline_from_the_ships_bow_and_a_rat_on_its_space(registry, renderer):
    board = [(16, 200, 100, 0), (17, 760, 100, 0), (18, 760, 480, 0), (19, 200, 480, 0)]
    # the bow sticker in the 3rd of 10 cells of the waterline strip [20, 20, 60, 360] of the board; the
    # ship's spaces hang off the bow: space 12 is row 2 from the bottom, column 2, 40 mm cells
    bow_x, bow_y = 200 + 40, 100 + 20 + 34 * 2.5
    rat = (70, bow_x - 20 + 40 * 1.5, bow_y - 30 - 90 * 1.5, 0)
    placed = locate(registry, renderer, "abandon_ship",
                    table(registry, "abandon_ship", board + [(20, bow_x, bow_y, 0), rat]), tilt=15)
    assert (placed[20].item, placed[20].zone, placed[20].cell) == ("bow", "waterline", "3")
    assert (placed[70].component, placed[70].item, placed[70].zone, placed[70].cell) == ("rat", "red", "space", "12")


def test_only_the_markers_that_moved_are_located_again_and_alike(registry, renderer):
    """While the table's homography, the seats and the carriers stay, a frame in which some cards
    moved locates only those: the others' sightings are reused as they were (the region tracker
    gives a still marker's corners unchanged), and every sighting is the one a geometry locating
    every frame whole gives. A seat marker or the bid board moved, every sighting is located again
    (a card's seat, a card's cell on the board, may be another now)."""
    board = [(16, 420, 90, 0), (17, 720, 90, 0), (18, 720, 510, 0), (19, 420, 510, 0)]
    cards = [(44, 536, 332, 0), (48, 290, 300, 90), (21, 300, 480, 180), (52, 100, 190, 270)]
    frame, _ = renderer.render(table(registry, "shipwrecked", board + cards), Viewpoint(1280, 720, tilt=0.0),
                               Effects(blur=0.6))
    first = MarkerDetector(registry.dictionary).detect(frame)
    ids = first.ids.tolist()
    assert {16, 17, 18, 19, 44, 48, 21, 52} <= set(ids)
    kept = TableGeometry(Layout.load("shipwrecked"), registry, "shipwrecked")
    whole = TableGeometry(Layout.load("shipwrecked"), registry, "shipwrecked", reuse=False)
    before = None
    for k in range(5):
        corners = first.corners.copy()
        for n, mid in enumerate(ids):
            if mid in (48, 52):                       # two cards slide 3 px a frame
                corners[n] += np.float32(3 * k)
            if mid == 4 and k >= 2:                   # red's seat marker moved in frame 2
                corners[n] += np.float32(30)
            if mid in (16, 17, 18, 19) and k == 4:    # and the bid board nudged in frame 4
                corners[n] += np.float32(2)
        found = Detections(first.ids, corners, first.frame_size)
        kept.update(found)
        whole.update(found)
        got = kept.locate(found)
        assert got == whole.locate(found), f"frame {k}"
        if before is not None:
            same = {s.marker_id for s, b in zip(got, before) if s is b}
            assert same == (set() if k in (2, 4) else set(ids) - {48, 52}), f"frame {k}: reused {same}"
        before = got
