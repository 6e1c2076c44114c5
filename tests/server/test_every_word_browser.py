"""No English word on a German or Spanish screen (issue 25), in headless Chromium on the real
server: a game of each of the five games played through its screens — the lobby with every
option unfolded, the play screen as the host sees it (the camera card and the links too), a rule
dialog, the Fix dialog, a player's phone, the end screen — once in English and once in the
screen's language; a word of the English rendering that shows on the other is a failure.

Not counted: the players' names, the games' titles, the rule ids (G-SB-02), the rulebook's own
words where the dialog marks them as the original (``lang`` other than the screen's), a word
the language's own catalogue uses (German "Start", "Gold", "Chips"; Spanish "no"), and one- or
two-letter marks (a rat's colour letter, "px").
"""

from __future__ import annotations

import fcntl
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from tableassist.games.messages import Message
from tableassist.table import catalog
from tests.plugins.browser import TABLET
from tests.server.conftest import RunningServer, serving, wait_until
from tests.words import URL, VISIBLE, WORD, english_left, lowered, names_and_titles

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GAMES = ["abandon_ship", "schmuggler", "shipshape", "shipwrecked", "wreckers"]
PLAYERS = ("Ann", "Bea", "Cy")
CLICKS = 10          # actions pressed on the page before the rest is played by a client

_ENGLISH: dict[str, set[str]] = {}


def _page(chromium, lang: str, url: str) -> tuple[Any, list[str]]:
    """``url`` open in a browser whose language is ``lang``, and the page's errors as they come."""
    page = chromium.new_context(locale=lang, viewport=TABLET).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page, errors


def _screens(chromium, server: RunningServer, game_id: str, lang: str) -> dict[str, str]:
    """The text of each screen of one game played in ``lang``."""
    rnd = random.Random(7)
    page, errors = _page(chromium, lang, f"{server.url}#t={server.tokens.host}")
    page.wait_for_function("() => window.tableassist && window.tableassist.state")
    page.locator(f'button[data-game="{game_id}"]').click()
    page.locator(".options-box > summary").click()
    shown = {"lobby": page.evaluate(VISIBLE)}
    page.locator('[data-do="start"]').click()
    page.wait_for_selector(".play")
    play = []
    for _ in range(CLICKS):
        play.append(page.evaluate(VISIBLE))
        buttons = page.locator(".actions button.act:visible:enabled").all()   # what a player can press
        if not buttons:
            break
        n = page.evaluate("() => (window.tableassist.state.history || []).length")
        rnd.choice(buttons).click()
        page.wait_for_function("n => (window.tableassist.state.history || []).length !== n", arg=n)
    shown["play"] = "\n".join(play)
    page.locator(".history button.rule, .prompt button.rule").first.click()
    page.locator("dialog[open] .rule-text").wait_for()
    shown["rule"] = page.evaluate(VISIBLE)
    page.keyboard.press("Escape")
    page.locator('.history [data-do="fix"]').first.click()
    page.locator("dialog[open] .fix").wait_for()
    shown["fix"] = page.evaluate(VISIBLE)
    page.keyboard.press("Escape")
    phone_url = page.evaluate(f"() => window.tableassist.state.links.players['{PLAYERS[1]}'].url")
    phone = page.context.new_page()
    phone.goto(phone_url)
    phone.wait_for_function("() => window.tableassist && window.tableassist.state && "
                            "window.tableassist.state.game")
    shown["phone"] = phone.evaluate(VISIBLE)
    phone.close()
    _play_to_the_end(server, rnd)
    page.wait_for_selector(".result", timeout=60_000)
    shown["end"] = page.evaluate(VISIBLE)
    assert not errors, errors
    page.context.close()
    return shown


def _play_to_the_end(server: RunningServer, rnd: random.Random) -> None:
    """The rest of the game as random legal actions of the host's screen (a client of its own)."""
    host = server.client(server.tokens.host)
    for _ in range(5000):
        state = host.states[-1]
        if (state.get("view") or {}).get("over"):
            return
        actions = state.get("actions") or []
        if not actions:
            version = state["version"]
            host.wait_state(lambda s, v=version: s["version"] != v, "the clock's action", 30)
            continue
        version = state["version"]
        answer = host.act(rnd.choice(actions)["action"])
        if answer.get("ok"):
            wait_until(lambda v=version: host.states[-1]["version"] != v, 10, "the next state")
    raise AssertionError("the game did not end after 5000 random actions")


def _english(chromium, server_factory, game_id: str, shared: Path) -> set[str]:
    """The words of ``game_id``'s screens played in English: played once for the whole run, by
    the first test process to ask (a whole game, 5-15 s), and read by the others from ``shared``,
    the folder every process of the run shares, under a lock."""
    if game_id not in _ENGLISH:
        kept = shared / f"english-words-{game_id}.json"
        with open(shared / f"english-words-{game_id}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)       # another process playing it: wait for its words
            if not kept.exists():
                with server_factory() as english_server:
                    shown = _screens(chromium, english_server, game_id, "en")
                kept.write_text(json.dumps(sorted(lowered(shown.values()))))
            _ENGLISH[game_id] = set(json.loads(kept.read_text()))
    return _ENGLISH[game_id]


@pytest.mark.parametrize("lang", ["de", "es"])
@pytest.mark.parametrize("game_id", GAMES)
def test_no_english_word_on_the_screens_of_a_game(chromium, server, tmp_path, tmp_path_factory, game_id, lang):
    run = tmp_path_factory.getbasetemp()        # this run's folder; with xdist, each worker's is in
    shared = run.parent if os.environ.get("PYTEST_XDIST_WORKER") else run    # the run's own folder
    english = _english(chromium, lambda: serving(tmp_path / "english.sqlite3"), game_id, shared)
    shown = _screens(chromium, server, game_id, lang)
    report = english_left(shown, english, lang, allowed=[*PLAYERS, *names_and_titles()])
    assert not report, f"English on the {lang} screens of {game_id}: {report}"


def _venue_screens(chromium, server: RunningServer, lang: str) -> dict[str, str]:
    """The text of the staff's venue page in ``lang``: its list (a table in its lobby, one
    playing), the camera agent's, rename and close dialogs, and the printed join card."""
    assert server.served is not None
    if "ahoi-4" not in server.served.tables:
        server.served.create_table("Ahoi 4")   # no English word in its title
        server.table.start("schmuggler", list(PLAYERS), options=None, seed=3)
    page, errors = _page(chromium, lang, server.served.staff_link)
    page.wait_for_selector('article[data-table="ahoi-4"]')
    page.wait_for_selector('article[data-table="main"][data-state="playing"]')
    shown = {"venue": page.evaluate(VISIBLE)}
    card = page.locator('article[data-table="main"]')
    for do, dialog in (("camera", "camera"), ("rename", "rename"), ("close", "close")):
        page.locator(f'article[data-table="ahoi-4"] [data-do="{do}"]').click()
        page.locator("#dialog[open]").wait_for()
        shown[dialog] = page.evaluate(VISIBLE)
        page.keyboard.press("Escape")
    page.evaluate("() => { window.print = () => { window.printed = true; }; }")
    card.locator('[data-do="card"]').click()
    page.wait_for_function("() => window.printed")
    shown["join card"] = page.locator("#card").evaluate(
        "e => e.innerText + '\\n' + e.querySelector('img').alt")
    assert not errors, errors
    page.context.close()
    return shown


@pytest.mark.parametrize("lang", ["de", "es"])
def test_no_english_word_on_the_venue_page(chromium, server, tmp_path, lang):
    with serving(tmp_path / "english.sqlite3") as english_server:
        english = lowered(_venue_screens(chromium, english_server, "en").values())
    shown = _venue_screens(chromium, server, lang)
    # the tables' titles are the staff's names for them ("Ahoi 4"), addresses not words; but
    # main's own default ("Main table" until renamed) is ours, in the screen's language
    allowed = [*PLAYERS, *WORD.findall(catalog.engine_class("schmuggler").title or ""),
               *(w for e in server.served.venue.tables() if not isinstance(e.title, Message)
                 for w in WORD.findall(e.title))]
    shown = {screen: URL.sub(" ", text) for screen, text in shown.items()}
    assert {"venue", "table", "game", "players", "rename"} <= english   # the English page's words
    report = english_left(shown, english, lang, allowed=allowed)
    assert not report, f"English on the {lang} venue page: {report}"


def _check_report(chromium, server: RunningServer, lang: str) -> dict[str, str]:
    """The host screen's camera card in ``lang`` with the camera check's report of a rendered
    Abandon Ship table at 720p (its dice too small to read every time: verdicts and advice)."""
    page, errors = _page(chromium, lang, f"{server.url}#t={server.tokens.host}")
    page.wait_for_function("() => window.tableassist && window.tableassist.state")
    page.select_option('[data-field="check-game"]', "abandon_ship")
    page.locator('[data-do="camera-check"]').click()
    page.wait_for_selector(".check-report .kind-check", timeout=20000)
    shown = {"check report": page.locator("#camera-card").evaluate(
        "card => card.innerText + '\\n' + [...card.querySelectorAll('[alt]')].map(e => e.alt).join('\\n')")}
    page.locator('[data-do="camera-check"]').click()
    assert not errors, errors
    page.context.close()
    return shown


CAMERA = "Ahoi"    # the camera's name, as the host gave it: a name, not a word


@pytest.mark.parametrize("lang", ["de", "es"])
def test_no_english_word_in_the_camera_check_report(chromium, server, lang):
    from tableassist.server.camera import READ_FPS
    from tests.camera_sources import Still, abandon_ship_at_720p
    server.camera.start(Still(abandon_ship_at_720p()), name=CAMERA, fps=READ_FPS)
    try:
        english = lowered(_check_report(chromium, server, "en").values())
        assert {"marginal", "sticker", "die", "face"} <= english    # the English report's words
        shown = _check_report(chromium, server, lang)
    finally:
        server.camera.stop()
    report = english_left(shown, english, lang, allowed=[*names_and_titles(), CAMERA])
    assert not report, f"English in the {lang} camera check report: {report}"
