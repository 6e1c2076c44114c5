"""The play log on the real page (headless Chromium, real server): two games played to their end,
then the lobby's saved games say finished with the winner and the scores, a finished game opens
on its end screen read-only with a way back, and the Play log shows the plays and each player's
record, filters them by game and by player, and downloads them as the server writes them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tableassist.table import catalog
from tableassist.table.plays import csv_text, json_value
from tests.games.random_play import random_actions
from tests.plugins.browser import TABLET
from tests.server.conftest import RunningServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = ["Ann", "Bea", "Cy"]


def play_to_end(server: RunningServer, game_id: str, seed: int) -> None:
    """A game started as the lobby starts it and played to its end through the session (the one
    path every input takes) while the page watches."""
    session = server.table.start(game_id, PLAYERS, options=None, seed=seed)
    twin = catalog.new_game(game_id, PLAYERS, seed=seed)
    for action in random_actions(twin, random.Random(seed)):
        session.submit(action)
    assert session.game.is_over


def cells(page, selector: str) -> list[list[str]]:
    return page.evaluate("""sel => [...document.querySelectorAll(sel)].map(
        tr => [...tr.children].map(td => td.textContent))""", selector)


def test_two_games_played_to_the_end_then_the_lobby_and_the_play_log(  # noqa: F811
        chromium, server: RunningServer, tmp_path: Path):
    page = chromium.new_page(viewport=TABLET, accept_downloads=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}#t={server.tokens.table}")
    page.wait_for_function("() => window.tableassist && window.tableassist.state")
    play_to_end(server, "shipwrecked", 1)     # #1: Ann 50, Bea 0, Cy 0
    page.wait_for_selector('.play[data-row="1"] .result')
    play_to_end(server, "schmuggler", 2)      # #2: Bea 18, Ann 16, Cy 15
    page.wait_for_selector('.play[data-row="2"] .result')

    # The saved games: both finished, with the winner and the scores; the one just finished is
    # still the table's game.
    page.locator("#to-lobby").click()
    page.wait_for_selector('li.saved[data-row="1"]')
    first, second = page.locator('li.saved[data-row="1"]'), page.locator('li.saved[data-row="2"]')
    assert first.get_attribute("data-status") == second.get_attribute("data-status") == "finished"
    assert first.locator(".result-line").inner_text() == "Winner: Ann · Ann 50, Bea 0, Cy 0"
    assert second.locator(".result-line").inner_text() == "Winner: Bea · Bea 18, Ann 16, Cy 15"
    line = first.locator('[data-line="1"]').inner_text()
    assert line.startswith("Ann, Bea, Cy · ") and line.endswith(" · 54 log entries · finished")
    assert first.locator('[data-do="resume"], [data-do="end"]').count() == 0
    assert second.locator('[data-do="end"]').count() == 0

    # A finished game opens on its end screen, read-only, and goes back to the games.
    first.locator('[data-do="see-end"]').click()
    page.wait_for_selector('.play[data-row="1"] .result')
    assert "Ann wins" in page.locator(".result h2").inner_text()
    assert page.locator('[data-notice="finished"]').is_visible()
    assert page.locator('[data-do="undo"]').count() == 0
    page.locator('[data-do="back-to-games"]').click()
    page.wait_for_function("() => window.tableassist.state.game === null")
    page.wait_for_selector('li.saved[data-row="1"] [data-do="see-end"]')

    # The play log: the plays, newest first, and each player's record.
    page.locator('[data-do="play-log"]').click()
    page.wait_for_selector('[data-dialog="play-log"] .records-table')
    dialog = page.locator("#dialog")
    plays = cells(page, ".plays-table tbody tr")
    assert [row[1] for row in plays] == ["#2 Schmuggler an Bord", "#1 Shipwrecked"]
    assert [row[3:] for row in plays] == [
        ["Ann, Bea, Cy", "finished", "Winner: Bea · Bea 18, Ann 16, Cy 15"],
        ["Ann, Bea, Cy", "finished", "Winner: Ann · Ann 50, Bea 0, Cy 0"]]
    assert cells(page, ".records-table tbody tr") == [
        ["Ann", "All games", "2", "1", "–", "–"],
        ["Ann", "Schmuggler an Bord", "1", "0", "16", "16"],
        ["Ann", "Shipwrecked", "1", "1", "50", "50"],
        ["Bea", "All games", "2", "1", "–", "–"],
        ["Bea", "Schmuggler an Bord", "1", "1", "18", "18"],
        ["Bea", "Shipwrecked", "1", "0", "0", "0"],
        ["Cy", "All games", "2", "0", "–", "–"],
        ["Cy", "Schmuggler an Bord", "1", "0", "15", "15"],
        ["Cy", "Shipwrecked", "1", "0", "0", "0"]]

    # The filters: one game, then one player of every game.
    dialog.locator('[data-field="plays-game"]').select_option("schmuggler")
    page.wait_for_function("() => document.querySelectorAll('.plays-table tbody tr').length === 1")
    assert cells(page, ".records-table tbody tr") == [
        ["Ann", "Schmuggler an Bord", "1", "0", "16", "16"],
        ["Bea", "Schmuggler an Bord", "1", "1", "18", "18"],
        ["Cy", "Schmuggler an Bord", "1", "0", "15", "15"]]
    dialog.locator('[data-field="plays-game"]').select_option("")
    dialog.locator('[data-field="plays-player"]').select_option("Bea")
    page.wait_for_function(
        "() => document.querySelectorAll('.records-table tbody tr').length === 3")
    assert len(cells(page, ".plays-table tbody tr")) == 2
    assert cells(page, ".records-table tbody tr") == [
        ["Bea", "All games", "2", "1", "–", "–"],
        ["Bea", "Schmuggler an Bord", "1", "1", "18", "18"],
        ["Bea", "Shipwrecked", "1", "0", "0", "0"]]

    # The downloads are the server's files, with the filters chosen.
    for kind in ("csv", "json"):
        with page.expect_download() as waited:
            dialog.locator(f'[data-do="plays-{kind}"]').click()
        download = waited.value
        assert download.suggested_filename == f"plays-main.{kind}"
        saved = tmp_path / f"plays.{kind}"
        download.save_as(saved)
        text = saved.read_text(encoding="utf-8")
        wanted = server.table.play_log(player="Bea")
        if kind == "csv":
            assert text == csv_text(wanted)
        else:
            assert json.loads(text) == json_value(wanted, "Bea")
    dialog.locator('[data-do="plays-close"]').click()
    page.wait_for_function("() => !document.getElementById('dialog').open")
    assert not errors
