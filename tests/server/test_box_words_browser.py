"""No English word on a German or Spanish "Your box" screen (issue 25), in headless Chromium on the
real server: each game's box opened, every entry of every group selected in turn (a crate's back
too), the text read with the words test's own reader (tests/words.py) and the values in its fields
(a good's name, a rat's colour are the shipped data's words); a word of the English rendering of
the same screen that shows on the other is a failure.

And a name the players give a component on a German screen is theirs: saved as they wrote it, it
is what every screen shows, in every language.
"""

from __future__ import annotations

import pytest

from tests.plugins.browser import TABLET
from tests.server.conftest import RunningServer, wait_until
from tests.words import VISIBLE, english_left, lowered, names_and_titles

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GAMES = ["abandon_ship", "schmuggler", "shipshape", "shipwrecked", "wreckers"]

#: The values in the screen's text fields: the shipped data's words, which the players may edit.
FIELD_VALUES = """() => [...document.querySelectorAll('.box-editor input[type=text]')]
  .map((e) => e.value).join('\\n')"""

_ENGLISH: dict[str, set[str]] = {}


def open_box(chromium, server: RunningServer, game_id: str, lang: str):
    """The host's page in ``lang`` with ``game_id``'s box open (its first entry to check)."""
    page = chromium.new_context(locale=lang, viewport=TABLET).new_page()
    page.goto(f"{server.url}#t={server.tokens.host}")
    page.wait_for_function("() => window.tableassist && window.tableassist.state")
    page.evaluate(f"() => window.tableassist.openBox('{game_id}')")
    page.wait_for_selector(".box-editor")
    return page


#: Each entry selected in turn and its screen read, in the page (one call: a click, a wait and two
#: reads an entry from here were ~170 ms of round trips, 12 s for ShipShape's 72 entries): the
#: entry's chip clicked, its editor waited for (and the engine's preview of it, where it has one), the
#: text and the fields' values read; the crate's back likewise, then its front again.
SELECT_EACH = """async (paths) => {
  const visible = (%s), fields = (%s);
  const one = (css) => document.querySelector(css);
  const until = async (what, test) => {
    for (const t0 = performance.now(); !test(); await new Promise((r) => setTimeout(r, 5)))
      if (performance.now() - t0 > 10000) throw new Error('no ' + what);
  };
  const shown = {};
  for (const path of paths) {
    const entry = `[data-entry="${CSS.escape(path)}"]`;
    one('.box-entry' + entry).click();
    await until('editor of ' + path, () => one('.box-editor' + entry));
    if (one('[data-preview="1"]'))   // the engine's answer to this entry drawn
      await until('preview of ' + path, () => one('[data-preview="1"]:not([data-pending]) [data-grid="preview"], '
                                                 + '[data-preview="1"]:not([data-pending]) .warn-text'));
    shown[path] = visible() + '\\n' + fields();
    if (one('.box-editor [data-side="back"]')) {
      one('.box-editor [data-side="back"]').click();
      shown[path + ' (back)'] = visible();
      one('.box-editor [data-side="front"]').click();
    }
  }
  return shown;
}""" % (VISIBLE, FIELD_VALUES)


def box_screens(chromium, server: RunningServer, game_id: str, lang: str) -> dict[str, str]:
    """The box screen's text with each entry selected (by the entry's path), in ``lang``."""
    page = open_box(chromium, server, game_id, lang)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    paths = page.evaluate("() => [...document.querySelectorAll('.box-entry')].map(e => e.dataset.entry)")
    shown: dict[str, str] = page.evaluate(SELECT_EACH, paths)
    assert len(shown) >= len(paths)
    assert not errors, errors
    page.context.close()
    return shown


@pytest.mark.parametrize("lang", ["de", "es"])
@pytest.mark.parametrize("game_id", GAMES)
def test_no_english_word_on_the_box_screen(chromium, box_server, game_id, lang):
    if game_id not in _ENGLISH:
        _ENGLISH[game_id] = lowered(box_screens(chromium, box_server, game_id, "en").values())
    shown = box_screens(chromium, box_server, game_id, lang)
    report = english_left(shown, _ENGLISH[game_id], lang, allowed=names_and_titles())
    assert not report, f"English on the {lang} box screen of {game_id}: {report}"


@pytest.mark.parametrize("lang, red", [("en", "red"), ("de", "Rot"), ("es", "rojo")])
def test_a_chip_names_its_entry_without_its_kinds_word(chromium, box_server, lang, red):
    """The group's heading says "Dice": its chips read "Rot", not "Würfel Rot", in each language."""
    page = open_box(chromium, box_server, "abandon_ship", lang)
    chip = page.locator('.box-entry[data-entry="dice[red]"]').inner_text()
    assert chip.removeprefix("✓ ").removesuffix(" •") == red
    page.context.close()


def test_a_good_renamed_on_a_german_screen_is_the_players_word_everywhere(chromium, box_server):
    page = open_box(chromium, box_server, "schmuggler", "de")
    page.locator('.box-entry[data-entry="goods[furs]"]').click()
    name = page.locator('[data-field="box-goods[furs]-name"]')
    assert name.input_value() == "Pelze"                       # the shipped word, in German
    version = page.evaluate("() => window.tableassist.state.version")
    page.locator('[data-do="box-save"]').click()               # saved as it is: still the shipped word
    wait_until(lambda: "goods[furs]" in box_server.table.box.entries("schmuggler"), 5, "the save")
    assert box_server.table.box.entries("schmuggler")["goods[furs]"]["name"] == "Furs"
    # the save answered and drawn (the screen redraws its form from what was saved)
    page.wait_for_function("v => window.tableassist.state.version > v", arg=version)
    name.fill("Felle")                                          # the players' own word
    name.dispatch_event("change")
    page.locator('[data-do="box-save-checked"]').click()
    wait_until(lambda: box_server.table.box.entries("schmuggler")["goods[furs]"]["name"] == "Felle",
               5, "the renamed good saved")
    page.wait_for_function("() => document.querySelector("
                           "'.box-entry[data-entry=\"goods[furs]\"]').innerText.endsWith('Felle')")
    page.context.close()
    english = open_box(chromium, box_server, "schmuggler", "en")
    english.locator('.box-entry[data-entry="goods[furs]"]').click()
    assert english.locator('[data-field="box-goods[furs]-name"]').input_value() == "Felle"
    english.locator('.box-entry[data-entry="goods[watches]"]').click()
    assert english.locator('[data-field="box-goods[watches]-name"]').input_value() == "Watches"
    english.locator('[data-do="box-close"]').click()
    # a new game is played with it: the board's space reads Felle in English and in German
    box_server.table.start("schmuggler", ["Ann", "Bea", "Cy"], options=None, seed=3)
    for lang, watches in (("en", "Watches"), ("de", "Uhren")):
        play = chromium.new_context(locale=lang, viewport=TABLET).new_page()
        play.goto(f"{box_server.url}#t={box_server.tokens.host}")
        play.wait_for_function("() => window.tableassist?.state?.view?.board")
        board = play.evaluate("() => window.tableassist.state.view.board.map(b => b.name)")
        assert "Felle" in board and watches in board and "Furs" not in board, (lang, board)
        play.context.close()
