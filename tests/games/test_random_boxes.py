"""The rules that depend on the component data, over random boxes (issue 16): a family's own box
may hold any values its form allows, so ShipShape's visibility and scoring and Abandon Ship's
board are checked over random valid box files, not only the shipped data.

Each box is made by :func:`shipshape_box` / :func:`abandon_ship_box` (a generator of valid box
files), written as a box file, read back and checked as an import would (form, then the engine),
and merged over the shipped data by the catalog: the components a new game is played with. The
games are random legal play (``tests/games/random_play.py``); what they show is compared with a
reference written the other way round (``tests/games/shipshape_reference.py``) or with the box's
own numbers. Only public views are read, so the engines' internals are free to change."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from tableassist.table import catalog
from tableassist.table.box import Box
from tableassist.table.box_file import dump_text, parse_text
from tableassist.table.box_form import form
from tests.games import shipshape_reference as ref
from tests.games.random_play import random_actions

BOXES = 20
NAMES = ["Ann", "Bea", "Cy", "Dee", "Eve", "Fay", "Gus"]


def item(rng: random.Random) -> str:
    return rng.choice("GKXR") + str(rng.randint(1, 9))


def grid(rng: random.Random, cells: list[str], rows: int = 3, cols: int = 3) -> list[str]:
    """A grid in the box file's notation; ``*`` stands for an item with a random value."""
    return [" ".join(item(rng) if c == "*" else c
                     for c in (rng.choice(cells) for _ in range(cols))) for _ in range(rows)]


def shipshape_box(rng: random.Random) -> dict[str, dict[str, Any]]:
    """Random entries for some of ShipShape's holds and crates (the rest stay as shipped): any
    grid a hold or a crate may hold, a back of its own or the front mirrored, stickers in any
    corner; some entries checked, some only saved."""
    entries: dict[str, dict[str, Any]] = {}
    for path in form("shipshape").entries:
        if rng.random() < 0.3:
            continue
        values: dict[str, Any] = {"checked": rng.random() < 0.7}
        if path.startswith("holds["):
            values["grid"] = grid(rng, [".", ".", "*"])
        else:
            values["front"] = grid(rng, [".", ".", "#", "*", "*"])
            values["back"] = "mirror" if rng.random() < 0.6 else grid(rng, [".", "#", "*", "*"])
            values["sticker_front"] = rng.choice(["NW", "NE", "SE", "SW"])
            values["sticker_back"] = rng.choice(["NW", "NE", "SE", "SW"])
        entries[path] = values
    return entries


def abandon_ship_box(rng: random.Random) -> dict[str, dict[str, Any]]:
    """A random Abandon Ship board: a short or long ship, the waterline starting low or not, a
    cheese token on each of a random set of cheese spaces, random sinking tokens."""
    top_deck = rng.randint(6, 45)
    start = rng.choice([0, 0, rng.randint(0, top_deck // 3)])
    spaces = sorted(rng.sample(range(max(1, start + 1), top_deck), rng.randint(1, min(
        8, top_deck - max(1, start + 1)))))
    return {
        "board": {"checked": True, "top_deck": top_deck, "waterline_start": start,
                  "cheese_spaces": spaces},
        "cheese_tokens": {"checked": True, "values": [rng.randint(1, 9) for _ in spaces]},
        "sinking_tokens": {"checked": rng.random() < 0.5,
                           "values": [rng.randint(1, 5) for _ in range(rng.randint(3, 12))]},
    }


def components(tmp_path, game: str, entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The box as a file, imported (every check an import makes), merged by the catalog."""
    box = Box(tmp_path / f"box-{random.random()}")
    text = dump_text({game: entries})
    assert parse_text(text)[game].keys() == entries.keys()
    box.import_text(text)
    assert box.progress(game)["problem"] is None and box.progress(game)["unplayable"] is None
    return catalog.load_components(game, box)


# -- ShipShape: what a hold shows and what it scores --------------------------------------------

def check_voyage(view: dict[str, Any], data: dict[str, Any], blank_filled: bool,
                 netting: str) -> None:
    everyone = {}
    for player in view["players"]:
        shown, totals = ref.player_totals(player, data, blank_filled)
        assert player["visible"] == [[token for token, _ in row] for row in shown]
        assert player["totals"] == totals
        everyone[player["name"]] = totals
    assert ref.sheet_coins(view["score_sheet"]) == ref.coins(
        everyone, bonus=data["full_ship_bonus"], netting=netting)


@pytest.mark.parametrize("seed", range(BOXES))
def test_shipshape_shows_and_scores_any_box_as_the_reference_does(tmp_path, seed):
    rng = random.Random(seed)
    entries = shipshape_box(rng)
    data = components(tmp_path, "shipshape", entries)
    options = {"blank_counts_as_filled": seed % 3 != 0,
               "negative_netting": "per_category_floor" if seed % 4 == 1 else "net"}
    players = NAMES[:3 + seed % 4]
    game = catalog.new_game("shipshape", players, seed=seed, options=options, components=data)
    # the box's values are the ones played with: what was checked is no longer unverified
    unverified = set(game.view(None)["unverified"])
    assert {p for p, v in entries.items() if v["checked"]} == set(form("shipshape").unverified) - unverified
    scored = 0
    log = []
    for action in random_actions(game, rng):
        log.append(action)
        view = game.view(None)
        if view["score_sheet"] and view["score_sheet"]["voyage"] > scored:
            check_voyage(view, data, options["blank_counts_as_filled"],
                         options["negative_netting"])
            scored = view["score_sheet"]["voyage"]
    assert game.is_over and scored == 3
    # a replay through JSON with the same components is the same game
    again = catalog.new_game("shipshape", players, seed=seed, options=options, components=data)
    for action in json.loads(json.dumps(log)):
        again.apply(action)
    assert again.view(None) == game.view(None)


# -- Abandon Ship: the board's length, its cheese and its water --------------------------------

@pytest.mark.parametrize("seed", range(BOXES))
def test_abandon_ship_plays_on_any_board_of_a_box(tmp_path, seed):
    rng = random.Random(seed)
    entries = abandon_ship_box(rng)
    board = entries["board"]
    data = components(tmp_path, "abandon_ship", entries)
    players = NAMES[:3 + seed % 5]
    game = catalog.new_game("abandon_ship", players, seed=seed, components=data)
    view = game.view(None)
    assert view["top_deck"] == board["top_deck"]
    assert view["waterline"] == board["waterline_start"]
    assert view["sinking_tokens"]["remaining"] == len(entries["sinking_tokens"]["values"])
    assert not {"board", "cheese_tokens"} & set(view["unverified"])
    waterline = view["waterline"]
    cheese_laid: list[int] = []
    for _ in random_actions(game, rng):
        view = game.view(None)
        on_board = [r for r in view["rats"] if r["where"] == "board"]
        # every rat on the board is below the top deck: a longer or shorter ship ends elsewhere
        assert all(1 <= r["space"] < board["top_deck"] for r in on_board)
        # the water only rises, by the box's tokens, and never past the top deck
        assert waterline <= view["waterline"] < board["top_deck"]
        waterline = view["waterline"]
        rose = sum(view["sinking_tokens"]["revealed"])
        assert view["waterline"] <= board["waterline_start"] + rose
        assert Counter(view["sinking_tokens"]["revealed"]) <= Counter(
            entries["sinking_tokens"]["values"])
        if not cheese_laid and view["phase"] != "place_cheese":
            cheese_laid = [c["space"] for c in view["cheese_on_board"]]
    assert game.is_over
    # the cheese lay on the box's cheese spaces, one token on each
    assert sorted(cheese_laid) == board["cheese_spaces"]
    # the rats that reached the top deck are the ones in the slots (the board's end is its top)
    scored = [r for slot in view["slots"] for r in slot["rats"]]
    assert all(r["where"] != "board" for r in view["rats"] if r["colour"] in scored)
