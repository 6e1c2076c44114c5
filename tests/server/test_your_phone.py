"""A player's own phone speaks to them (headless Chromium, real server): their prompt reads
"You: …" and the others' are one line of whom the table waits for; simultaneous bidding is no
one's turn; and naming another first player, on offer until the first roll, is folded away
beside what the game waits for."""

from __future__ import annotations

import pytest

from tests.plugins.browser import TABLET
from tests.server.conftest import RunningServer
from tests.server.layout import PHONE_390
from tests.server.tablet import Tablet

pytestmark = [pytest.mark.browser]

PLAYERS = ["Ann", "Bea", "Cy"]


def test_you_on_your_own_phone_and_bidding_is_no_ones_turn(chromium, server: RunningServer):
    session = server.table.start("shipwrecked", PLAYERS, options=None, seed=1)
    session.submit({"type": "choose_first_player", "player": None, "first_player": "Ann"})
    session.submit(session.game.chance_action() or session.game.legal_actions(None)[0])  # the lot
    assert session.game.phase == "lay"
    ann = server.tokens.players(session.saved.id, ["Ann"])["Ann"]
    page = chromium.new_page(viewport=PHONE_390)
    phone = Tablet(page, f"{server.url}#t={ann}")
    page.wait_for_selector(".prompt")
    mine = page.locator(".prompt .prompt-text.mine")
    assert mine.count() == 1
    assert mine.inner_text().startswith("You: lay a bid card face down in row 1")
    assert page.locator('.prompt-text[data-player="Bea"]').count() == 0
    assert page.locator(".prompt .waiting").inner_text() == "Waiting for Bea, Cy"
    turn = page.locator(".phase-line .turn")
    assert turn.inner_text() == " · everyone bids on Ann's lot" and "Ann's turn" not in turn.inner_text()
    # the table's screen lists every player's prompt, with the names
    table = Tablet(chromium.new_page(viewport=TABLET), f"{server.url}#t={server.tokens.table}")
    assert "Bea: lay a bid card" in table.prompt()
    assert phone.errors == table.errors == []


def test_another_first_player_is_folded_beside_the_cheese(chromium, server: RunningServer):
    session = server.table.start("abandon_ship", PLAYERS, options=None, seed=1)
    assert any(a["type"] == "choose_first_player" for a in session.game.legal_actions(None))
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    page.wait_for_selector('.actor[data-actor="table"]')
    folded = page.locator('.actor[data-actor="table"] details.aside[data-type="choose_first_player"]')
    assert folded.count() == 1 and not folded.locator("button.act").first.is_visible()
    assert page.locator('button.act[data-type="place_cheese"]').first.is_visible()
    folded.locator("summary").click()
    before = tablet.history_length()
    folded.locator("button.act").first.click()
    page.wait_for_function("n => window.tableassist.state.history.length === n + 1", arg=before)
    assert tablet.errors == []
