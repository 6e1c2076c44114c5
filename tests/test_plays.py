"""The play log (tableassist/table/plays.py, ``tableassist plays``): every saved game as a play —
finished by the rules, abandoned by the table, or paused — with its winners and scores from the
engine after replaying the log, and each player's record; on SQLite and PostgreSQL alike.

The games are played to their end by seeded random legal play through the session (the one path
every input takes); the scores are what the engines give these seeds, and each is checked against
an engine that was handed the same actions directly (the twin), so a change of an engine shows
as that and not as a fault of the log."""

from __future__ import annotations

import json
import random
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tableassist.cli import main
from tableassist.table import catalog
from tableassist.table import plays as plays_module
from tableassist.table.plays import (ABANDONED, DAMAGED, FINISHED, PAUSED, UNKNOWN, PlayerStats,
                                     PlayLog, Score, csv_text, player_stats)
from tableassist.table.session import TableSession
from tableassist.table.store import Store
from tableassist.table.stores import open_store
from tests.games.random_play import all_legal_actions, random_actions

PLAYERS = ["Ann", "Bea", "Cy"]


def finish(store: Store, game_id: str, seed: int, *, undo_redo: bool = False) -> TableSession:
    """A game played to its end through the session; ``undo_redo``: its fourth action undone and
    done again (the log has both entries; the replay keeps the action once)."""
    session = TableSession.create(store, game_id, PLAYERS, seed=seed)
    twin = catalog.new_game(game_id, PLAYERS, seed=seed)
    for i, action in enumerate(random_actions(twin, random.Random(seed))):
        session.submit(action)
        if undo_redo and i == 3:
            session.undo()
            session.redo()
    assert session.game.is_over and twin.result() is not None
    assert play_scores(session) == ranking(twin.result())  # the twin: the engine alone
    return session


def play_scores(session: TableSession) -> tuple[Score, ...]:
    return ranking(session.game.result())


def ranking(result: dict[str, Any] | None) -> tuple[Score, ...]:
    return tuple(Score(r["player"], r["score"], r["rank"]) for r in (result or {})["ranking"])


def begin(store: Store, game_id: str, players: list[str], seed: int, actions: int) -> TableSession:
    session = TableSession.create(store, game_id, players, seed=seed)
    twin = catalog.new_game(game_id, players, seed=seed)
    for _i, action in zip(range(actions), random_actions(twin, random.Random(seed))):
        session.submit(action)
    return session


def evening(store: Store) -> None:
    """Six games at one table: four finished (one of them then ended by the table), one paused,
    one abandoned."""
    finish(store, "shipwrecked", 1)                     # #1 Ann 50, Bea 0, Cy 0
    finish(store, "schmuggler", 1, undo_redo=True)      # #2 Ann 19, Bea 14, Cy 12
    finish(store, "schmuggler", 2)                      # #3 Bea 18, Ann 16, Cy 15
    begin(store, "shipwrecked", ["Ann", "Bea"], 3, 2)   # #4 paused
    begin(store, "schmuggler", ["Cy", "Dee", "Eve"], 3, 3).end()  # #5 abandoned
    finish(store, "shipwrecked", 5).end()               # #6 Bea 100, Ann 90, Cy 90; then End


def test_finished_abandoned_and_paused_games_with_winners_scores_and_records(store_factory):
    store = store_factory()
    evening(store)
    plays = PlayLog(store).plays()
    assert [(p.row, p.game, p.status) for p in plays] == [
        (6, "shipwrecked", FINISHED), (5, "schmuggler", ABANDONED), (4, "shipwrecked", PAUSED),
        (3, "schmuggler", FINISHED), (2, "schmuggler", FINISHED), (1, "shipwrecked", FINISHED)]
    by_row = {p.row: p for p in plays}
    assert by_row[1].winners == ("Ann",)
    assert by_row[1].scores == (Score("Ann", 50, 1), Score("Bea", 0, 2), Score("Cy", 0, 3))
    assert by_row[2].winners == ("Ann",)
    assert by_row[2].scores == (Score("Ann", 19, 1), Score("Bea", 14, 2), Score("Cy", 12, 3))
    assert by_row[3].winners == ("Bea",)
    assert by_row[3].scores == (Score("Bea", 18, 1), Score("Ann", 16, 2), Score("Cy", 15, 3))
    assert by_row[6].winners == ("Bea",)   # ended by the table after the rules ended it
    assert by_row[6].scores == (Score("Bea", 100, 1), Score("Ann", 90, 2), Score("Cy", 90, 3))
    for row in (4, 5):
        assert by_row[row].winners == () and by_row[row].scores == ()
    assert by_row[5].players == ("Cy", "Dee", "Eve") and by_row[4].players == ("Ann", "Bea")
    # The log's own numbers: 95 actions, one undo and one redo; 2 actions; none are lost.
    assert by_row[2].entries == 97 and by_row[4].entries == 2
    assert by_row[4].title == "Shipwrecked" and by_row[5].title == "Schmuggler an Bord"
    for play in plays:   # dates and lengths from the log's own times
        assert play.created <= play.first <= play.last and play.duration is not None
        assert play.note is None
    assert player_stats(plays) == [
        PlayerStats("Ann", None, None, plays=4, wins=2, best=None, average=None),
        PlayerStats("Ann", "schmuggler", "Schmuggler an Bord", 2, 1, best=19, average=17.5),
        PlayerStats("Ann", "shipwrecked", "Shipwrecked", 2, 1, best=90, average=70.0),
        PlayerStats("Bea", None, None, plays=4, wins=2, best=None, average=None),
        PlayerStats("Bea", "schmuggler", "Schmuggler an Bord", 2, 1, best=18, average=16.0),
        PlayerStats("Bea", "shipwrecked", "Shipwrecked", 2, 1, best=100, average=50.0),
        PlayerStats("Cy", None, None, plays=4, wins=0, best=None, average=None),
        PlayerStats("Cy", "schmuggler", "Schmuggler an Bord", 2, 0, best=15, average=13.5),
        PlayerStats("Cy", "shipwrecked", "Shipwrecked", 2, 0, best=90, average=45.0)]


def test_the_log_filters_by_game_and_by_player_in_any_capitals(store_factory):
    store = store_factory()
    evening(store)
    log = PlayLog(store)
    assert [p.row for p in log.plays(game="schmuggler")] == [5, 3, 2]
    assert [p.row for p in log.plays(player="dee")] == [5]
    assert player_stats(log.plays(player="dee"), "dee") == []   # no finished game yet
    bea = log.plays(player="BEA")
    assert [p.row for p in bea] == [6, 4, 3, 2, 1]
    assert player_stats(bea, "BEA") == [
        PlayerStats("Bea", None, None, plays=4, wins=2, best=None, average=None),
        PlayerStats("Bea", "schmuggler", "Schmuggler an Bord", 2, 1, best=18, average=16.0),
        PlayerStats("Bea", "shipwrecked", "Shipwrecked", 2, 1, best=100, average=50.0)]
    one_game = log.plays(game="shipwrecked", player="Cy")
    assert [p.row for p in one_game] == [6, 1]
    # One game: no row for all games (it would say the same).
    assert player_stats(one_game, "Cy") == [
        PlayerStats("Cy", "shipwrecked", "Shipwrecked", 2, 0, best=90, average=45.0)]


def test_a_game_is_replayed_once_per_change_of_its_log(store_factory, monkeypatch):
    """Listing again replays nothing; an action replays that game, an End that game, and
    nothing else (counted, not timed)."""
    store = store_factory()
    finish(store, "shipwrecked", 1)
    paused = begin(store, "shipwrecked", ["Ann", "Bea"], 3, 2)
    finish(store, "schmuggler", 1)
    replays: list[int] = []
    real = plays_module.TableSession

    def counted(store: Store, saved: Any) -> TableSession:
        replays.append(saved.id)
        return real(store, saved)

    monkeypatch.setattr(plays_module, "TableSession", counted)
    log = PlayLog(store)
    assert [p.status for p in log.plays()] == [FINISHED, PAUSED, FINISHED]
    assert sorted(replays) == [1, 2, 3]
    log.plays()
    log.plays(game="shipwrecked", player="Ann")
    assert sorted(replays) == [1, 2, 3]
    action = all_legal_actions(paused.game)[0]
    paused.submit(paused.game.chance_action() or action if action["player"] is None else action)
    assert log.plays()[1].entries == 3 and sorted(replays) == [1, 2, 2, 3]
    paused.end()
    assert log.plays()[1].status == ABANDONED and sorted(replays) == [1, 2, 2, 2, 3]


def test_a_damaged_row_an_unknown_game_and_a_broken_log_are_listed_not_raised(store_factory):
    store = store_factory()
    finish(store, "shipwrecked", 1)
    finish(store, "schmuggler", 1)
    finish(store, "schmuggler", 2)
    finish(store, "shipwrecked", 5)
    store_factory.raw("UPDATE games SET players = '[\"Ann\", \"Be' WHERE id = 2")
    store_factory.raw("UPDATE games SET game = 'chess' WHERE id = 3")
    store_factory.raw("UPDATE entries SET action = '{' WHERE game_id = 4 AND seq = 10")
    plays = PlayLog(store).plays()
    by_row = {p.row: p for p in plays}
    assert [p.status for p in plays] == [PAUSED, UNKNOWN, DAMAGED, FINISHED]
    assert by_row[2].note == "its players are damaged (not a JSON list of names)"
    assert by_row[3].note == "this installation cannot play 'chess'" and by_row[3].title == "chess"
    # The log replays as far as it can (to entry 9), as the table would resume it.
    assert by_row[4].note == ("entries 10… of game #4 no longer replay (entry 10 is damaged: its "
                              "action is not a JSON object); resumed at entry 9; nothing was "
                              "deleted")
    assert by_row[1].winners == ("Ann",)
    assert player_stats(plays, "Ann") == [
        PlayerStats("Ann", "shipwrecked", "Shipwrecked", 1, 1, best=50, average=50.0)]
    lines = csv_text(plays).splitlines()
    assert lines[0] == "row,game,title,created,duration,status,player,seat,score,rank,won,note"
    assert [line.split(",")[5] for line in lines[1:]] == \
        ["paused"] * 3 + ["unknown"] * 3 + ["damaged", "finished", "finished", "finished"]
    damaged = lines[7].split(",")
    assert damaged[:3] == ["2", "schmuggler", "Schmuggler an Bord"] and damaged[6:11] == [""] * 5
    assert damaged[11] == "its players are damaged (not a JSON list of names)"


# -- tableassist plays, over games brought in by tableassist import ---------------------------

CREATED = ("2025-03-01T18:00:00.000+00:00", "2025-03-02T19:30:00.000+00:00")


def later(stored: str, seconds: int) -> str:
    """A stored time ``seconds`` later, written as the store writes times."""
    moment = datetime.fromisoformat(stored) + timedelta(seconds=seconds)
    return moment.isoformat(timespec="milliseconds")


def export_file(path: Path, tmp_path: Path) -> tuple[int, int]:
    """An export file with two games (Shipwrecked seed 1 finished, Schmuggler paused after
    three actions), their times set as another table wrote them: set up at :data:`CREATED`,
    one entry every 10 s from a minute later. Returns the two logs' lengths."""
    from tableassist.table import backup
    scratch = open_store(tmp_path / "elsewhere.sqlite3")
    finish(scratch, "shipwrecked", 1)
    begin(scratch, "schmuggler", PLAYERS, 3, 3)
    with open(path, "w", encoding="utf-8") as out:
        backup.write(scratch, scratch.game_rows(), out)
    scratch.close()
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    games = [line for line in lines if line["type"] == "game"]
    for game, created in zip(games, CREATED):
        game["created"] = created
        for i, entry in enumerate(game["entries"]):
            entry["at"] = later(created, 60 + 10 * i)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return len(games[0]["entries"]), len(games[1]["entries"])


@pytest.fixture
def imported(store_factory, tmp_path: Path, capsys) -> tuple[str, int, int]:
    """A table's database with the two games of :func:`export_file`, imported as rows 1 and 2
    by ``tableassist import``."""
    exported = tmp_path / "games.jsonl"
    lengths = export_file(exported, tmp_path)
    db = str(store_factory.db)
    assert main(["import", str(exported), "--db", db]) == 0
    assert "imported 2 games" in capsys.readouterr().out
    return db, *lengths


def test_tableassist_plays_as_csv(imported, capsys):
    db, finished, paused = imported
    assert main(["plays", "--db", db, "--format", "csv"]) == 0
    ended, waited = (finished - 1) * 10, (paused - 1) * 10
    assert capsys.readouterr().out == (
        "row,game,title,created,duration,status,player,seat,score,rank,won,note\n"
        f"2,schmuggler,Schmuggler an Bord,{CREATED[1]},{waited},paused,Ann,1,,,,\n"
        f"2,schmuggler,Schmuggler an Bord,{CREATED[1]},{waited},paused,Bea,2,,,,\n"
        f"2,schmuggler,Schmuggler an Bord,{CREATED[1]},{waited},paused,Cy,3,,,,\n"
        f"1,shipwrecked,Shipwrecked,{CREATED[0]},{ended},finished,Ann,1,50,1,1,\n"
        f"1,shipwrecked,Shipwrecked,{CREATED[0]},{ended},finished,Bea,2,0,2,0,\n"
        f"1,shipwrecked,Shipwrecked,{CREATED[0]},{ended},finished,Cy,3,0,3,0,\n")
    assert (finished, paused) == (54, 3)


def test_tableassist_plays_as_json_filtered(imported, capsys):
    db, finished, _paused = imported
    assert main(["plays", "--db", db, "--format", "json", "--game", "shipwrecked",
                 "--player", "bea"]) == 0
    first, last = later(CREATED[0], 60), later(CREATED[0], 60 + (finished - 1) * 10)
    assert first == "2025-03-01T18:01:00.000+00:00"
    assert json.loads(capsys.readouterr().out) == {
        "plays": [{"row": 1, "game": "shipwrecked", "title": "Shipwrecked",
                   "players": ["Ann", "Bea", "Cy"], "status": "finished", "created": CREATED[0],
                   "first": first, "last": last, "duration": (finished - 1) * 10,
                   "entries": finished, "winners": ["Ann"],
                   "scores": [{"player": "Ann", "score": 50, "rank": 1},
                              {"player": "Bea", "score": 0, "rank": 2},
                              {"player": "Cy", "score": 0, "rank": 3}], "note": None}],
        "players": [{"player": "Bea", "game": "shipwrecked", "title": "Shipwrecked",
                     "plays": 1, "wins": 0, "best": 0, "average": 0.0}]}


def test_tableassist_plays_as_a_readable_table(imported, capsys, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        db, _finished, _paused = imported
        assert main(["plays", "--db", db]) == 0
    finally:
        monkeypatch.undo()
        time.tzset()
    assert capsys.readouterr().out == (
        "2 plays\n"
        "row  date              game                length  status    players       result\n"
        "#2   2025-03-02 19:30  Schmuggler an Bord  0 min   paused    Ann, Bea, Cy\n"
        "#1   2025-03-01 18:00  Shipwrecked         9 min   finished  Ann, Bea, Cy  "
        "Ann won: Ann 50, Bea 0, Cy 0\n"
        "\n"
        "players\n"
        "player  game         plays  wins  best  average\n"
        "Ann     Shipwrecked  1      1     50    50\n"
        "Bea     Shipwrecked  1      0     0     0\n"
        "Cy      Shipwrecked  1      0     0     0\n")


def test_tableassist_plays_refuses_a_game_it_does_not_know_in_one_line(imported, capsys):
    db, _finished, _paused = imported
    assert main(["plays", "--db", db, "--game", "chess"]) == 2
    assert capsys.readouterr().err == ("there is no game 'chess': the games are abandon_ship, "
                                       "schmuggler, shipshape, shipwrecked, wreckers\n")


def test_a_db_url_of_another_scheme_is_refused_and_no_file_is_made(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["plays", "--db", "mysql://host/t"]) == 2
    assert "--db mysql://… is not a database tableassist can use" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
