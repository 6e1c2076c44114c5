"""Worn stickers (issue 15): a sticker with two flipped cells is read (with more error correction
for this game's ids) and reported; a torn or scratched one is reported; one that stops being read
where it lies is reported by name; the report's link gives a PDF of that one sticker."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace

import cv2
import numpy as np
import pytest

from tableassist.markers.sighting import FailingSticker
from tableassist.vision import TablePipeline
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import (
    Damage, Scene, Viewpoint, corner_pieces, registry_piece, seat_pieces)
from tests.vision.conftest import table

CARDS = [(20, 250, 300, 0), (21, 400, 300, 0), (22, 550, 300, 0), (23, 400, 450, 0)]
CAMERA = Viewpoint(1280, 720, tilt=20)


def frames(registry, renderer, damage, *, seconds=6.0, fps=5, damaged_from=0.0, marker=22):
    scene = table(registry, "wreckers", CARDS)
    worn = replace(scene, pieces=tuple(replace(p, damage=damage) if p.marker_id == marker else p
                                       for p in scene.pieces))
    for k in range(int(seconds * fps)):
        t = k / fps
        frame, _ = renderer.render(worn if t >= damaged_from else scene, CAMERA,
                                   Effects(blur=0.6, noise=2.0, seed=k))
        yield t, frame


def run(pipeline, video):
    events = []
    for t, frame in video:
        events += pipeline.update(frame, t)
    return events


def test_two_flipped_cells_are_read_and_reported(registry, renderer):
    """A Wreckers card's sticker with two cells flipped: read (the game goes on), and reported
    after 4 s. A card's face is secret: the notice names its kind and where it lies, not which
    card it is, and carries no link (the id would tell)."""
    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    events = run(pipeline, frames(registry, renderer, Damage(cells=2, seed=3)))
    assert 22 in {e.sighting.marker_id for e in events if e.kind == "appeared"}
    [notice] = pipeline.last.failing
    assert (notice.marker_id, notice.component, notice.secret) == (22, "card", True)
    shown = notice.to_json()
    assert shown["text"].startswith("The camera cannot read a card face sticker in the ")
    assert "guessing its damaged cells" in shown["text"]
    assert "22" not in shown["text"] and notice.item not in shown["text"] and shown["reprint"] is None


def test_a_notice_names_a_component_that_is_no_secret_and_links_its_reprint():
    notice = FailingSticker(game="abandon_ship", marker_id=21, component="ship", item="stern", side="top",
                            zone="pool", why="it lies where it was, but is not read")
    shown = notice.to_json()
    assert shown["text"] == ("The camera cannot read the ship stern (top, marker 21) in the pool: it lies "
                             "where it was, but is not read. It may be scratched, torn or dirty; reprint it.")
    assert shown["reprint"] == "/sticker/abandon_ship/21.pdf"
    assert shown["command"] == "tableassist print --game abandon_ship --marker 21"


def test_a_scratched_sticker_never_read_is_reported_where_it_lies(registry, renderer):
    """Its black square is found but never decodes. (A torn corner changes the square itself:
    OpenCV finds no outline, so a sticker torn before it was ever read is not reported.)"""
    pipeline = TablePipeline("wreckers", registry, qr_every=None, full_every=5)
    events = run(pipeline, frames(registry, renderer, Damage(scratch=2.0, seed=2)))
    assert 22 not in {e.sighting.marker_id for e in events}
    [notice] = pipeline.last.failing
    assert notice.marker_id is None and notice.reprint is None and notice.zone == "discard"
    assert notice.to_json()["text"].startswith("The camera cannot read a sticker in the discard: its black "
                                               "square is seen, but it does not decode.")


def test_a_sticker_that_stops_being_read_where_it_lies_is_reported(registry, renderer):
    """A card (a secret face: named by its kind only) read for 2 s, then scratched where it lies:
    kept on the table (its pattern is still there) and reported after 4 s."""
    pipeline = TablePipeline("wreckers", registry, qr_every=None)
    events = run(pipeline, frames(registry, renderer, Damage(scratch=2.0, seed=2), seconds=8.0,
                                  damaged_from=2.0))
    assert [e.kind for e in events if e.sighting.marker_id == 22] == ["appeared"]   # not removed
    [notice] = pipeline.last.failing
    assert notice.marker_id == 22 and "is not read" in notice.why
    text = notice.to_json()["text"]
    assert "a card face sticker" in text and "22" not in text and notice.item not in text
    assert notice.reprint is None


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils")
def test_the_reprint_link_serves_a_pdf_of_that_one_sticker(registry, tmp_path):
    from tableassist.server.app import create_app
    from tableassist.server.table import Table
    from tableassist.server.tokens import Tokens
    from tableassist.table.stores import open_store

    server = create_app(Table(open_store(tmp_path / "t.sqlite3"), Tokens(tmp_path / "t.json")))
    client = server.app.test_client()
    reply = client.get("/sticker/wreckers/22.pdf")
    assert reply.status_code == 200 and reply.mimetype == "application/pdf"
    (tmp_path / "s.pdf").write_bytes(reply.data)
    subprocess.run(["pdftoppm", "-gray", "-r", "150", str(tmp_path / "s.pdf"), str(tmp_path / "p")], check=True)
    [page] = sorted(tmp_path.glob("p*.pgm"))
    image = cv2.imread(str(page), cv2.IMREAD_GRAYSCALE)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, registry.dictionary))
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(image)
    assert ids is not None and ids.ravel().tolist() == [22]
    side_mm = float(np.mean([np.linalg.norm(corners[0][0][k] - corners[0][0][(k + 1) % 4]) for k in range(4)])) \
        / 150 * 25.4
    assert side_mm == pytest.approx(registry.lookup(22, "wreckers").size_mm, abs=0.3)   # its printed size
    assert client.get("/sticker/wreckers/999.pdf").status_code == 404
    assert b"no marker 999" in client.get("/sticker/wreckers/999.pdf").data


def test_the_notice_reaches_the_table_screens_through_the_camera_status(registry, renderer, tmp_path):
    from tableassist.camera.live import Camera
    from tableassist.server.camera import pipeline_for
    from tableassist.table.session import TableSession
    from tableassist.table.stores import open_store

    session = TableSession.create(open_store(tmp_path / "t.sqlite3"), "wreckers", ["Ann", "Bea", "Cy"], seed=1)
    camera = Camera(pipeline_for=pipeline_for(registry, qr_every=None))
    camera.follow(session, {"Ann": "red", "Bea": "blue", "Cy": "green"})
    heard = []
    camera.subscribe(heard.append)
    for t, frame in frames(registry, renderer, Damage(cells=2, seed=3)):
        camera.process(frame, t)
    [shown] = camera.status.reading_json(runs_table=True)["stickers"]
    assert shown["text"].startswith("The camera cannot read a card face sticker")
    assert camera.status.device_json()["stickers"] == [shown]               # the host's panel too
    assert camera.status.reading_json(runs_table=False)["stickers"] == []   # not on a player's phone
    assert sum(1 for s in heard if s.stickers) == 1                         # published once, not per frame


@pytest.mark.browser
def test_the_table_page_names_the_sticker_and_links_its_reprint(server, chromium, registry, renderer):
    """Abandon Ship: the ship's stern sticker (marker 21, no secret) read, then scratched where it
    lies; the table's page (headless Chromium) names it and its link serves the PDF."""
    from tests.plugins.browser import TABLET

    server.table.start("abandon_ship", ["Ann", "Bea", "Cy"], options=None, seed=1)
    page = chromium.new_page(viewport=TABLET)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}#t={server.tokens.table}")
    scene = Scene(pieces=corner_pieces() + seat_pieces()
                  + (registry_piece(registry, "abandon_ship", 21, 450, 300),))
    worn = replace(scene, pieces=tuple(replace(p, damage=Damage(scratch=2.0, seed=2)) if p.marker_id == 21
                                       else p for p in scene.pieces))
    for k in range(40):
        frame, _ = renderer.render(worn if k >= 10 else scene, CAMERA, Effects(blur=0.6, noise=2.0, seed=k))
        server.camera.process(frame, k / 5)
    notice = page.locator('[data-notice="camera-sticker"]')
    notice.wait_for()
    assert notice.inner_text().startswith("The camera cannot read the ship stern (top, marker 21)")
    link = notice.locator("a")
    assert link.get_attribute("href") == "/sticker/abandon_ship/21.pdf"
    reply = page.request.get(server.url.rstrip("/") + link.get_attribute("href"))
    assert reply.status == 200 and reply.body().startswith(b"%PDF")
    assert errors == []
    page.close()


def test_print_marker_writes_that_one_sticker_and_says_what_is_wrong(tmp_path, capsys):
    from tableassist import cli

    assert cli.main(["print", "--game", "abandon_ship", "--marker", "21", "--paper", "letter",
                     "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "sticker-21-letter.pdf")
    assert (tmp_path / "sticker-21-letter.pdf").read_bytes().startswith(b"%PDF")
    assert cli.main(["print", "--marker", "21", "--out", str(tmp_path)]) == 2      # which game's 21?
    assert "say which with --game" in capsys.readouterr().err
    assert cli.main(["print", "--game", "wreckers", "--marker", "999", "--out", str(tmp_path)]) == 2
    assert "Wreckers has no marker 999" in capsys.readouterr().err
