"""The lobby at a phone's 320×640 and 390×844 and a tablet's 1024×768 (headless Chromium, real
server): a name longer than the server takes is not cut mid-word as it is typed, the seat says
so; Start is not covered by anything (the options, a refusal); nothing is cut."""

from __future__ import annotations

import pytest

from tests.server.conftest import RunningServer
from tests.server.layout import SCREENS, box, cut, page_wider_than_screen

pytestmark = [pytest.mark.browser]


@pytest.mark.parametrize("screen", list(SCREENS))
def test_long_names_a_refusal_and_start(chromium, server: RunningServer, screen):
    page = chromium.new_page(viewport=SCREENS[screen])
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}#t={server.tokens.table}")
    page.locator('button[data-game="wreckers"]').click()
    name = page.locator('[data-field="name-0"]')
    long = "Annabelle-Marie Hohenzollern"           # 28 letters
    name.fill("")
    name.press_sequentially(long)
    assert name.input_value() == long                # not cut at 24 as it is typed
    note = page.locator('[data-notice="name-long"]')
    assert note.inner_text().startswith("28 letters: keep a name to 24 or fewer")
    page.locator(".options-box > summary").click()
    start = page.locator('[data-do="start"]')
    start.scroll_into_view_if_needed()
    b, options = box(page, '[data-do="start"]'), box(page, ".options")
    assert options["y"] >= b["bottom"]               # the options below Start, not under it
    # a refusal (two seats of one name) is shown clear of Start
    page.locator('[data-field="name-0"]').fill("Bea")
    page.locator('[data-field="name-1"]').fill("Bea")
    start.click()
    toast = page.locator("#toast")
    toast.wait_for()
    start_box, toast_box = start.bounding_box(), toast.bounding_box()
    assert (toast_box["y"] + toast_box["height"] <= start_box["y"]
            or toast_box["y"] >= start_box["y"] + start_box["height"]), (toast_box, start_box)
    assert cut(page) == [] and not page_wider_than_screen(page)
    assert errors == []
