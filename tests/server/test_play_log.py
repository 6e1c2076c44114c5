"""The play log at the table server (real server, real Socket.IO clients, real HTTP): the lobby's
saved games say finished (winner, scores), abandoned or paused; a finished game opens read-only
on its end screen; plays.csv and plays.json answer the table's own screens only; broadcasts
replay no saved game."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request

import pytest

from tableassist.table import catalog
from tableassist.table import plays as plays_module
from tableassist.table.plays import csv_text, json_value
from tableassist.table.session import TableSession
from tests.games.random_play import random_actions
from tests.server.conftest import RunningServer

PLAYERS = ["Ann", "Bea", "Cy"]


def play_to_end(server: RunningServer, game_id: str = "shipwrecked", seed: int = 1) -> TableSession:
    """A game started as the lobby starts it and played to its end through the session."""
    session = server.table.start(game_id, PLAYERS, options=None, seed=seed)
    twin = catalog.new_game(game_id, PLAYERS, seed=seed)
    for action in random_actions(twin, random.Random(seed)):
        session.submit(action)
    return session


def fetch(server: RunningServer, path: str, token: str | None) -> tuple[int, dict[str, str], str]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    request = urllib.request.Request(server.url.rstrip("/") + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode("utf-8")


def test_the_lobby_says_finished_abandoned_or_paused_with_winner_and_scores(server):
    table = server.client(server.tokens.table)
    play_to_end(server)                                      # #1: Ann 50, Bea 0, Cy 0
    current = table.wait_state(lambda s: s["game"] and s.get("end"))["lobby"]["saved"][0]
    # The game just finished is still the table's: it says so at once, from the session.
    assert current["current"] and current["status"] == "finished"
    assert current["winners"] == ["Ann"] and current["scores"][0] == \
        {"player": "Ann", "score": 50, "rank": 1}
    assert table.call("start", {"game": "schmuggler",
                                "players": [{"name": n} for n in PLAYERS]})["ok"]   # #2
    assert table.call("end", {})["ok"]                       # abandoned before a move
    assert table.call("start", {"game": "shipwrecked",
                                "players": [{"name": n} for n in PLAYERS]})["ok"]   # #3
    assert table.act({"type": "choose_first_player", "player": None,
                      "first_player": "Bea"})["ok"]
    assert table.call("close")["ok"]                         # paused
    saved = {s["id"]: s for s in table.wait_state(lambda s: s["game"] is None)["lobby"]["saved"]}
    assert {row: s["status"] for row, s in saved.items()} == \
        {1: "finished", 2: "abandoned", 3: "paused"}
    assert saved[1]["winners"] == ["Ann"] and saved[1]["scores"] == [
        {"player": "Ann", "score": 50, "rank": 1}, {"player": "Bea", "score": 0, "rank": 2},
        {"player": "Cy", "score": 0, "rank": 3}]
    assert saved[1]["ended"] is None   # the rules ended it, not the table
    assert saved[2]["winners"] == saved[3]["winners"] == [] and saved[3]["entries"] == 1
    assert all(isinstance(s["duration"], int) for s in saved.values() if s["entries"])


def test_a_finished_game_opens_read_only_on_its_end_screen(server):
    table = server.client(server.tokens.table)
    row = play_to_end(server).saved.id
    assert table.call("close")["ok"]
    assert table.call("resume", {"row": row})["ok"]
    state = table.wait_state(lambda s: s["game"] and s["game"]["row"] == row)
    assert state["game"]["read_only"] and state["game"]["ended"] is None
    assert state["end"]["why"] and state["view"]["result"]["winners"] == ["Ann"]
    assert state["actions"] == [] and not state["can_undo"] and not state["can_redo"]
    refused = table.call("undo")
    assert not refused["ok"] and refused["error"] == \
        "this game is finished and shown read-only; start another"
    assert server.table.current().steps[-1].seq == 54   # nothing was undone
    # Back to the lobby: the table closes it, and it is listed as finished.
    assert table.call("close")["ok"]
    lobby = table.wait_state(lambda s: s["game"] is None)["lobby"]
    assert lobby["saved"][0]["status"] == "finished" and not lobby["saved"][0]["current"]


def test_the_play_log_files_are_the_table_screens_only(server):
    play_to_end(server)
    server.table.start("schmuggler", PLAYERS, options=None, seed=2)
    server.table.close_game()
    ann = server.tokens.players(1, PLAYERS)["Ann"]
    status, headers, body = fetch(server, "/plays.csv", server.tokens.table)
    assert status == 200 and headers["Content-Type"] == "text/csv; charset=utf-8"
    assert headers["Content-Disposition"] == 'attachment; filename="plays-main.csv"'
    assert headers["Cache-Control"] == "no-store"
    assert body == csv_text(server.table.play_log())
    status, headers, body = fetch(server, "/plays.json?game=shipwrecked&player=bea",
                                  server.tokens.host)
    assert status == 200 and headers["Content-Type"] == "application/json"
    wanted = server.table.play_log(game="shipwrecked", player="bea")
    assert json.loads(body) == json_value(wanted, "bea") and [p.row for p in wanted] == [1]
    # A player's phone, a spectator's and a camera's key, or none: refused in one sentence.
    for token in (ann, server.tokens.camera, "not-a-key", None):
        for path in ("/plays.csv", "/plays.json"):
            status, _headers, body = fetch(server, path, token)
            assert (status, body) == (403, "only the table's own screens may read the play "
                                           "log; ask the host for the table link\n")


def test_broadcasts_replay_no_saved_game(server, monkeypatch):
    """The lobby goes with every broadcast; the saved games in it are replayed once per change
    of their logs, not per broadcast (counted, not timed)."""
    play_to_end(server, "shipwrecked", 1)
    play_to_end(server, "schmuggler", 1)
    replays: list[int] = []
    real = plays_module.TableSession

    def counted(store, saved):
        replays.append(saved.id)
        return real(store, saved)

    monkeypatch.setattr(plays_module, "TableSession", counted)
    table, host = server.client(server.tokens.table), server.client(server.tokens.host)
    assert table.call("start", {"game": "shipwrecked",
                                "players": [{"name": n} for n in PLAYERS]})["ok"]
    before = list(replays)   # game #2, left for #3 (#1 was replayed when #2 started)
    assert before == [2]
    session = server.table.current()
    twin = catalog.new_game("shipwrecked", PLAYERS, seed=0)
    for _i, action in zip(range(12), random_actions(twin, random.Random(3))):
        assert table.act(action)["ok"]
    host.wait_state(lambda s: len(s.get("history", [])) == len(session.steps) == 12)
    assert replays == before
    assert table.call("close")["ok"]
    host.wait_state(lambda s: s["game"] is None)
    assert replays == [2, 3]


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_play_log_files_refuse_in_the_screens_language(server, lang):
    """A key that is not the table's, and a log the store cannot read: the answer's one sentence
    in the language the page asks for (``?lang=``, issue 25), the store's reason in it too."""
    from tests.words import english_left, lowered
    said = {}
    for speaks in ("en", lang):
        status, _headers, body = fetch(server, f"/plays.csv?lang={speaks}", server.tokens.camera)
        assert status == 403
        said[speaks] = body
    server.table.store.close()   # the server stopping: the log cannot be read any more
    for speaks in ("en", lang):
        status, _headers, body = fetch(server, f"/plays.json?lang={speaks}", server.tokens.table)
        assert status == 503
        said[speaks] += body
    assert said["en"].endswith("the play log cannot be read: the table's database is closed "
                               "(the server is stopping)\n")
    report = english_left({"refusals": said[lang]}, lowered([said["en"]]), lang)
    assert not report, report
