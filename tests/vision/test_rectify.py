"""A component cut out from its sticker's corners (tableassist/vision/rectify.py): crates drawn
with their cells and a corner sticker, rendered by the synthetic camera, found by the real
detector, cut out, and read back cell by cell; and why a cut-out is not clean, as codes and numbers
and in the words of each screen's language (tableassist.server.box.cut_problems)."""

from __future__ import annotations

import numpy as np
import pytest

import tableassist.i18n as i18n
from tableassist.markers.registry import load_registry
from tableassist.server.box import cut_problems
from tableassist.table.box_form import form
from tableassist.vision import MarkerDetector
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import Scene, Viewpoint
from tableassist.vision.rectify import component_corners_mm, cut_out
from tests.box_photos import crate_piece, read_cells

REGISTRY = load_registry()
DETECTOR = MarkerDetector(REGISTRY.dictionary)
RENDERER = Renderer(REGISTRY.dictionary)
GRIDS = [["#  .  G3", "K2 .  X1", "G2 R1 ."],
         ["X1 G2 .", "#  #  K3", ".  R2 G1"],
         [".  K1 #", "G1 .  .", "R1 X2 K1"]]


def marker_of(crate: str, side: str):
    return next(m for m in REGISTRY.markers("shipshape")
                if m.component == "crate" and m.item == crate and m.side == side)


def shot(piece, *, width=240.0, height=160.0, tilt=0.0, yaw=0.0, seed=0, frame_px=(1280, 720)):
    """A frame of a small table (the camera close over it) with ``piece`` on it."""
    scene = Scene(width, height, (piece,), rim=10)
    camera = Viewpoint(*frame_px, tilt=tilt, yaw=yaw)
    frame, _ = RENDERER.render(scene, camera, Effects(seed=seed))
    return frame


def cut(frame, crate, side, corner):
    found = DETECTOR.detect(frame)
    marker = marker_of(crate, side)
    assert marker.id in found.ids, "the crate's sticker is not found"
    i = list(found.ids).index(marker.id)
    return cut_out(frame, found.corners[i], marker_mm=marker.size_mm,
                   component_mm=marker.component_size_mm,
                   sticker_mm=REGISTRY.sticker_mm(marker), place=corner)


#: The entry's label, as the box screen names the crate in what it says.
CRATE = form("shipshape").entries["crates[C17]"].label


def readable(cells, corner):
    """The cells but the one the sticker covers."""
    r = 0 if corner[0] == "N" else 2
    c = 0 if corner[1] == "W" else 2
    return [[t for j, t in enumerate(row) if (i, j) != (r, c)] for i, row in enumerate(cells)]


def expected(grid, corner):
    """What each cell shows in the cut-out (an item by its letter), but the sticker's."""
    return readable([[t[0] if t[0] in "GKXR" else t for t in row.split()] for row in grid], corner)


@pytest.mark.parametrize("corner", ["NW", "NE", "SE", "SW"])
def test_a_crate_cut_out_from_its_corner_sticker_shows_its_cells_upright(corner):
    rng = np.random.default_rng(["NW", "NE", "SE", "SW"].index(corner))
    for k, grid in enumerate(GRIDS):
        rotation = float(rng.uniform(0, 360))
        x, y = float(rng.uniform(90, 150)), float(rng.uniform(65, 95))
        frame = shot(crate_piece(REGISTRY, "C17", "front", grid, corner, x, y, rotation),
                     tilt=float(rng.uniform(0, 15)), seed=k)
        result = cut(frame, "C17", "front", corner)
        assert result.clean, result.problems
        assert result.image.shape[:2] == (360, 360)   # 60 mm at 6 px/mm
        assert readable(read_cells(result.image), corner) == expected(grid, corner), rotation


def test_the_back_sticker_gives_the_back_upright():
    grid = GRIDS[1]
    frame = shot(crate_piece(REGISTRY, "C05", "back", grid, "NE", 120, 80, 200.0))
    result = cut(frame, "C05", "back", "NE")
    assert result.clean and readable(read_cells(result.image), "NE") == expected(grid, "NE")


def test_too_far_says_how_large_the_sticker_is_and_must_be():
    piece = crate_piece(REGISTRY, "C17", "front", GRIDS[0], "NW", 450, 300, 10.0)
    frame = shot(piece, width=900, height=600, frame_px=(1280, 720))   # the whole table: ~1.2 px/mm
    result = cut(frame, "C17", "front", "NW")
    assert not result.clean
    (problem,) = result.problems
    assert (problem.code, problem.need_px) == ("too_far", 26) and 10 < problem.px < 26
    said = cut_problems(result.problems, CRATE)
    assert said == f"too far: the sticker is {problem.px} px across and needs 26 px; bring " \
        "Crate C17 closer to the camera"
    assert i18n.render(said, "de") == f"zu weit weg: der Aufkleber ist {problem.px} px breit " \
        "und braucht 26 px; bringe Kiste C17 näher an die Kamera"
    assert result.image is not None   # still shown, marked as not clean


def test_a_steep_view_is_tilted():
    piece = crate_piece(REGISTRY, "C17", "front", GRIDS[0], "NW", 120, 80, 0.0)
    result = cut(shot(piece, tilt=50), "C17", "front", "NW")
    codes = [p.code for p in result.problems]
    assert "tilted" in codes
    tilt = result.problems[codes.index("tilted")].tilt_deg
    assert 20 < tilt < 90
    said = cut_problems(result.problems, CRATE)
    assert f"tilted: the sticker is seen about {tilt}° from straight on; lay Crate C17 flat" in said
    assert f"schräg: der Aufkleber wird etwa {tilt}° schräg gesehen; lege Kiste C17 flach hin" \
        in i18n.render(said, "de")
    assert f"inclinado: la pegatina se ve a unos {tilt}° de la vertical; apoya Caja C17 sobre " \
        "la mesa" in i18n.render(said, "es")


def test_a_crate_partly_outside_the_picture_gives_no_photo():
    # the sticker in view at the frame's bottom edge, the rest of the crate beyond it
    piece = crate_piece(REGISTRY, "C17", "front", GRIDS[0], "NW", 120, 168, 0.0)
    result = cut(shot(piece), "C17", "front", "NW")
    assert result.image is None and [p.code for p in result.problems] == ["outside"]
    said = cut_problems(result.problems, CRATE)
    assert said == "Crate C17 is partly outside the picture: move it to the middle"
    assert i18n.render(said, "de") == "Kiste C17 liegt zum Teil außerhalb des Bildes: schiebe " \
        "das Teil in die Mitte"
    assert i18n.render(said, "es") == "Caja C17 queda en parte fuera de la imagen: lleva la " \
        "pieza al centro"


def test_the_outline_from_each_place():
    outline = component_corners_mm((60, 40), 20, "NW")
    assert outline.tolist() == [[-10, -10], [50, -10], [50, 30], [-10, 30]]
    assert component_corners_mm((60, 40), 20, "SE").tolist() == [[-50, -30], [10, -30], [10, 10],
                                                                  [-50, 10]]
    assert component_corners_mm((60, 40), 20, "center").tolist() == [[-30, -20], [30, -20],
                                                                      [30, 20], [-30, 20]]
    with pytest.raises(ValueError, match="a sticker sits in one of"):
        component_corners_mm((60, 40), 20, "top")
