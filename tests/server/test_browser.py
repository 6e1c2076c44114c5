"""The real tablet page in headless Chromium (Debian's package, driven by Playwright): set up a game
by clicks, play it, read the numbers on screen, undo, reload, read them again."""

from __future__ import annotations

import pytest

from tableassist.table import catalog
from tests.plugins.browser import TABLET
from tests.server.conftest import RunningServer
from tests.server.tablet import Tablet, bid, card, start_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a real browser


def test_shipwrecked_played_by_clicks_through_a_forced_sale(chromium, server: RunningServer):
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    start_game(tablet, "shipwrecked")
    players = ["Ann", "Bea", "Cy"]
    assert "Who goes first?" in tablet.prompt()
    assert [tablet.player_stat(p, "gems") for p in players] == ["13", "13", "13"]  # R-SW-01
    assert tablet.stat("bank_gems") == "26"
    tablet.press("table", "choose_first_player", "Ann goes first")

    # Lot 1, Ann's turn: Bea wins FOOD-50 in round 1 and pays 5 (R-SW-05); then her turn starts
    # and she takes its income (R-SW-02).
    bid(tablet, "FOOD-50", "Bea", players)
    food50 = card("FOOD-50")
    bea = 13 - 5 + food50["income"]
    assert tablet.player_stat("Bea", "gems") == str(bea)
    assert tablet.player_stat("Bea", "points_total") == "50"
    assert tablet.player_stat("Bea", "income") == str(food50["income"])
    assert tablet.stat("bank_gems") == str(26 + 5 - food50["income"])
    assert tablet.stat("stack_count") == "23"

    # Lot 2, Bea's turn: Bea wins WATER-50 for 5 more. Lot 3, Cy's turn: Bea wins FRIENDS-10.
    bid(tablet, "WATER-50", "Bea", players)
    bea -= 5
    assert tablet.player_stat("Bea", "gems") == str(bea)
    bid(tablet, "FRIENDS-10", "Bea", players)
    if bea < 5:
        # She is short: she must sell a card to the bank first (S10, G-SW-05).
        assert "Bea: sell a card" in tablet.prompt()
        assert page.locator('[data-notice="debt"]').is_visible()
        tablet.press("Bea", "sell_card", "FOOD-50")
        bea_after = bea + food50["sale_value"] - 5
        points = 60
    else:
        bea_after, points = bea - 5, 110
    assert tablet.player_stat("Bea", "gems") == str(bea_after)
    assert tablet.player_stat("Bea", "points_total") == str(points)
    if bea < 5:
        assert page.locator('[data-list="bank_display"] [data-card="FOOD-50"]').count() == 1
    shown = {p: tablet.player_stat(p, "gems") for p in players}
    bank = tablet.stat("bank_gems")
    assert sum(map(int, shown.values())) + int(bank) == 65 - 0  # I-SW-1 (no extra gems yet)

    # Undo the last action (the sale): Bea owes again, holds FOOD-50 again, and the prize
    # FRIENDS-10 waits until she has paid.
    tablet.undo()
    assert tablet.player_stat("Bea", "gems") == str(bea)
    assert tablet.player_stat("Bea", "points_total") == "100"
    if bea < 5:
        assert "Bea: sell a card" in tablet.prompt()

    # Reload: the server sends everything again; the screen is the same.
    tablet.open()
    assert tablet.player_stat("Bea", "gems") == str(bea)
    assert tablet.player_stat("Bea", "points_total") == "100"
    assert page.locator('[data-notice="debt"]').is_visible() == (bea < 5)
    steps = 1 + 3 * 6
    assert page.locator(".history .line").count() == tablet.history_length() == steps
    assert page.locator('.history .line[data-source="tablet"]').count() == steps
    assert page.locator('[data-do="redo"]').is_enabled()
    assert tablet.errors == []
    page.close()


def test_the_lobby_proposes_the_colours_the_camera_reader_assumes(chromium, server: RunningServer):
    """For every game and every number of players, the seat colours the lobby proposes are the
    ones a camera reader gives players when it is told none: one list of seat colours, in one
    order, narrowed to a game's card-back colours in both."""
    from tableassist.readers import reader_for
    page = chromium.new_page(viewport=TABLET)
    Tablet(page, f"{server.url}#t={server.tokens.table}")
    for game_id in catalog.game_ids():
        cls = catalog.engine_class(game_id)
        page.locator(f'button[data-game="{game_id}"]').click()
        for n in range(cls.min_players, cls.max_players + 1):
            seats = page.locator("select.colour")
            while seats.count() < n:
                page.locator('[data-do="add-player"]').click()
            proposed = [seats.nth(i).input_value() for i in range(n)]
            names = [f"P{i}" for i in range(n)]
            assert proposed == [reader_for(game_id, names).colours[p] for p in names], \
                (game_id, n)
            assert len(set(proposed)) == n, (game_id, n)
    page.close()


def test_the_lobby_starts_names_as_typed_but_trimmed_and_refuses_twins(chromium, server):
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    page.locator('button[data-game="shipwrecked"]').click()
    page.locator('[data-field="name-1"]').fill("ann ")  # seat 1 is Ann
    page.locator('[data-do="start"]').click()
    page.wait_for_selector("#toast:not([hidden])")
    assert "'Ann' and 'ann' are the same name" in page.locator("#toast").inner_text()
    assert server.table.store.listing() == [] and page.locator(".lobby").count() == 1
    page.locator('[data-field="name-1"]').fill("  Bo ")
    page.locator('[data-do="start"]').click()
    page.wait_for_selector(".play")
    assert list(server.table.current().saved.players) == ["Ann", "Bo", "Cy"]
    assert tablet.errors == []
    page.close()


def test_refused_action_shows_the_engine_message(chromium, server: RunningServer):
    """A screen whose buttons are stale (another tablet acted first) gets the engine's words."""
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    start_game(tablet, "shipwrecked")
    stale = page.locator('.actor[data-actor="table"] button.act', has_text="Ann goes first")
    server.table.current().submit(
        {"type": "choose_first_player", "player": None, "first_player": "Bea"})
    page.wait_for_function("() => window.tableassist.state.history.length === 1")
    # The page redrew without the stale button; send the stale action through its channel anyway.
    page.evaluate("""() => window.tableassist.ask('act', {action: {type: 'choose_first_player',
                     player: null, first_player: 'Ann'}})""")
    page.wait_for_selector("#toast:not([hidden])")
    assert "cannot" in page.locator("#toast").inner_text().lower()
    assert stale.count() == 0  # the redraw took the stale button away
    page.close()


def test_spectator_sees_numbers_but_no_buttons(chromium, server: RunningServer):
    server.table.start("shipwrecked", ["Ann", "Bea"], options=None)
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    tablet = Tablet(page, server.url)
    page.wait_for_selector(".play")
    assert tablet.player_stat("Ann", "gems") == "11"  # R-SW-01, two players
    assert page.locator("button.act").count() == 0
    assert "watching" in page.locator("#who").inner_text()
    page.close()


def numbers_on_screen_match_the_engine(page, view: dict) -> int:
    """Every big number on screen (``[data-stat]``) equals the engine's shared view. Returns how
    many were compared."""
    compared = 0
    for p in view["players"]:
        for key, value in p.items():
            if isinstance(value, bool) or not isinstance(value, int):
                continue
            cell = page.locator(f'.player[data-player="{p["name"]}"] [data-stat="{key}"] .value')
            if cell.count():
                assert cell.inner_text() == str(value), (p["name"], key)
                compared += 1
    for key, value in view.items():
        if isinstance(value, int) and not isinstance(value, bool):
            cell = page.locator(f'.stats.hero [data-stat="{key}"] .value')
            if cell.count():
                assert cell.inner_text() == str(value), key
                compared += 1
    return compared


@pytest.mark.parametrize("game_id, table_at_start, player_at_start", [
    ("abandon_ship", {"waterline": 0}, {"cheese_points": 0}),
    ("schmuggler", {"kitty": 0}, {"chips": 12}),     # SPEC §3.2: 12 chips each for 3 players
    ("wreckers", {}, {"money": 10}),                   # every player starts with 10M
    ("shipshape", {"voyage": 1}, {"coins": 0}),
])
def test_game_played_by_clicks_then_undo_and_reload(chromium, server: RunningServer, game_id,
                                                    table_at_start, player_at_start):
    """Set the game up by clicks, press 40 of the offered buttons (a seeded random choice: every
    button the page offers must be legal), and compare the screen's numbers with the engine's;
    undo; reload; compare again."""
    import random
    if game_id not in catalog.ENGINES:
        pytest.skip(f"{game_id} is not registered yet")
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    start_game(tablet, game_id)
    session = server.table.current()
    for key, value in table_at_start.items():
        assert tablet.stat(key) == str(value)
    for key, value in player_at_start.items():
        assert [tablet.player_stat(p, key) for p in ("Ann", "Bea", "Cy")] == [str(value)] * 3
    rng = random.Random(game_id)
    for _ in range(40):
        buttons = page.locator("button.act:visible:enabled")  # what a player can press now (folded ones need a tap first, the crate picker a crate)
        if not buttons.count():
            break
        # A listed table reading may be impossible (ShipShape's keypad row of crew values,
        # docs/protocol.md "Secrets in the table's list"): it is refused with a toast.
        page.evaluate("document.getElementById('toast').hidden = true")
        n = tablet.history_length()
        buttons.nth(rng.randrange(buttons.count())).click()
        page.wait_for_function("n => window.tableassist.state.history.length !== n"
                               " || !document.getElementById('toast').hidden", arg=n)
    page.wait_for_function("n => window.tableassist.state.history.length === n",
                           arg=len(session.steps))
    assert numbers_on_screen_match_the_engine(page, session.game.view(None)) >= 3
    assert page.locator(".history .line").count() == len(session.steps)

    tablet.undo()
    assert numbers_on_screen_match_the_engine(page, session.game.view(None)) >= 3
    tablet.open()
    page.wait_for_selector(".play")
    assert numbers_on_screen_match_the_engine(page, session.game.view(None)) >= 3
    assert page.locator(".history .line").count() == len(session.steps)
    assert tablet.errors == []
    page.close()


def test_fix_replaces_a_reading_and_the_host_screen_shows_the_links(chromium, server):
    """The camera (or a finger) turned over the wrong card: Fix puts the right one in its place,
    and the game after it is replayed. The host screen carries the join and private QR codes."""
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    tablet = Tablet(page, f"{server.url}#t={server.tokens.host}")
    start_game(tablet, "shipwrecked")
    tablet.press("table", "choose_first_player", "Ann goes first")
    tablet.press("table", "turn_over_card", "Turned over: FOOD-50")
    tablet.press("Ann", "lay_bid_card")
    page.locator(".history summary").click()
    page.locator('.history .line[data-seq="2"] [data-do="fix"]').click()
    page.wait_for_selector("dialog[open]")
    page.locator("dialog button.act", has_text="Turned over: FOOD-10").click()
    page.wait_for_function("() => window.tableassist.state.history[1].corrected")
    assert server.table.current().game.view(None)["lot"]["card"] == "FOOD-10"
    assert page.locator('.stats.hero [data-stat="lot"] .value').inner_text() == "FOOD-10"
    assert page.locator(".history .line").count() == 3  # Ann's card is still laid
    assert "corrected" in page.locator(".history .line").nth(1).inner_text()

    page.locator(".links summary").click()
    assert page.locator("img.qr").count() == 4  # the table's link and three private ones
    join = page.locator(".links figure").first.inner_text()
    assert f"#t={server.tokens.table}" in join
    # each code is drawn by the page and says its own link (read back as a phone would)
    for figure in page.locator(".links figure").all():
        figure.locator("img.qr").scroll_into_view_if_needed()
        assert read_qr(figure.locator("img.qr").screenshot()) == figure.locator("code").inner_text()
    assert page.locator('[data-notice="camera"]').is_visible()  # no camera: the host is told
    assert tablet.errors == []
    page.close()


def read_qr(png: bytes) -> str:
    """The text of the one QR code in a screenshot (pyzbar, as the camera reads command cards)."""
    import cv2
    import numpy as np
    from pyzbar import pyzbar

    grey = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    found = pyzbar.decode(cv2.resize(grey, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST))
    assert len(found) == 1, len(found)
    return found[0].data.decode()


def test_the_lobby_marks_a_damaged_game_and_a_broken_log_shows_its_warning(chromium, server):
    import sqlite3

    from tableassist.table.session import TableSession
    for seed in range(3):  # saved before any screen has seen the lobby
        session = TableSession.create(server.table.store, "shipwrecked", ["Ann", "Bea"], seed=seed)
        session.submit({"type": "choose_first_player", "player": None, "first_player": "Ann"})
    with sqlite3.connect(server.table.store.path) as db:
        db.execute("UPDATE games SET options = '{' WHERE id = 2")
        db.execute("UPDATE entries SET action = '{' WHERE game_id = 3 AND seq = 1")
    db.close()
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    page.wait_for_selector('[data-damaged="2"]')
    damaged = page.locator('li.saved[data-row="2"]')
    assert "Damaged, cannot be resumed: its options are damaged" in damaged.inner_text()
    assert damaged.locator('[data-do="resume"]').count() == 0
    page.locator('li.saved[data-row="3"] [data-do="resume"]').click()
    page.wait_for_selector('[data-notice="log"]')
    assert page.locator('[data-notice="log"]').inner_text() == (
        "entries 1… of game #3 no longer replay (entry 1 is damaged: its action is not a JSON "
        "object); resumed at the start (entry 0); nothing was deleted")
    assert not tablet.errors
    page.close()
