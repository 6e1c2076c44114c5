"""ShipShape without a camera: the host says which crate lies on top of the stack with a picker
(crate, then the face up, then the turn), not one of 54 buttons each with a drawn orientation;
what it sends is the engine's to accept (headless Chromium, real server)."""

from __future__ import annotations

import random

import pytest

from tests.games.random_play import all_legal_actions
from tests.plugins.browser import TABLET
from tests.server.conftest import RunningServer
from tests.server.layout import PHONE_320, cut
from tests.server.tablet import Tablet

pytestmark = [pytest.mark.browser]


@pytest.mark.parametrize("viewport", [TABLET, PHONE_320], ids=["tablet", "phone"])
def test_the_top_crate_is_picked_crate_then_face_then_turn(chromium, server: RunningServer,
                                                           viewport):
    session = server.table.start("shipshape", ["Ann", "Bea", "Cy"], options=None, seed=1)
    rng = random.Random(1)
    while not any(a["type"] == "show_top_crate" for a in session.game.legal_actions(None)):
        action = rng.choice(all_legal_actions(session.game))
        session.submit(session.game.chance_action() or action if action["player"] is None
                       else action)
    listed = [a for a in session.game.legal_actions(None) if a["type"] == "show_top_crate"]
    assert len(listed) > 50
    page = chromium.new_page(viewport=viewport)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.host}")
    picker = page.locator(".crate-picker")
    picker.wait_for()
    assert page.locator('button.act[data-type="show_top_crate"]').count() == 4   # the turns
    assert page.locator('button.act[data-type="show_top_crate"]:disabled').count() == 4
    crate = listed[7]["crate"]
    picker.locator("select.crate-choice").select_option(crate)
    picker.locator('button[data-face="back"]').click()
    assert picker.locator('button[data-face="back"]').get_attribute("aria-pressed") == "true"
    n = tablet.history_length()
    picker.locator('button.act[data-rotation="90"]').click()
    page.wait_for_function("n => window.tableassist.state.history.length === n + 1", arg=n)
    last = session.steps[-1].action
    assert (last["type"], last["crate"], last["face"], last["rotation"]) == \
        ("show_top_crate", crate, "back", 90)
    assert cut(page) == [] and tablet.errors == []
