"""The tablet page as a test drives it in headless Chromium: press the buttons a player would,
read the big numbers, start a game from the lobby, play a Shipwrecked lot."""

from __future__ import annotations

from tableassist.table import catalog


class Tablet:
    """The page as the table uses it: press buttons, read the big numbers."""

    def __init__(self, page, url: str) -> None:
        self.page = page
        self.url = url
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.open()

    def open(self) -> None:
        """Load the page afresh (a goto to the same URL with its ``#t=`` fragment would stay in the
        same document, so that is a reload)."""
        if self.page.url == self.url:
            self.page.reload()
        else:
            self.page.goto(self.url)
        self.page.wait_for_function("() => window.tableassist && window.tableassist.state")

    def history_length(self) -> int:
        return self.page.evaluate("() => (window.tableassist.state.history || []).length")

    def _press_and_wait(self, locator) -> None:
        n = self.history_length()
        locator.click()
        self.page.wait_for_function(
            "n => (window.tableassist.state.history || []).length !== n", arg=n)

    def press(self, actor: str, kind: str, text: str | None = None) -> None:
        """Press the ``kind`` button in ``actor``'s group (``"table"`` for the table's inputs)."""
        buttons = self.page.locator(f'.actor[data-actor="{actor}"] button.act[data-type="{kind}"]')
        if text is not None:
            buttons = buttons.filter(has_text=text)
        assert buttons.count() == 1, f"{actor} {kind} {text}: {buttons.count()} buttons"
        self._press_and_wait(buttons)

    def undo(self) -> None:
        self._press_and_wait(self.page.locator('[data-do="undo"]'))

    def player_stat(self, player: str, key: str) -> str:
        return self.page.locator(
            f'.player[data-player="{player}"] [data-stat="{key}"] .value').inner_text()

    def stat(self, key: str) -> str:
        return self.page.locator(f'.stats.hero [data-stat="{key}"] .value').inner_text()

    def prompt(self) -> str:
        return " ".join(self.page.locator(".prompt-text").all_inner_texts())


def start_game(tablet: Tablet, game_id: str) -> None:
    page = tablet.page
    page.locator(f'button[data-game="{game_id}"]').click()
    page.locator('[data-do="start"]').click()
    page.wait_for_function("() => window.tableassist.state.game")
    page.wait_for_selector(".play")


def card(card_id: str) -> dict:
    cards = catalog.load_components("shipwrecked")["resource_cards"]
    return next(c for c in cards if c["id"] == card_id)


def bid(tablet: Tablet, lot: str, winner: str, players: list[str]) -> None:
    """One lot: turn over ``lot``, everyone lays, ``winner`` stops in round 1 and shows STOP,
    the others PASS (R-SW-09 step 3: a single STOP wins)."""
    tablet.press("table", "turn_over_card", f"Turned over: {lot}")
    for p in players:
        tablet.press(p, "lay_bid_card")
    tablet.press(winner, "announce_stop")
    row = ", ".join(f"{p} {'STOP' if p == winner else 'PASS'}" for p in players)
    tablet.press("table", "reveal_row", f"Row: {row}")
