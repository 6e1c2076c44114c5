"""The camera check (issue 15) on rendered tables: a physical camera (the reference webcam lens, 1350 px
at 1080 rows, at a known distance and tilt) renders the Abandon Ship table; the report's scale, tilt,
verdicts and advice are checked against what that geometry gives exactly (px/mm = focal / distance
straight down; the true homography's scale at the edges when tilted). And `tableassist camera-check`:
its text, its JSON and its exit codes."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tableassist.cli import main
from tableassist.vision import MarkerDetector
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import Scene, Viewpoint, registry_piece
from tableassist.vision.check import check_camera, draw_check, side_at
from tableassist.vision.geometry import Layout, TableGeometry
from tableassist.vision.sources import CaptureMode

GAME = "abandon_ship"
#: the reference lens (registry.REFERENCE_DISTANCE_CM): it sees the 940 x 640 mm view from 80 cm
FOCAL = 1350.0
CORNERS = [(0, 0), (900, 0), (900, 600), (0, 600)]


@pytest.fixture(scope="module")
def scene(registry):
    return Scene(pieces=tuple(registry_piece(registry, GAME, i, x, y) for i, (x, y) in enumerate(CORNERS)))


def checked(registry, renderer, scene, camera, *, blur=0.4, mode=None, paint=None):
    frame, _ = renderer.render(scene, camera, Effects(blur=blur))
    if paint is not None:
        paint(frame)
    detector = MarkerDetector(registry.dictionary, ids=[m.id for m in registry.markers(GAME)])
    found = detector.detect(frame)
    geometry = TableGeometry(Layout.load(GAME), registry, GAME)
    report = check_camera([(frame, found)], layout=Layout.load(GAME), registry=registry, game=GAME,
                          mode=mode, geometry=geometry)
    return report, frame, found, geometry


def kinds(report):
    return {k.component: k for k in report.kinds}


def keys(report):
    return [a.key for a in report.advice]


def test_straight_down_at_80_cm_in_1080p_every_sticker_reads(registry, renderer, scene):
    """1350 px / 800 mm = 1.6875 px/mm everywhere: 12 mm dice are 20.25 px, enough when sharp."""
    report, frame, found, geometry = checked(registry, renderer, scene,
                                             Viewpoint(1920, 1080, focal_px=FOCAL, distance_mm=800))
    assert report.corners_seen == ("NW", "NE", "SE", "SW")
    assert report.near_px_per_mm == pytest.approx(1.6875, rel=0.01)
    assert report.far_px_per_mm == pytest.approx(1.6875, rel=0.01)
    assert report.tilt_deg < 2 and report.blur_px < 1.3 and report.needed_px == 20
    dice = kinds(report)["die_face"]
    assert dice.near_px == pytest.approx(12 * 1.6875, rel=0.01) and dice.verdict == "reliable"
    assert report.ok and report.advice == ()
    picture = draw_check(frame, report, found, geometry, registry=registry, width=960)
    assert picture.shape == (540, 960, 3)
    # the zones are drawn: the picture differs from the plain annotated frame inside the play area
    assert np.abs(picture.astype(int) - cv2.resize(frame, (960, 540)).astype(int)).sum() > 0


def test_a_far_camera_is_told_how_far_to_come_down(registry, renderer, scene):
    """At 120 cm: 1.125 px/mm; the view is 640 x 1.125 = 720 of 1080 rows (67 %); lowering it to fill
    95 % is 120 x (1 - 0.667 / 0.95) = 36 cm; dice are 13.5 px: only 1440p gives them 20 px (2.25 px/mm)."""
    report, *_ = checked(registry, renderer, scene, Viewpoint(1920, 1080, focal_px=FOCAL, distance_mm=1200))
    assert report.near_px_per_mm == pytest.approx(1.125, rel=0.01) and report.fill == pytest.approx(2 / 3, rel=0.01)
    assert keys(report)[0] == "too_far"
    assert "lower the camera about 36 cm" in report.advice[0].text
    k = kinds(report)
    assert k["die_face"].verdict == "unreadable" and k["die_face"].near_px == pytest.approx(13.5, rel=0.01)
    assert k["cheese_token"].verdict == "unreadable" and k["tile"].verdict == "reliable"
    texts = [a.text for a in report.advice]
    assert ("The die face and rat stickers (12 mm) are 13 px here and need 20: they need a 1440p or phone "
            "camera.") in texts
    assert any(t.startswith("The cheese token and sinking token stickers (17 mm)") and
               t.endswith("lowering the camera is enough.") for t in texts)
    assert not report.ok


def test_a_tilted_camera_measures_its_tilt_and_its_far_edge(registry, renderer, scene):
    camera = Viewpoint(1920, 1080, tilt=30, focal_px=FOCAL, distance_mm=1100)
    report, *_ = checked(registry, renderer, scene, camera)
    truth = camera.homography(scene)
    edges = {"top": (450, 0), "bottom": (450, 600), "left": (0, 300), "right": (900, 300)}
    corners = {f"c{k}": p for k, p in enumerate(CORNERS)}
    scales = {n: side_at(truth, p, 10.0) / 10.0 for n, p in (edges | corners).items()}
    assert report.tilt_deg == pytest.approx(30, abs=1.5)
    assert report.near_px_per_mm == pytest.approx(max(scales.values()), rel=0.02)
    assert report.far_px_per_mm == pytest.approx(min(scales.values()), rel=0.02)
    # the tilt puts the table's top edge nearest the camera (the synthetic camera leans over it)
    near_edge = max(("top", "bottom"), key=scales.__getitem__)
    assert report.near_edge == f"{near_edge} edge"
    assert "tilted" in keys(report)
    assert "looks 30° away from straight down" in next(a.text for a in report.advice if a.key == "tilted")
    k = kinds(report)
    assert k["ship"].verdict == "near only" and k["die_face"].verdict == "unreadable"
    assert k["tile"].verdict == "reliable"


def test_640x480_is_told_to_ask_for_1080p(registry, renderer, scene):
    """600 px focal at 480 rows, 90 cm: 0.667 px/mm; 12 mm dice 8 px, 17 mm tokens 11 px."""
    mode = CaptureMode(640, 480, "YUYV", 30.0, "640x480")
    report, *_ = checked(registry, renderer, scene, Viewpoint(640, 480, focal_px=600, distance_mm=900), mode=mode)
    assert report.near_px_per_mm == pytest.approx(600 / 900, rel=0.015)
    assert report.advice[0].text == "This camera gives 640x480: ask for 1080p (--camera-size 1920x1080)."
    assert all(kinds(report)[c].verdict == "unreadable" for c in ("die_face", "rat", "cheese_token", "ship"))
    best, *_ = checked(registry, renderer, scene, Viewpoint(640, 480, focal_px=600, distance_mm=900),
                       mode=CaptureMode(640, 480, "YUYV", 30.0, "best"))
    assert best.advice[0].key == "low_mode_best"


def test_blur_glare_and_missing_corners_are_named(registry, renderer, scene):
    blurred, *_ = checked(registry, renderer, scene, Viewpoint(1920, 1080, focal_px=FOCAL, distance_mm=800),
                          blur=2.0)
    assert blurred.blur_px == pytest.approx(2.15, abs=0.35) and blurred.needed_px == 30
    assert "blurred" in keys(blurred) and kinds(blurred)["die_face"].verdict == "unreadable"

    def lamp(frame):
        cv2.circle(frame, (960, 540), 80, (255, 255, 255), -1)     # a lamp's reflection on the table
    shiny, *_ = checked(registry, renderer, scene, Viewpoint(1920, 1080, focal_px=FOCAL, distance_mm=800),
                        paint=lamp)
    table_px = (900 * 1.6875) * (600 * 1.6875)
    assert shiny.glare == pytest.approx(np.pi * 80 ** 2 / table_px, rel=0.1)
    assert next(a.text for a in shiny.advice if a.key == "glare").startswith("Too much glare: 1.3% of the table")

    leaning, *_ = checked(registry, renderer, scene, Viewpoint(1920, 1080, tilt=45, focal_px=FOCAL, distance_mm=800))
    assert leaning.corners_seen == ("SE", "SW") and leaning.near_px_per_mm is None
    assert leaning.advice[0].text.startswith("The camera does not see the table corners NW NE: raise the camera")
    assert {k.verdict for k in leaning.kinds} == {"unknown"}


def test_the_cli_prints_the_report_and_exits_by_its_verdict(registry, renderer, scene, tmp_path, capsys):
    for name, distance in (("near", 800), ("far", 1200)):
        frame, _ = renderer.render(scene, Viewpoint(1920, 1080, focal_px=FOCAL, distance_mm=distance),
                                   Effects(blur=0.4))
        cv2.imwrite(str(tmp_path / f"{name}.png"), frame)
    assert main(["camera-check", "--camera", str(tmp_path / "near.png"), "--game", GAME]) == 0
    out = capsys.readouterr().out
    assert "Scale: 1.69 px/mm near" in out and "Ready: every sticker reads from here." in out
    assert main(["camera-check", "--camera", str(tmp_path / "far.png"), "--game", GAME, "--json",
                 "--annotate", str(tmp_path / "check.jpg")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["px_per_mm"]["near"] == pytest.approx(1.125, rel=0.01)
    assert {k["component"]: k["verdict"] for k in report["kinds"]}["die_face"] == "unreadable"
    assert report["advice"][0]["key"] == "too_far" and (tmp_path / "check.jpg").stat().st_size > 10_000
    # without a game: the corners and seats (25 mm, 28 px here) read from 120 cm
    assert main(["camera-check", "--camera", str(tmp_path / "far.png")]) == 0
    assert "table corners and seats" in capsys.readouterr().out
    # what cannot be used: exit 2 with one line saying why
    assert main(["camera-check", "--camera", str(tmp_path / "nothing.png")]) == 2
    assert "no such file, folder or camera" in capsys.readouterr().err
    assert main(["camera-check", "--camera", str(tmp_path / "near.png"), "--game", "chess"]) == 2
    assert "no markers for game 'chess'" in capsys.readouterr().err
    for picture in (tmp_path, tmp_path / "check"):   # a folder, no picture's extension
        assert main(["camera-check", "--camera", str(tmp_path / "near.png"),
                     "--annotate", str(picture)]) == 2
        assert capsys.readouterr().err == (f"tableassist camera-check: --annotate {picture}: give "
                                           "a picture's file name, such as check.png or "
                                           "check.jpg\n")
    assert main(["camera-check", "--camera", str(tmp_path / "near.png"), "--camera-size", "1920x1080"]) == 2
    assert "a size can be asked of a webcam only" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad:
        main(["camera-check", "--camera-size", "big"])
    assert bad.value.code == 2 and "a camera size is WIDTHxHEIGHT" in capsys.readouterr().err
