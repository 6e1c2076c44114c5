"""The command line speaks the user's language (issue 25): ``tableassist --lang de|es|en``, by
default the locale's (LC_ALL, LC_MESSAGES, LANG), for what the commands print — results,
refusals, warnings — and argparse's own errors, and every command's ``--help``.

Each command below runs once in English and once in German and Spanish through
``tableassist.cli.main`` (its real code, real files and databases in a temporary folder), and a
word of the English output that shows in the other is English left (tests/words.py, the same
test as the screens'). Not words: paths, option names and metavars, quoted values the user
typed, a QR card's text, the registry's codes (``table_corner``), the commands' names, the
games' titles, and the JSON ``tableassist replay`` prints (a view's data, for programs).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tableassist import cli, i18n
from tableassist.cli import language
from tableassist.table import catalog
from tests.test_replay_camera_cli import small  # noqa: F401 - a fixture: a real recording
from tests.words import english_left, lowered

#: Not words of a language: option names and metavars, quoted input, codes, a QR card's text.
#: (A quote opens after no letter: "the venue's tables" is words, not a quote.)
CODE = re.compile(r"--?[\w-]+|(?<!\w)'[^'\n]*'|\"[^\"]*\"|\S*[_/\\0-9]\S*|\S+\.\S+|\b[A-Z]{2,}\b|\bWxH\b"
                  r"|\{[^}]*\}|\S+:\S+")
COMMANDS = [w for name in cli.COMMANDS for w in name.split("-")] + ["tableassist"]
TITLES = [w for g in catalog.game_ids() for w in (catalog.engine_class(g).title or g).split()]


def commands(tmp: Path) -> dict[str, list[str]]:
    """Each command line to run: ordinary outputs and errors a user meets."""
    tmp.mkdir(parents=True, exist_ok=True)
    actions = tmp / "actions.jsonl"
    actions.write_text('{"type": "lay_bid_card"}\nnot json\n', encoding="utf-8")
    blocker = tmp / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    (tmp / "no-pictures").mkdir(exist_ok=True)
    db = str(tmp / "table.sqlite3")
    picture = tmp / "table.png"
    if not picture.exists():
        import cv2
        from tests.camera_sources import abandon_ship_at_720p
        cv2.imwrite(str(picture), abandon_ship_at_720p())
    return {
        "print one set": ["print", "--game", "wreckers", "--paper", "a4", "--out", str(tmp / "out")],
        "print an unknown game": ["print", "--game", "chess"],
        "print a marker no game has": ["print", "--marker", "249", "--out", str(tmp / "out")],
        "print into a file": ["print", "--game", "wreckers", "--out", str(blocker / "x")],
        "print on A5": ["print", "--paper", "a5"],
        "markers": ["markers"],
        "markers of an unknown game": ["markers", "--game", "chess"],
        "replay a bad line": ["replay", "--game", "shipwrecked", "--players", "Ann,Bea,Cy", str(actions)],
        "replay a missing file": ["replay", "--game", "shipwrecked", "--players", "Ann,Bea",
                                  str(tmp / "missing.jsonl")],
        "replay bad options": ["replay", "--game", "shipwrecked", "--players", "Ann,Bea",
                               "--options", "[1]", "-"],
        "replay a stranger's view": ["replay", "--game", "shipwrecked", "--players", "Ann,Bea",
                                     "--viewer", "Zed", str(tmp / "empty.jsonl")],
        "replay without players": ["replay", "--game", "shipwrecked", "-"],
        "replay a bad seed": ["replay", "--game", "shipwrecked", "--players", "Ann,Bea", "--seed",
                              "-1", "-"],
        "plays of an empty table": ["plays", "--db", db],
        "plays of an unknown game": ["plays", "--db", db, "--game", "chess"],
        "export": ["export", "--db", db, "-o", str(tmp / "export.jsonl")],
        "export into a file": ["export", "--db", db, "-o", str(blocker / "x")],
        "export of a file that is no database": ["export", "--db", str(blocker)],
        "export of a table no name fits": ["export", "--db", db, "--table", "Main!"],
        "export of a missing game": ["export", "--db", db, "--game-row", "7"],
        "export of a closed PostgreSQL port": ["export", "--db",
                                               "postgresql://ann@127.0.0.1:9/table"],
        "import a missing file": ["import", "--db", db, str(tmp / "missing.jsonl")],
        "box check": ["box", "--box", str(tmp / "box"), "check"],
        "camera without a key": ["camera", "--server", "http://127.0.0.1:9", "--table", "main"],
        "camera for a bad table": ["camera", "--server", "http://127.0.0.1:9", "--table", "Main!",
                                   "--key", "k"],
        "camera at no address": ["camera", "--server", "ftp://x", "--key", "k"],
        "camera of a missing video": ["camera", "--server", "http://127.0.0.1:9", "--key", "k",
                                      "--camera", str(tmp / "missing.mp4")],
        "camera-check of a folder without pictures": ["camera-check", "--camera", str(tmp)
                                                      + "/no-pictures"],
        "detect of a missing picture": ["detect", "--game", "abandon_ship",
                                        str(tmp / "missing.png")],
        "detect of a picture": ["detect", "--game", "abandon_ship", str(picture)],
        "serve a port out of range": ["serve", "--port", "99999"],
        "detect for an unknown game": ["detect", "--game", "chess", str(tmp / "photo.png")],
        "camera-check for an unknown game": ["camera-check", "--game", "chess", "--camera", "none"],
        "camera-check drawing into text": ["camera-check", "--annotate", str(tmp / "check.txt")],
        "camera-check of a picture": ["camera-check", "--camera", str(picture), "--game",
                                      "abandon_ship"],
        "an unknown command": ["chess"],
        "an unknown option": ["markers", "--colour"],
    }


def run_all(tmp: Path, lang: str, capsys) -> dict[str, str]:
    (tmp / "empty.jsonl").parent.mkdir(parents=True, exist_ok=True)
    (tmp / "empty.jsonl").write_text("", encoding="utf-8")
    said = {}
    for name, argv in commands(tmp).items():
        try:
            code = cli.main(["--lang", lang, *argv])
        except SystemExit as exc:   # argparse's refusals
            code = exc.code
        out = capsys.readouterr()
        said[name] = CODE.sub(" ", (out.out + "\n" + out.err).replace(str(tmp), " "))
        assert code in (0, 1, 2), (name, code)
    return said


@pytest.mark.parametrize("lang", ["de", "es"])
def test_no_english_word_in_what_the_commands_print(lang, tmp_path, capsys):
    english = run_all(tmp_path / "en", "en", capsys)
    assert "no markers for game" in english["print an unknown game"]
    assert "the following arguments are required" in english["replay without players"]
    assert "What to do" in english["camera-check of a picture"]
    assert "connection refused" in english["export of a closed PostgreSQL port"]
    assert "no such file, folder or camera" in english["camera of a missing video"]
    assert "is not an address such as" in english["camera at no address"]
    assert "no images in this folder" in english["camera-check of a folder without pictures"]
    assert "die face" in english["detect of a picture"] and "top" in english["detect of a picture"]
    shown = run_all(tmp_path / lang, lang, capsys)
    report = english_left(shown, lowered(english.values()), lang, allowed=COMMANDS + TITLES)
    assert not report, f"English on the {lang} command line: {report}"


#: Every ``--help`` a user can ask for: the command's, each subcommand's, the box's commands'.
HELPS = [[], *([name] for name in cli.COMMANDS), *(["box", c] for c in ("check", "export", "import"))]


def helps(lang: str, capsys) -> dict[str, str]:
    said = {}
    for argv in HELPS:
        with pytest.raises(SystemExit) as exit:
            cli.main(["--lang", lang, *argv, "--help"])
        assert exit.value.code == 0, argv
        said[" ".join(["tableassist", *argv])] = CODE.sub(" ", capsys.readouterr().out)
    return said


@pytest.mark.parametrize("lang", ["de", "es"])
def test_no_english_word_in_any_help(lang, capsys):
    english = helps("en", capsys)
    assert {"show", "help", "database", "webcam"} <= lowered([english["tableassist serve"]])
    assert {"replay", "recording", "readings"} <= lowered([english["tableassist"]])
    shown = helps(lang, capsys)
    report = english_left(shown, lowered(english.values()), lang, allowed=COMMANDS + TITLES)
    assert not report, f"English in the {lang} --help: {report}"


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_taken_port_is_said_in_the_language_and_werkzeug_prints_nothing(lang, tmp_path, capsys):
    import socket
    said = {}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        for speaks in ("en", lang):
            code = cli.main(["--lang", speaks, "serve", "--host", "127.0.0.1", "--port",
                             str(busy.getsockname()[1]), "--camera", "none", "--db",
                             str(tmp_path / speaks / "t.sqlite3")])
            err = capsys.readouterr().err
            assert code == 2 and "is in use by another program. Either" not in err, err  # werkzeug
            said[speaks] = CODE.sub(" ", err.replace(str(tmp_path), " "))
    assert "in use by another program" in said["en"]
    report = english_left({"serve": said[lang]}, lowered([said["en"]]), lang, allowed=COMMANDS)
    assert not report, f"English on the {lang} command line: {report}"


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_replay_camera_report_in_the_language(lang):
    """The report's own words (``tableassist replay-camera``), on a comparison built by hand:
    a misread, a missed reading, an extra one and a refused entry."""
    from tableassist.camera.recording import Recording
    from tableassist.camera.replay import EXTRA, MISREAD, MISSED, REFUSED, CameraReplay, \
        Difference, Logged, Replayed
    from tableassist.cli import replay_camera
    from tableassist.table.store import SavedGame
    saved = SavedGame(id=3, game="shipwrecked", players=("Ann", "Bea"), seed=0, options={},
                      components={}, created="2026-01-01T20:15:00+00:00", ended=None, entries=4)
    logged = Logged(seq=2, at="2026-01-01T20:16:00+00:00", kind="tap", action={}, author="Ann",
                    was={}, label="Ann: stop", was_label="Ann: pass")
    replayed = Replayed(seq=5, kind="action", action={}, part=2, frame=40, t=2.0,
                        at="2026-01-01T20:16:01+00:00", label="Ann: pass")
    result = CameraReplay(recording=Recording(Path("rec"), {}, ()), saved=saved, frames=80,
                          compared=1, replayed=2, differences=(
                              Difference(MISREAD, logged, replayed), Difference(MISSED, logged),
                              Difference(EXTRA, replay=replayed, after=2),
                              Difference(REFUSED, logged, why="Ann")), notes=())
    said = {}
    for speaks in ("en", lang):
        with language.speaking(speaks):
            said[speaks] = CODE.sub(" ", replay_camera.report(result))
    assert {"log", "replay", "corrected", "differences"} <= lowered([said["en"]])
    report = english_left({"report": said[lang]}, lowered([said["en"]]), lang,
                          allowed=COMMANDS + TITLES + ["Ann", "stop", "pass"])
    assert not report, f"English in the {lang} replay-camera report: {report}"


def broken_markers(tmp: Path) -> dict[str, Path]:
    """Folders of marker files, each a copy of the shipped ones with one fault."""
    import shutil
    from tableassist.markers.registry import MARKERS_DIR
    shipshape = (MARKERS_DIR / "shipshape.toml").read_text(encoding="utf-8")
    faults = {"not TOML": "[[group]\n", "an unknown key": shipshape.replace("size_mm", "size", 1),
              "no title": shipshape.replace("title", "name", 1),
              "a marker too large": shipshape + "\n[[group]]\ncomponent = \"x\"\nitems = [\"a\"]\n"
              "side = \"face\"\nfirst_id = 240\nsize_mm = 30\ncomponent_size_mm = [20, 20]\n",
              "a sticker listed twice": shipshape + "\n[[group]]\ncomponent = \"crew_card\"\n"
              "secret = true\nitems = [\"red\"]\nside = \"back\"\ncopies = 10\nfirst_id = 240\n"
              "size_mm = 25\ncomponent_size_mm = [44, 68]\n"}
    folders = {}
    for name, text in faults.items():
        folder = tmp / name.replace(" ", "_")
        shutil.copytree(MARKERS_DIR, folder, ignore=shutil.ignore_patterns("*.py", "__*"))
        (folder / "shipshape.toml").write_text(text, encoding="utf-8")
        folders[name] = folder
    return folders


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_broken_markers_file_is_said_in_the_language(lang, tmp_path):
    """The registry's faults (markers/registry.py: codes and values) in the words of
    tableassist/i18n/registry_words.py; no command takes another markers folder, so the error
    itself is rendered, as the commands print it."""
    from tableassist.games.toml_words import toml_problem
    from tableassist.i18n.registry_words import registry_problem
    from tableassist.markers.registry import RegistryError, load_registry
    said: dict[str, dict[str, str]] = {"en": {}, lang: {}}
    raw: dict[str, dict[str, str]] = {"en": {}, lang: {}}
    for name, folder in broken_markers(tmp_path).items():
        with pytest.raises(RegistryError) as refused:
            load_registry(folder)
        # tomllib's own reason (a library's English, like an OS error's) is kept as the detail
        # beside our words, marked as the TOML reader's
        why = refused.value.params.get("why")
        why = toml_problem(why).params["detail"] if why else str(folder)
        for speaks in said:
            raw[speaks][name] = i18n.render(registry_problem(refused.value), speaks)
            said[speaks][name] = CODE.sub(" ", raw[speaks][name].replace(str(folder), " ")
                                          .replace(why, " "))
    assert "does not fit on a" in said["en"]["a marker too large"]
    assert "unknown keys" in said["en"]["an unknown key"]
    assert "ShipShape · crew card red · back is listed twice" in said["en"]["a sticker listed twice"]
    # what is wrong with the TOML and where, in the language
    assert "bracket" in raw["en"]["not TOML"] and "line 1, column 8" in raw["en"]["not TOML"]
    assert {"de": "Zeile 1, Spalte 8", "es": "línea 1, columna 8"}[lang] in raw[lang]["not TOML"]
    report = english_left(said[lang], lowered(said["en"].values()), lang)
    assert not report, f"English in the {lang} registry errors: {report}"


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_broken_registry_stops_serve_and_camera_in_the_language(lang, tmp_path, capsys,
                                                                  monkeypatch):
    """``serve`` and ``camera`` need the marker files (the camera's pipeline and its demo table);
    broken ones (a copy with a sticker listed twice, read in place of the shipped ones) are said
    in words, not as a traceback."""
    from tableassist.markers import registry
    folder = broken_markers(tmp_path)["a sticker listed twice"]
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    import cv2
    import numpy as np
    cv2.imwrite(str(pictures / "table.png"), np.zeros((48, 64, 3), np.uint8))
    monkeypatch.setattr(registry, "MARKERS_DIR", folder)
    registry._load_default.cache_clear()
    said = {}
    try:
        for speaks in ("en", lang):
            for name, argv in {
                    "serve": ["serve", "--host", "127.0.0.1", "--port", "0", "--camera", "none",
                              "--db", str(tmp_path / speaks / "t.sqlite3")],
                    "camera": ["camera", "--server", "http://127.0.0.1:9", "--key", "k",
                               "--camera", str(pictures), "--journal",
                               str(tmp_path / speaks / "j.json")],
                    "camera of the demo table": ["camera", "--server", "http://127.0.0.1:9",
                                                 "--key", "k", "--camera", "demo"]
            }.items():
                assert cli.main(["--lang", speaks, *argv]) == 2
                out = capsys.readouterr()
                said.setdefault(speaks, {})[name] = CODE.sub(" ", (out.out + out.err).replace(
                    str(tmp_path), " "))
    finally:
        monkeypatch.undo()
        registry._load_default.cache_clear()
    assert "the marker registry cannot be read" in said["en"]["serve"]
    assert "crew card red · back is listed twice" in said["en"]["camera"]
    report = english_left(said[lang], lowered(said["en"].values()), lang,
                          allowed=COMMANDS + TITLES)
    assert not report, f"English in the {lang} registry errors: {report}"


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_replay_camera_notes_in_the_language(lang, small, capsys):
    """The notes of a real replay (tableassist/camera/replay.py, recording.py): a frame's picture
    gone, an index line that cannot be read and one cut short at the end."""
    folder, _db = small
    index = folder / "index.jsonl"
    lines = index.read_text(encoding="utf-8").splitlines()
    frame = next(json.loads(line) for line in lines if '"n"' in line)
    (folder / frame["file"]).unlink()
    index.write_text("\n".join([lines[0], "not json", *lines[1:], '{"part'])
                     + "\n", encoding="utf-8")
    said = {}
    for speaks in ("en", lang):
        assert cli.main(["--lang", speaks, "replay-camera", str(folder)]) == 0
        said[speaks] = CODE.sub(" ", capsys.readouterr().out.replace(str(folder), " "))
    assert {"missing", "skipped", "short"} <= lowered([said["en"]]), said["en"]
    report = english_left({"report": said[lang]}, lowered([said["en"]]), lang,
                          allowed=COMMANDS + TITLES + ["Ann", "Bea"])
    assert not report, f"English in the {lang} replay-camera notes: {report}"


def test_a_list_in_the_camera_checks_advice_is_joined_as_names_in_every_language():
    """The check's English says "the table corners NE, SE and SW"; the command line said it
    "NE, SE, SW" through the catalogue's English: a list is joined as names are, in each language."""
    from tableassist.cli.camera_check import said
    from tableassist.vision import advice
    corners = advice.words("corners_missing", names=("NE", "SE", "SW"))
    kinds = advice.say("kind_unreadable", kinds=(advice.component("die_face"),
                                                 advice.component("rat")), size="12", px="9",
                       needed="14", remedy=advice.words("look_down")).words
    joined = {}
    for lang in i18n.LANGUAGES:
        with language.speaking(lang):
            joined[lang] = said(corners), said(kinds)
    assert "corners NE, SE and SW:" in joined["en"][0] == corners.text
    assert joined["en"][1] == kinds.text and "The die face and rat stickers" in kinds.text
    assert "NE, SE und SW" in joined["de"][0] and "NE, SE y SW" in joined["es"][0]
    assert " und " in joined["de"][1] and " y " in joined["es"][1]


def test_the_language_comes_from_the_option_else_the_locale():
    env = {"LANG": "de_DE.UTF-8"}
    assert language.from_environment(env) == "de"
    assert language.from_environment({"LC_ALL": "es_ES.UTF-8", "LANG": "de_DE.UTF-8"}) == "es"
    assert language.from_environment({"LC_MESSAGES": "es_MX", "LANG": "de_DE.UTF-8"}) == "es"
    assert language.from_environment({"LANG": "C.UTF-8"}) == "en"
    assert language.from_environment({"LANG": "fr_FR.UTF-8"}) == "en"
    assert language.from_environment({}) == "en"
    assert language.wanted(["--lang", "es", "print"], env) == "es"
    assert language.wanted(["print", "--lang=en"], env) == "en"
    assert language.wanted(["print"], env) == "de"


def test_a_german_refusal_and_argparse_in_german(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    assert cli.main(["print", "--game", "chess", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("tableassist print: keine Marker für das Spiel 'chess'")
    with pytest.raises(SystemExit):
        cli.main(["replay", "--game", "shipwrecked", "-"])
    err = capsys.readouterr().err
    assert err.startswith("Aufruf: tableassist replay") and \
        "tableassist replay: Fehler: die folgenden Argumente fehlen: --players" in err
    with pytest.raises(SystemExit):
        cli.main(["--lang", "es", "serve", "--port", "99999"])
    assert "argumento --port: un puerto es un número entero de 0 a 65535, no '99999'" in \
        capsys.readouterr().err
    # argparse speaks English again once the command is done (it is the standard library's)
    import argparse
    assert argparse._("usage: ") == "usage: "  # type: ignore[attr-defined]
    assert i18n.LANGUAGES == ("en", "de", "es")



@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_damaged_log_entry_is_noted_in_the_language(lang, small, capsys):
    """An entry of the recorded game's log that is damaged (its action not JSON): the replay goes
    on without it and its note says what is wrong (tableassist/camera/replay.py, the store's
    words for the damage), with no English word."""
    from tests.stores import raw
    folder, db = small
    raw(db, "INSERT INTO entries (game_id, seq, kind, action, source, author, at) VALUES "
            "(1, 1, 'action', 'not json', 'tablet', 'table', '2026-01-01T20:15:00+00:00')")
    # the recording begins after that entry, so the replay plays it first
    index = folder / "index.jsonl"
    lines = [json.loads(line) for line in index.read_text(encoding="utf-8").splitlines()]
    index.write_text("".join(json.dumps({**e, "seq": max(e["seq"], 1)} if "seq" in e else e)
                             + "\n" for e in lines), encoding="utf-8")
    said = {}
    for speaks in ("en", lang):
        assert cli.main(["--lang", speaks, "replay-camera", str(folder), "--db", str(db)]) == 0
        said[speaks] = CODE.sub(" ", capsys.readouterr().out.replace(str(folder), " "))
    assert "entry   of the log is damaged (its action is not a   object); the replay goes on " \
        "without it" in said["en"], said["en"]   # (CODE took the number and "JSON")
    report = english_left({"report": said[lang]}, lowered([said["en"]]), lang,
                          allowed=COMMANDS + TITLES + ["Ann", "Bea"])
    assert not report, f"English in the {lang} replay-camera notes: {report}"


def bad_exports(tmp: Path) -> dict[str, Path]:
    """Export files ``tableassist import`` refuses, one for each way a file can be wrong."""
    tmp.mkdir(parents=True, exist_ok=True)
    head = json.dumps({"type": "header", "format": "tableassist-games", "version": 1})
    game = {"type": "game", "row": 3, "game": "wreckers", "players": ["Ann", "Bea"], "seed": 1,
            "options": {}, "components": {}, "created": "2026-01-01T20:15:00+00:00",
            "ended": None, "entries": []}
    entry = {"seq": 1, "kind": "action", "action": {}, "target": None, "source": "tablet",
             "author": "Ann", "at": "2026-01-01T20:15:00+00:00"}
    end = json.dumps({"type": "end", "games": 1})

    def with_game(**changed: object) -> str:
        return "\n".join([head, json.dumps({**game, **changed}), end]) + "\n"

    texts = {
        "empty": "",
        "not JSON at all": "rope, gems\n",
        "no header": json.dumps({"type": "end"}) + "\n",
        "a bad version": json.dumps({"type": "header", "format": "tableassist-games",
                                     "version": "x"}) + "\n",
        "a newer version": json.dumps({"type": "header", "format": "tableassist-games",
                                       "version": 9}) + "\n",
        "a damaged line": head + "\n{rope\n",
        "a list": head + "\n[1]\n",
        "an unknown type": head + "\n" + json.dumps({"type": "crate"}) + "\n",
        "a line after the end": head + "\n" + json.dumps({"type": "end", "games": 0}) + "\n"
                                + json.dumps({"type": "end", "games": 0}) + "\n",
        "a wrong count": head + "\n" + json.dumps({"type": "end", "games": 4}) + "\n",
        "no end": head + "\n" + json.dumps(game) + "\n",
        "no game id": with_game(game=""),
        "no players": with_game(players="Ann"),
        "a seed that is no number": with_game(seed="x"),
        "a seed too large": with_game(seed=10 ** 50),
        "no options": with_game(options=[]),
        "no time": with_game(created=1),
        "an end that is no time": with_game(ended=1),
        "no entries": with_game(entries={}),
        "an entry that is no object": with_game(entries=[1]),
        "an entry out of order": with_game(entries=[{**entry, "seq": 2}]),
        "an unknown kind": with_game(entries=[{**entry, "kind": "wish"}]),
        "an action that is no object": with_game(entries=[{**entry, "action": 1}]),
        "a target ahead": with_game(entries=[{**entry, "target": 5}]),
        "an unknown source": with_game(entries=[{**entry, "source": "owl"}]),
        "an author that is no text": with_game(entries=[{**entry, "author": 1}]),
        "a time that is no text": with_game(entries=[{**entry, "at": 1}]),
    }
    files = {}
    for name, text in texts.items():
        files[name] = tmp / (name.replace(" ", "-") + ".jsonl")
        files[name].write_text(text, encoding="utf-8")
    files["not UTF-8"] = tmp / "latin1.jsonl"
    files["not UTF-8"].write_bytes(head.encode() + b"\n\xff\xfe\n")
    return files


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_bad_export_file_is_refused_in_the_language(lang, tmp_path, capsys):
    """Each way an export file can be wrong (tableassist/table/backup.py), as ``tableassist
    import`` says it: in the language, with no English word (the fields' names are the file's
    own, code)."""
    said: dict[str, dict[str, str]] = {}
    for speaks in ("en", lang):
        said[speaks] = {}
        for name, path in bad_exports(tmp_path / speaks).items():
            code = cli.main(["--lang", speaks, "import", "--db", str(tmp_path / "t.sqlite3"),
                             str(path)])
            out = capsys.readouterr()
            assert code == 2 and out.out == "", (name, out)
            said[speaks][name] = CODE.sub(" ", out.err.replace(str(tmp_path / speaks), " "))
    assert "it ends early, after   game (no end line)" in said["en"]["no end"]   # CODE took "1"
    assert "has seq   not" in said["en"]["an entry out of order"]
    assert "is not a list of names" in said["en"]["no players"]
    report = english_left(said[lang], lowered(said["en"].values()), lang)
    assert not report, f"English in the {lang} import's refusals: {report}"


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_folder_that_is_no_recording_is_refused_in_the_language(lang, small, tmp_path, capsys):
    """``tableassist replay-camera`` given what is not a recording it can read
    (tableassist/camera/recording.py: Recording.read and the header's problems)."""
    import shutil
    folder, db = small
    broken = {name: tmp_path / name for name in ("not json", "other format", "old version",
                                                 "damaged", "no frames")}
    for path in broken.values():
        shutil.copytree(folder, path)
    header = json.loads((folder / "recording.json").read_text(encoding="utf-8"))
    (broken["not json"] / "recording.json").write_text("{not json")
    (broken["other format"] / "recording.json").write_text(json.dumps({"format": "x"}))
    (broken["old version"] / "recording.json").write_text(json.dumps({**header, "version": 0}))
    (broken["damaged"] / "recording.json").write_text(json.dumps(
        {**header, "players": 1, "seed": "x"}))
    (broken["no frames"] / "index.jsonl").unlink()
    where = {"nowhere": tmp_path / "nowhere", "its parent": folder.parent, **broken}
    said: dict[str, dict[str, str]] = {}
    for speaks in ("en", lang):
        said[speaks] = {}
        for name, path in where.items():
            assert cli.main(["--lang", speaks, "replay-camera", str(path), "--db", str(db)]) == 2
            out = capsys.readouterr()
            said[speaks][name] = CODE.sub(" ", out.err.replace(str(tmp_path), " "))
    assert "missing or damaged" in said["en"]["damaged"]
    assert "it holds" in said["en"]["its parent"]
    report = english_left(said[lang], lowered(said["en"].values()), lang,
                          allowed=["players", "seed"])   # the header's fields, by their names
    assert not report, f"English in the {lang} replay-camera refusals: {report}"


@pytest.mark.parametrize("lang", ["de", "es"])
def test_serve_with_a_camera_that_cannot_be_opened_says_why_in_the_language(lang, tmp_path,
                                                                             capsys):
    """``serve --camera <a missing file>``: the vision's sentence (a SourceError's, by its id)
    reaches the command line in its language, not its English."""
    said = {}
    for speaks in ("en", lang):
        code = cli.main(["--lang", speaks, "serve", "--camera", str(tmp_path / "missing.mp4"),
                         "--db", str(tmp_path / "t.sqlite3"), "--port", "0"])
        out = capsys.readouterr()
        assert code == 2, out
        said[speaks] = CODE.sub(" ", out.err.replace(str(tmp_path), " "))
    assert "no such file, folder or camera" in said["en"]
    report = english_left({"serve": said[lang]}, lowered([said["en"]]), lang, allowed=COMMANDS)
    assert not report, f"English on the {lang} command line: {report}"


@pytest.mark.parametrize("lang", ["de", "es"])
def test_a_layout_that_cannot_be_used_is_said_in_the_language(lang, tmp_path):
    """A table layout missing, not TOML, or without a key (tableassist/vision/geometry.py's
    LayoutError, as ``camera-check`` and ``detect`` say it): its sentence by id, in the
    language. The games' ids and the file's keys are code; TOML's own detail is the reader's."""
    from tableassist.vision.geometry import Layout, LayoutError
    (tmp_path / "broken.toml").write_text("[table\n", encoding="utf-8")
    tries = {"missing": lambda: Layout.load("chess", tmp_path),
             "no key": lambda: Layout.from_dict({"game": "x"}, "x.toml")}
    said: dict[str, dict[str, str]] = {"en": {}, lang: {}}
    for name, attempt in tries.items():
        with pytest.raises(LayoutError) as refused:
            attempt()
        for speaks in said:
            said[speaks][name] = CODE.sub(" ", i18n.render(language.reason(refused.value), speaks))
    with pytest.raises(LayoutError) as refused:
        Layout.load("broken", tmp_path)
    assert i18n.render(language.reason(refused.value), lang).startswith(
        "broken.toml: " + ("kein gültiges TOML" if lang == "de" else "no es TOML válido"))
    assert "no table layout for game" in said["en"]["missing"]
    report = english_left(said[lang], lowered(said["en"].values()), lang, allowed=["broken"])
    assert not report, f"English in the {lang} layout's refusal: {report}"
