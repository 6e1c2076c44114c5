"""A first game without stumbling, and the smaller defects of issue 17, on the real page
(headless Chromium at 1280×800, real server)."""

from __future__ import annotations

import re

import pytest

from tableassist.camera.status import Option, Proposal
from tableassist.table import catalog
from tests.server.conftest import RunningServer
from tests.plugins.browser import TABLET
from tests.server.tablet import Tablet, start_game

pytestmark = [pytest.mark.browser]

GAMES = ["abandon_ship", "schmuggler", "shipshape", "shipwrecked", "wreckers"]


def test_the_lobby_speaks_plain_words_and_start_is_in_view(chromium, server):
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    for game_id in GAMES:
        page.locator(f'button[data-game="{game_id}"]').click()
        start = page.locator('[data-do="start"]')
        box = start.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= TABLET["height"], game_id
        page.locator(".options-box > summary").click()
        comps = catalog.load_components(game_id)
        words = comps["option_labels"]
        for name in comps["options"]:
            option = page.locator(f'.option[data-option="{name}"]')
            text = option.inner_text()
            assert words[name]["label"] in text and words[name]["explain"] in text
        shown = page.locator(".setup").inner_text()
        for name, value in comps["options"].items():
            if "_" in name:                                   # a word is a word
                assert name not in shown, (game_id, name)     # no raw option name
            if isinstance(value, str) and "_" in value:
                assert value not in shown, (game_id, value)   # no raw choice value
        assert not re.search(r"\bwindow s\b", shown)
        # Start still in view with every option unfolded.
        box = page.locator('[data-do="start"]').bounding_box()
        assert box["y"] + box["height"] <= TABLET["height"], game_id
        page.locator(".options-box > summary").click()
    assert tablet.errors == []
    page.close()


def test_after_start_the_prompt_is_in_view_and_touch_sizes_hold(chromium, server):
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    page.locator('button[data-game="shipwrecked"]').click()
    page.locator(".options-box > summary").click()
    page.mouse.wheel(0, 2000)                      # the table read the options first
    page.wait_for_function("() => window.scrollY > 0")
    page.locator('[data-do="start"]').click()
    page.wait_for_selector(".play .prompt")
    page.wait_for_function("""() => { const r = document.querySelector('.prompt').getBoundingClientRect();
                              return r.top >= 0 && r.bottom <= innerHeight; }""")
    assert "Who goes first?" in tablet.prompt()
    # Rule chips are readable (≥ 16 px) and a finger's size; fold-out headings are 44 px tall.
    chip = page.locator(".prompt button.rule").first
    assert float(chip.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 16
    assert chip.bounding_box()["height"] >= 40
    for summary in page.locator("summary").all():
        if summary.is_visible():
            assert summary.bounding_box()["height"] >= 44
    assert tablet.errors == []
    page.close()


def test_history_says_where_an_entry_came_from_once_and_fix_marks_the_current_entry(
        chromium, server: RunningServer):
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.host}")
    start_game(tablet, "shipwrecked")
    tablet.press("table", "choose_first_player", "Ann goes first")
    tablet.press("table", "turn_over_card", "Turned over: FOOD-50")
    line = page.locator('.history .line[data-seq="2"]')
    assert line.locator(".chip.source").inner_text() == "host screen"
    line.locator('[data-do="fix"]').click()
    page.wait_for_selector("dialog[open]")
    current = page.locator("dialog button.act[data-current]")
    assert current.count() == 1 and "FOOD-50" in current.inner_text()
    assert current.is_disabled() and "what it is now" in current.inner_text()
    assert re.search(r"\.$", page.locator("dialog .fix p").first.inner_text())  # sentences
    page.locator("dialog button.act", has_text="Turned over: FOOD-10").click()
    page.wait_for_function("() => window.tableassist.state.history[1].corrected")
    was = page.locator('.history .line [data-was]')
    assert was.count() == 1 and "FOOD-50" in was.inner_text()
    text = page.locator(".history").inner_text()
    assert "camera camera" not in text and "tablet host" not in text
    assert tablet.errors == []
    page.close()


def test_the_camera_rows_carry_no_internal_prefix():
    row = Proposal("the red rat on 3", (Option({"type": "use_die"}, "Ann: red die"),)).to_json()
    assert row["options"][0]["label"] == "Ann: red die"


def test_a_schmuggler_phone_has_no_empty_private_card_and_abandon_ship_no_seat_colours(
        chromium, server: RunningServer):
    session = server.table.start("schmuggler", ["Ann", "Bea", "Cy"], options=None)
    ann = server.tokens.players(session.saved.id, ["Ann"])["Ann"]
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    tablet = Tablet(page, f"{server.url}#t={ann}")
    page.wait_for_selector(".play")
    assert page.locator(".private").count() == 0
    server.table.start("abandon_ship", ["Ann", "Bea", "Cy"], options=None,
                       colours={"Ann": "red", "Bea": "blue", "Cy": "green"})
    page.goto(f"{server.url}#t={server.tokens.table}")
    page.wait_for_function("() => window.tableassist?.state?.game?.id === 'abandon_ship'")
    page.wait_for_selector(".play .player")
    # Players are drawn without the colours the rats wear: none reads as "your rat".
    colours = page.locator(".player").evaluate_all("els => els.map(e => e.dataset.colour)")
    assert colours and set(colours) == {""}
    assert page.locator('.actor[data-colour]:not([data-colour=""])').count() == 0
    assert tablet.errors == []
    page.close()


def test_an_action_adds_one_history_line_and_rebuilds_none(chromium, server):
    """The redraw cost must not grow with the history (bench/bench_redraw.py measures it): an
    action adds one line element to the history and leaves every other one in place."""
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    start_game(tablet, "shipwrecked")
    tablet.press("table", "choose_first_player", "Ann goes first")
    tablet.press("table", "turn_over_card", "Turned over: FOOD-50")
    for p in ("Ann", "Bea"):
        tablet.press(p, "lay_bid_card")
    page.evaluate("""() => { window.changes = {added: 0, removed: 0};
      new MutationObserver((records) => { for (const r of records) {
        window.changes.added += r.addedNodes.length; window.changes.removed += r.removedNodes.length; }
      }).observe(document.querySelector('.history .lines'), {childList: true}); }""")
    tablet.press("Cy", "lay_bid_card")
    assert page.evaluate("() => window.changes") == {"added": 1, "removed": 0}
    assert page.locator(".history .line").count() == 5
    tablet.undo()                                   # the newest line goes, nothing else moves
    assert page.evaluate("() => window.changes") == {"added": 1, "removed": 1}
    assert tablet.errors == []
    page.close()
