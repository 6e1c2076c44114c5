"""The boards as pictures, in the real page (Debian's Chromium): every game is played through the
real server by seeded random legal play, and at positions along the way each picture's elements
are read off the page and checked against the engine's shared view — the waterline's height and
each rat's space, the cards on the route, the face-down bid cards per row, each hold's visible
cells and layers, the Wreckers chart's points. Then a changed number flashes and says why."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from typing import Any

import pytest

from tests.games.random_play import all_legal_actions
from tests.server.conftest import RunningServer
from tests.plugins.browser import TABLET
from tests.server.tablet import Tablet, bid, start_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a real browser

PHONE = {"width": 390, "height": 844}
FOUR = ["Ann", "Bea", "Cy", "Dee"]
COLOURS = dict(zip(FOUR, ["red", "blue", "green", "yellow"]))


class Table:
    """A game on the real server, a tablet and a phone following it, and random legal play."""

    def __init__(self, chromium, server: RunningServer, game_id: str, players: list[str],
                 seed: int, phone: bool) -> None:
        server.table.start(game_id, players, options=None, seed=seed,
                           colours={p: COLOURS[p] for p in players})
        self.session = server.table.current()
        self.rng = random.Random(seed)
        self.pages = []
        for viewport in (TABLET, PHONE) if phone else (TABLET,):
            page = chromium.new_page(viewport=viewport)
            tablet = Tablet(page, server.url)  # a spectator: the shared screen
            page.wait_for_selector(".play")
            self.pages.append(tablet)

    def play(self, n: int) -> None:
        for _ in range(n):
            game = self.session.game
            if game.is_over:
                return
            action = self.rng.choice(all_legal_actions(game))
            if action["player"] is None:
                action = game.chance_action() or action
            self.session.submit(action)

    def positions(self, js: str, every: int, most: int = 400):
        """Yield (facts, view) at every ``every`` actions until the game ends, for both screens:
        ``js``'s facts read off the page as it shows the view of that very step (the stop
        window's clock may act meanwhile; then both are read again)."""
        for _ in range(0, most, every):
            for tablet in self.pages:
                tablet.open()  # a screen that joins now: the position as the server sends it
                tablet.page.wait_for_selector(".play")
                yield self.snapshot(tablet.page, js)
                tablet.page.goto("about:blank")  # no redraw per action between positions
            if self.session.game.is_over:
                break
            self.play(every)

    def snapshot(self, page, js: str) -> tuple[dict[str, Any], dict[str, Any]]:
        while True:
            with self.session._lock:  # the step count and its view, with no action half applied
                n = len(self.session.steps)
                # A copy: a view may share lists with the engine's state (ShipShape's `laid`).
                view = json.loads(json.dumps(self.session.game.view(None)))
            page.wait_for_function("n => (window.tableassist.state.history || []).length >= n", arg=n)
            got = page.evaluate(f"() => ({{steps: window.tableassist.state.history.length, facts: ({js})()}})")
            if got["steps"] == n == len(self.session.steps):
                return got["facts"], view

    def close(self) -> None:
        for tablet in self.pages:
            assert tablet.errors == []
            tablet.page.close()


@pytest.fixture
def table(chromium, server):
    tables: list[Table] = []

    def make(game_id: str, players: list[str], seed: int, phone: bool = False) -> Table:
        """``phone``: a phone follows too (its pictures are laid out for it)."""
        tables.append(Table(chromium, server, game_id, players, seed, phone))
        return tables[-1]
    yield make
    for t in tables:
        t.close()


# -- Abandon Ship -------------------------------------------------------------------------------

SHIP = """() => {
  const svg = document.querySelector("svg.ship");
  const water = [...svg.querySelectorAll(".water-body")].map((r) => r.getBBox());
  const wet = (x, y) => water.some((b) => x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height);
  const rats = (el) => [...el.querySelectorAll(".rat")].map((r) => r.dataset.rat).sort();
  const spaces = [...svg.querySelectorAll(".space")].map((g) => {
    const b = g.querySelector("rect.tile").getBBox();
    return {n: +g.dataset.space, submerged: g.dataset.submerged === "1",
            under_water: wet(b.x + b.width / 2, b.y + b.height / 2), rats: rats(g),
            cheese: [...g.querySelectorAll(".cheese")].map((c) => +c.dataset.cheese)};
  });
  const sinking = document.querySelector("svg.dice .sinking");
  return {
    waterline: +svg.dataset.waterline, spaces, all_rats: svg.querySelectorAll(".rat").length,
    slots: Object.fromEntries([...svg.querySelectorAll(".slot")].map((g) => [g.dataset.slot, rats(g)])),
    washed: [...svg.querySelectorAll(".rat[data-where=washed]")].map((r) => r.dataset.rat).sort(),
    dice: Object.fromEntries([...document.querySelectorAll("svg.dice .die")].map((d) => [d.dataset.die,
      {face: d.dataset.face, where: d.dataset.where, lies: d.closest(".dice-group").dataset.where}])),
    face_down: sinking.querySelectorAll(".token.face-down").length,
    revealed: [...sinking.querySelectorAll(".token.revealed")].map((t) => +t.dataset.value),
  };
}"""


def check_ship(seen: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    w = view["waterline"]
    assert seen["waterline"] == w
    assert [s["n"] for s in seen["spaces"]] == list(range(1, view["top_deck"]))
    on_space: dict[int, list[str]] = defaultdict(list)
    for rat in view["rats"]:
        if rat["where"] == "board":
            on_space[rat["space"]].append(rat["colour"])
    cheese = {c["space"]: c["value"] for c in view["cheese_on_board"]}
    for space in seen["spaces"]:
        n = space["n"]
        # The water's height: the spaces up to the waterline are drawn under it, none above.
        assert space["submerged"] is space["under_water"] is (n <= w), (n, w)
        assert space["rats"] == sorted(on_space[n]), n
        assert space["cheese"] == ([cheese[n]] if n in cheese else []), n
    assert seen["all_rats"] == len(view["rats"])
    assert seen["slots"] == {s["label"]: sorted(s["rats"]) for s in view["slots"]}
    assert seen["washed"] == sorted(r["colour"] for r in view["rats"] if r["where"] == "washed")
    assert seen["dice"] == {d["id"]: {"face": d["face"] or "", "where": d["where"], "lies": d["where"]}
                            for d in view["dice"]}
    assert seen["face_down"] == view["sinking_tokens"]["remaining"]
    assert seen["revealed"] == view["sinking_tokens"]["revealed"]
    return view


def test_abandon_ship_the_ship_as_the_view_has_it(table):
    t = table("abandon_ship", FOUR, seed=1, phone=True)
    views = [check_ship(*seen) for seen in t.positions(SHIP, every=30)]
    assert views[-1]["over"]
    assert {v["waterline"] for v in views} - {0}, "the water rose"
    assert any(r["where"] == "washed" for r in views[-1]["rats"])
    assert any(s["rats"] for s in views[-1]["slots"])


# -- Schmuggler an Bord ---------------------------------------------------------------------------

ROUTE = """() => {
  const svg = document.querySelector("svg.route");
  const count = (el, sel) => el ? el.querySelectorAll(sel).length : null;
  return {
    piece: +svg.dataset.piece,
    spaces: [...svg.querySelectorAll(".space")].map((g) => ({n: +g.dataset.space, card: g.dataset.card === "1",
      here: g.classList.contains("here")})),
    kitty: count(svg.querySelector(".chip-stack.kitty"), ".chip-disc"),
    players: Object.fromEntries([...document.querySelectorAll("svg.holdings")].map((h) => [h.dataset.player,
      {chips: count(h, ".chip-disc"), cards: count(h, ".card-fan .card-back")}])),
  };
}"""


def check_route(seen: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    here = view["piece"]["space"]
    assert seen["piece"] == here
    assert seen["spaces"] == [{"n": 0, "card": False, "here": here == 0}] + [
        {"n": b["space"], "card": b["card"], "here": b["space"] == here} for b in view["board"]]
    assert seen["kitty"] == view["kitty"]
    assert seen["players"] == {p["name"]: {"chips": p["chips"], "cards": p["cards"]}
                               for p in view["players"]}
    return view


def test_schmuggler_the_route_chips_and_cards_as_the_view_has_them(table):
    t = table("schmuggler", FOUR[:3], seed=2)
    views = [check_route(*seen) for seen in t.positions(ROUTE, every=20, most=200)]
    assert len({v["piece"]["space"] for v in views}) > 2, "the piece moved round the loop"
    assert any(v["kitty"] for v in views)
    assert len({sum(b["card"] for b in v["board"]) for v in views}) > 2, "cards were taken"


# -- Shipwrecked ---------------------------------------------------------------------------------

BIDS = """() => {
  const board = document.querySelector("svg.bid-board");
  const lot = board.querySelector("[data-lot]");
  return {
    state: board.dataset.state,
    rows: [...board.querySelectorAll(".bid-row")].map((r) => ({row: +r.dataset.row, face_down: +r.dataset.faceDown,
      backs: r.querySelectorAll(".bid-card.face-down").length,
      cards: Object.fromEntries([...r.querySelectorAll(".bid-card")].map((c) => [c.dataset.player, c.dataset.card]))})),
    lot: lot ? lot.dataset.card : null,
    bank: document.querySelectorAll("svg.bank .gem-heap.bank .gem").length,
    display: [...document.querySelectorAll('svg.bank [data-list=bank_display] .resource-card')].map((c) => c.dataset.card),
    players: Object.fromEntries([...document.querySelectorAll("svg.holdings")].map((h) => [h.dataset.player, {
      gems: h.querySelectorAll(".gem").length,
      groups: Object.fromEntries([...h.querySelectorAll(".group")].map((g) => [g.dataset.group,
        [...g.querySelectorAll(".resource-card")].map((c) => c.dataset.card)])),
      progress: [...h.querySelectorAll(".progress")].map((p) => [+p.dataset.value, +p.dataset.goal])}])),
  };
}"""


def check_bids(seen: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    shown = view["bid"] or view["last_bid"]
    assert seen["state"] == ("bidding" if view["bid"] else "last" if view["last_bid"] else "none")
    rows = shown["rows"] if shown else []
    participants = shown["participants"] if shown else [p["name"] for p in view["players"]]
    assert [r["row"] for r in seen["rows"]] == [1, 2, 3, 4, 5, 6]
    for r in seen["rows"]:
        row = rows[r["row"] - 1] if r["row"] <= len(rows) else {}
        faces = Counter(row.values())
        # The number of face-down cards per row, drawn as backs; face-up cards as they lie.
        assert r["face_down"] == r["backs"] == faces["FACE_DOWN"], r
        assert r["cards"] == {p: row.get(p, "") for p in participants}, r
    lot = view["lot"]
    assert seen["lot"] == (None if lot is None else "hidden" if lot["hidden"] else lot["card"])
    assert seen["bank"] == view["bank_gems"]
    assert seen["display"] == view["bank_display"]
    win = view["win"]
    for p in view["players"]:
        mine = seen["players"][p["name"]]
        assert mine["gems"] == p["gems"]
        assert sorted(c for cards in mine["groups"].values() for c in cards) == sorted(p["resources"])
        for group, cards in mine["groups"].items():
            assert all(c.startswith(group + "-") for c in cards)
        assert mine["progress"] == [[p["points"][g], win["single_group_min"]] for g in mine["groups"]] \
            + [[p["points_total"], win["total_min"]]]
    return view


def test_shipwrecked_the_bid_board_lot_gems_and_cards_as_the_view_has_them(table):
    t = table("shipwrecked", FOUR, seed=1, phone=True)
    views = [check_bids(*seen) for seen in t.positions(BIDS, every=6, most=160)]
    rows = [r for v in views if v["bid"] for r in v["bid"]["rows"]]
    assert any("FACE_DOWN" in r.values() for r in rows)
    assert any(v["last_bid"] and not v["bid"] for v in views) or any(v["last_bid"] for v in views)
    assert any(p["resources"] for p in views[-1]["players"])


# -- ShipShape -----------------------------------------------------------------------------------

HOLDS = """() => ({
  holds: Object.fromEntries([...document.querySelectorAll("svg.hold")].map((h) => [h.dataset.player, {
    layers: +h.dataset.layers,
    plates: [...h.querySelectorAll(".crate-plate")].map((p) => p.dataset.crate),
    cells: [...h.querySelectorAll(".cell")].map((c) => ({row: +c.dataset.row, col: +c.dataset.col,
      shows: c.dataset.shows, source: c.dataset.source, layer: +c.dataset.layer}))}])),
  stacks: [...document.querySelectorAll("svg.groups .crate-stack")].map((s) => ({left: +s.dataset.left,
    top: s.dataset.top, named: s.querySelectorAll(".slab").length})),
  crew: [...document.querySelectorAll("svg.groups .group")].map((g) => Object.fromEntries(
    [...g.querySelectorAll(".crew-card")].map((c) => [c.dataset.member, [c.dataset.state, c.dataset.value]]))),
})"""


def check_holds(seen: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    with_hold = [p for p in view["players"] if p.get("visible")]
    assert set(seen["holds"]) == {p["name"] for p in with_hold}
    for p in with_hold:
        hold = seen["holds"][p["name"]]
        crates = [layer["crate"] for layer in p["layers"]]
        assert hold["layers"] == len(crates) and hold["plates"] == crates
        level = {c: i + 1 for i, c in enumerate(crates)}
        cells = sorted(hold["cells"], key=lambda c: (c["row"], c["col"]))
        # Each cell is what the view says shows from above, drawn on the layer it shows from.
        assert cells == [{"row": c["row"], "col": c["col"], "shows": p["visible"][c["row"]][c["col"]],
                          "source": c["source"], "layer": 0 if c["source"] == "hold" else level[c["source"]]}
                         for c in p["cells"]]
    # The stacks: how many crates are left and only the top one named (never one below it).
    assert seen["stacks"] == [{"left": g["crates_left"], "top": (g["top_crate"] or {}).get("crate", ""),
                               "named": g["crates_left"]} for g in view["groups"]]
    for group, crew in zip(view["groups"], seen["crew"]):
        assert crew == {m: ["face-up", str(group["reveal"][m])] if m in (group["reveal"] or {})
                        else ["face-down", ""] if m in group["laid"] else ["none", ""]
                        for m in group["members"]}
    return view


def test_shipshape_the_holds_stacks_and_crew_cards_as_the_view_has_them(table):
    t = table("shipshape", FOUR, seed=3)
    views = [check_holds(*seen) for seen in t.positions(HOLDS, every=5, most=120)]
    assert any(len(p["layers"]) >= 2 for v in views for p in v["players"])
    assert any(g["top_crate"] for v in views for g in v["groups"])
    assert any(g["reveal"] for v in views for g in v["groups"])
    assert any(set(g["laid"]) - set(g["reveal"] or {}) for v in views for g in v["groups"])


# -- Wreckers --------------------------------------------------------------------------------------

CHART = """() => ({
  round: +document.querySelector("svg.round-track").dataset.round,
  current: [...document.querySelectorAll("svg.round-track .round.current")].map((r) => +r.dataset.round),
  lines: Object.fromEntries([...document.querySelectorAll("svg.chart .line")].map((l) => [l.dataset.player,
    [...l.querySelectorAll(".point")].map((p) => [+p.dataset.x, +p.dataset.value])])),
  live: document.querySelector("svg.chart").dataset.live === "1",
  companies: Object.fromEntries([...document.querySelectorAll("svg.company")].map((c) => [c.dataset.player, {
    backs: c.querySelectorAll(".hand .card-back").length, slots: c.querySelectorAll(".hand rect").length,
    tokens: c.querySelectorAll(".discovery-tokens .discovery").length}])),
})"""


def money_points(session) -> dict[str, list[list[int]]]:
    """Each company's money at the start, at the end of every round (the step that moves the round
    on) and now: replayed from the log, step by step, independently of the page and the server."""
    game = session.game.replayed([])
    views = [game.view(None)]
    for step in session.steps:
        game.apply(step.action)
        views.append(game.view(None))
    picks = [(0, views[0])] + [(a["round"], b) for a, b in zip(views, views[1:]) if b["round"] != a["round"]]
    if not views[-1]["over"] or picks[-1][0] != views[-1]["round"]:
        picks.append((views[-1]["round"], views[-1]))
    return {p["name"]: [[x, next(q["money"] for q in v["players"] if q["name"] == p["name"])]
                        for x, v in picks] for p in views[0]["players"]}


def test_wreckers_the_money_chart_round_track_hands_and_discovery(table):
    t = table("wreckers", FOUR, seed=5)
    rounds = set()
    for seen, view in t.positions(CHART, every=40, most=600):
        assert seen["round"] == view["round"]
        assert seen["current"] == ([] if view["over"] else [view["round"]])
        assert seen["lines"] == money_points(t.session)
        assert seen["live"] is not view["over"]
        # The chart ends at the money each company has now.
        assert {p: pts[-1][1] for p, pts in seen["lines"].items()} == \
            {p["name"]: p["money"] for p in view["players"]}
        assert seen["companies"] == {p["name"]: {"backs": p["hand_count"], "slots": p["hand_size"],
                                                 "tokens": p["discovery"]} for p in view["players"]}
        rounds.add(view["round"])
    assert len(rounds) >= 5 and view["over"]


# -- a number that changes ---------------------------------------------------------------------------

def test_a_changed_number_flashes_and_says_why_on_a_tap(chromium, server):
    page = chromium.new_page(viewport=TABLET)
    tablet = Tablet(page, f"{server.url}#t={server.tokens.table}")
    start_game(tablet, "shipwrecked")
    gems = lambda p: page.locator(f'.player[data-player="{p}"] [data-stat="gems"]')  # noqa: E731
    assert page.locator(".stat.changed").count() == 0  # nothing flashes on a fresh screen
    tablet.press("table", "choose_first_player", "Ann goes first")
    bid(tablet, "FOOD-50", "Bea", ["Ann", "Bea", "Cy"])  # Bea pays 5, then takes her income
    assert "changed" in gems("Bea").get_attribute("class")
    assert "changed" not in gems("Ann").get_attribute("class")  # Ann's 13 did not move
    gems("Bea").click()
    why = page.locator("#why")
    why.wait_for(state="visible")
    words = why.inner_text()
    assert f"Bea: Gems 13 → {tablet.player_stat('Bea', 'gems')}" in words
    # Why: she paid for the lot (R-SW-11) and took her income (R-SW-02), each with its rule.
    assert "Bea wins the lot" in words and "R-SW-11" in words
    assert "Bea takes 1 gem from the bank (income)" in words and "R-SW-02" in words
    why.locator('[data-do="close-why"]').click()
    assert not why.is_visible()

    tablet.undo()  # the reveal is taken back: Bea's gems go back up, and say it was undone
    assert "changed" in gems("Bea").get_attribute("class")
    gems("Bea").click()
    why.wait_for(state="visible")
    assert "Undone:" in why.inner_text() and "→ 13" in why.inner_text()
    why.locator('[data-do="close-why"]').click()

    tablet.open()  # a reload starts afresh: nothing flashes, nothing to explain yet
    page.wait_for_selector(".play")
    assert page.locator(".stat.changed").count() == 0 and page.locator(".stat.why").count() == 0
    assert tablet.errors == []
    page.close()
