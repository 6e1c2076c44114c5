"""Your box in the real page (headless Chromium): a ShipShape crate is put under the synthetic
camera, its sticker opens its entry with a photo cut out of the frame, it is transcribed tap by
tap, saved and checked; a game is started and its voyage is scored with the new crate.

With ``TABLEASSIST_SCREENSHOTS=DIR`` the test also saves the screenshots of docs/box.md in DIR
(``scripts/box-screenshots`` does that for the docs)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tableassist.markers.registry import load_registry
from tableassist.server.camera import READ_FPS
from tableassist.vision.synthetic.effects import Effects
from tableassist.vision.synthetic.render import Renderer
from tableassist.vision.synthetic.scene import Scene, Viewpoint
from tests.box_photos import crate_piece
from tests.camera_sources import Still
from tests.games import shipshape_reference as ref
from tests.games.random_play import all_legal_actions
from tests.plugins.browser import TABLET
from tests.server.conftest import RunningServer, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a real browser

#: Crate C17 as printed on the test's box: its front sticker on the blank top-left cell.
TRUE_C17 = ["#  .  G3", "K2 .  X1", "G2 R1 ."]
SHOTS = os.environ.get("TABLEASSIST_SCREENSHOTS")


def screenshot(page, name: str, *, full: bool = False) -> None:
    """The page as the docs show it: from the top, in few colours (small PNG files)."""
    if not SHOTS:
        return
    from PIL import Image   # with reportlab
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    path = Path(SHOTS) / f"{name}.png"
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=full)
    image = Image.open(path).convert("RGB")
    image = image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.Resampling.LANCZOS)
    image.quantize(colors=128, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)


def crate_under_the_camera():
    """Crate C17 on a small patch of table, the camera close above it (about 3.6 px per mm)."""
    registry = load_registry()
    piece = crate_piece(registry, "C17", "front", TRUE_C17, "NW", 110, 75, 18.0)
    scene = Scene(240, 160, (piece,), rim=10)
    frame, _ = Renderer(registry.dictionary).render(
        scene, Viewpoint(1280, 720, tilt=8), Effects(blur=0.4))
    return frame


def tap_grid(page, face: str, target: list[str]) -> None:
    """Tap each cell of the face's grid that differs from ``target``, with the right tool."""
    grid = f'.box-editor .box-grid[data-face="{face}"]'
    read = f"() => [...document.querySelectorAll('{grid} .box-cell')].map(c => c.dataset.token)"
    want = " ".join(target).split()
    tool = None
    for k, (now, token) in enumerate(zip(page.evaluate(read), want)):
        if now == token:
            continue
        if tool != token:
            page.locator(f'[data-tool="{token[0]}"]').click()
            if token[0] in "GKXR":
                page.locator(f'[data-value="{token[1:]}"]').click()
            tool = token
        page.locator(f'{grid} [data-cell="{k // 3},{k % 3}"]').click()
    page.wait_for_function(f"want => ({read})().join(' ') === want", arg=" ".join(want))


def play_first_voyage(session, last_crate: str, crates: int) -> None:
    """Until voyage 1 is to be scored: the table deals and reads as the engine draws, everyone
    lays, crates go in front up, and ``last_crate`` is the last crate shown (so it lies on top)."""
    placed = 0
    while session.game.view(None)["phase"] != "scoring":
        game = session.game
        options = all_legal_actions(game)
        kinds = {a["type"] for a in options}
        if "place_crate" in kinds:
            mine = [a for a in options if a["type"] == "place_crate"]
            pick = next((a for a in mine if a.get("face", "front") == "front"
                         and a.get("rotation", 0) == 0), mine[0])
            placed += 1
        elif "lay_crew_card" in kinds:
            pick = next(a for a in options if a["type"] == "lay_crew_card")
        elif "reveal_crew_card" in kinds:
            pick = game.chance_action()
        elif "show_top_crate" in kinds:
            shows = [a for a in options if a["type"] == "show_top_crate"]
            pick = ({**shows[0], "crate": last_crate, "face": "front", "rotation": 0}
                    if placed == crates - 1 else next(a for a in shows if a["crate"] != last_crate))
        else:
            pick = options[0]
        session.submit(pick, source="tablet", author="test")


def test_a_crate_transcribed_from_its_photo_scores_in_the_next_game(chromium,
                                                                    box_server: RunningServer):
    table = box_server.table
    camera = box_server.camera
    camera.start(Still(crate_under_the_camera()), name="synthetic", fps=READ_FPS)
    try:
        page = chromium.new_page(viewport=TABLET)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{box_server.url}#t={box_server.tokens.table}")
        page.wait_for_function("() => window.tableassist && window.tableassist.state")

        # the lobby: ShipShape's box, nothing checked yet
        page.locator('button[data-game="shipshape"]').click()
        line = page.locator('[data-box="shipshape"]')
        assert "ShipShape: 0 of 72 checked" in line.inner_text()
        screenshot(page, "lobby")
        line.locator('[data-do="box-open"]').click()

        # the camera sees C17's sticker: its entry opens, with the photo beside the editor
        page.wait_for_selector('.box-editor[data-entry="crates[C17]"] img[data-photo="camera"]',
                               timeout=15000)
        assert page.locator('[data-notice="box-camera"]').inner_text() == \
            "The camera sees Crate C17 (front)."
        assert "cut out from its sticker" in page.locator(".box-photo figcaption").inner_text()
        size = page.evaluate("() => { const i = document.querySelector('.box-photo img');"
                             " return [i.naturalWidth, i.naturalHeight]; }")
        assert size == [360, 360]   # the 60 mm crate, upright, at 6 px per mm

        # transcribe the front from the photo, tap by tap; the back is the front mirrored
        tap_grid(page, "front", TRUE_C17)
        assert page.locator('.box-entry[data-entry="crates[C17]"]').inner_text().endswith("•")
        # the preview puts the edited crate on top: its cells show where they are not holes
        wait_until(lambda: page.evaluate(
            "() => [...document.querySelectorAll('[data-grid=preview] .box-cell')]"
            ".filter(c => c.dataset.layer === '2').map(c => c.dataset.token).join(' ')")
            == "# G3 K2 X1 G2 R1", timeout=5, what="the preview with the new crate on top")
        screenshot(page, "crate", full=True)
        page.locator('[data-side="back"]').click()
        back = page.locator('.box-grid[data-face="back"] .box-cell')
        assert [back.nth(i).get_attribute("data-token") for i in range(3)] == ["G3", ".", "#"]
        page.locator('[data-side="front"]').click()

        page.locator('[data-do="box-save-checked"]').click()
        page.wait_for_function("() => document.querySelector('.box-progress')?.dataset.progress"
                               " === '1/72'")
        saved = table.box.entries("shipshape")["crates[C17]"]
        assert saved == {"checked": True, "front": TRUE_C17, "back": "mirror",
                         "sticker_front": "NW", "sticker_back": "NW"}
        assert set(table.box.images("shipshape", "crates[C17]")) == {"front"}
        screenshot(page, "saved")
        page.locator('[data-do="box-close"]').click()

        # a new game: the lobby counts the checked crate; the game is played with it
        page.wait_for_selector('[data-do="start"]')
        assert "ShipShape: 1 of 72 checked" in page.locator('[data-box="shipshape"]').inner_text()
        page.locator('[data-do="start"]').click()
        page.wait_for_selector(".play")
        # the game's banner counts what is still unchecked, and leads to the box
        banner = page.locator('[data-notice="unverified"]')
        assert "71 values" in banner.locator("summary").inner_text()
        assert banner.locator('[data-do="box-open"]').is_visible()
        session = table.session
        assert session.saved.game == "shipshape"
        play_first_voyage(session, "C17", crates=9)

        page.wait_for_function("() => window.tableassist.state.view?.score_sheet")
        view = page.evaluate("() => window.tableassist.state.view")
        components = session.saved.components
        holder = next(p for p in view["players"] if p["layers"][-1]["crate"] == "C17")
        everyone = {p["name"]: ref.player_totals(p, components)[1] for p in view["players"]}
        assert ref.sheet_coins(view["score_sheet"]) == ref.coins(everyone)
        # the holder's hold on screen shows the new crate where it has no hole
        shown = page.evaluate(
            "name => Object.fromEntries([...document.querySelectorAll("
            "`svg.hold[data-player='${name}'] .cell`)]"
            ".map(c => [`${c.dataset.row},${c.dataset.col}`, c.dataset.shows]))", holder["name"])
        for k, token in enumerate(" ".join(TRUE_C17).split()):
            if token not in (".", "#"):
                assert shown[f"{k // 3},{k % 3}"] == token, (k, shown)
        # and the old placeholder crate would have scored otherwise
        placeholder = {**components, "crates": [
            c if c["id"] != "C17" else {**c, "front": ["K1 .  .", ".  .  X2", ".  .  X1"]}
            for c in components["crates"]]}
        before = {p["name"]: ref.player_totals(p, placeholder)[1] for p in view["players"]}
        assert ref.coins(before)[holder["name"]] != ref.coins(everyone)[holder["name"]]
        screenshot(page, "voyage")
        assert errors == []
    finally:
        camera.stop()


def test_a_die_is_tapped_face_by_face(chromium, box_server: RunningServer):
    page = chromium.new_page(viewport=TABLET)
    page.goto(f"{box_server.url}#t={box_server.tokens.table}")
    page.wait_for_function("() => window.tableassist && window.tableassist.state")
    box_server.table.start("wreckers", ["Ann", "Bea", "Cy"], options=None)  # a game meanwhile
    page.evaluate("() => window.tableassist.openBox('abandon_ship')")
    page.wait_for_selector(".box-editor")
    # the header names the box being edited, not the game being played meanwhile
    page.wait_for_function("() => document.getElementById('title').textContent"
                           " === 'Your box: Abandon Ship'")
    page.locator('.box-entry[data-entry="dice[red]"]').click()
    page.wait_for_selector('.box-editor[data-entry="dice[red]"]')
    page.locator('[data-slot="6"]').click()
    page.locator('[data-face-value="2"]').click()
    page.locator('[data-face-toggle="x"]').click()
    assert page.locator('[data-slot="6"] span').inner_text() == "2x"
    screenshot(page, "die")
    page.locator('[data-do="box-save"]').click()
    wait_until(lambda: box_server.table.box.entries("abandon_ship").get("dice[red]"),
               what="the die saved")
    saved = box_server.table.box.entries("abandon_ship")["dice[red]"]
    assert saved == {"checked": False, "faces": ["1", "2", "3x", "4", "fwd", "2x"]}
    # a refusal reaches the screen as the server's words, and nothing changes
    page.locator('.box-entry[data-entry="board"]').click()
    field = page.locator('[data-field="box-board-top_deck"]')
    field.fill("2")
    field.dispatch_event("change")
    page.locator('[data-do="box-save-checked"]').click()
    page.wait_for_selector("#toast:not([hidden])")
    assert "not saved: board: top_deck: a whole number 3–99, not 2" in \
        page.locator("#toast").inner_text()
    assert "board" not in box_server.table.box.entries("abandon_ship")


def test_schmugglers_goods_are_counted_alike_on_every_screen(chromium, box_server: RunningServer):
    """The lobby, the box screen and the game's notice give the one count with what it is made
    of, so 26 (goods to check), 28 (values) and 30 (goods) no longer seem to disagree."""
    words = "Schmuggler an Bord: 0 of 28 checked (Goods: 26 of 30, The board: 1, The die: 1)"
    page = chromium.new_page(viewport=TABLET)
    page.goto(f"{box_server.url}#t={box_server.tokens.table}")
    page.wait_for_function("() => window.tableassist && window.tableassist.state")
    page.locator('button[data-game="schmuggler"]').click()
    assert words in page.locator('[data-box="schmuggler"]').inner_text()
    page.evaluate("() => window.tableassist.openBox('schmuggler')")
    page.wait_for_selector(".box-editor")
    assert page.locator(".box-progress").inner_text() == words
    goods = page.locator(".box-group", has_text="Goods").locator("h3").inner_text()
    assert goods == "Goods · 0 of 26 checked"
    box_server.table.start("schmuggler", ["Ann", "Bea", "Cy"], options=None)
    page.reload()
    page.wait_for_selector('[data-notice="unverified"]', state="attached")
    assert words in page.locator('[data-notice="unverified"]').text_content()
