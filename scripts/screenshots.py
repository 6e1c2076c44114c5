"""The screenshots of docs/screenshots/ (run through ``scripts/screenshots``).

For every game: a served table on a fresh database (the real server, in this process); a game of
3 players started as the lobby starts it and played by seeded random legal actions through the
session (the one path every input takes): after ``--moves`` actions the table's screen (1280×800),
Ann's phone (390×844) and the host screen on a small phone (320×640), then played to its end
(Abandon Ship: its tiles shown) and the end screen. Then the demo (``tableassist demo``'s table)
on a phone, its banner saying what it is, after the camera's first moves. Each PNG is cut to 256
colours and saved optimised (the dark screens lose nothing).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402 - reportlab's dependency

from tableassist.markers.registry import seat_colours  # noqa: E402
from tableassist.server.served import serve_venue  # noqa: E402
from tableassist.table import catalog  # noqa: E402
from tests.games.random_play import submit_random  # noqa: E402

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
                 if os.path.exists(p)), None)
PLAYERS = ["Ann", "Bea", "Cy"]
TABLET = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 320, "height": 640}


def save(png: bytes, path: Path) -> int:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    return path.stat().st_size


def shoot(page, url: str, path: Path, ready: str) -> int:
    page.goto(url)
    page.wait_for_function("() => window.tableassist && window.tableassist.state")
    page.wait_for_selector(ready)
    page.evaluate("() => document.fonts.ready")
    page.wait_for_timeout(300)    # the rule texts and the camera note arrive
    return save(page.screenshot(), path)


def demo_shot(browser, path: Path) -> None:
    """The demo's host screen on a phone after the camera's first moves (submitted as the camera
    would read them): the banner names the demo and its game, the move and the tablet's part."""
    from tableassist.demo.play import Demo
    demo = Demo("abandon_ship", hands=False, flicker=0.0)
    try:
        demo.start()
        for action in demo.scripted.expected[:8]:
            demo.table.session.submit(action, source="camera")
        page = browser.new_page(viewport=PHONE, device_scale_factor=1)
        size = shoot(page, demo.host_link, path, '[data-notice="demo"]')
        page.close()
        print(f"demo: the banner on a phone ({size // 1024} KB)", flush=True)
    finally:
        demo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--moves", type=int, default=14, help="actions before the table shots")
    parser.add_argument("--games", nargs="*", default=list(catalog.ENGINES))
    args = parser.parse_args()
    if CHROMIUM is None:
        sys.exit("Debian's chromium is not installed (scripts/setup --test installs it)")
    from playwright.sync_api import sync_playwright
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        served = serve_venue(Path(tmp) / "shots.sqlite3", host="127.0.0.1", port=0)
        served.serve_in_thread()
        browser = pw.chromium.launch(executable_path=CHROMIUM,
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            for game_id in args.games:
                colours = dict(zip(PLAYERS, seat_colours(game_id)))
                session = served.table.start(game_id, PLAYERS, options=None, seed=7,
                                             colours=colours)
                rng = random.Random(7)
                for _ in range(args.moves):
                    if not submit_random(session, rng):
                        break
                table = f"{served.url}#t={served.tokens.table}"
                ann = served.tokens.players(session.saved.id, ["Ann"])["Ann"]
                tablet = browser.new_page(viewport=TABLET)
                phone = browser.new_page(viewport=PHONE, device_scale_factor=1)
                small = browser.new_page(viewport=SMALL_PHONE, device_scale_factor=1)
                sizes = [shoot(tablet, table, args.out / f"{game_id}-table.png", ".play .panel"),
                         shoot(phone, f"{served.url}#t={ann}", args.out / f"{game_id}-phone.png",
                               ".play .panel"),
                         shoot(small, served.host_link, args.out / f"{game_id}-host-320.png",
                               ".play .panel")]
                small.close()
                while submit_random(session, rng):
                    pass
                sizes.append(shoot(tablet, table, args.out / f"{game_id}-end.png", ".result"))
                tablet.close()
                phone.close()
                print(f"{game_id}: table, phone and end screen ({len(session.steps)} actions; "
                      + ", ".join(f"{s // 1024} KB" for s in sizes) + ")", flush=True)
            demo_shot(browser, args.out / "demo-phone.png")
        finally:
            browser.close()
            served.close()


if __name__ == "__main__":
    main()
