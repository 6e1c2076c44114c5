"""The end of a game on the real page (headless Chromium, real server): why it ended with its rule
on a tap, the breakdown in plain words, the chart of the whole game, the winner's path, and Play
again / New game. Every game is played to its end by random legal actions through the table."""

from __future__ import annotations

import random
import re

import pytest

from tableassist.table import catalog
from tableassist.table.ending import game_end
from tests.games.random_play import random_actions
from tests.server.conftest import RunningServer
from tests.plugins.browser import TABLET
from tests.server.tablet import Tablet

pytestmark = [pytest.mark.browser]

PLAYERS = ["Ann", "Bea", "Cy"]
COLOURS = {"Ann": "red", "Bea": "blue", "Cy": "green"}
#: A raw key or value the breakdown must never show (issue 17).
RAW = re.compile(r"\b(FOOD|SHELTER|WATER|FRIENDS|ACTIVE|BANKRUPT)\b|_")


def play_to_end(server: RunningServer, game_id: str, seed: int = 5):
    """A game started as the lobby starts it, played to its end through the session (the one
    path every input takes); Abandon Ship's tiles are then shown as the table would."""
    colours = {p: c for p, c in COLOURS.items() if c in catalog_colours(game_id)}
    session = server.table.start(game_id, PLAYERS, options=None, seed=seed, colours=colours)
    twin = catalog.new_game(game_id, PLAYERS, seed=seed)
    for action in random_actions(twin, random.Random(seed)):
        session.submit(action)
    while session.game.result() is None:  # Abandon Ship: reveal the tiles (R-AS-11)
        session.submit(session.game.legal_actions(None)[0])
    return session


def catalog_colours(game_id: str) -> tuple[str, ...]:
    from tableassist.markers.registry import seat_colours
    return tuple(seat_colours(game_id))


def test_the_end_is_explained_replayed_and_charted_from_public_data(server: RunningServer):
    session = play_to_end(server, "schmuggler")
    end = game_end(session)
    result = session.game.result()
    assert end["why"][-1]["rule"] == "R-SB-14"  # the end condition the engine applied
    chart = end["chart"]
    assert chart["label"] == "Chips" and set(chart["series"]) == set(PLAYERS)
    # The chart starts with the 12 chips each of SPEC §3.2 and ends with the final chips.
    assert [chart["series"][p][0] for p in PLAYERS] == [12, 12, 12]
    assert {p: s[-1] for p, s in chart["series"].items()} == {
        r["player"]: r["chips"] for r in result["ranking"]}
    assert chart["x"][-1] == session.steps[-1].seq
    assert result["winners"][0] in end["path"]
    assert all(not RAW.search(row["label"]) for row in result["sheet"])


@pytest.mark.parametrize("game_id", ["abandon_ship", "schmuggler", "shipshape", "shipwrecked",
                                     "wreckers"])
def test_the_end_screen_of_every_game(chromium, server: RunningServer, game_id):
    session = play_to_end(server, game_id)
    result, end = session.game.result(), game_end(session)
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    page.wait_for_selector(".result")
    card = page.locator(".result")
    heading = card.locator("h2").inner_text()
    for winner in result["winners"]:
        assert winner in heading
    # Why it ended: the ending note with its rule, and the rule's statement under it.
    rule = end["why"][-1]["rule"]
    assert card.locator(f'.why[data-why="{rule}"]').count() == 1
    statement = catalog.rule_texts(game_id)[rule]["statement"]
    page.wait_for_function("s => document.querySelector('.rule-line').textContent === s",
                           arg=statement)
    # The breakdown: the engine's sheet, row by row, in words.
    rows = card.locator(".breakdown-table tbody tr")
    assert rows.count() == len(result["sheet"])
    labels = rows.locator("th").all_inner_texts()
    assert labels == [r["label"] for r in result["sheet"]]
    assert not RAW.search(" ".join(labels) + " " + card.locator(".breakdown-table").inner_text())
    # The chart: one line per series, ending at the series' last value.
    chart = end["chart"]
    assert card.locator("svg.chart path.series").count() == len(chart["series"])
    for name, values in chart["series"].items():
        assert card.locator("svg.chart text.series-label", has_text=f"{name} {values[-1]}").count() == 1
    assert card.locator("[data-path]").inner_text() == end["path"]
    assert tablet.errors == []
    page.close()


def test_rule_chips_open_the_rule_text_and_play_again_keeps_the_table(chromium,
                                                                      server: RunningServer):
    session = play_to_end(server, "wreckers")
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    page.wait_for_selector(".result")
    # A rule id in the history opens its text: SPEC's statement and the rulebook's sentence.
    chip = page.locator('.history button.rule[data-rule="R-WR-09"]').first
    chip.click()
    dialog = page.locator("dialog[open] [data-rule-text='R-WR-09']")
    dialog.wait_for()
    text = catalog.rule_texts("wreckers")["R-WR-09"]
    shown = " ".join(dialog.inner_text().split())
    assert text["statement"] in shown
    assert all(" ".join(p.split()) in shown for p in text["source"])
    assert "The rulebook says" in shown and "Original" not in shown  # an English rulebook
    page.locator("dialog[open] button", has_text="Close").click()
    # Play again: the same game, players, colours and options; a new seed; a new saved row.
    old = session.saved
    page.locator('[data-do="play-again"]').click()
    page.wait_for_function("row => window.tableassist.state.game.row !== row", arg=old.id)
    new = server.table.current().saved
    assert (new.game, list(new.players), new.options) == (old.game, list(old.players), old.options)
    assert new.seed != old.seed
    assert server.table.tokens.colours(new.id) == server.table.tokens.colours(old.id)
    page.wait_for_selector(".prompt")
    # New game: the games screen.
    tablet.page.evaluate("() => { window.tableassist.lobbyOpen = true; window.tableassist.redraw(); }")
    assert page.locator('[data-do="start"]').is_visible()
    assert tablet.errors == []
    page.close()


def test_every_rule_the_engines_can_cite_has_its_text():
    """Every rule id in the engines' source (notes, prompts, refusals) is in its game's rules file,
    with a statement; and the rulebook's words for it, if it says it in words
    (tests/test_rule_quotes.py checks those)."""
    import pathlib
    cited = re.compile(r"\b[RG]-(SW|AS|SB|WR|SS)-\d+[a-z]?\b")
    code = {"SW": "shipwrecked", "AS": "abandon_ship", "SB": "schmuggler", "WR": "wreckers",
            "SS": "shipshape"}
    root = pathlib.Path(catalog.__file__).resolve().parent.parent
    found = set()
    for path in [*root.joinpath("games").glob("*.py"), *root.joinpath("readers").glob("*.py")]:
        found |= {m.group(0) for m in cited.finditer(path.read_text(encoding="utf-8"))}
    assert len(found) > 100
    for rule in sorted(found):
        texts = catalog.rule_texts(code[rule.split("-")[1]])
        assert rule in texts, f"{rule} has no text in games/rules/"
        assert texts[rule]["statement"], rule
        assert isinstance(texts[rule].get("source", []), list), rule


def test_the_abandon_ship_chart_tells_each_rats_climb_and_a_tie_says_its_rule(
        chromium, server: RunningServer):
    """Abandon Ship's rats score only at the end, so its chart follows each rat's climb: every
    line moves during the game, not only at its last entry; the legend fits in the picture and
    every line has its own mark. A tie in the ranking says how it was settled, with the rule."""
    players = ["Ann", "Bea", "Cy", "Dan"]
    session = server.table.start("abandon_ship", players, options=None, seed=3)
    twin = catalog.new_game("abandon_ship", players, seed=3)
    for action in random_actions(twin, random.Random(3)):
        session.submit(action)
    while session.game.result() is None:
        session.submit(session.game.legal_actions(None)[0])
    chart = game_end(session)["chart"]
    assert chart["label"] == "Each rat's climb (space on the ship)"
    half = len(chart["x"]) // 2
    for rat, values in chart["series"].items():
        assert values[0] == 1 and len(set(values[:half])) > 1, (rat, values)
    tied = [r for r in session.game.result()["ranking"] if "tie" in r]
    assert [r["player"] for r in tied] == ["Ann", "Cy"] and tied[0]["tie"]["rule"] == "G-AS-17"

    page = chromium.new_page(viewport={"width": 390, "height": 844})
    Tablet(page, f"{server.url}#t={server.tokens.table}")
    card = page.locator(".result")
    card.wait_for()
    svg = card.locator("svg.chart")
    frame = svg.bounding_box()
    labels = svg.locator("text.series-label")
    assert labels.count() == len(chart["series"])
    for i in range(labels.count()):
        b = labels.nth(i).bounding_box()
        assert frame["y"] <= b["y"] and b["y"] + b["height"] <= frame["y"] + frame["height"] + 1
        assert b["x"] + b["width"] <= frame["x"] + frame["width"] + 1, labels.nth(i).inner_text()
    marks = svg.locator(".mark")
    assert marks.count() == 2 * len(chart["series"])          # at each line's end and in its label
    assert len(set(marks.evaluate_all("ms => ms.map(m => m.dataset.mark)"))) == len(chart["series"])
    tie = card.locator('tr[data-player="Ann"] .tie')
    assert tie.inner_text().startswith("level with Cy on 5 and on cheese points: the place is shared")
    assert tie.locator('button.rule[data-rule="G-AS-17"]').count() == 1
