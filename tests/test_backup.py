"""`tableassist export` and `tableassist import`, on both stores: a round trip (also from one
store to the other) replays every game to the same views; a damaged, foreign, newer or
incomplete file is refused and changes nothing."""

from __future__ import annotations

import json
import random
import shutil

import pytest

from tableassist.table import catalog
from tableassist.cli import main
from tableassist.server.tokens import Tokens, links_file
from tableassist.table.session import TableSession
from tableassist.table.store import is_postgres
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions
from tests.stores import keys, raw

PLAYERS = ["Ann", "Bea", "Cy"]


def views(session: TableSession) -> dict:
    game = session.game
    return {"shared": game.view(None), **{p: game.view(p) for p in game.players},
            "history": session.history(), "redo": session.can_redo}


def play_every_game(db) -> None:
    """A game of every engine in ``db``: played at random, an undo and a struck reading in some
    (the undone step waits for a redo), one game ended; and the table's links."""
    store = open_store(db)
    Tokens(store.links())
    rng = random.Random(11)
    for i, game_id in enumerate(catalog.game_ids()):
        session = TableSession.create(store, game_id, PLAYERS, seed=i)
        for _ in range(12):
            if session.game.is_over:
                break
            session.submit(rng.choice(all_legal_actions(session.game)), author="Ann",
                           source=rng.choice(["tablet", "camera"]))
        if i % 2 == 0 and session.steps:
            session.undo()
        if i % 3 == 0 and session.steps:
            session.correct(session.steps[-1].seq, None)  # strike the last reading
        if i == 1:
            session.end()
    store.close()  # checkpointed (SQLite): the file alone holds everything


@pytest.fixture(scope="module")
def played_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("played") / "table.sqlite3"
    play_every_game(path)
    return path


@pytest.fixture(scope="module")
def played_postgres(postgres):
    """The same games in a PostgreSQL database, the template each test's copy is made from."""
    name = postgres.new_database()
    play_every_game(postgres.url(name))
    return name


@pytest.fixture(params=["sqlite", "postgresql"])
def table_db(request, tmp_path):
    """A copy of the played database, for one test to change: a file, or a PostgreSQL URL."""
    if request.param == "postgresql":
        postgres = request.getfixturevalue("postgres")
        return postgres.url(postgres.new_database(request.getfixturevalue("played_postgres")))
    played_db = request.getfixturevalue("played_db")
    path = tmp_path / "table.sqlite3"
    shutil.copyfile(played_db, path)
    shutil.copyfile(links_file(played_db), links_file(path))
    return path


def test_export_then_import_into_the_other_store_replays_every_game_the_same(table_db, tmp_path,
                                                                            capsys, postgres):
    """A table moves from SQLite to a venue's PostgreSQL, and from PostgreSQL to a file."""
    out = tmp_path / "games.jsonl"
    assert main(["export", "--db", str(table_db), "-o", str(out)]) == 0
    assert "exported 5 games to" in capsys.readouterr().err
    assert out.stat().st_mode & 0o777 == 0o600  # the logs hold every hidden card
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["header"] + ["game"] * 5 + ["end"]
    links = keys(table_db)
    assert not any(links[k] in out.read_text() for k in ("host", "table"))  # no link keys

    copy = tmp_path / "moved" / "table.sqlite3" if is_postgres(table_db) else \
        postgres.url(postgres.new_database())
    assert main(["import", str(out), "--db", str(copy), "--table", "moved"]) == 0
    said = capsys.readouterr().out
    old, new = open_store(table_db, read_only=True), open_store(copy, "moved")
    assert said.startswith(f"imported 5 games into {new.where}: #1 as #1, #2 as #2")
    assert postgres.PASSWORD not in said  # a URL is never printed with its password
    assert old.game_rows() == new.game_rows()
    for row in old.game_rows():
        a, b = old.game(row), new.game(row)
        assert (a.game, a.players, a.seed, a.options, a.components, a.created, a.ended) == \
            (b.game, b.players, b.seed, b.options, b.components, b.created, b.ended)
        assert old.entries(row) == new.entries(row)
        assert views(TableSession.open(old, row)) == views(TableSession.open(new, row))
    old.close()
    new.close()


def test_one_game_to_stdout_and_import_adds_new_rows_beside_existing_ones(table_db, tmp_path,
                                                                         capsys):
    assert main(["export", "--db", str(table_db), "--game-row", "3"]) == 0
    text = capsys.readouterr().out
    games = [json.loads(line) for line in text.splitlines()][1:-1]
    assert [g["row"] for g in games] == [3]
    dump = tmp_path / "one.jsonl"
    dump.write_text(text)
    assert main(["import", str(dump), "--db", str(table_db)]) == 0  # into the same table
    assert "#3 as #6" in capsys.readouterr().out
    store = open_store(table_db)
    assert store.game_rows() == [1, 2, 3, 4, 5, 6]  # never overwrites
    assert views(TableSession.open(store, 6)) == views(TableSession.open(store, 3))
    store.close()


def good_file(table_db, tmp_path) -> list[str]:
    out = tmp_path / "good.jsonl"
    assert main(["export", "--db", str(table_db), "-o", str(out)]) == 0
    return out.read_text().splitlines(keepends=True)


def edited(lines: list[str], index: int, change) -> list[str]:
    obj = json.loads(lines[index])
    change(obj)
    return lines[:index] + [json.dumps(obj) + "\n"] + lines[index + 1:]


@pytest.mark.parametrize("name, make, message", [
    ("foreign", lambda lines: ["shopping list: rope, gems\n"],
     "it is not a tableassist export (its first line is not JSON)"),
    ("other json", lambda lines: ['{"type": "header", "format": "photos"}\n'],
     "it is not a tableassist export (no tableassist header)"),
    ("newer", lambda lines: edited(lines, 0, lambda h: h.update(version=9)),
     "it was written by a newer tableassist (format 9; this one reads 1)"),
    ("truncated", lambda lines: lines[:3],
     "it ends early, after 2 games (no end line): it is incomplete"),
    ("cut mid-line", lambda lines: lines[:2] + [lines[2][:100]],
     "line 3 is damaged (not JSON"),
    ("bad seq", lambda lines: edited(lines, 4, lambda g: g["entries"][1].update(seq=7)),
     "line 5 (game #4): entry 2 has seq 7, not 2"),
    ("bad players", lambda lines: edited(lines, 2, lambda g: g.update(players="Ann")),
     "line 3 (game #2): 'players' is not a list of names"),
    ("wrong count", lambda lines: edited(lines, len(lines) - 1, lambda e: e.update(games=4)),
     "the end line says 4 games, the file holds 5"),
    ("empty", lambda lines: [], "it is empty"),
    # numbers the database cannot keep (64-bit): said with the game and the field, not an
    # OverflowError from the driver
    ("seed 1e30", lambda lines: edited(lines, 2, lambda g: g.update(seed=10**30)),
     "line 3 (game #2): 'seed' is 1000000000000000000000000000000, not a whole number from "
     "-9223372036854775808 to 9223372036854775807"),
    ("row 2**63", lambda lines: edited(lines, 2, lambda g: g.update(row=2**63)),
     "line 3 (game #9223372036854775808): 'row' is 9223372036854775808, not a whole number from "
     "1 to 9223372036854775807"),
    ("target 1e30", lambda lines: edited(lines, 4, lambda g: g["entries"][1].update(target=10**30)),
     "line 5 (game #4): entry 2's target is 1000000000000000000000000000000, not a whole number "
     "from 0 to 1"),
    ("target ahead", lambda lines: edited(lines, 4, lambda g: g["entries"][1].update(target=2)),
     "line 5 (game #4): entry 2's target is 2, not a whole number from 0 to 1"),
    ("seq 1e30", lambda lines: edited(lines, 4, lambda g: g["entries"][0].update(seq=10**30)),
     "line 5 (game #4): entry 1 has seq 1000000000000000000000000000000, not 1"),
    ("5000 digits", lambda lines: lines[:2] + [lines[2].replace('"seed":', '"seed": ' + "9" * 5000
                                                                + ', "was":', 1)] + lines[3:],
     "line 3 holds a number too long to read"),
    ("nested 100000 deep", lambda lines: lines[:2] + [
        '{"type": "game", "options": ' + "[" * 100_000 + "]" * 100_000 + "}\n"] + lines[2:],
     "line 3 is nested far too deeply to be a saved game"),
])
def test_a_bad_file_is_refused_and_changes_nothing(table_db, tmp_path, capsys, name, make,
                                                   message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(make(good_file(table_db, tmp_path))))
    capsys.readouterr()
    assert main(["import", str(bad), "--db", str(table_db)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.strip().endswith("nothing was imported")
    assert len(err.strip().splitlines()) == 1
    store = open_store(table_db, read_only=True)
    assert store.game_rows() == [1, 2, 3, 4, 5]
    assert store.entries(6) == []
    store.close()


def test_a_binary_file_and_a_missing_file_are_refused(tmp_path, capsys):
    db = tmp_path / "t.sqlite3"
    blob = tmp_path / "photo.jpg"
    blob.write_bytes(bytes(range(256)) * 10)
    assert main(["import", str(blob), "--db", str(db)]) == 2
    assert "it is not a tableassist export (it is not UTF-8 text)" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "none.jsonl"), "--db", str(db)]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["export", "--db", str(tmp_path / "none.sqlite3")]) == 2
    assert "there is no database at" in capsys.readouterr().err


def test_export_leaves_out_a_damaged_game_and_says_so(table_db, tmp_path, capsys):
    raw(table_db, "UPDATE games SET options = '{' WHERE id = 2")
    out = tmp_path / "games.jsonl"
    assert main(["export", "--db", str(table_db), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "game #2 left out: saved game #2 is damaged: its options are damaged" in err
    assert "exported 4 games" in err
    rows = [json.loads(line).get("row") for line in out.read_text().splitlines()][1:-1]
    assert rows == [1, 3, 4, 5]
    assert main(["export", "--db", str(table_db), "--game-row", "2"]) == 2
    assert "saved game #2 is damaged" in capsys.readouterr().err
