"""`tableassist detect`: markers, QR codes and warnings per image, as text or JSON (issue 8)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from tableassist.cli import main
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.scene import (
    Piece, Scene, Viewpoint, corner_pieces, registry_piece)

REALDATA = Path("/work/shared/realdata")


def test_json_lists_markers_with_registry_names_and_qr_and_warnings(tmp_path, capsys, registry, renderer):
    scene = Scene(pieces=corner_pieces() + (registry_piece(registry, "wreckers", 20, 450, 300, 90),
                                            Piece(21, 300, 300, 0, 8)))
    frame, _ = renderer.render(scene, Viewpoint(1280, 720), Effects(blur=0.3))
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), frame)
    assert main(["detect", "--json", "--game", "wreckers", "--annotate", str(tmp_path / "out"), str(image)]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["image"] == str(image) and result["qr"] == []
    by_id = {m["id"]: m for m in result["markers"]}
    assert {0, 1, 2, 3, 20} <= set(by_id)
    assert by_id[0]["component"] == "table_corner" and by_id[20]["component"] == "card"
    assert len(by_id[20]["corners"]) == 4
    assert all("move the camera closer or print larger" in w for w in result["warnings"] if w.startswith("marker 21"))
    assert (tmp_path / "out" / "table.annotated.png").exists()


def test_foreign_dictionary_reads_the_opencv_photo(capsys):
    photo = REALDATA / "aruco_opencv" / "singlemarkersoriginal.jpg"
    assert main(["detect", "--json", "--no-qr", "--dictionary", "DICT_6X6_250", str(photo)]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert sorted(m["id"] for m in result["markers"]) == [23, 40, 62, 98, 124, 203]
    assert all(m["component"] is None for m in result["markers"])   # our registry does not name them


def test_text_output_and_bad_input(tmp_path, capsys):
    qr = REALDATA / "qr_zxing" / "qrcode-1" / "1.png"
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    assert main(["detect", str(qr), str(empty), str(tmp_path / "missing.png")]) == 1
    out = capsys.readouterr().out
    assert "qr     'MEBKM:URL:" in out
    assert f"{empty}: not an image OpenCV can read" in out and "missing.png: no such file" in out
    assert main(["detect", "--dictionary", "DICT_9X9_1", str(qr)]) == 2
    assert "unknown marker dictionary" in capsys.readouterr().err


def test_a_folder_an_unreadable_file_and_a_bad_annotate_folder_are_one_sentence_each(tmp_path,
                                                                                        capsys):
    import os

    qr = REALDATA / "qr_zxing" / "qrcode-1" / "1.png"
    locked = tmp_path / "locked.png"
    locked.write_bytes(qr.read_bytes())
    locked.chmod(0)
    assert main(["detect", str(tmp_path), str(locked)]) == 1
    out = capsys.readouterr().out
    assert f"error: {tmp_path}: a folder, not an image" in out
    if os.geteuid() != 0:   # root reads it all the same
        assert f"error: {locked}: cannot be read (Permission denied)" in out

    a_file = tmp_path / "out.txt"
    a_file.write_text("")
    assert main(["detect", "--annotate", str(a_file), str(qr)]) == 2
    err = capsys.readouterr().err
    assert err == f"tableassist detect: --annotate {a_file}: that is a file, not a folder\n"

    (tmp_path / "out" / "1.annotated.png").mkdir(parents=True)   # in the way of the copy
    assert main(["detect", "--annotate", str(tmp_path / "out"), str(qr)]) == 1
    out = capsys.readouterr().out
    assert "qr     'MEBKM:URL:" in out   # what was found is reported all the same
    assert out.rstrip().endswith("1.annotated.png: cannot write an image there")


def test_the_warnings_in_german_and_spanish(tmp_path, capsys, registry, renderer):
    """A too small marker and one the registry does not know, warned in --lang's words (issue 25)."""
    from tests.test_cli_language import CODE, COMMANDS, TITLES
    from tests.words import english_left, lowered
    scene = Scene(pieces=corner_pieces() + (Piece(249, 300, 300, 0, 15),))
    frame, _ = renderer.render(scene, Viewpoint(1280, 720), Effects(blur=0.3))
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), frame)
    said = {}
    for lang in ("en", "de", "es"):
        main(["--lang", lang, "detect", "--game", "wreckers", "--no-qr", str(image)])
        said[lang] = CODE.sub(" ", capsys.readouterr().out.replace(str(image), " "))
    assert "move the camera closer" in said["en"] and "not in the registry" in said["en"]
    for lang in ("de", "es"):
        report = english_left({"detect": said[lang]}, lowered([said["en"]]), lang,
                              allowed=COMMANDS + TITLES)
        assert not report, f"English in {lang}: {report}"
